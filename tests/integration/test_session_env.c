/*
 * A session carries its environment: a real recording of a command
 * started with LD_BIND_NOW=1 and MALLOC_ARENA_MAX=2 stores both, exactly,
 * beside the kernel's release (uname -r), its tunables, the target's
 * limits, and the build ids of what it mapped; a process recorded with
 * -p gives its own environment and the build ids of what it had mapped.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <limits.h>
#include <sys/utsname.h>

#include "run.h"

/* session_env's value of key in db's only session, into buf; "" and 0
 * when there is no row. */
static int env_value(const char *db_path, const char *key, char *buf, size_t n)
{
	sqlite3 *db = NULL;
	sqlite3_stmt *st = NULL;
	int found = 0;

	buf[0] = '\0';
	if (sqlite3_open_v2(db_path, &db, SQLITE_OPEN_READONLY, NULL) == SQLITE_OK &&
	    sqlite3_prepare_v2(db, "SELECT value FROM session_env WHERE key = ?",
			       -1, &st, NULL) == SQLITE_OK) {
		sqlite3_bind_text(st, 1, key, -1, SQLITE_STATIC);
		if (sqlite3_step(st) == SQLITE_ROW) {
			found = 1;
			snprintf(buf, n, "%s", (const char *)sqlite3_column_text(st, 0));
		}
	}
	sqlite3_finalize(st);
	sqlite3_close(db);
	return found;
}

/* The build id readelf -n prints for path, into buf. */
static void readelf_build_id(const char *path, char *buf, size_t n)
{
	char cmd[512];
	FILE *p;

	snprintf(cmd, sizeof(cmd), "readelf -n '%s' | sed -n 's/.*Build ID: *//p'", path);
	p = popen(cmd, "r");
	assert_non_null(p);
	if (!fgets(buf, (int)n, p))
		buf[0] = '\0';
	pclose(p);
	buf[strcspn(buf, "\n")] = '\0';
}

/* The file a path resolves to (the build id key names what was mapped). */
static void real_path(const char *path, char *buf)
{
	char *r = realpath(path, NULL);

	assert_non_null(r);
	snprintf(buf, PATH_MAX, "%s", r);
	free(r);
}

/* The first line of sh's output into buf ("" when none). */
static void sh_line(const char *cmd, char *buf, size_t n)
{
	FILE *p = popen(cmd, "r");

	assert_non_null(p);
	if (!fgets(buf, (int)n, p))
		buf[0] = '\0';
	pclose(p);
	buf[strcspn(buf, "\n")] = '\0';
}

/* The command ran in this test's cgroup: its CPU quota as the cgroup's
 * own files say, written as cpu.max is ("max 100000" for none). */
static void expect_cgroup(const char *db)
{
	char v[256], want[256], ver[8];

	if (!env_value(db, "cgroup.version", ver, sizeof(ver)))
		skip_msg("no cgroup with the cpu or memory controller here");
	if (!strcmp(ver, "2")) {
		sh_line("d=/sys/fs/cgroup; [ -e $d/cgroup.controllers ] || d=$d/unified;"
			" cat $d$(sed -n 's/^0:://p' /proc/self/cgroup)/cpu.max 2>/dev/null",
			want, sizeof(want));
	} else {
		assert_string_equal(ver, "1");
		sh_line("p=$(sed -n 's/^[0-9]*:[^:]*\\bcpu\\b[^:]*://p' /proc/self/cgroup);"
			" for d in /sys/fs/cgroup/cpu,cpuacct /sys/fs/cgroup/cpu; do"
			" [ -e $d$p/cpu.cfs_quota_us ] && { q=$(cat $d$p/cpu.cfs_quota_us);"
			" [ $q = -1 ] && q=max; echo $q $(cat $d$p/cpu.cfs_period_us); break; };"
			" done", want, sizeof(want));
	}
	if (!want[0])
		assert_false(env_value(db, "cgroup.cpu.max", v, sizeof(v)));
	else if (!env_value(db, "cgroup.cpu.max", v, sizeof(v)))
		fail_msg("no cgroup.cpu.max; the cgroup says '%s'", want);
	else
		assert_string_equal(v, want);
}

static void a_command_started_with_ld_bind_now_and_malloc_arena_max_stores_both(void **state)
{
	const char *db = scratch_path("env.db");
	char v[4096], want[256], exe[PATH_MAX], key[PATH_MAX + 16];
	struct utsname un;
	struct run r;

	(void)state;
	setenv("LD_BIND_NOW", "1", 1);
	setenv("MALLOC_ARENA_MAX", "2", 1);
	unsetenv("LD_PRELOAD");
	if (run_faultline(&r, "record", "-o", db, "--", "/bin/true", NULL) != 0)
		fail_msg("record failed: %s", r.err);
	unsetenv("LD_BIND_NOW");
	unsetenv("MALLOC_ARENA_MAX");
	assert_true(env_value(db, "env.LD_BIND_NOW", v, sizeof(v)));
	assert_string_equal(v, "1");
	assert_true(env_value(db, "env.MALLOC_ARENA_MAX", v, sizeof(v)));
	assert_string_equal(v, "2");
	/* Not set: absent, not empty. */
	assert_false(env_value(db, "env.LD_PRELOAD", v, sizeof(v)));
	/* Only LD_*, MALLOC_* and GLIBC_TUNABLES of the environment. */
	assert_int_equal(db_int(db, "SELECT count(*) FROM session_env WHERE key LIKE"
				" 'env.%%' AND key NOT LIKE 'env.LD\\_%%' ESCAPE '\\'"
				" AND key NOT LIKE 'env.MALLOC\\_%%' ESCAPE '\\'"
				" AND key != 'env.GLIBC_TUNABLES'"), 0);
	assert_int_equal(uname(&un), 0);
	assert_true(env_value(db, "kernel.release", v, sizeof(v)));
	assert_string_equal(v, un.release);
	/* What the kernel says, as it says it. */
	slurp("/proc/sys/vm/swappiness", want, sizeof(want));
	want[strcspn(want, "\n")] = '\0';
	assert_true(env_value(db, "vm.swappiness", v, sizeof(v)));
	assert_string_equal(v, want);
	assert_true(env_value(db, "limit.nofile", v, sizeof(v)));
	assert_true(strcmp(v, "unlimited") == 0 || atoll(v) > 0);
	/* The command's own file, named by the kernel as it was mapped. */
	real_path("/bin/true", exe);
	readelf_build_id(exe, want, sizeof(want));
	assert_true(want[0]);
	snprintf(key, sizeof(key), "build_id.%s", exe);
	if (!env_value(db, key, v, sizeof(v)))
		fail_msg("no %s", key);
	assert_string_equal(v, want);
	assert_true(db_int(db, "SELECT count(*) FROM session_env WHERE key LIKE"
			   " 'build_id.%%libc.so%%'") == 1);
	/* last: it skips where the machine has no such cgroup */
	expect_cgroup(db);
}

static void a_process_recorded_with_p_gives_its_environment_and_build_ids(void **state)
{
	const char *db = scratch_path("envp.db");
	char *const argv[] = { "/usr/bin/env", "MALLOC_ARENA_MAX=3", "LD_BIND_NOT=1",
			       "sleep", "5", NULL };
	char v[4096], want[256], exe[PATH_MAX], key[PATH_MAX + 16], pid_s[16];
	struct run sleeper, r;

	(void)state;
	run_start_as(&sleeper, -1, argv);
	/* Until env has exec'd sleep. */
	for (int i = 0; i < 200; i++) {
		char comm[32], path[64];

		snprintf(path, sizeof(path), "/proc/%d/comm", (int)sleeper.pid);
		slurp(path, comm, sizeof(comm));
		if (!strncmp(comm, "sleep", 5))
			break;
		sleep_ms(10);
	}
	snprintf(pid_s, sizeof(pid_s), "%d", (int)sleeper.pid);
	if (run_faultline(&r, "record", "-o", db, "-p", pid_s, "--duration", "200ms",
			  NULL) != 0)
		fail_msg("record failed: %s", r.err);
	kill_leftovers(NULL);
	assert_true(env_value(db, "env.MALLOC_ARENA_MAX", v, sizeof(v)));
	assert_string_equal(v, "3");
	assert_true(env_value(db, "env.LD_BIND_NOT", v, sizeof(v)));
	assert_string_equal(v, "1");
	real_path("/usr/bin/sleep", exe);
	readelf_build_id(exe, want, sizeof(want));
	snprintf(key, sizeof(key), "build_id.%s", exe);
	if (!env_value(db, key, v, sizeof(v)))
		fail_msg("no %s", key);
	assert_string_equal(v, want);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(a_command_started_with_ld_bind_now_and_malloc_arena_max_stores_both),
		cmocka_unit_test_teardown(a_process_recorded_with_p_gives_its_environment_and_build_ids,
					  kill_leftovers),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
