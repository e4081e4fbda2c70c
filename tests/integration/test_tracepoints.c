/*
 * -e records any tracepoint: a UDP socket with a tiny receive buffer is
 * flooded over loopback, and faultline's skb:kfree_skb rows with reason
 * SOCKET_RCVBUFF must equal the kernel's own drop count for that socket.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(udp_drops_equal_the_kernels_count_for_the_socket, kill_leftovers),
		cmocka_unit_test_teardown(a_kernel_side_filter_keeps_only_what_it_matches, kill_leftovers),
		cmocka_unit_test_teardown(a_utf8_string_field_round_trips, kill_leftovers),
		cmocka_unit_test(hits_outside_the_targets_are_counted_not_hidden),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
