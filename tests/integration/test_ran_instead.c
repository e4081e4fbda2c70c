/*
 * What ran instead: while a target waited for a CPU, which threads held
 * that CPU, from the switch records of every thread on it.  A command
 * pinned beside a busy loop on the same CPU waits for the CPU while the
 * loop runs there: the loop must be named, with time that fits inside
 * the waits, and the waiting thread never named for its own wait.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include "run.h"

static void a_busy_loop_on_the_same_cpu_is_named_for_the_runnable_waits(void **state)
{
	const char *db = scratch_path("ran.db");
	int cpu = (int)sysconf(_SC_NPROCESSORS_ONLN) - 1;
	char cpus[16], loop_s[32];
	const char *line;
	long long waits;
	pid_t loop;
	struct run r;

	(void)state;
	snprintf(cpus, sizeof(cpus), "%d", cpu);
	loop = start_busy_loop_on(cpu);
	/* A shell loop, CPU-bound for 0.5 s on the loop's CPU. */
	if (run_faultline(&r, "record", "-o", db, "--", "taskset", "-c", cpus,
			  "timeout", "0.5", "sh", "-c", "while :; do :; done",
			  NULL) != 0 && !strstr(r.err, "exited with status 124"))
		fail_msg("record failed: %s", r.err);
	kill_leftovers(NULL);
	/* The summary counts the waits the database says what ran in. */
	line = strstr(r.err, " runnable waits with what ran instead)");
	assert_non_null(line);
	while (line > r.err && line[-1] != '(')
		line--;
	assert_int_equal(sscanf(line, "%lld", &waits), 1);
	assert_int_equal(waits, db_int(db, "SELECT count(*) FROM (SELECT DISTINCT"
				       " tid, ts FROM ran_instead)"));
	/* Two threads share one CPU: the shell waits while the loop runs. */
	assert_true(db_int(db, "SELECT count(*) FROM ran_instead r JOIN thread t"
			   " ON t.session_id = r.session_id AND t.tid = r.tid"
			   " WHERE t.comm = 'sh' AND r.ran_tid = %d", (int)loop) >= 1);
	assert_true(db_int(db, "SELECT sum(r.dur) FROM ran_instead r"
			   " WHERE r.ran_tid = %d", (int)loop) >= 1000000);
	/* Each row belongs to a runnable wait of 100 us or more, on the CPU
	 * the thread ran on next, and no thread held the CPU for itself. */
	assert_int_equal(db_int(db, "SELECT count(*) FROM ran_instead r WHERE NOT"
				" EXISTS (SELECT 1 FROM thread_state x WHERE"
				" x.session_id = r.session_id AND x.tid = r.tid AND"
				" x.ts = r.ts AND x.state = 'runnable' AND"
				" x.dur >= 100000)"), 0);
	assert_int_equal(db_int(db, "SELECT count(*) FROM ran_instead r WHERE"
				" r.ran_tid = r.tid"), 0);
	assert_int_equal(db_int(db, "SELECT count(*) FROM ran_instead r JOIN"
				" thread_state n ON n.session_id = r.session_id AND"
				" n.tid = r.tid AND n.state = 'running' AND"
				" n.ts = (SELECT x.ts + x.dur FROM thread_state x WHERE"
				" x.session_id = r.session_id AND x.tid = r.tid AND"
				" x.ts = r.ts) WHERE n.cpu != r.cpu"), 0);
	/* The shares of a wait fit inside it. */
	assert_int_equal(db_int(db, "SELECT count(*) FROM (SELECT r.tid, r.ts,"
				" sum(r.dur) AS ran FROM ran_instead r GROUP BY r.tid,"
				" r.ts) s JOIN thread_state x ON x.tid = s.tid AND"
				" x.ts = s.ts WHERE s.ran > x.dur"), 0);
	/* And the readers say so. */
	snprintf(loop_s, sizeof(loop_s), "(%d)", (int)loop);
	assert_int_equal(run_faultline(&r, "query", db, "longest-stalls", "--wide",
				       NULL), 0);
	if (!strstr(r.out, "; ran: ") || !strstr(r.out, loop_s))
		fail_msg("longest-stalls does not say what ran instead:\n%s", r.out);
	assert_int_equal(run_faultline(&r, "diagnose", db, NULL), 0);
	if (!strstr(r.out, loop_s))
		fail_msg("diagnose does not name the loop %s:\n%s", loop_s, r.out);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(a_busy_loop_on_the_same_cpu_is_named_for_the_runnable_waits,
					  kill_leftovers),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
