/*
 * record --pt and faultline pt, as a user meets them: on a machine
 * without Intel PT (this one: an AMD EPYC VM) record --pt fails at once
 * with the one message that names what is missing, exit status 1, and
 * leaves the database as it was; faultline pt prints the path into a
 * fault from a session's stored trace (built here without PT hardware,
 * tests/unit/pt_db.h).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include "../integration/run.h"
/* See tests/unit/test_pt_decode.c: records.h and gcc 12. */
#pragma GCC diagnostic ignored "-Warray-bounds"
#pragma GCC diagnostic ignored "-Wstringop-overflow"
#include "../unit/records.h"
#include "../unit/pt_db.h"

#define PT_PMU "/sys/bus/event_source/devices/intel_pt"

static int have_pt(void)
{
	return access(PT_PMU, F_OK) == 0;
}

/* "key\t: value" of /proc/cpuinfo's first CPU into buf. */
static void cpuinfo(const char *key, char *buf, size_t n)
{
	FILE *f = fopen("/proc/cpuinfo", "r");
	char line[4096];

	buf[0] = '\0';
	while (f && fgets(line, sizeof(line), f)) {
		char *colon = strchr(line, ':');

		if (!strncmp(line, key, strlen(key)) && colon &&
		    strspn(line + strlen(key), " \t") == (size_t)(colon - line) - strlen(key)) {
			snprintf(buf, n, "%s", colon + 2);
			buf[strcspn(buf, "\n")] = '\0';
			break;
		}
	}
	if (f)
		fclose(f);
}

/* The file's bytes, malloc'd; *len its size.  NULL if absent. */
static char *file_bytes(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	char *b;

	if (!f)
		return NULL;
	fseek(f, 0, SEEK_END);
	*len = (size_t)ftell(f);
	rewind(f);
	b = malloc(*len + 1);
	if (b && fread(b, 1, *len, f) != *len) {
		free(b);
		b = NULL;
	}
	fclose(f);
	return b;
}

static void assert_one_line(const struct run *r, const char *want)
{
	const char *nl = strchr(r->err, '\n');

	if (!strstr(r->err, want) || !nl || nl[1] != '\0')
		fail_msg("expected one line containing '%s', got: %s", want, r->err);
}

static void record_pt_without_intel_pt_names_what_is_missing(void **state)
{
	char vendor[64], model[256], want[1024];
	const char *db = scratch_path("nopt.db");
	struct run r;

	(void)state;
	if (have_pt()) {
		skip_msg("this machine has an intel_pt PMU, so record --pt does "
			 "not fail here");
	}
	assert_int_equal(run_faultline(&r, "record", "--pt", "-o", db, "--", "true",
				       NULL), 1);
	cpuinfo("vendor_id", vendor, sizeof(vendor));
	cpuinfo("model name", model, sizeof(model));
	if (!strcmp(vendor, "AuthenticAMD")) {
		snprintf(want, sizeof(want), "faultline record: cannot record Intel "
			 "PT: there is no intel_pt PMU (no " PT_PMU "): this CPU is "
			 "'%s' (AuthenticAMD), and Intel PT needs an Intel CPU; "
			 "record without --pt\n", model);
		assert_string_equal(r.err, want);
	} else {
		assert_one_line(&r, "faultline record: cannot record Intel PT: "
				"there is no intel_pt PMU");
	}
	/* Nothing half-recorded: not even the file. */
	assert_int_equal(access(db, F_OK), -1);
}

static void record_pt_leaves_an_existing_database_untouched(void **state)
{
	const char *db = scratch_path("keep.db");
	char wal[300];
	struct ptdb d;
	struct run r;
	size_t before_len, after_len;
	char *before, *after;

	(void)state;
	if (have_pt()) {
		skip_msg("this machine has an intel_pt PMU");
	}
	assert_int_equal(ptdb_build(&d, db, 0), 0);
	before = file_bytes(db, &before_len);
	assert_non_null(before);
	assert_int_equal(run_faultline(&r, "record", "--pt=stall", "-o", db, "-a",
				       NULL), 1);
	assert_one_line(&r, "cannot record Intel PT");
	after = file_bytes(db, &after_len);
	assert_non_null(after);
	assert_int_equal(after_len, before_len);
	assert_memory_equal(after, before, before_len);
	snprintf(wal, sizeof(wal), "%s-wal", db);
	assert_int_equal(access(wal, F_OK), -1);
	assert_int_equal(db_int(db, "SELECT count(*) FROM session"), 1);
	free(before);
	free(after);
}

static void pt_options_without_pt_are_a_usage_error(void **state)
{
	struct run r;

	(void)state;
	assert_int_equal(run_faultline(&r, "record", "--pt-size", "64K", "-a", NULL), 2);
	assert_one_line(&r, "--pt-size, --pt-config and --pt-trigger go with --pt");
	assert_int_equal(run_faultline(&r, "record", "--pt=sometimes", "-a", NULL), 2);
	assert_one_line(&r, "invalid --pt 'sometimes': expected fault, stall or full");
	assert_int_equal(run_faultline(&r, "record", "--pt", "--pt-trigger", "5ms",
				       "-a", NULL), 2);
	assert_one_line(&r, "--pt-trigger sets when --pt=stall snapshots");
	assert_int_equal(run_faultline(&r, "record", "--pt", "--pt-size", "100K",
				       "-a", NULL), 2);
	assert_one_line(&r, "invalid --pt-size 102400: with --pt=fault it must be");
}

static const char *built_db(struct ptdb *d)
{
	static int n;
	static char name[32];

	snprintf(name, sizeof(name), "pt%d.db", n++);
	assert_int_equal(ptdb_build(d, scratch_path(name), 1), 0);
	return scratch_path(name);
}

/* Does `first` come before `second` in text? */
static void assert_order(const char *text, const char *first, const char *second)
{
	const char *a = strstr(text, first), *b = strstr(text, second);

	if (!a || !b || a > b)
		fail_msg("expected '%s' before '%s' in:\n%s", first, second, text);
}

static void pt_prints_the_path_into_a_fault_innermost_last(void **state)
{
	struct ptdb d;
	const char *db = built_db(&d);
	struct run r;

	(void)state;
	assert_int_equal(run_faultline(&r, "pt", db, "--decode", NULL), 0);
	assert_non_null(strstr(r.out, "decoded 1 traces"));
	/* The list: the fault, with its id. */
	assert_int_equal(run_faultline(&r, "pt", db, NULL), 0);
	assert_non_null(strstr(r.out, "fault"));
	assert_non_null(strstr(r.out, "4.0 ms"));
	assert_int_equal(run_faultline(&r, "pt", db, "--fault", "1", NULL), 0);
	assert_non_null(strstr(r.out, "trace 1 of session 1: fault 1, a major "
			       "fault of 4.0 ms"));
	assert_order(r.out, "the call stack when the trace ends", "pt_top");
	assert_order(r.out, "pt_top", "pt_middle");
	assert_order(r.out, "pt_middle", "pt_leaf");
	assert_non_null(strstr(r.out, "tracing stopped there"));
	assert_non_null(strstr(r.out, "[libptcode.so]"));
	assert_order(r.out, "the last 4 of 4 calls and returns", "disable");
	/* TSC 1000 is 500 ns before the fault began (give or take what the
	 * session's two anchors, read apart, make of 500 ns). */
	{
		const char *call = strstr(r.out, " ns  call");
		const char *num = call;

		assert_non_null(call);
		while (num > r.out && num[-1] >= '0' && num[-1] <= '9')
			num--;
		assert_in_range(strtol(num, NULL, 10), 495, 505);
	}
}

static void pt_around_a_time_picks_the_nearest_trace(void **state)
{
	struct ptdb d;
	const char *db = built_db(&d);
	char ts[32];
	struct run r;

	(void)state;
	assert_int_equal(run_faultline(&r, "pt", db, "--decode", NULL), 0);
	snprintf(ts, sizeof(ts), "%llu", (unsigned long long)d.start.realtime_ns);
	assert_int_equal(run_faultline(&r, "pt", db, "--around", ts, "--tid",
				       "4001", NULL), 0);
	assert_non_null(strstr(r.out, "trace 1 of session 1"));
	assert_int_equal(run_faultline(&r, "pt", db, "--around",
				       "2026-11-23T15:41:18.014Z", "--tid", "9", NULL), 1);
	assert_non_null(strstr(r.err, "has no Intel PT trace of this thread"));
}

static void pt_says_which_fault_has_no_trace_and_what_to_do(void **state)
{
	struct ptdb d;
	const char *db = built_db(&d);
	struct run r;

	(void)state;
	assert_int_equal(run_faultline(&r, "pt", db, "--fault", "99", NULL), 1);
	assert_one_line(&r, "faultline pt: fault 99 of session 1 has no Intel PT "
			"trace");
	assert_int_equal(run_faultline(&r, "pt", db, "--fault", "1", "--around",
				       "1", NULL), 2);
	assert_one_line(&r, "--fault and --around each pick a trace");
	assert_int_equal(run_faultline(&r, "pt", db, "--around", "yesterday", NULL), 2);
	assert_one_line(&r, "invalid --around 'yesterday'");
}

static void pt_on_a_session_without_intel_pt_says_so(void **state)
{
	struct ptdb d;
	const char *db = scratch_path("plain.db");
	struct run r;

	(void)state;
	assert_int_equal(ptdb_build(&d, db, 0), 0);
	assert_int_equal(run_faultline(&r, "pt", db, NULL), 0);
	assert_non_null(strstr(r.out, "has no Intel PT trace; record with --pt"));
	assert_int_equal(run_faultline(&r, "pt", db, "--decode", NULL), 1);
	assert_one_line(&r, "it was recorded without --pt");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(record_pt_without_intel_pt_names_what_is_missing, kill_leftovers),
		cmocka_unit_test_teardown(record_pt_leaves_an_existing_database_untouched, kill_leftovers),
		cmocka_unit_test_teardown(pt_options_without_pt_are_a_usage_error, kill_leftovers),
		cmocka_unit_test_teardown(pt_prints_the_path_into_a_fault_innermost_last, kill_leftovers),
		cmocka_unit_test_teardown(pt_around_a_time_picks_the_nearest_trace, kill_leftovers),
		cmocka_unit_test_teardown(pt_says_which_fault_has_no_trace_and_what_to_do, kill_leftovers),
		cmocka_unit_test_teardown(pt_on_a_session_without_intel_pt_says_so, kill_leftovers),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
