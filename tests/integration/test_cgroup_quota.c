/*
 * A CPU-quota cgroup: the test makes a cpu cgroup with a quota of 20 ms
 * per 100 ms period (cgroup v1's cpu controller, or v2's cpu.max), puts a
 * busy loop in it, and records the loop with -p, so the cgroup sampled is
 * the target's own (the default).  The cgroup_cpu rows must show
 * nr_throttled rising, and diagnose must name the cpu-quota pattern for
 * the loop's thread.  The loop asks for 100% of a CPU and gets 20%, so it
 * is throttled in every period, however loaded the machine: nothing is
 * timed.  The cgroup is removed at the end, failed or not.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include "run.h"

static char cg_dir[200];	/* the test's cgroup; "" when none */

/* Writes text into dir/name; 0 or -errno. */
static int write_file(const char *dir, const char *name, const char *text)
{
	char path[512];
	int fd, err = 0;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (write(fd, text, strlen(text)) < 0)
		err = -errno;
	close(fd);
	return err;
}

static int is_file(const char *dir, const char *name)
{
	char path[512];
	struct stat st;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

/* Makes the cgroup with its quota: 0, or -1 with why in why. */
static int make_cgroup(char *why, size_t n)
{
	static const char *const v1[] = { "/sys/fs/cgroup/cpu,cpuacct",
					  "/sys/fs/cgroup/cpu" };
	const char *root = NULL;
	int v2 = 0;

	for (size_t i = 0; i < 2 && !root; i++)
		if (is_file(v1[i], "cpu.cfs_quota_us"))
			root = v1[i];
	if (!root && is_file("/sys/fs/cgroup", "cgroup.subtree_control")) {
		root = "/sys/fs/cgroup";
		v2 = 1;
		/* The cpu controller for the children of the root. */
		(void)write_file(root, "cgroup.subtree_control", "+cpu");
	}
	if (!root) {
		snprintf(why, n, "no cgroup cpu controller under /sys/fs/cgroup");
		return -1;
	}
	snprintf(cg_dir, sizeof(cg_dir), "%s/faultline_test_quota_%d", root,
		 (int)getpid());
	if (mkdir(cg_dir, 0755) < 0) {
		snprintf(why, n, "cannot make %s: %s", cg_dir, strerror(errno));
		cg_dir[0] = '\0';
		return -1;
	}
	if (v2 ? write_file(cg_dir, "cpu.max", "20000 100000") < 0 :
	    write_file(cg_dir, "cpu.cfs_period_us", "100000") < 0 ||
	    write_file(cg_dir, "cpu.cfs_quota_us", "20000") < 0) {
		snprintf(why, n, "cannot set the quota of %s (v2 without the cpu "
			 "controller?)", cg_dir);
		return -1;
	}
	return 0;
}

/* Kills what the test started, then removes the cgroup: its last task
 * may take a moment to leave it after being reaped, so rmdir is retried
 * (bounded). */
static int teardown(void **state)
{
	kill_leftovers(state);
	for (int i = 0; cg_dir[0] && i < 500; i++) {
		if (rmdir(cg_dir) == 0 || errno == ENOENT)
			break;
		sleep_ms(10);
	}
	cg_dir[0] = '\0';
	return 0;
}

/* A child that joins the cgroup, says so on a pipe, and spins until
 * killed; its pid (registered with run.h's leftovers). */
static pid_t start_busy_loop(void)
{
	int fds[2];
	char c;
	pid_t pid;

	assert_int_equal(pipe(fds), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		char me[32];
		volatile unsigned long spin = 0;

		close(fds[0]);
		snprintf(me, sizeof(me), "%d", (int)getpid());
		if (write_file(cg_dir, "cgroup.procs", me) < 0)
			_exit(1);
		if (write(fds[1], "j", 1) != 1)
			_exit(1);
		close(fds[1]);
		for (;;)
			spin++;
	}
	started[nstarted++] = pid;
	close(fds[1]);
	if (read(fds[0], &c, 1) != 1)
		fail_msg("the busy loop could not join %s", cg_dir);
	close(fds[0]);
	return pid;
}

static void a_busy_loop_in_a_cpu_quota_cgroup_is_named_as_throttled(void **state)
{
	const char *db = scratch_path("quota.db");
	char why[512], pid[16], tidkey[48];
	const char *p, *out;
	struct run r;

	(void)state;
	if (make_cgroup(why, sizeof(why)) < 0)
		skip_msg("%s", why);
	snprintf(pid, sizeof(pid), "%d", (int)start_busy_loop());
	unlink(db);
	if (run_faultline(&r, "record", "-q", "-o", db, "-p", pid, "--duration",
			  "2s", NULL) != 0)
		fail_msg("faultline record exited %d: %s", r.status, r.err);

	/* The samples: this cgroup, its quota, nr_throttled rising. */
	assert_true(db_int(db, "SELECT count(*) FROM cgroup_cpu") > 10);
	assert_int_equal(db_int(db, "SELECT count(*) FROM cgroup_cpu WHERE "
				"path = '%s' AND quota_us = 20000 AND "
				"period_us = 100000", cg_dir),
			 db_int(db, "SELECT count(*) FROM cgroup_cpu"));
	assert_true(db_int(db, "SELECT max(nr_throttled) - min(nr_throttled) "
			   "FROM cgroup_cpu") > 0);
	assert_true(db_int(db, "SELECT max(throttled_ns) - min(throttled_ns) "
			   "FROM cgroup_cpu") > 0);
	assert_int_equal(db_int(db, "SELECT count(*) FROM cgroup_cpu a JOIN "
				"cgroup_cpu b ON b.rowid = a.rowid + 1 WHERE "
				"b.nr_throttled < a.nr_throttled"), 0);
	/* The session's environment says the same limit, as cpu.max does,
	 * and the cgroup's path in its hierarchy. */
	assert_int_equal(db_int(db, "SELECT count(*) FROM session_env WHERE"
				" key = 'cgroup.cpu.max' AND value = '20000 100000'"), 1);
	assert_int_equal(db_int(db, "SELECT count(*) FROM session_env WHERE"
				" key = 'cgroup.path' AND '%s' LIKE '%%' || value", cg_dir), 1);

	/* diagnose names the pattern, the thread and the cgroup. */
	if (run_faultline(&r, "diagnose", db, "--format", "json", NULL) != 0)
		fail_msg("faultline diagnose exited %d: %s", r.status, r.err);
	out = r.out;
	snprintf(tidkey, sizeof(tidkey), "\"tid\":%s,", pid);
	p = strstr(out, "{\"pattern\":\"cpu-quota\"");
	while (p && !(strstr(p, tidkey) && strstr(p, tidkey) <
		      (strstr(p + 1, "{\"pattern\":") ? strstr(p + 1, "{\"pattern\":") :
		       p + strlen(p))))
		p = strstr(p + 1, "{\"pattern\":\"cpu-quota\"");
	if (!p)
		fail_msg("no cpu-quota finding for %s in:\n%s", pid, out);
	assert_non_null(strstr(p, cg_dir));
	assert_non_null(strstr(p, "quota 20.000 ms per 100.000 ms period"));
}

/* --cgroup naming no cgroup: one message, exit 2, nothing recorded. */
static void a_cgroup_that_is_not_there_is_a_usage_error(void **state)
{
	const char *db = scratch_path("nocg.db");
	struct run r;

	(void)state;
	unlink(db);
	assert_int_equal(run_faultline(&r, "record", "-q", "-o", db, "--cgroup",
				       "/faultline_no_such_cgroup", "--", "/bin/true",
				       NULL), 2);
	assert_non_null(strstr(r.err, "no cgroup with the cpu controller at "
			       "'/faultline_no_such_cgroup'"));
	assert_int_equal(access(db, F_OK), -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(a_busy_loop_in_a_cpu_quota_cgroup_is_named_as_throttled, teardown),
		cmocka_unit_test_teardown(a_cgroup_that_is_not_there_is_a_usage_error, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
