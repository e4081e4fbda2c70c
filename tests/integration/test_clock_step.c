/*
 * A step of the wall clock in the middle of a recording: durations,
 * pairing, order and thread states do not move; the session records the
 * step.  This steps the machine's CLOCK_REALTIME (time namespaces do not
 * cover it), by -5 s and back, for a few hundred ms, and puts it back
 * whatever happens: a guard process restores it when this process goes
 * away, even by a crash.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <poll.h>

#include "../../decoder/clock_map.h"
#include "run.h"

#define HOLD_MS 1200
#define STEP_NS (5ll * 1000000000ll)

static int64_t saved_offset;	/* realtime - monotonic before any step */
static int guard_fd = -1;	/* write end: closing it restores the clock */

static void set_offset(int64_t off)
{
	uint64_t t = (uint64_t)((int64_t)monotonic_ns() + off);
	struct timespec ts = { (time_t)(t / 1000000000ull), (long)(t % 1000000000ull) };

	if (clock_settime(CLOCK_REALTIME, &ts) < 0)
		fail_msg("clock_settime: %s", strerror(errno));
}

/* A child that waits for our end of a pipe to close, then sets the clock
 * back to the offset it had. */
static void start_guard(void)
{
	struct clock_anchor a;
	int p[2];
	char c;

	clock_anchor_take(&a);
	saved_offset = clock_anchor_offset(&a);
	assert_int_equal(pipe(p), 0);
	if (fork() == 0) {
		close(p[1]);
		while (read(p[0], &c, 1) > 0)
			;
		set_offset(saved_offset);
		_exit(0);
	}
	close(p[0]);
	guard_fd = p[1];
}

static void restore_clock(void)
{
	set_offset(saved_offset);
}

struct attempt {
	uint64_t step1, step2;		/* when the two steps were made, mono */
	char info[256], db[256];
};

/* Reads "ready" from the FIFO within timeout_ms. */
static int wait_ready(int fd, int timeout_ms)
{
	struct pollfd p = { fd, POLLIN, 0 };
	char buf[16];

	if (poll(&p, 1, timeout_ms) <= 0)
		return -1;
	return read(fd, buf, sizeof(buf)) > 0 ? 0 : -1;
}

/* One recording with the clock stepped back and forth during the waits.
 * Returns 0 when both steps fell inside both waits. */
static int record_once(struct attempt *at, int n)
{
	char fifo[256], hold[16], name[32];
	struct run r;
	int fd, err = 0;

	snprintf(name, sizeof(name), "step%d.db", n);
	snprintf(at->db, sizeof(at->db), "%s", scratch_path(name));
	snprintf(name, sizeof(name), "step%d.info", n);
	snprintf(at->info, sizeof(at->info), "%s", scratch_path(name));
	snprintf(name, sizeof(name), "step%d.fifo", n);
	snprintf(fifo, sizeof(fifo), "%s", scratch_path(name));
	snprintf(hold, sizeof(hold), "%d", HOLD_MS);
	assert_int_equal(mkfifo(fifo, 0600), 0);
	fd = open(fifo, O_RDONLY | O_NONBLOCK);
	assert_true(fd >= 0);
	{
		char *argv[] = { (char *)faultline_bin(), "record", "-q", "-o", at->db,
				 "--", getenv("CLOCK_STEP_WORKLOAD"), fifo, at->info,
				 hold, NULL };

		run_start_as(&r, -1, argv);
	}
	if (wait_ready(fd, 30000) < 0)
		fail_msg("the workload never said ready");
	sleep_ms(50);
	at->step1 = monotonic_ns();
	set_offset(saved_offset - STEP_NS);
	sleep_ms(300);
	at->step2 = monotonic_ns();
	restore_clock();
	close(fd);
	if (run_wait(&r) != 0)
		fail_msg("record failed: %s", r.err);
	if ((uint64_t)info_get(at->info, "held_to") < at->step2 ||
	    (uint64_t)info_get(at->info, "child_to") < at->step2)
		err = -1;	/* this machine was too slow to step in time */
	return err;
}

static struct attempt done;
static int cannot_step;		/* errno of a clock_settime refused */

/* Each test reads the recording the group's setup made, where it could. */
static void need_the_recording(void)
{
	if (cannot_step)
		skip_msg("this machine refuses to set CLOCK_REALTIME (%s), so the "
			 "clock cannot be stepped", strerror(cannot_step));
}

static int setup(void **state)
{
	struct timespec now;

	(void)state;
	if (!getenv("CLOCK_STEP_WORKLOAD"))
		return -1;
	/* Setting the clock to what it reads: allowed here, or not. */
	clock_gettime(CLOCK_REALTIME, &now);
	if (clock_settime(CLOCK_REALTIME, &now) < 0) {
		cannot_step = errno;
		return 0;
	}
	start_guard();
	for (int n = 0; n < 3; n++)
		if (record_once(&done, n) == 0)
			return 0;
	fprintf(stderr, "the steps never fell inside the waits in 3 tries\n");
	return -1;
}

static int teardown(void **state)
{
	(void)state;
	if (cannot_step)
		return 0;
	restore_clock();
	close(guard_fd);	/* the guard restores it once more and exits */
	wait(NULL);
	kill_leftovers(NULL);
	return 0;
}

static void the_session_records_both_steps(void **state)
{
	(void)state;
	need_the_recording();
	assert_int_equal(db_int(done.db, "SELECT clock_steps FROM session"), 2);
	assert_int_equal(db_int(done.db, "SELECT count(*) FROM clock_step"), 2);
	/* -5 s, then +5 s, each as measured: within 50 ms of it. */
	assert_true(db_int(done.db, "SELECT count(*) FROM clock_step WHERE "
			   "abs(step_ns + %lld) < 50000000", STEP_NS) == 1);
	assert_true(db_int(done.db, "SELECT count(*) FROM clock_step WHERE "
			   "abs(step_ns - %lld) < 50000000", STEP_NS) == 1);
	assert_true(db_int(done.db, "SELECT count(*) FROM clock_anchor") >= 10);
}

static void a_fault_held_across_the_steps_keeps_its_true_duration(void **state)
{
	long long tid = info_get(done.info, "fault_tid");
	long long lo = info_get(done.info, "held_to") - info_get(done.info, "held_from");
	long long hi = info_get(done.info, "fault_t1") - info_get(done.info, "fault_t0");
	int64_t dur;

	(void)state;
	need_the_recording();
	dur = db_int(done.db, "SELECT max(dur) FROM fault WHERE tid = %lld AND "
		     "dur IS NOT NULL", tid);
	if (dur < lo || dur > hi)
		fail_msg("the held fault lasted %lld ns; the workload saw it held "
			 "%lld ns within %lld ns", (long long)dur, lo, hi);
	assert_int_equal(db_int(done.db, "SELECT count(*) FROM fault WHERE "
				"tid = %lld AND dur IS NULL", tid), 0);
}

static void no_event_is_late_and_nothing_is_lost(void **state)
{
	(void)state;
	need_the_recording();
	assert_int_equal(db_int(done.db, "SELECT records_late FROM session"), 0);
	assert_int_equal(db_int(done.db, "SELECT records_lost + samples_lost "
				"FROM session"), 0);
}

static void a_thread_blocked_across_the_steps_stays_blocked(void **state)
{
	long long tid = info_get(done.info, "vfork_tid");
	long long lo = info_get(done.info, "child_to") - info_get(done.info, "child_from");
	long long hi = info_get(done.info, "vfork_t1") - info_get(done.info, "vfork_t0");
	int64_t dur;

	(void)state;
	need_the_recording();
	dur = db_int(done.db, "SELECT max(dur) FROM thread_state WHERE tid = %lld "
		     "AND state = 'blocked'", tid);
	if (dur < lo || dur > hi)
		fail_msg("the vfork parent was blocked %lld ns; the child slept "
			 "%lld ns within %lld ns", (long long)dur, lo, hi);
}

/* Before the first step and after the last one the offset is the same,
 * so the session's wall-clock length is its monotonic length. */
static void the_wall_clock_span_matches_the_monotonic_span(void **state)
{
	int64_t diff;

	(void)state;
	need_the_recording();
	diff = db_int(done.db, "SELECT (end_ts - start_ts) - "
		      "(end_monotonic_ns - start_monotonic_ns) FROM session");
	assert_true(diff > -1000000 && diff < 1000000);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(the_session_records_both_steps),
		cmocka_unit_test(a_fault_held_across_the_steps_keeps_its_true_duration),
		cmocka_unit_test(no_event_is_late_and_nothing_is_lost),
		cmocka_unit_test(a_thread_blocked_across_the_steps_stays_blocked),
		cmocka_unit_test(the_wall_clock_span_matches_the_monotonic_span),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
