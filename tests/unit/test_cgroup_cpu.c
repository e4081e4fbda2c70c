/*
 * decoder/cgroup_cpu: cpu.stat, cpu.max, cpu.cfs_*_us and /proc/PID/cgroup
 * as kernels of cgroup v1 and v2 print them, and what is refused.  Each
 * input is handed over in a heap buffer of its exact size, without a
 * NUL, so that a read past its length is an ASan error.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>

#include "../../common/array.h"
#include "../../decoder/cgroup_cpu.h"
#include "records.h"

/* An exact-size heap copy of text without its NUL.  Caller frees. */
static char *exact_copy(const char *text)
{
	size_t len = strlen(text);
	char *p = malloc(len ? len : 1);

	assert_non_null(p);
	memcpy(p, text, len);
	return p;
}

static int parse_stat(const char *text, int v2, struct cgroup_cpu_stat *s)
{
	char *p = exact_copy(text);
	int r = cgroup_parse_cpu_stat(p, strlen(text), v2, s);

	free(p);
	return r;
}

static int parse_max(const char *text, int64_t *q, int64_t *per)
{
	char *p = exact_copy(text);
	int r = cgroup_parse_cpu_max(p, strlen(text), q, per);

	free(p);
	return r;
}

static int parse_us(const char *text, int64_t *v)
{
	char *p = exact_copy(text);
	int r = cgroup_parse_us(p, strlen(text), v);

	free(p);
	return r;
}

static int parse_proc(const char *text, char *path, size_t n, int *v2)
{
	char *p = exact_copy(text);
	int r = cgroup_parse_proc_cgroup(p, strlen(text), path, n, v2);

	free(p);
	return r;
}

/* A 6.x kernel's v1 cpu.stat, with the burst and wait lines after. */
static void v1_cpu_stat_gives_throttled_time_in_ns(void **state)
{
	struct cgroup_cpu_stat s;

	(void)state;
	assert_int_equal(parse_stat("nr_periods 52\nnr_throttled 41\n"
				    "throttled_time 3312456789\nnr_bursts 0\n"
				    "burst_time 0\n", 0, &s), 0);
	assert_int_equal(s.nr_periods, 52);
	assert_int_equal(s.nr_throttled, 41);
	assert_int_equal(s.throttled_ns, 3312456789ull);
	/* No newline at the end. */
	assert_int_equal(parse_stat("nr_periods 1\nnr_throttled 0\n"
				    "throttled_time 7", 0, &s), 0);
	assert_int_equal(s.throttled_ns, 7);
}

/* v2's cpu.stat starts with the usage lines and counts in us. */
static void v2_cpu_stat_turns_throttled_usec_into_ns(void **state)
{
	struct cgroup_cpu_stat s;

	(void)state;
	assert_int_equal(parse_stat("usage_usec 912345\nuser_usec 900000\n"
				    "system_usec 12345\nnr_periods 30\n"
				    "nr_throttled 24\nthrottled_usec 1950000\n"
				    "nr_bursts 0\nburst_usec 0\n", 1, &s), 0);
	assert_int_equal(s.nr_periods, 30);
	assert_int_equal(s.nr_throttled, 24);
	assert_int_equal(s.throttled_ns, 1950000000ull);
}

static void cpu_stat_without_the_counters_is_refused_and_out_kept(void **state)
{
	static const char *const bad[] = {
		"",
		/* v2's root cgroup: no quota, no nr_ lines */
		"usage_usec 1\nuser_usec 1\nsystem_usec 0\n",
		"nr_periods 1\nnr_throttled 1\n",
		"nr_periods 1\nnr_throttled x\nthrottled_time 1\n",
		"nr_periods -1\nnr_throttled 1\nthrottled_time 1\n",
		"nr_periods 1\nnr_throttled 1\nthrottled_time 99999999999999999999999\n",
		/* a longer name is another counter */
		"nr_periods 1\nnr_throttledX 1\nthrottled_time 1\n",
	};
	struct cgroup_cpu_stat s, before;

	(void)state;
	memset(&s, 0x5a, sizeof(s));
	before = s;
	for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
		if (parse_stat(bad[i], 0, &s) != -EINVAL)
			fail_msg("accepted: '%s'", bad[i]);
		assert_memory_equal(&s, &before, sizeof(s));
	}
	/* v1's time line is not v2's. */
	assert_int_equal(parse_stat("nr_periods 1\nnr_throttled 1\n"
				    "throttled_time 5\n", 1, &s), -EINVAL);
	assert_int_equal(parse_stat("nr_periods 1\nnr_throttled 1\n"
				    "throttled_usec 5\n", 0, &s), -EINVAL);
}

static void cpu_max_gives_quota_and_period(void **state)
{
	int64_t q = 0, per = 0;

	(void)state;
	assert_int_equal(parse_max("20000 100000\n", &q, &per), 0);
	assert_int_equal(q, 20000);
	assert_int_equal(per, 100000);
	assert_int_equal(parse_max("max 100000\n", &q, &per), 0);
	assert_int_equal(q, CGROUP_NO_QUOTA);
	assert_int_equal(per, 100000);
	assert_int_equal(parse_max("max", &q, &per), -EINVAL);
	assert_int_equal(parse_max("-1 100000\n", &q, &per), -EINVAL);
	assert_int_equal(parse_max("20000 0\n", &q, &per), -EINVAL);
	assert_int_equal(parse_max("maxx 100000\n", &q, &per), -EINVAL);
	assert_int_equal(q, CGROUP_NO_QUOTA);
}

static void v1_quota_and_period_files_are_one_number(void **state)
{
	int64_t v = 0;

	(void)state;
	assert_int_equal(parse_us("20000\n", &v), 0);
	assert_int_equal(v, 20000);
	assert_int_equal(parse_us("-1\n", &v), 0);
	assert_int_equal(v, CGROUP_NO_QUOTA);
	assert_int_equal(parse_us("", &v), -EINVAL);
	assert_int_equal(parse_us("-2\n", &v), -EINVAL);
	assert_int_equal(parse_us("12 \n", &v), -EINVAL);
	assert_int_equal(v, CGROUP_NO_QUOTA);
}

/* v1 names the controllers; a hierarchy of cpu,cpuacct counts as cpu;
 * cpuacct or cpuset alone does not. */
static void proc_cgroup_picks_the_v1_cpu_hierarchy(void **state)
{
	char path[64];
	int v2 = -1;

	(void)state;
	assert_int_equal(parse_proc("12:cpuset:/other\n4:cpuacct:/x\n"
				    "3:cpu,cpuacct:/fl/quota\n0::/user.slice\n",
				    path, sizeof(path), &v2), 0);
	assert_string_equal(path, "/fl/quota");
	assert_int_equal(v2, 0);
	/* This VM's layout: cpu alone, the v2 line last. */
	assert_int_equal(parse_proc("2:cpuacct:/\n1:cpu:/a b\n0::/", path,
				    sizeof(path), &v2), 0);
	assert_string_equal(path, "/a b");
	assert_int_equal(v2, 0);
}

static void proc_cgroup_takes_v2_when_no_v1_hierarchy_has_cpu(void **state)
{
	char path[64], small[4];
	int v2 = -1;

	(void)state;
	assert_int_equal(parse_proc("0::/system.slice/x.service\n", path,
				    sizeof(path), &v2), 0);
	assert_string_equal(path, "/system.slice/x.service");
	assert_int_equal(v2, 1);
	assert_int_equal(parse_proc("3:memory:/m\n0::/\n", path, sizeof(path),
				    &v2), 0);
	assert_string_equal(path, "/");
	assert_int_equal(v2, 1);
	assert_int_equal(parse_proc("3:memory:/m\n", path, sizeof(path), &v2),
			 -EINVAL);
	assert_int_equal(parse_proc("", path, sizeof(path), &v2), -EINVAL);
	assert_int_equal(parse_proc("0::/long/path\n", small, sizeof(small),
				    &v2), -EINVAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(v1_cpu_stat_gives_throttled_time_in_ns),
		cmocka_unit_test(v2_cpu_stat_turns_throttled_usec_into_ns),
		cmocka_unit_test(cpu_stat_without_the_counters_is_refused_and_out_kept),
		cmocka_unit_test(cpu_max_gives_quota_and_period),
		cmocka_unit_test(v1_quota_and_period_files_are_one_number),
		cmocka_unit_test(proc_cgroup_picks_the_v1_cpu_hierarchy),
		cmocka_unit_test(proc_cgroup_takes_v2_when_no_v1_hierarchy_has_cpu),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
