/*
 * Who or what woke a thread, as the kernel knows it.  sched_waking runs
 * in the context of whatever was on the CPU when the wake-up was issued:
 * for a timer's expiry or a device's completion that is an interrupt,
 * and the thread it reports is merely the one the interrupt hit.  Such a
 * wake-up must be stored as the interrupt's, never as that thread's.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include "run.h"

/* The sleep's one interval of at least 300 ms, ended by the timer: an
 * interrupt's wake-up, no thread's. */
#define TIMER_SLEEP "SELECT count(*) FROM thread_state x JOIN thread t " \
	"USING (session_id, tid) WHERE t.comm = 'sleep' AND " \
	"x.state = 'sleeping' AND x.dur >= 300000000 AND " \
	"x.waker_tid = 0 AND x.waker_context IN ('hardirq', " \
	"'softirq') AND x.waker_comm IS NULL"

/* What a recording kept of the sleep's long intervals, and what it lost
 * or read too late to order, for the message when TIMER_SLEEP finds none;
 * *missed: records lost or late. */
static void what_the_sleep_got(const char *db, char *out, size_t n, int64_t *missed)
{
	*missed = db_int(db, "SELECT records_lost + samples_lost + records_dropped"
			 " + records_late FROM session");
	db_text(db, out, n, "SELECT 'lost or late: ' || (SELECT records_lost || '"
		" lost, ' || samples_lost || ' samples lost, ' || records_dropped ||"
		" ' dropped, ' || records_late || ' late' FROM session) || '; the"
		" sleep: ' || ifnull(group_concat(x.state || ' ' || x.dur || ' ns,"
		" waker ' || ifnull(x.waker_tid, '-') || ' ' || ifnull(x.waker_context,"
		" '-') || ' ' || ifnull(x.waker_comm, '-') || ', uncertain ' ||"
		" x.uncertain, '; '), 'no interval of 1 ms or more') FROM thread_state"
		" x JOIN thread t USING (session_id, tid) WHERE t.comm = 'sleep' AND"
		" x.dur >= 1000000");
}

/*
 * `sleep 0.3` pinned beside a busy loop on the same CPU: the timer's
 * interrupt that ends the sleep always lands on the busy loop, so a waker
 * read from the sample's thread would be the loop, every time.  A
 * recording that lost records or read some too late to order them may
 * miss the sleep's switch or wake-up: it is recorded again, at most three
 * times.  One that missed nothing must have the sleep as the kernel did
 * it.
 */
static void a_timer_wakeup_under_a_busy_loop_is_never_credited_to_the_loop(void **state)
{
	const char *db = scratch_path("timer.db");
	int cpu = (int)sysconf(_SC_NPROCESSORS_ONLN) - 1;
	char cpus[16], got[1024];
	int64_t found = 0, missed = 0;
	pid_t loop;
	struct run r;

	(void)state;
	snprintf(cpus, sizeof(cpus), "%d", cpu);
	for (int tries = 0; tries < 3; tries++) {
		unlink(db);
		loop = start_busy_loop_on(cpu);
		if (run_faultline(&r, "record", "-q", "-o", db, "--", "taskset",
				  "-c", cpus, "sleep", "0.3", NULL) != 0)
			fail_msg("record failed: %s", r.err);
		kill_leftovers(NULL);
		/* Whatever the recording missed, no wake-up is the loop's. */
		assert_int_equal(db_int(db, "SELECT count(*) FROM thread_state WHERE "
					"waker_tid = %d", (int)loop), 0);
		found = db_int(db, TIMER_SLEEP);
		if (found == 1)
			break;
		what_the_sleep_got(db, got, sizeof(got), &missed);
		if (found < 0 || missed < 0)
			fail_msg("cannot read the recording %s", db);
		if (missed == 0)
			fail_msg("nothing was missed, but no 300 ms sleep ended by an "
				 "interrupt: %s", got);
		print_message("recording %d missed records, again: %s\n", tries + 1, got);
	}
	if (found != 1)
		skip_msg("three recordings missed records: %s", got);
	/* And every reader words it as the interrupt's, with its source:
	 * the wake-up's kernel stack runs through hrtimer_wakeup. */
	assert_int_equal(db_int(db, "SELECT count(*) FROM thread_state_waker w JOIN "
				"thread_state x ON x.rowid = w.state_id WHERE "
				"x.dur >= 300000000 AND w.waker IN ('hard interrupt on "
				"CPU %d (timer)', 'softirq on CPU %d (timer)')", cpu, cpu),
			 1);
	assert_int_equal(run_faultline(&r, "query", db, "off-cpu", NULL), 0);
	if (!strstr(r.out, "interrupt on CPU") && !strstr(r.out, "softirq on CPU"))
		fail_msg("off-cpu does not name the interrupt:\n%s", r.out);
}

/*
 * A thread blocked in recv() on a UDP socket is woken when the datagram
 * is delivered, in the network receive softirq (on loopback, run on the
 * sender's way out).  The wake-up is the softirq's, its source the
 * network receive, and the sender is never its waker.
 */
static void a_network_receive_is_named_as_the_softirq_it_is(void **state)
{
	const char *db = scratch_path("recv.db");
	const char *script =
		"import socket, threading\n"
		"s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)\n"
		"s.bind(('127.0.0.1', 0))\n"
		"c = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)\n"
		"for i in range(5):\n"
		"    threading.Timer(0.05, lambda: c.sendto(b'x', s.getsockname())).start()\n"
		"    assert s.recv(8) == b'x'\n";
	struct run r;

	(void)state;
	if (run_faultline(&r, "record", "-q", "-o", db, "--", "/usr/bin/python3",
			  "-c", script, NULL) != 0)
		fail_msg("record failed: %s", r.err);
	/* The main thread's five waits in recv(), each ended by the
	 * softirq, named as such where sched_waking was seen (the
	 * tracepoint has holes on an idle CPU). */
	assert_true(db_int(db, "SELECT count(*) FROM thread_state_waker w JOIN "
			   "thread_state x ON x.rowid = w.state_id JOIN thread t ON "
			   "t.session_id = x.session_id AND t.tid = x.tid AND t.pid = "
			   "t.tid WHERE x.dur >= 40000000 AND w.waker GLOB 'softirq on "
			   "CPU * (network receive)'") >= 1);
	assert_int_equal(db_int(db, "SELECT count(*) FROM thread_state x JOIN thread t"
				" ON t.session_id = x.session_id AND t.tid = x.tid"
				" AND t.pid = t.tid WHERE x.dur >= 40000000 AND"
				" x.waker_context = 'thread' AND x.waker_tid != x.tid"
				" AND x.waker_tid IN (SELECT tid FROM thread WHERE pid"
				" = t.pid)"), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(a_timer_wakeup_under_a_busy_loop_is_never_credited_to_the_loop,
					  kill_leftovers),
		cmocka_unit_test(a_network_receive_is_named_as_the_softirq_it_is),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
