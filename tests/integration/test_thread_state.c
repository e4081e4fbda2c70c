/*
 * thread_state against the kernel's own accounting: each thread of
 * sched_workload reads getrusage(RUSAGE_THREAD) and its CPU clock as its
 * last act, and faultline's intervals for it must agree.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <sys/utsname.h>
#include <cmocka.h>

#include "run.h"

struct acct {
	long long tid, nvcsw, nivcsw, cpu_ns;
	long long real_ns;	/* CLOCK_REALTIME just after cpu_ns was read */
	long long real0_ns;	/* CLOCK_REALTIME just before */
};

static const char *db_path(void)
{
	return scratch_path("sched.db");
}

static struct acct acct_of(const char *role)
{
	char line[256], want[32];
	struct acct a = { -1, -1, -1, -1, -1, -1 };
	FILE *f = fopen(scratch_path("sched.info"), "r");

	snprintf(want, sizeof(want), "role=%s ", role);
	while (f && fgets(line, sizeof(line), f))
		if (!strncmp(line, want, strlen(want)))
			sscanf(line + strlen(want), "tid=%lld nvcsw=%lld nivcsw=%lld "
			       "cpu_ns=%lld real_ns=%lld real0_ns=%lld", &a.tid,
			       &a.nvcsw, &a.nivcsw, &a.cpu_ns, &a.real_ns,
			       &a.real0_ns);
	if (f)
		fclose(f);
	assert_true(a.tid > 0);
	return a;
}

/*
 * Does the kernel leave interrupt time out of a thread's charge
 * (CONFIG_IRQ_TIME_ACCOUNTING)?  Taken as yes when its config cannot be
 * read.
 */
static int irq_time_left_out(void)
{
	char path[300], line[256];
	struct utsname u;
	FILE *f;
	int out = 0;

	if (uname(&u) < 0)
		return 1;
	snprintf(path, sizeof(path), "/boot/config-%s", u.release);
	f = fopen(path, "r");
	if (!f)
		return 1;
	while (fgets(line, sizeof(line), f))
		out |= !strcmp(line, "CONFIG_IRQ_TIME_ACCOUNTING=y\n");
	fclose(f);
	return out;
}

/*
 * Time every CPU spent that a thread on it may not be charged for, in
 * /proc/stat's ticks: steal (left out of the charge with
 * PARAVIRT_TIME_ACCOUNTING), and irq and softirq where they are left
 * out too.
 */
static long long uncharged_ticks(int irq_too)
{
	long long user, nice, sys, idle, iowait, irq, softirq, steal, sum = 0;
	char line[512];
	FILE *f = fopen("/proc/stat", "r");

	assert_non_null(f);
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, "cpu", 3) && line[3] != ' ' &&
		    sscanf(line, "%*s %lld %lld %lld %lld %lld %lld %lld %lld",
			   &user, &nice, &sys, &idle, &iowait, &irq, &softirq,
			   &steal) == 8)
			sum += irq_too ? irq + softirq + steal : steal;
	fclose(f);
	return sum;
}

/* That time over the last recording, in ns, plus a tick for each
 * counter summed (a difference of two readings may be a tick short of
 * the ns a counter moved): what running time may exceed the CPU clock
 * by, besides the switches' cost. */
static long long uncharged_while_recording;

static int record_once(void **state)
{
	char *argv[] = { (char *)faultline_bin(), "record", "-q", "-o",
			 (char *)db_path(), "--", (char *)getenv("SCHED_WORKLOAD"),
			 scratch_path("sched.info"), scratch_path("sched.dat"), NULL };
	struct run r;
	long tick_ns = 1000000000L / sysconf(_SC_CLK_TCK);
	int irq_too = irq_time_left_out();
	long long before = uncharged_ticks(irq_too), counters;
	int err;

	(void)state;
	if (!argv[6])
		argv[6] = "build/release/tests/sched_workload";
	err = run_argv(&r, argv);
	counters = sysconf(_SC_NPROCESSORS_CONF) * (irq_too ? 3 : 1);
	uncharged_while_recording = (uncharged_ticks(irq_too) - before +
				     counters) * tick_ns;
	return err == 0 ? 0 : -1;
}

/* Two CPU hogs for the whole recording, so that threads are preempted
 * and wait for a CPU: the accounting must agree on a busy machine too. */
static pid_t hogs[2];

static int record_busy(void **state)
{
	for (int i = 0; i < 2; i++) {
		hogs[i] = fork();
		if (hogs[i] == 0)
			for (;;)
				;
	}
	unlink(db_path());
	return record_once(state);
}

static int stop_hogs(void **state)
{
	for (int i = 0; i < 2; i++) {
		kill(hogs[i], SIGKILL);
		waitpid(hogs[i], NULL, 0);
	}
	return kill_leftovers(state);
}

/*
 * Switch-outs recorded before the thread read its own counts (what comes
 * after, its exit, is not in them: under AddressSanitizer that exit made
 * two more voluntary switches once).  The recorded count may exceed the
 * kernel's by one switch in the microseconds between getrusage and the
 * clock read that bounds the count, never fall short.
 */
static void assert_count(long long recorded, long long kernel, const char *what,
			 const char *role)
{
	if (recorded < kernel || recorded > kernel + 1)
		fail_msg("%s: %lld %s switch-outs recorded, the kernel counted %lld",
			 role, recorded, what, kernel);
}

/* Involuntary switch-outs open a runnable interval marked preempted;
 * voluntary ones open an off-CPU interval of their own. */
static void switch_outs_equal_the_kernels_context_switch_counts(void **state)
{
	const char *roles[] = { "spin", "sleep", "ping", "pong", "disk" };

	(void)state;
	for (size_t i = 0; i < sizeof(roles) / sizeof(roles[0]); i++) {
		struct acct a = acct_of(roles[i]);

		assert_count(db_int(db_path(), "SELECT count(*) FROM thread_state "
				    "WHERE tid = %lld AND ts < %lld AND preempted = 1",
				    a.tid, a.real_ns), a.nivcsw, "involuntary", roles[i]);
		assert_count(db_int(db_path(), "SELECT count(*) FROM thread_state "
				    "WHERE tid = %lld AND ts < %lld AND preempted = 0 "
				    "AND state IN ('waiting', 'sleeping', 'blocked', "
				    "'other')", a.tid, a.real_ns), a.nvcsw, "voluntary",
			     roles[i]);
	}
}

/*
 * Running time against CLOCK_THREAD_CPUTIME_ID, up to the instant just
 * before the thread read it (what runs after, the thread's exit, is not
 * in its clock).  Only this direction is the kernel's to promise: a
 * running interval lies within time the thread is charged for.  The
 * other way the two differ by the cost of each switch in: the scheduler
 * charges a thread from the moment it picks it, while the switch-in
 * record is written after the context switch and after the thread's
 * perf events are scheduled in (finish_task_switch).  That cost was 1 to
 * 30 us a switch on this paravirtualized VM and 200 us once on a fresh
 * one, so no bound that way would hold; the test below checks that side
 * instant by instant instead.
 * Tolerance 1 ms + 2% + 20 us a switch: a switch-out record is written
 * after the charge stops; and interrupt and steal time may be left out
 * of the charge, so whatever of it /proc/stat counted on any CPU during
 * the recording is allowed too (the spinning thread once ran 319 ms by
 * its intervals against 300 ms charged, with two hogs, on a shared VM).
 */
static void running_time_never_exceeds_the_threads_cpu_clock(void **state)
{
	const char *roles[] = { "spin", "sleep", "ping", "pong", "disk" };

	(void)state;
	for (size_t i = 0; i < sizeof(roles) / sizeof(roles[0]); i++) {
		struct acct a = acct_of(roles[i]);
		long long run = db_int(db_path(), "SELECT sum(min(ts + dur, %lld) - ts) "
				       "FROM thread_state WHERE tid = %lld AND "
				       "state = 'running' AND ts < %lld", a.real0_ns,
				       a.tid, a.real0_ns);
		long long switches = a.nvcsw + a.nivcsw;

		if (run > a.cpu_ns + 1000000 + a.cpu_ns / 50 + 20000 * switches +
			  uncharged_while_recording)
			fail_msg("%s: running %lld ns, CPU clock %lld ns, %lld ns "
				 "of steal and interrupts", roles[i], run, a.cpu_ns,
				 uncharged_while_recording);
	}
	assert_true(acct_of("spin").cpu_ns >= 300000000);
}

/* How many of the instants a thread saw itself running user code (the
 * workload's "seen" lines) lie outside every running interval of it. */
static int seen_outside_running(const char *role, long long tid)
{
	char line[256], want[48];
	sqlite3 *db = NULL;
	sqlite3_stmt *st = NULL;
	FILE *f = fopen(scratch_path("sched.info"), "r");
	int outside = 0, seen = 0;
	long long t;

	snprintf(want, sizeof(want), "seen role=%s t=%%lld", role);
	assert_non_null(f);
	assert_int_equal(sqlite3_open_v2(db_path(), &db, SQLITE_OPEN_READONLY,
					 NULL), SQLITE_OK);
	assert_int_equal(sqlite3_prepare_v2(db, "SELECT count(*) FROM "
		"thread_state WHERE tid = ?1 AND state = 'running' AND "
		"ts <= ?2 AND ts + dur > ?2", -1, &st, NULL), SQLITE_OK);
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, want, &t) != 1)
			continue;
		seen++;
		sqlite3_bind_int64(st, 1, tid);
		sqlite3_bind_int64(st, 2, t);
		if (sqlite3_step(st) != SQLITE_ROW || sqlite3_column_int64(st, 0) != 1) {
			if (outside++ < 3)
				fprintf(stderr, "%s: on a CPU at %lld, in no running "
					"interval\n", role, t);
		}
		sqlite3_reset(st);
	}
	sqlite3_finalize(st);
	sqlite3_close(db);
	fclose(f);
	assert_true(seen > 0);
	return outside;
}

/*
 * What the kernel does promise about the switch in: its record is written
 * before the thread returns to user mode, and the switch-out record after
 * it enters the kernel.  So every instant the thread read the clock in
 * user mode lies inside one running interval of it: a lost or mislabelled
 * running interval shows here.  The closest instant seen was 1.1 us from
 * an interval's edge, the clock conversion's uncertainty is 20-25 ns.
 */
static void a_thread_on_a_cpu_is_inside_a_running_interval(void **state)
{
	const char *roles[] = { "spin", "sleep", "ping", "pong", "disk" };

	(void)state;
	for (size_t i = 0; i < sizeof(roles) / sizeof(roles[0]); i++)
		assert_int_equal(seen_outside_running(roles[i],
						      acct_of(roles[i]).tid), 0);
}

static void a_threads_intervals_neither_overlap_nor_leave_holes(void **state)
{
	(void)state;
	assert_int_equal(db_int(db_path(),
		"SELECT count(*) FROM (SELECT tid, ts, dur, lead(ts) OVER "
		"(PARTITION BY tid ORDER BY ts) AS next FROM thread_state) "
		"WHERE next IS NOT NULL AND next != ts + dur"), 0);
	assert_true(db_int(db_path(), "SELECT count(*) FROM thread_state") > 2000);
}

static void a_sleeping_thread_spends_its_sleeps_off_the_cpu(void **state)
{
	struct acct a = acct_of("sleep");

	(void)state;
	assert_true(db_int(db_path(), "SELECT sum(dur) FROM thread_state WHERE "
			   "tid = %lld AND state != 'running'", a.tid) >= 200000000);
}

/*
 * sched_switch's prev_state tells S from D: the O_DIRECT reads wait in D,
 * the nanosleeps in S.  Each thread also waits now and then on something
 * else (a lock in the C library, the allocator's under AddressSanitizer,
 * mmap_lock in a fault: 3 of 13 waits once, with the CPU hogs), and a read
 * the device completes before the thread sleeps makes no switch at all
 * (9 of 10 once; the reader reads until 10 waited, at most 200 reads).
 * So: every nanosleep is a sleeping interval, most of the reader's waits
 * are blocked, and neither exceeds the switches.
 */
static long long count_state(struct acct a, const char *state_name)
{
	/* Up to the thread's own accounting, as the switch counts are
	 * compared: its exit, after it, leaves the CPU too (runnable
	 * intervals after it were seen under the sanitizers). */
	long long n = db_int(db_path(), "SELECT count(*) FROM thread_state WHERE "
			     "tid = %lld AND state = '%s' AND ts < %lld", a.tid,
			     state_name, a.real_ns);

	if (n > a.nvcsw)
		fail_msg("%lld %s intervals for %lld voluntary switches", n,
			 state_name, a.nvcsw);
	return n;
}

static void disk_reads_block_and_sleeps_sleep(void **state)
{
	struct acct disk = acct_of("disk"), sleep = acct_of("sleep");
	long long blocked = count_state(disk, "blocked");

	(void)state;
	assert_true(count_state(sleep, "sleeping") >= 10);
	if (disk.nvcsw == 0)
		skip_msg("the reader's 200 O_DIRECT reads all completed before "
			 "it slept: this disk gave no wait to hold against");
	if (blocked < 1 || blocked * 2 < disk.nvcsw)
		fail_msg("%lld of the reader's %lld waits were blocked", blocked,
			 disk.nvcsw);
}

/* Each of the pair sleeps in read() until the other writes: the other is
 * its waker, a thread (sched_waking runs in the waker's context).
 * Allowed: 1% + 5 of the sleeps ended by someone else, as a thread also
 * waits now and then on the C library, the thread that created it, or in
 * the sanitizer pass its runtime's locks: a few waits however many round
 * trips slept.  Once there 43 of 1000 did, and 2 of them were such; once
 * pong slept 7 times, 4 of them such: sharing a CPU with ping, it was
 * preempted by each wake-up it gave and found ping's byte waiting. */
static void assert_woken_by(struct acct a, struct acct by)
{
	long long n = db_int(db_path(), "SELECT count(*) FROM thread_state WHERE "
			     "tid = %lld AND state = 'sleeping' AND waker_tid = %lld "
			     "AND waker_context = 'thread'", a.tid, by.tid);

	if (n > a.nvcsw || n < a.nvcsw - a.nvcsw / 100 - 5)
		fail_msg("%lld of %lld sleeps of %lld ended by %lld", n, a.nvcsw,
			 a.tid, by.tid);
}

static void ping_and_pong_wake_each_other(void **state)
{
	struct acct ping = acct_of("ping"), pong = acct_of("pong");

	(void)state;
	assert_woken_by(ping, pong);
	assert_woken_by(pong, ping);
	/* A wake-up ends the sleep and starts a wait for a CPU. */
	assert_int_equal(db_int(db_path(), "SELECT count(*) FROM thread_state a JOIN "
				"thread_state b ON b.tid = a.tid AND b.ts = a.ts + a.dur "
				"AND b.rowid != a.rowid WHERE a.tid = %lld AND "
				"a.waker_tid IS NOT NULL AND b.state != 'runnable'",
				ping.tid), 0);
	/* And the readers call that wait a wake-up's, with its waker, also
	 * where the wake-up raced the switch out (a sleep 0 ns long, at the
	 * wait's own ts); only the wait after its creation follows none. */
	assert_true(db_int(db_path(), "SELECT count(*) FROM thread_state_reason "
			   "WHERE tid = %lld AND state = 'runnable' AND reason = "
			   "'runnable'", ping.tid) <= 1);
}

/* The sleeper's 10 timed sleeps (nanosleep: S, 20 ms) end by the timer's
 * interrupt, never by a thread, though the spinner, busy beside them, is
 * the one an interrupt often hits.  A wake-up on an idle CPU often
 * reports no sched_waking on these machines, so how many carry a known
 * interrupt varies; none may name a thread.  (Its other waits, a lock's
 * in the kernel say, can rightly end by a thread.) */
static void timer_wakeups_are_never_a_threads(void **state)
{
	struct acct sleeper = acct_of("sleep");

	(void)state;
	assert_int_equal(db_int(db_path(), "SELECT count(*) FROM thread_state WHERE "
				"tid = %lld AND state = 'sleeping' AND dur >= 19000000 "
				"AND waker_tid != 0", sleeper.tid), 0);
	/* Those credited to an interrupt name its kind. */
	assert_int_equal(db_int(db_path(), "SELECT count(*) FROM thread_state WHERE "
				"tid = %lld AND state = 'sleeping' AND waker_tid = 0 AND "
				"coalesce(waker_context, '') NOT IN ('hardirq', "
				"'softirq', 'nmi', 'thread')", sleeper.tid), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(switch_outs_equal_the_kernels_context_switch_counts),
		cmocka_unit_test(running_time_never_exceeds_the_threads_cpu_clock),
		cmocka_unit_test(a_thread_on_a_cpu_is_inside_a_running_interval),
		cmocka_unit_test(a_threads_intervals_neither_overlap_nor_leave_holes),
		cmocka_unit_test(a_sleeping_thread_spends_its_sleeps_off_the_cpu),
		cmocka_unit_test(disk_reads_block_and_sleeps_sleep),
		cmocka_unit_test(ping_and_pong_wake_each_other),
		cmocka_unit_test(timer_wakeups_are_never_a_threads),
	};

	int failed = cmocka_run_group_tests_name("idle machine", tests,
						 record_once, kill_leftovers);

	return failed + cmocka_run_group_tests_name("busy machine", tests,
						    record_busy, stop_hogs);
}
