/*
 * -e records any tracepoint: a UDP socket with a tiny receive buffer is
 * flooded over loopback, and faultline's skb:kfree_skb rows with reason
 * SOCKET_RCVBUFF must equal the kernel's own drop count for that socket.
 * --latency pairs two tracepoints as faults and system calls are.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <sys/syscall.h>

#include "run.h"

static void udp_drops_equal_the_kernels_count_for_the_socket(void **state)
{
	const char *db = scratch_path("udp.db"), *info = scratch_path("udp.info");
	const char *wl = getenv("UDP_WORKLOAD");
	struct run r;

	(void)state;
	/* -a: a drop is counted in whatever context the softirq ran, the
	 * sender's or ksoftirqd's. */
	assert_int_equal(run_faultline(&r, "record", "-q", "-a", "-o", db, "-e",
				       "skb:kfree_skb", "--",
				       wl ? wl : "build/release/tests/udp_workload",
				       info, NULL), 0);
	assert_true(info_get(info, "drops") > 0);
	assert_int_equal(db_int(db, "SELECT count(*) FROM tracepoint_event WHERE "
				"name = 'skb:kfree_skb' AND "
				"json_extract(fields, '$.reason') = 'SOCKET_RCVBUFF'"),
			 info_get(info, "drops"));
}

static void a_kernel_side_filter_keeps_only_what_it_matches(void **state)
{
	const char *db = scratch_path("filter.db");
	struct run r;

	(void)state;
	assert_int_equal(run_faultline(&r, "record", "-q", "-o", db, "-e",
				       "sched:sched_process_exit/prio == 1000/", "--",
				       "/bin/true", NULL), 0);
	assert_int_equal(db_int(db, "SELECT count(*) FROM tracepoint_event"), 0);
	assert_int_equal(run_faultline(&r, "record", "-q", "-o", db, "-e",
				       "sched:sched_process_exit", "--", "/bin/true",
				       NULL), 0);
	assert_int_equal(db_int(db, "SELECT count(*) FROM tracepoint_event WHERE "
				"session_id = 2 AND json_extract(fields, '$.comm') = "
				"'true'"), 1);
}

/* A thread name in UTF-8 comes back as the same text: the fields' JSON
 * keeps UTF-8 as it is (common/json.h), and SQLite reads it back. */
static void a_utf8_string_field_round_trips(void **state)
{
	const char *db = scratch_path("utf8.db");
	struct run r;

	(void)state;
	assert_int_equal(run_faultline(&r, "record", "-q", "-o", db, "-e",
				       "task:task_rename", "--", workload_bin(),
				       "--name", "caf\xc3\xa9-\xe2\x82\xac", "--pages",
				       "1", NULL), 0);
	assert_int_equal(db_int(db, "SELECT count(*) FROM tracepoint_event WHERE "
				"name = 'task:task_rename' AND "
				"json_extract(fields, '$.newcomm') = "
				"'caf\xc3\xa9-\xe2\x82\xac'"), 1);
	/* Stored as the bytes themselves, not as \u escapes of each byte. */
	assert_int_equal(db_int(db, "SELECT count(*) FROM tracepoint_event WHERE "
				"instr(fields, 'caf\xc3\xa9') > 0"), 1);
}

/*
 * A tracepoint of another process's, or of an interrupt's, is about no
 * target: with a command target such hits are not stored, and the
 * summary counts them rather than say nothing.  Three execs of /bin/true
 * by the test, while sleep is recorded, are three such hits at least.
 */
static void hits_outside_the_targets_are_counted_not_hidden(void **state)
{
	const char *db = scratch_path("exec.db");
	char *argv[] = { (char *)faultline_bin(), "record", "-o", (char *)db, "-e",
			 "sched:sched_process_exec", "--", "sleep", "2", NULL };
	char *true_argv[] = { "/bin/true", NULL };
	const char *line;
	long long other = -1;
	struct run r, t;

	(void)state;
	assert_int_equal(start_recording(&r, argv, 30000), 0);
	for (int i = 0; i < 3; i++)
		assert_int_equal(run_argv(&t, true_argv), 0);
	if (run_wait(&r) != 0)
		fail_msg("record failed: %s", r.err);
	line = strstr(r.err, "  -e: ");
	assert_non_null(line);
	assert_int_equal(sscanf(line, "  -e: %lld hits in no target thread", &other), 1);
	assert_true(other >= 3);
	/* sleep's own exec, at most, is a target's. */
	assert_true(db_int(db, "SELECT count(*) FROM tracepoint_event") <= 1);
}

/*
 * --latency START/END: a START paired with the next END of its thread,
 * the same pairing as faults and system calls.  Five sleeps of 20 ms,
 * each its own process (sleep(1)): five rows, each at least the sleep.
 */
#define NANOSLEEP_PAIR \
	"syscalls:sys_enter_clock_nanosleep/syscalls:sys_exit_clock_nanosleep"

static void a_latency_pair_times_each_sleep_of_the_targets(void **state)
{
	const char *db = scratch_path("lat.db");
	const char *script = "sleep 0.02; sleep 0.02; sleep 0.02; sleep 0.02; "
			     "sleep 0.02";
	struct run r;

	(void)state;
	if (run_faultline(&r, "record", "-o", db, "--latency", NANOSLEEP_PAIR,
			  "--latency", NANOSLEEP_PAIR ":common_pid", "--", "/bin/sh",
			  "-c", script, NULL) != 0)
		fail_msg("record failed: %s", r.err);
	assert_int_equal(db_int(db, "SELECT count(*) FROM latency WHERE name = '%s'",
				NANOSLEEP_PAIR), 5);
	assert_int_equal(db_int(db, "SELECT count(*) FROM latency l JOIN session s"
				" USING (session_id) WHERE l.name = '%s' AND"
				" l.dur >= 20000000 AND l.dur < 1000000000 AND"
				" l.key = l.tid AND l.end_tid = l.tid AND"
				" json_extract(l.fields, '$.ret') = 0 AND"
				" l.ts > s.start_ts AND l.ts + l.dur < s.end_ts",
				NANOSLEEP_PAIR), 5);
	assert_int_equal(db_int(db, "SELECT json_array_length(options, '$.latency')"
				" FROM session WHERE json_extract(options,"
				" '$.latency[1]') = '%s:common_pid'", NANOSLEEP_PAIR), 2);
	assert_int_equal(db_int(db, "SELECT paired * 100 + unfinished * 10 +"
				" unmatched_ends FROM latency_count WHERE name ="
				" '%s'", NANOSLEEP_PAIR), 500);
	/* Keyed by a field, every thread's pairs are kept (an END may run
	 * in none of the targets): the targets' are the same five. */
	assert_int_equal(db_int(db, "SELECT count(*) FROM latency WHERE name ="
				" '%s:common_pid' AND dur >= 20000000 AND tid IN"
				" (SELECT tid FROM thread)", NANOSLEEP_PAIR), 5);
	if (!strstr(r.err, "--latency " NANOSLEEP_PAIR ": 5 paired, 0 unfinished,"
		    " 0 ends without a start"))
		fail_msg("the summary does not count the pairs:\n%s", r.err);
}

/* Nothing is dropped unsaid: a sleep that began before the recording
 * is counted as an END without a START; a read that never returns is
 * stored unfinished when --duration ends the recording. */
static void ends_without_a_start_are_counted_and_starts_left_unfinished(void **state)
{
	const char *db = scratch_path("lat2.db"), *info = scratch_path("lat2.info");
	const char *build = getenv("BUILD");
	char hang_bin[512], pids[64], *sleeper[] = { "/bin/sleep", "3", NULL };
	char *hang[] = { hang_bin, "--hang", (char *)info, NULL };
	struct run s, w, r;
	long long blocked;

	(void)state;
	snprintf(hang_bin, sizeof(hang_bin), "%s/tests/syscall_workload",
		 build ? build : "build/release");
	unlink(info);
	setenv("LINGER_MS", "60000", 1);
	run_start_as(&s, -1, sleeper);
	run_start_usr1_blocked(&w, hang);
	/* sleep is in its one clock_nanosleep before the recording begins */
	for (int i = 0; i < 2000; i++) {
		char path[64], line[64] = "";
		FILE *f;

		snprintf(path, sizeof(path), "/proc/%d/syscall", (int)s.pid);
		if ((f = fopen(path, "r"))) {
			if (!fgets(line, sizeof(line), f))
				line[0] = '\0';
			fclose(f);
		}
		if (atol(line) == SYS_clock_nanosleep)
			break;
		sleep_ms(1);
	}
	snprintf(pids, sizeof(pids), "%d,%d", (int)s.pid, (int)w.pid);
	{
		char *argv[] = { (char *)faultline_bin(), "record", "-q", "-o",
				 (char *)db, "--latency", NANOSLEEP_PAIR, "--latency",
				 "syscalls:sys_enter_read/syscalls:sys_exit_read",
				 "--duration", "5s", "-p", pids, NULL };

		assert_int_equal(start_recording(&r, argv, 30000), 0);
	}
	kill(w.pid, SIGUSR1);
	assert_int_equal(run_wait(&r), 0);
	assert_int_equal(run_wait(&s), 0);
	blocked = info_get(info, "blocked");
	kill(w.pid, SIGKILL);
	run_wait(&w);
	assert_true(blocked > 0);
	assert_int_equal(db_int(db, "SELECT unmatched_ends * 10 + paired FROM"
				" latency_count WHERE name = '%s'", NANOSLEEP_PAIR), 10);
	/* (the other process's linger is a sleep left unfinished) */
	assert_int_equal(db_int(db, "SELECT count(*) FROM latency WHERE name = '%s'"
				" AND pid = %d", NANOSLEEP_PAIR, (int)s.pid), 0);
	assert_int_equal(db_int(db, "SELECT count(*) FROM latency WHERE tid = %lld"
				" AND name GLOB '*sys_exit_read' AND dur IS NULL AND"
				" fields IS NULL", blocked), 1);
}

/* A misspelt tracepoint is refused with the one meant, as -e's is. */
static void a_misspelt_latency_tracepoint_names_the_one_meant(void **state)
{
	(void)state;
	assert_refused_with(1, "did you mean 'sched:sched_wakeup'?", "record", "-o",
			    scratch_path("x.db"), "--latency",
			    "sched:sched_waking/sched:sched_wakup", "--", "true",
			    NULL);
	assert_refused_with(1, "has no field 'sectr'", "record", "-o",
			    scratch_path("x.db"), "--latency",
			    "sched:sched_waking/sched:sched_wakeup:sectr", "--",
			    "true", NULL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(udp_drops_equal_the_kernels_count_for_the_socket, kill_leftovers),
		cmocka_unit_test_teardown(a_kernel_side_filter_keeps_only_what_it_matches, kill_leftovers),
		cmocka_unit_test_teardown(a_utf8_string_field_round_trips, kill_leftovers),
		cmocka_unit_test(hits_outside_the_targets_are_counted_not_hidden),
		cmocka_unit_test(a_latency_pair_times_each_sleep_of_the_targets),
		cmocka_unit_test_teardown(ends_without_a_start_are_counted_and_starts_left_unfinished,
					  kill_leftovers),
		cmocka_unit_test(a_misspelt_latency_tracepoint_names_the_one_meant),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
