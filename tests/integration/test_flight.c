/*
 * record --flight against real recordings: a workload that stalls once at
 * a random moment among seconds of normal work, each of its sleeps and
 * page touches logged; the dump must hold the stall and, around it, a
 * row for each sleep and fault the workload made.  The flight
 * recorder's memory must stay within --max-memory.
 *
 * (A dump held against a full recording of the same run, two recorders
 * at once, is in test_real_programs: python3's http.server.)
 *
 * The metric triggers (--trigger metric:NAME>VALUE) record a sleeping
 * command instead: the test itself writes the lines to --metric-fifo or
 * sends them to --metric-udp, noting CLOCK_REALTIME around each send.
 *
 * FAULTLINE_FLIGHT_SEED fixes the stall's moment (each run prints it).
 */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <setjmp.h>
#include <stdarg.h>
#include <sys/socket.h>
#include <stddef.h>
#include <cmocka.h>

#include "run.h"

#define WORK_SECONDS "4"
#define STALL_MS 400
#define STALL_MS_TEXT "400"
#define BEFORE_NS 2000000000ll
#define AFTER_NS 300000000ll

static unsigned seed;

static const char *flight_workload(void)
{
	static char path[300];
	const char *b = getenv("BUILD");

	snprintf(path, sizeof(path), "%s/tests/flight_workload",
		 b ? b : "build/release");
	return path;
}

/* The value after "key=" in the workload's info file; -1 until there. */
static long long info_value(const char *info, const char *key)
{
	char buf[4096], pat[64];
	const char *p;

	slurp(info, buf, sizeof(buf));
	snprintf(pat, sizeof(pat), "%s=", key);
	p = strstr(buf, pat);
	return p ? atoll(p + strlen(pat)) : -1;
}

static long long wait_info(const char *info, const char *key, long timeout_ms)
{
	long long v;

	for (long waited = 0; waited < timeout_ms; waited += 10) {
		if ((v = info_value(info, key)) >= 0)
			return v;
		sleep_ms(10);
	}
	return -1;
}

/* The workload's short sleeps, CLOCK_REALTIME ns before and after. */
struct sleeps {
	long long (*v)[2];
	long n;
};

static void read_sleeps(const char *info, struct sleeps *s)
{
	char path[512];
	long long b, e;
	FILE *f;

	snprintf(path, sizeof(path), "%s.sleeps", info);
	f = fopen(path, "r");
	assert_non_null(f);
	s->n = 0;
	s->v = calloc(100000, sizeof(*s->v));
	while (s->n < 100000 && fscanf(f, "%lld %lld", &b, &e) == 2) {
		s->v[s->n][0] = b;
		s->v[s->n][1] = e;
		s->n++;
	}
	fclose(f);
	assert_true(s->n > 100);
}

/* The first sleep that begins after t; -1 if none. */
static long sleep_after(const struct sleeps *s, long long t)
{
	for (long i = 0; i < s->n; i++)
		if (s->v[i][0] > t)
			return i;
	return -1;
}

/* The middle of sleep i: the thread is surely off the CPU then, so a
 * bound there falls between rows, whatever the clocks' small offsets. */
static long long mid(const struct sleeps *s, long i)
{
	return (s->v[i][0] + s->v[i][1]) / 2;
}

/*
 * The rows of the dump for the thread between the middles of sleeps k
 * and m (k < m, none of the stall between them): one 'sleeping' row
 * for each sleep after k up to m, and one fault for each page touched
 * after sleeps k to m - 1, exactly as the workload did them.
 */
static void rows_as_the_workload_did(const char *db, const char *info,
				     long long tid, const struct sleeps *s,
				     long k, long m)
{
	long long lo = mid(s, k), hi = mid(s, m);
	/* Its pages only: a sanitizer's shadow memory faults too. */
	long long mem = info_value(info, "mem"), end = info_value(info, "mem_end");

	assert_int_equal(db_int(db, "SELECT count(*) FROM thread_state WHERE "
				"session_id = 2 AND tid = %lld AND state = "
				"'sleeping' AND ts > %lld AND ts < %lld", tid, lo, hi),
			 m - k);
	assert_int_equal(db_int(db, "SELECT count(*) FROM fault WHERE "
				"session_id = 2 AND tid = %lld AND ts > %lld AND "
				"ts < %lld AND addr >= %lld AND addr < %lld", tid,
				lo, hi, mem, end), m - k);
}

static void a_dump_holds_the_stall_and_the_windows_around_it(void **state)
{
	char *db = strdup(scratch_path("flight.db"));
	char *info = strdup(scratch_path("flight.info"));
	char *fifo = strdup(scratch_path("flight.ctl"));
	char seedbuf[16], pid[16];
	char *wl_argv[] = { (char *)flight_workload(), info, WORK_SECONDS,
			    STALL_MS_TEXT, seedbuf, NULL };
	char *fl_argv[] = { (char *)faultline_bin(), "record", "-q", "-o", db,
			    "-p", pid, "--flight", "--keep", "2s,300ms",
			    "--max-memory", "64M", "--control", fifo, NULL };
	struct run wl, fl;
	struct sleeps s;
	long long stall_begin, stall_end, tid, ws, we;
	long k, before_stall, after_stall, last;

	(void)state;
	snprintf(seedbuf, sizeof(seedbuf), "%u", seed);
	run_start_usr1_blocked(&wl, wl_argv);
	snprintf(pid, sizeof(pid), "%d", (int)wl.pid);
	assert_int_equal(start_recording(&fl, fl_argv, 10000), 0);
	kill(wl.pid, SIGUSR1);
	stall_end = wait_info(info, "stall_end", 20000);
	assert_true(stall_end > 0);
	sleep_ms(200);
	write_line(fifo, "snapshot\n");
	assert_int_equal(run_wait(&wl), 0);
	assert_int_equal(run_wait(&fl), 0);
	stall_begin = info_value(info, "stall_begin");
	tid = info_value(info, "tid");
	read_sleeps(info, &s);

	/* One dump, by the control FIFO, its window around the stall. */
	assert_int_equal(db_int(db, "SELECT count(*) FROM flight_dump"), 1);
	assert_int_equal(db_int(db, "SELECT count(*) FROM flight_dump WHERE "
				"trigger = 'control' AND cut_short = 0 AND "
				"whole_from_ts IS NULL AND suppressed = 0"), 1);
	assert_int_equal(db_int(db, "SELECT count(*) FROM session s JOIN "
				"flight_dump USING (session_id) WHERE s.status = "
				"'complete'"), 1);
	ws = db_int(db, "SELECT window_start_ts FROM flight_dump");
	we = db_int(db, "SELECT window_end_ts FROM flight_dump");
	assert_int_equal(we - ws, BEFORE_NS + AFTER_NS);
	assert_true(ws < stall_begin - BEFORE_NS / 4);
	assert_true(we > stall_end);
	if (db_int(db, "SELECT records_lost + records_dropped FROM session "
		   "WHERE session_id = 2"))
		print_message("flight: the dump says records were lost\n");

	/* The stall: one off-CPU row of the thread, as long as it, between
	 * the workload's clock readings around it (1 ms allowed for the
	 * conversion to wall-clock time). */
	assert_int_equal(db_int(db, "SELECT count(*) FROM thread_state WHERE "
				"session_id = 2 AND tid = %lld AND state = 'sleeping' "
				"AND dur >= %lld AND ts >= %lld AND ts + dur <= %lld",
				tid, STALL_MS * 1000000ll, stall_begin - 1000000ll,
				stall_end + 1000000ll), 1);

	/* Before it, from 50 ms into the window (its first rows may be cut
	 * by it), and after it, to 50 ms before the window's end: each of
	 * the workload's sleeps and faults. */
	k = sleep_after(&s, ws + 50000000ll);
	after_stall = sleep_after(&s, stall_end);
	assert_true(k >= 0 && after_stall > k + 1);
	before_stall = after_stall - 1;
	assert_true(s.v[before_stall][1] < stall_begin);
	last = sleep_after(&s, we - 50000000ll) - 2;
	assert_true(last > after_stall);
	rows_as_the_workload_did(db, info, tid, &s, k, before_stall);
	rows_as_the_workload_did(db, info, tid, &s, after_stall, last);

	/* Each CPU's share is there, and the flight session itself holds
	 * no events. */
	assert_int_equal(db_int(db, "SELECT count(*) FROM flight_dump_cpu"),
			 sysconf(_SC_NPROCESSORS_ONLN));
	assert_int_equal(db_int(db, "SELECT count(*) FROM thread_state "
				"WHERE session_id = 1"), 0);
	free(s.v);
	free(db);
	free(info);
	free(fifo);
}

/* Runs the workload (wl_argv) with faultline (fl_argv) attached to it
 * before it starts working: pid, which fl_argv holds, is set to the
 * workload's.  Both must exit with status 0. */
static void record_workload(char **wl_argv, char **fl_argv, char *pid,
			    size_t pidlen)
{
	struct run wl, fl;

	run_start_usr1_blocked(&wl, wl_argv);
	snprintf(pid, pidlen, "%d", (int)wl.pid);
	assert_int_equal(start_recording(&fl, fl_argv, 10000), 0);
	kill(wl.pid, SIGUSR1);
	assert_int_equal(run_wait(&wl), 0);
	assert_int_equal(run_wait(&fl), 0);
}

/* Records the workload with --trigger spec (and extra, or NULL) and
 * nothing else to fire it: the stall must fire it while still going on,
 * DUR after it began, before it ended, once. */
static void a_stall_fires_while_still_going_on(const char *spec,
					       const char *kind,
					       const char *extra)
{
	static unsigned runs;
	char name[64], seedbuf[16], pid[16];
	char *db = strdup(scratch_path((snprintf(name, sizeof(name), "%s-%u.db",
						 kind, runs++), name)));
	char *info = strdup(scratch_path("trigger.info"));
	char *wl_argv[] = { (char *)flight_workload(), info, WORK_SECONDS,
			    STALL_MS_TEXT, seedbuf, NULL };
	char *fl_argv[] = { (char *)faultline_bin(), "record", "-q", "-o", db,
			    "-p", pid, "--flight", "--keep", "1s,500ms",
			    "--trigger", (char *)spec, (char *)extra, NULL };
	long long stall_begin, stall_end, tid, t;

	snprintf(seedbuf, sizeof(seedbuf), "%u", seed + 1);
	record_workload(wl_argv, fl_argv, pid, sizeof(pid));
	stall_begin = info_value(info, "stall_begin");
	stall_end = info_value(info, "stall_end");
	tid = info_value(info, "tid");

	assert_int_equal(db_int(db, "SELECT count(*) FROM flight_dump"), 1);
	assert_int_equal(db_int(db, "SELECT count(*) FROM flight_dump WHERE "
				"trigger = '%s' AND suppressed = 0 AND reason LIKE "
				"'%% of thread %lld still going on after 100.000 ms'",
				kind, tid), 1);
	t = db_int(db, "SELECT trigger_ts FROM flight_dump");
	/* 100 ms after the stall began (1 ms allowed for the clocks), and
	 * well before it ended. */
	assert_true(t >= stall_begin + 99000000ll);
	assert_true(t < stall_end - 200000000ll);
	/* The dump holds the whole stall. */
	assert_int_equal(db_int(db, "SELECT count(*) FROM thread_state WHERE "
				"session_id = 2 AND tid = %lld AND state = 'sleeping' "
				"AND dur >= %lld", tid, STALL_MS * 1000000ll), 1);
	free(db);
	free(info);
}

static void an_offcpu_stall_fires_before_it_ends(void **state)
{
	(void)state;
	a_stall_fires_while_still_going_on("offcpu>100ms", "offcpu", NULL);
}

/* A trigger with states or a thread takes only those spans: the sleep
 * fires offcpu:sleeping of the workload's thread, by its name. */
static void a_trigger_of_a_state_and_thread_fires_on_its_span(void **state)
{
	(void)state;
	a_stall_fires_while_still_going_on("offcpu:sleeping>100ms@flight_workload",
					   "offcpu", NULL);
}

/* ... and not on spans in other states, or of other threads: the same
 * sleep of 400 ms fires neither offcpu:blocked,runnable>100ms nor
 * offcpu>100ms of another thread. */
static void a_trigger_of_other_states_or_threads_fires_nothing(void **state)
{
	char seedbuf[16], pid[16];
	char *db = strdup(scratch_path("filtered.db"));
	char *info = strdup(scratch_path("filtered.info"));
	char *wl_argv[] = { (char *)flight_workload(), info, WORK_SECONDS,
			    STALL_MS_TEXT, seedbuf, NULL };
	char *fl_argv[] = { (char *)faultline_bin(), "record", "-q", "-o", db,
			    "-p", pid, "--flight", "--keep", "1s,500ms",
			    "--trigger", "offcpu:blocked,runnable>100ms",
			    "--trigger", "offcpu>100ms@1", "--trigger",
			    "offcpu>100ms@not_this_one", NULL };

	(void)state;
	snprintf(seedbuf, sizeof(seedbuf), "%u", seed + 2);
	record_workload(wl_argv, fl_argv, pid, sizeof(pid));
	/* The stall happened, and was counted in the minutes. */
	assert_true(info_value(info, "stall_end") -
		    info_value(info, "stall_begin") >= STALL_MS * 1000000ll);
	assert_int_equal(db_int(db, "SELECT count(*) FROM flight_minute WHERE "
				"kind = 'offcpu:sleeping' AND max_ns >= %lld",
				STALL_MS * 1000000ll), 1);
	assert_int_equal(db_int(db, "SELECT count(*) FROM flight_dump"), 0);
	assert_int_equal(db_int(db, "SELECT triggers FROM flight_summary"), 0);
	free(db);
	free(info);
}

static void a_long_system_call_fires_before_it_ends(void **state)
{
	(void)state;
	a_stall_fires_while_still_going_on("syscall>100ms", "syscall",
					   "--syscalls");
}

/* A dump's frames are named right after it is stored, as a recording's
 * are at its end: the stall's switch-out stack names the libc call it
 * slept in, and no frame of the dump is left without a status. */
static void a_dumps_frames_are_named_as_a_recordings_are(void **state)
{
	char seedbuf[16], pid[16];
	char *db = strdup(scratch_path("named.db"));
	char *info = strdup(scratch_path("named.info"));
	char *wl_argv[] = { (char *)flight_workload(), info, WORK_SECONDS,
			    STALL_MS_TEXT, seedbuf, NULL };
	char *fl_argv[] = { (char *)faultline_bin(), "record", "-q", "-o", db,
			    "-p", pid, "--flight", "--keep", "1s,500ms",
			    "--trigger", "offcpu>100ms", "--stacks", "fp",
			    "--stacks-on", "switches", NULL };
	long long tid;

	(void)state;
	snprintf(seedbuf, sizeof(seedbuf), "%u", seed + 3);
	record_workload(wl_argv, fl_argv, pid, sizeof(pid));
	tid = info_value(info, "tid");
	assert_int_equal(db_int(db, "SELECT count(*) FROM flight_dump"), 1);
	assert_true(db_int(db, "SELECT count(*) FROM frame WHERE session_id = 2 "
			   "AND status = 'ok'") > 0);
	assert_int_equal(db_int(db, "SELECT count(*) FROM frame WHERE "
				"session_id = 2 AND status IS NULL"), 0);
	assert_int_equal(db_int(db, "SELECT count(*) FROM thread_state t WHERE "
				"session_id = 2 AND tid = %lld AND state = "
				"'sleeping' AND dur >= %lld AND EXISTS (SELECT 1 "
				"FROM stack_frame_name n WHERE n.session_id = 2 "
				"AND n.stack_id = t.stack_id AND n.kernel = 0 AND "
				"n.function LIKE '%%nanosleep%%')", tid,
				STALL_MS * 1000000ll), 1);
	free(db);
	free(info);
}

/* Records the workload with the flight options given, and sends n
 * 'snapshot' lines gap_ms apart once it works; db gets the recording. */
static void snapshot_storm(const char *db, const char *opt, const char *val,
			   int n, long gap_ms)
{
	char *info = strdup(scratch_path("storm.info"));
	char *fifo = strdup(scratch_path("storm.ctl"));
	char seedbuf[16], pid[16];
	char *wl_argv[] = { (char *)flight_workload(), info, WORK_SECONDS,
			    STALL_MS_TEXT, seedbuf, NULL };
	char *fl_argv[] = { (char *)faultline_bin(), "record", "-q", "-o",
			    (char *)db, "-p", pid, "--flight", "--keep",
			    "100ms,100ms", "--control", fifo, (char *)opt,
			    (char *)val, NULL };
	struct run wl, fl;

	snprintf(seedbuf, sizeof(seedbuf), "%u", seed);
	run_start_usr1_blocked(&wl, wl_argv);
	snprintf(pid, sizeof(pid), "%d", (int)wl.pid);
	assert_int_equal(start_recording(&fl, fl_argv, 10000), 0);
	kill(wl.pid, SIGUSR1);
	sleep_ms(300);
	for (int i = 0; i < n; i++) {
		write_line(fifo, "snapshot\n");
		sleep_ms(gap_ms);
	}
	assert_int_equal(run_wait(&wl), 0);
	assert_int_equal(run_wait(&fl), 0);
	free(info);
	free(fifo);
}

static void a_storm_of_triggers_keeps_to_max_dumps_and_counts_the_rest(void **state)
{
	char *db = strdup(scratch_path("storm.db"));

	(void)state;
	snapshot_storm(db, "--max-dumps", "2/1h", 10, 300);
	assert_int_equal(db_int(db, "SELECT count(*) FROM flight_dump"), 2);
	assert_int_equal(db_int(db, "SELECT count(*) FROM flight_summary WHERE "
				"session_id = 1 AND triggers = 10 AND dumps = 2 AND "
				"suppressed_pending + suppressed_rate = 8 AND "
				"suppressed_disk = 0 AND max_dumps = 2 AND "
				"period_ns = 3600000000000"), 1);
	assert_true(db_int(db, "SELECT suppressed_rate FROM flight_summary") >= 1);
	/* Every dump is its own complete session. */
	assert_int_equal(db_int(db, "SELECT count(*) FROM session WHERE status = "
				"'complete'"), 3);
	free(db);
}

static void dumps_stop_at_max_disk_and_count_the_rest(void **state)
{
	char *db = strdup(scratch_path("disk.db"));

	(void)state;
	snapshot_storm(db, "--max-disk", "1K", 3, 600);
	assert_int_equal(db_int(db, "SELECT count(*) FROM flight_dump"), 1);
	assert_int_equal(db_int(db, "SELECT count(*) FROM flight_summary WHERE "
				"triggers = 3 AND dumps = 1 AND suppressed_disk + "
				"suppressed_pending = 2 AND max_disk = 1024 AND "
				"disk_bytes > 1024"), 1);
	assert_true(db_int(db, "SELECT suppressed_disk FROM flight_summary") >= 1);
	free(db);
}

/* The per-minute histograms of the thread, summed over its minutes. */
static long long minute_count(const char *db, long long tid, const char *kind)
{
	return db_int(db, "SELECT coalesce(sum(count), 0) FROM flight_minute "
		      "WHERE session_id = 1 AND tid = %lld AND kind = '%s'", tid,
		      kind);
}

static void per_minute_histograms_count_every_span_as_a_recording_does(void **state)
{
	char *db = strdup(scratch_path("minute.db"));
	char *info = strdup(scratch_path("minute.info"));
	char *fifo = strdup(scratch_path("minute.ctl"));
	char seedbuf[16], pid[16];
	char *wl_argv[] = { (char *)flight_workload(), info, "3", STALL_MS_TEXT,
			    seedbuf, NULL };
	char *fl_argv[] = { (char *)faultline_bin(), "record", "-q", "-o", db,
			    "-p", pid, "--flight", "--keep", "1h,1h", "--syscalls",
			    "--control", fifo, NULL };
	static const char *const states[] = { "sleeping", "blocked", "runnable",
					      "waiting", "other" };
	struct run wl, fl;
	long long tid, sleeps;

	(void)state;
	snprintf(seedbuf, sizeof(seedbuf), "%u", seed);
	run_start_usr1_blocked(&wl, wl_argv);
	snprintf(pid, sizeof(pid), "%d", (int)wl.pid);
	assert_int_equal(start_recording(&fl, fl_argv, 10000), 0);
	kill(wl.pid, SIGUSR1);
	/* A dump of everything, cut short by the workload's end: what a
	 * recording of the whole run stores. */
	sleep_ms(1000);
	write_line(fifo, "snapshot\n");
	assert_int_equal(run_wait(&wl), 0);
	assert_int_equal(run_wait(&fl), 0);
	tid = info_value(info, "tid");
	sleeps = info_value(info, "sleeps");
	assert_true(sleeps > 100);
	assert_int_equal(db_int(db, "SELECT count(*) FROM flight_dump WHERE "
				"cut_short = 1 AND whole_from_ts IS NULL"), 1);

	/* The workload's own count: its short sleeps and the stall (off the
	 * CPU, it may also have slept elsewhere: LeakSanitizer's check at
	 * its exit does).  Each sleep took the thread off the CPU, asleep,
	 * or runnable when it was preempted after arming its timer and the
	 * timer fired before it ran again (the kernel then never switches
	 * it out asleep).  Sleeping spans alone fell short once under the
	 * sanitizers, with both CPUs busy. */
	assert_int_equal(minute_count(db, tid, "syscall:clock_nanosleep"),
			 sleeps + 1);
	assert_true(minute_count(db, tid, "offcpu:sleeping") +
		    minute_count(db, tid, "offcpu:runnable") >= sleeps + 1);
	/* The recording's: its faults and off-CPU spans, kind by kind. */
	assert_true(minute_count(db, tid, "fault:minor") >= sleeps);
	assert_int_equal(minute_count(db, tid, "fault:minor"),
			 db_int(db, "SELECT count(*) FROM fault WHERE session_id = 2 "
				"AND tid = %lld AND kind = 'minor'", tid));
	assert_int_equal(minute_count(db, tid, "fault:major"),
			 db_int(db, "SELECT count(*) FROM fault WHERE session_id = 2 "
				"AND tid = %lld AND kind = 'major'", tid));
	for (size_t i = 0; i < sizeof(states) / sizeof(states[0]); i++) {
		char kind[32];

		snprintf(kind, sizeof(kind), "offcpu:%s", states[i]);
		assert_int_equal(minute_count(db, tid, kind),
				 db_int(db, "SELECT count(*) FROM thread_state "
					"WHERE session_id = 2 AND tid = %lld AND "
					"state = '%s'", tid, states[i]));
	}
	/* The longest span is kept exactly: the stall. */
	assert_true(db_int(db, "SELECT max(max_ns) FROM flight_minute WHERE "
			   "kind = 'offcpu:sleeping'") >= STALL_MS * 1000000ll);
	/* And the recorder's own cost. */
	assert_int_equal(db_int(db, "SELECT count(*) FROM flight_cost WHERE "
				"session_id = 1 AND user_ns + sys_ns > 0 AND "
				"rss_bytes > 0 AND max_rss_bytes >= rss_bytes"), 1);
	free(db);
	free(info);
	free(fifo);
}

/* 'stop' on --control stops as Ctrl-C would: the command ended, the
 * flight session 'stopped', saying why; a dump still waiting for its
 * AFTER is made, cut short. */
static void stop_on_control_stops_and_makes_the_pending_dump(void **state)
{
	char *db = strdup(scratch_path("stop.db"));
	char *fifo = strdup(scratch_path("stop.ctl"));
	char *argv[] = { (char *)faultline_bin(), "record", "-q", "-o", db,
			 "--flight", "--keep", "1s,1h", "--control", fifo, "--",
			 "/bin/sleep", "600", NULL };
	struct run fl;

	(void)state;
	assert_int_equal(start_recording(&fl, argv, 10000), 0);
	write_line(fifo, "snapshot\n");
	sleep_ms(300);
	write_line(fifo, "stop\n");
	assert_int_equal(run_wait(&fl), 0);
	assert_int_equal(db_int(db, "SELECT count(*) FROM session WHERE "
				"session_id = 1 AND status = 'stopped' AND "
				"end_reason = 'stopped by ''stop'' on --control'"), 1);
	assert_int_equal(db_int(db, "SELECT count(*) FROM flight_dump WHERE "
				"trigger = 'control' AND cut_short = 1 AND "
				"window_end_ts < trigger_ts + 3600000000000"), 1);
	assert_int_equal(db_int(db, "SELECT count(*) FROM flight_summary WHERE "
				"triggers = 1 AND dumps = 1"), 1);
	/* Its window reached back before the recording began: the dump
	 * starts where the recording did, not at the dump's moment (three
	 * anchors later), and ends after it starts. */
	assert_int_equal(db_int(db, "SELECT count(*) FROM session AS d JOIN "
				"flight_dump AS f USING (session_id), session AS s "
				"WHERE s.session_id = 1 AND d.start_ts = s.start_ts "
				"AND d.start_ts <= f.trigger_ts AND d.end_ts > "
				"d.start_ts"), 1);
	free(db);
	free(fifo);
}

/* fault>1ns: the first fault of the workload fires (every fault takes
 * longer), the dump holds it with the trigger inside it, and the faults
 * after it, under --max-dumps 1/1h, are counted, not dumped. */
static void a_fault_longer_than_dur_fires_and_is_in_its_dump(void **state)
{
	char *db = strdup(scratch_path("fault.db"));
	char *info = strdup(scratch_path("fault.info"));
	char seedbuf[16], pid[16];
	char *wl_argv[] = { (char *)flight_workload(), info, "2", "100", seedbuf,
			    NULL };
	char *fl_argv[] = { (char *)faultline_bin(), "record", "-q", "-o", db,
			    "-p", pid, "--flight", "--keep", "1s,200ms",
			    "--trigger", "fault>1ns", "--max-dumps", "1/1h", NULL };
	struct run wl, fl;
	long long tid;

	(void)state;
	snprintf(seedbuf, sizeof(seedbuf), "%u", seed);
	run_start_usr1_blocked(&wl, wl_argv);
	snprintf(pid, sizeof(pid), "%d", (int)wl.pid);
	assert_int_equal(start_recording(&fl, fl_argv, 10000), 0);
	kill(wl.pid, SIGUSR1);
	assert_int_equal(run_wait(&wl), 0);
	assert_int_equal(run_wait(&fl), 0);
	tid = info_value(info, "tid");

	assert_int_equal(db_int(db, "SELECT count(*) FROM flight_dump WHERE "
				"trigger = 'fault' AND reason LIKE 'a fault of thread "
				"%lld %%'", tid), 1);
	/* The fault that fired, in the dump: the trigger at its end, or
	 * (seen still going on) 1 ns into it. */
	assert_int_equal(db_int(db, "SELECT count(*) FROM fault f JOIN "
				"flight_dump d USING (session_id) WHERE f.tid = %lld "
				"AND d.trigger_ts BETWEEN f.ts AND f.ts + f.dur", tid),
			 1);
	/* The workload faulted hundreds of times more: all past the rate. */
	assert_true(db_int(db, "SELECT suppressed_rate FROM flight_summary") > 100);
	assert_int_equal(db_int(db, "SELECT triggers - dumps - suppressed_rate - "
				"suppressed_pending FROM flight_summary"), 0);
	free(db);
	free(info);
}

/* VmRSS of pid in bytes; -1 once it is gone. */
static long long vm_rss(pid_t pid)
{
	char path[64], line[256];
	long long kib = -1;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	f = fopen(path, "r");
	while (f && fgets(line, sizeof(line), f))
		if (!strncmp(line, "VmRSS:", 6))
			kib = atoll(line + 6);
	if (f)
		fclose(f);
	return kib < 0 ? -1 : kib * 1024;
}

#define MEMORY_MB 4
#define SPOOL_MB 4
#define RING_MB 1
/* The fixed part of faultline's memory: the program, its libraries,
 * SQLite's page cache, the decoder's tables; measured at 30-35 MiB
 * armed with nothing kept (2-core VM). */
#define FIXED_ALLOWANCE (48ll << 20)

static void the_flight_recorder_stays_within_max_memory(void **state)
{
	char db[256];
	char *argv[] = { (char *)faultline_bin(), "record", "-q", "-o", db,
			 "--flight", "--keep", "1s,100ms", "--max-memory", "4M",
			 "--spool-size", "4M", "--buffer-size", "1M", "--",
			 (char *)workload_bin(), "--storm", "4", NULL };
	long long peak = 0, rss, allowed;
	struct run fl;

	(void)state;
	snprintf(db, sizeof(db), "%s", scratch_path("memory.db"));
#ifdef __SANITIZE_ADDRESS__
	skip_msg("AddressSanitizer's shadow memory is no part of faultline's");
#endif
	assert_int_equal(start_recording(&fl, argv, 10000), 0);
	/* Armed for 3 s of a fault storm, far more than 4 MiB of records. */
	for (int i = 0; i < 60; i++) {
		rss = vm_rss(fl.pid);
		if (rss > peak)
			peak = rss;
		sleep_ms(50);
	}
	kill(fl.pid, SIGUSR2);
	assert_int_equal(run_wait(&fl), 0);
	allowed = ((long long)(MEMORY_MB + SPOOL_MB) << 20) +
		  ((long long)sysconf(_SC_NPROCESSORS_ONLN) * RING_MB << 20) +
		  FIXED_ALLOWANCE;
	print_message("flight: peak VmRSS armed %lld KiB, allowed %lld KiB\n",
		      peak >> 10, allowed >> 10);
	assert_true(peak > 0);
	assert_true(peak <= allowed);
	/* The bound was reached: the oldest records were dropped, counted,
	 * and the window starts where every CPU's records are whole. */
	assert_int_equal(db_int(db, "SELECT count(*) FROM flight_dump WHERE "
				"history_bytes = %d AND history_peak_bytes <= "
				"history_bytes AND history_dropped_records > 0 AND "
				"whole_from_ts IS NOT NULL AND window_start_ts = "
				"whole_from_ts", (MEMORY_MB << 20) - (MEMORY_MB << 20) / 8), 1);
}

/* A free UDP port on 127.0.0.1, as the kernel picks one (closed again:
 * faultline binds it next). */
static int free_udp_port(void)
{
	struct sockaddr_in a = { .sin_family = AF_INET,
				 .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t len = sizeof(a);
	int fd = socket(AF_INET, SOCK_DGRAM, 0);

	assert_true(fd >= 0);
	assert_int_equal(bind(fd, (struct sockaddr *)&a, sizeof(a)), 0);
	assert_int_equal(getsockname(fd, (struct sockaddr *)&a, &len), 0);
	close(fd);
	return ntohs(a.sin_port);
}

static void send_datagram(int port, const char *text)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons(port),
				 .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	int fd = socket(AF_INET, SOCK_DGRAM, 0);

	assert_true(fd >= 0);
	assert_int_equal(sendto(fd, text, strlen(text), 0, (struct sockaddr *)&a,
				sizeof(a)), (ssize_t)strlen(text));
	close(fd);
}

static long long realtime_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_REALTIME, &t);
	return t.tv_sec * 1000000000ll + t.tv_nsec;
}

/* Waits for r, *peak getting the most VmRSS of pid meanwhile. */
static int wait_sampling(struct run *r, pid_t pid, long long *peak)
{
	long long rss;
	pid_t got;
	int st = 0;

	while ((got = waitpid(r->pid, &st, WNOHANG)) == 0 ||
	       (got < 0 && errno == EINTR)) {
		if ((rss = vm_rss(pid)) > *peak)
			*peak = rss;
		sleep_ms(20);
	}
	assert_int_equal(got, r->pid);
	forget_started(r->pid);
	r->status = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
	return r->status;
}

/* Waits until db holds n dumps, *peak getting the most VmRSS of pid
 * meanwhile; 0, or -1 after timeout_ms. */
static int wait_dumps(const char *db, long long n, pid_t pid, long long *peak,
		      long timeout_ms)
{
	long long rss;

	for (long waited = 0; waited < timeout_ms; waited += 20) {
		if ((rss = vm_rss(pid)) > *peak)
			*peak = rss;
		if (db_int(db, "SELECT count(*) FROM flight_dump") >= n)
			return 0;
		sleep_ms(20);
	}
	return -1;
}

#define BLOCK_ROUNDS 6
#define BLOCK_READS 600
#define BLOCK_READS_TEXT "600"
/* flight_block.h's slot: what an event costs in the memory. */
#define BLOCK_SLOT_BYTES 120

/*
 * --block-io armed: rounds of 600 direct reads, each followed by a
 * SIGUSR2 and its dump, far more events than the eighth of a 4 MiB
 * --max-memory holds.  The memory stays within bounds, the oldest events
 * are dropped and counted, each window starts where the memory is whole
 * again, and a window that starts before its round holds all its reads,
 * each one request, and none that is not there.
 */
static void block_events_are_kept_within_max_memory_over_many_windows(void **state)
{
	char db[256], data[256], info[256];
	char *argv[] = { (char *)faultline_bin(), "record", "-q", "-o", db,
			 "--flight", "--block-io", "--keep", "1h,100ms",
			 "--max-memory", "4M", "--spool-size", "4M",
			 "--buffer-size", "1M", "--", "/bin/sleep", "600", NULL };
	/* The release build's workload, as test_block_io runs it: one built
	 * with the sanitizers reads its large runtime in at its start, in
	 * requests of the same size when the page cache has dropped it. */
	char *wl_argv[] = { "build/release/tests/block_workload", data,
			    BLOCK_READS_TEXT, "4096", info, NULL };
	long long peak = 0, allowed, slots;
	long long round_start[BLOCK_ROUNDS], round_end[BLOCK_ROUNDS];
	int whole = 0;
	struct run fl, wl;

	(void)state;
	snprintf(db, sizeof(db), "%s", scratch_path("block.db"));
	snprintf(data, sizeof(data), "%s", scratch_path("block.bin"));
	assert_int_equal(start_recording(&fl, argv, 10000), 0);
	for (int i = 0; i < BLOCK_ROUNDS; i++) {
		snprintf(info, sizeof(info), "%s.%d", scratch_path("block.info"), i);
		round_start[i] = realtime_ns();
		run_start_as(&wl, -1, wl_argv);
		if (wait_sampling(&wl, fl.pid, &peak) == 77)
			skip_msg("the file system holds no %d direct reads of 4096 "
				 "bytes in one extent each, or has no O_DIRECT",
				 BLOCK_READS);
		assert_int_equal(wl.status, 0);
		round_end[i] = realtime_ns();
		kill(fl.pid, SIGUSR2);
		assert_int_equal(wait_dumps(db, i + 1, fl.pid, &peak, 20000), 0);
	}
	kill(fl.pid, SIGINT);
	assert_int_equal(run_wait(&fl), 0);
	allowed = ((long long)(MEMORY_MB + SPOOL_MB) << 20) +
		  ((long long)sysconf(_SC_NPROCESSORS_ONLN) * RING_MB << 20) +
		  FIXED_ALLOWANCE;
	print_message("flight --block-io: peak VmRSS armed %lld KiB, allowed "
		      "%lld KiB\n", peak >> 10, allowed >> 10);
#ifndef __SANITIZE_ADDRESS__
	assert_true(peak > 0);
	assert_true(peak <= allowed);
#endif
	/* Every round dumped; the memory filled, and from then on each
	 * window starts where it is whole. */
	slots = ((MEMORY_MB << 20) / 8) / BLOCK_SLOT_BYTES;
	assert_int_equal(db_int(db, "SELECT count(*) FROM flight_dump f JOIN "
				"session s USING (session_id) WHERE s.status = "
				"'complete' AND f.history_bytes = %d", (MEMORY_MB << 20) -
				2 * ((MEMORY_MB << 20) / 8)), BLOCK_ROUNDS);
	assert_true(db_int(db, "SELECT max(block_dropped) FROM flight_dump") > 0);
	assert_int_equal(db_int(db, "SELECT count(*) FROM flight_dump WHERE "
				"block_dropped > 0 AND (whole_from_ts IS NULL OR "
				"window_start_ts != whole_from_ts)"), 0);
	for (int i = 0; i < BLOCK_ROUNDS; i++) {
		long long sid = db_int(db, "SELECT session_id FROM flight_dump "
				       "ORDER BY session_id LIMIT 1 OFFSET %d", i);
		/* The round's reads: not a target's (the target is sleep), so
		 * known by their thread's name and time, and as the direct
		 * reads they are (rwbs RS: sync). */
		long long reads = db_int(db, "SELECT count(*) FROM block_request "
					 "WHERE session_id = %lld AND comm = "
					 "'block_workload' AND rwbs = 'RS' AND bytes = "
					 "4096 AND issue_ts BETWEEN %lld AND %lld", sid,
					 round_start[i], round_end[i]);

		/* No more rows than the memory holds events. */
		assert_true(db_int(db, "SELECT count(*) FROM block_request WHERE "
				   "session_id = %lld", sid) <= slots);
		assert_true(reads <= BLOCK_READS);
		if (db_int(db, "SELECT window_start_ts < %lld FROM flight_dump "
			   "WHERE session_id = %lld", round_start[i], sid)) {
			assert_int_equal(reads, BLOCK_READS);
			whole++;
		}
	}
	/* The first round, at least, came before the memory was full. */
	print_message("flight --block-io: %d of %d windows held their whole "
		      "round\n", whole, BLOCK_ROUNDS);
	assert_true(whole >= 1);
}

/* Waits until sql on db gives want (a dump committed), or 30 s pass. */
static void wait_db(const char *db, long long want, const char *sql)
{
	for (int waited = 0; waited < 30000; waited += 20) {
		if (db_int(db, "%s", sql) == want)
			return;
		sleep_ms(20);
	}
	fail_msg("waited 30 s for %s to be %lld", sql, want);
}

/* A recording of a sleeping command whose only triggers are --trigger
 * metric:nak>0 (and what opt adds), its lines on --metric-fifo and, with
 * a port, --metric-udp; 'stop' on --control ends it. */
struct metric_run {
	char *db, *fifo, *ctl;
	char port[16];
	struct run fl;
};

static void metric_start(struct metric_run *m, const char *name, int udp,
			 const char *opt, const char *val)
{
	char file[64];
	char *argv[24];
	int n = 0;

	snprintf(file, sizeof(file), "%s.db", name);
	m->db = strdup(scratch_path(file));
	snprintf(file, sizeof(file), "%s.metric", name);
	m->fifo = strdup(scratch_path(file));
	snprintf(file, sizeof(file), "%s.ctl", name);
	m->ctl = strdup(scratch_path(file));
	argv[n++] = (char *)faultline_bin();
	argv[n++] = "record";
	argv[n++] = "-q";
	argv[n++] = "-o";
	argv[n++] = m->db;
	argv[n++] = "--flight";
	argv[n++] = "--keep";
	argv[n++] = "1s,500ms";
	argv[n++] = "--trigger";
	argv[n++] = "metric:nak>0";
	argv[n++] = "--control";
	argv[n++] = m->ctl;
	argv[n++] = "--metric-fifo";
	argv[n++] = m->fifo;
	if (udp) {
		snprintf(m->port, sizeof(m->port), "%d", free_udp_port());
		argv[n++] = "--metric-udp";
		argv[n++] = m->port;
	}
	if (opt) {
		argv[n++] = (char *)opt;
		argv[n++] = (char *)val;
	}
	argv[n++] = "--";
	argv[n++] = "/bin/sleep";
	argv[n++] = "600";
	argv[n] = NULL;
	assert_int_equal(start_recording(&m->fl, argv, 10000), 0);
}

/* 'stop' on --control.  Every metric line written before it is read
 * first: the drain thread reads the metric sources in the same wake
 * as --control, after it, whatever woke it. */
static void metric_stop(struct metric_run *m)
{
	write_line(m->ctl, "stop\n");
	assert_int_equal(run_wait(&m->fl), 0);
}

static void metric_free(struct metric_run *m)
{
	free(m->db);
	free(m->fifo);
	free(m->ctl);
}

/* The one dump of m: a metric's, naming it, its value and threshold,
 * its window around [sent_lo, sent_hi] (CLOCK_REALTIME around the
 * send; 1 ms allowed for the conversion of the trigger's time). */
static void one_metric_dump(const struct metric_run *m, const char *value,
			    const char *reason, long long sent_lo,
			    long long sent_hi)
{
	assert_int_equal(db_int(m->db, "SELECT count(*) FROM flight_dump"), 1);
	assert_int_equal(db_int(m->db, "SELECT count(*) FROM flight_dump WHERE "
				"trigger = 'metric' AND metric = 'nak' AND "
				"metric_value = %s AND metric_threshold = 0 AND "
				"reason = '%s' AND suppressed = 0 AND cut_short = 0",
				value, reason), 1);
	assert_true(db_int(m->db, "SELECT trigger_ts FROM flight_dump") >=
		    sent_lo - 1000000);
	assert_true(db_int(m->db, "SELECT window_start_ts FROM flight_dump") <
		    sent_lo);
	assert_true(db_int(m->db, "SELECT window_end_ts FROM flight_dump") >
		    sent_hi);
	assert_int_equal(db_int(m->db, "SELECT count(*) FROM session s JOIN "
				"flight_dump USING (session_id) WHERE s.status = "
				"'complete'"), 1);
}

static void a_metric_line_over_its_threshold_fires_one_dump_naming_it(void **state)
{
	struct metric_run m;
	long long lo, hi;
	struct run r;

	(void)state;
	metric_start(&m, "metric", 0, NULL, NULL);
	/* Under the threshold, long before the window (its BEFORE is 1 s):
	 * no row in the dump. */
	write_line(m.fifo, "nak -1\n");
	sleep_ms(2500);
	/* At the threshold: nothing; over it: the dump. */
	write_line(m.fifo, "nak 0\n");
	lo = realtime_ns();
	write_line(m.fifo, "nak 3\n");
	hi = realtime_ns();
	wait_db(m.db, 1, "SELECT count(*) FROM flight_dump");
	/* Read after the dump was made, so after its window: no row. */
	write_line(m.fifo, "nak 0\n");
	metric_stop(&m);
	one_metric_dump(&m, "3", "metric nak = 3 > 0", lo, hi);
	assert_int_equal(db_int(m.db, "SELECT count(*) FROM flight_summary WHERE "
				"triggers = 1 AND dumps = 1 AND metric_lines = 4 AND "
				"metric_malformed = 0 AND metric_ignored = 0 AND "
				"metric_udp_dropped IS NULL"), 1);
	/* The dump's session holds the lines of its window, and only them:
	 * 0, then 3 at the trigger's time. */
	assert_int_equal(db_int(m.db, "SELECT count(*) FROM metric m JOIN"
				" metric_series s USING (series_id) WHERE"
				" s.session_id = 2"), 2);
	assert_int_equal(db_int(m.db, "SELECT count(*) FROM metric m JOIN"
				" metric_series s USING (series_id) JOIN flight_dump d"
				" USING (session_id) WHERE s.name = 'nak' AND s.source ="
				" 'flight:--metric-fifo' AND ((m.value = 3 AND m.ts ="
				" d.trigger_ts) OR (m.value = 0 AND m.ts <= d.trigger_ts"
				" AND m.ts >= d.window_start_ts))"), 2);
	/* The report of the dump says what fired it. */
	assert_int_equal(run_faultline(&r, "report", m.db, "--session", "2", NULL), 0);
	assert_non_null(strstr(r.out, "\na flight recorder's dump, fired by "
			       "metric nak = 3 > 0\n"));
	/* And so does its JSON, with the row's columns; a session that is
	 * no dump has null. */
	assert_int_equal(run_faultline(&r, "report", m.db, "--session", "2",
				       "-f", "json", NULL), 0);
	assert_non_null(strstr(r.out, "\"flight_dump\":{\"session_id\":2,"
			       "\"trigger\":\"metric\",\"reason\":\"metric nak = 3 > 0\""));
	assert_non_null(strstr(r.out, "\"metric\":\"nak\",\"metric_value\":3"));
	assert_int_equal(run_faultline(&r, "report", m.db, "--session", "1",
				       "-f", "json", NULL), 0);
	assert_non_null(strstr(r.out, "\"flight_dump\":null,"));
	metric_free(&m);
}

static void metric_lines_at_the_threshold_or_malformed_fire_nothing(void **state)
{
	char longline[400];
	struct metric_run m;

	(void)state;
	/* "nak   ...   5": over the threshold but for its length. */
	memset(longline, ' ', sizeof(longline));
	memcpy(longline, "nak", 3);
	memcpy(longline + sizeof(longline) - 3, "5\n", 3);
	longline[sizeof(longline) - 1] = '\0';
	metric_start(&m, "quiet", 0, NULL, NULL);
	/* Well formed, not over: 2 lines. */
	write_line(m.fifo, "nak 0\nnak -1.5e3\n");
	/* Malformed: 6 lines (the long one over the 255 bytes a line may
	 * take), and a blank one, not counted. */
	write_line(m.fifo, "nak\nnak 1 2\nnak one\n1\nn\x01k 5\n \n");
	write_line(m.fifo, longline);
	/* A name nobody watches: ignored. */
	write_line(m.fifo, "drops 99\n");
	metric_stop(&m);
	assert_int_equal(db_int(m.db, "SELECT count(*) FROM flight_dump"), 0);
	assert_int_equal(db_int(m.db, "SELECT count(*) FROM flight_summary WHERE "
				"triggers = 0 AND dumps = 0 AND metric_lines = 9 AND "
				"metric_malformed = 6 AND metric_ignored = 1"), 1);
	metric_free(&m);
}

static void a_metric_datagram_fires_as_a_fifo_line_does(void **state)
{
	struct metric_run m;
	long long lo, hi;

	(void)state;
	metric_start(&m, "udp", 1, NULL, NULL);
	/* Two lines in one datagram, the second over the threshold. */
	lo = realtime_ns();
	send_datagram(atoi(m.port), "nak 0\nnak 2.5\n");
	hi = realtime_ns();
	wait_db(m.db, 1, "SELECT count(*) FROM flight_dump");
	metric_stop(&m);
	one_metric_dump(&m, "2.5", "metric nak = 2.5 > 0", lo, hi);
	assert_int_equal(db_int(m.db, "SELECT count(*) FROM flight_summary WHERE "
				"triggers = 1 AND metric_lines = 2 AND "
				"metric_malformed = 0 AND metric_udp_dropped = 0"), 1);
	/* Both lines of the datagram, read at once, at the trigger's time. */
	assert_int_equal(db_int(m.db, "SELECT count(*) FROM metric m JOIN"
				" metric_series s USING (series_id) JOIN flight_dump d"
				" USING (session_id) WHERE s.source ="
				" 'flight:--metric-udp' AND m.ts = d.trigger_ts AND"
				" m.value IN (0, 2.5)"), 2);
	metric_free(&m);
}

static void a_storm_of_metric_lines_keeps_to_max_dumps(void **state)
{
	struct metric_run m;

	(void)state;
	metric_start(&m, "mstorm", 0, "--max-dumps", "1/1h");
	for (int i = 0; i < 50; i++)
		write_line(m.fifo, "nak 1\n");
	wait_db(m.db, 1, "SELECT count(*) FROM flight_dump");
	for (int i = 0; i < 20; i++)
		write_line(m.fifo, "nak 7\n");
	metric_stop(&m);
	/* The first line's dump; the other 69 counted, the later ones
	 * past the rate. */
	assert_int_equal(db_int(m.db, "SELECT count(*) FROM flight_dump WHERE "
				"metric_value = 1"), 1);
	assert_int_equal(db_int(m.db, "SELECT count(*) FROM flight_dump"), 1);
	assert_int_equal(db_int(m.db, "SELECT count(*) FROM flight_summary WHERE "
				"triggers = 70 AND dumps = 1 AND suppressed_pending + "
				"suppressed_rate = 69 AND suppressed_rate >= 20 AND "
				"metric_lines = 70"), 1);
	/* The lines after the dump are not in it; the one that fired is,
	 * at its time (with those read at once with it), and none is
	 * outside the window. */
	assert_int_equal(db_int(m.db, "SELECT count(*) FROM metric m JOIN"
				" metric_series USING (series_id) WHERE session_id = 2"
				" AND value = 7"), 0);
	assert_true(db_int(m.db, "SELECT count(*) FROM metric m JOIN"
			   " metric_series s USING (series_id) JOIN flight_dump d"
			   " USING (session_id) WHERE m.ts = d.trigger_ts AND"
			   " m.value = 1") >= 1);
	assert_int_equal(db_int(m.db, "SELECT count(*) FROM metric m JOIN"
				" metric_series s USING (series_id) JOIN flight_dump d"
				" USING (session_id) WHERE m.ts < d.window_start_ts"
				" OR m.ts > d.window_end_ts"), 0);
	metric_free(&m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(a_dump_holds_the_stall_and_the_windows_around_it, kill_leftovers),
		cmocka_unit_test_teardown(the_flight_recorder_stays_within_max_memory, kill_leftovers),
		cmocka_unit_test_teardown(an_offcpu_stall_fires_before_it_ends, kill_leftovers),
		cmocka_unit_test_teardown(a_trigger_of_a_state_and_thread_fires_on_its_span,
					  kill_leftovers),
		cmocka_unit_test_teardown(a_trigger_of_other_states_or_threads_fires_nothing,
					  kill_leftovers),
		cmocka_unit_test_teardown(a_long_system_call_fires_before_it_ends, kill_leftovers),
		cmocka_unit_test_teardown(a_dumps_frames_are_named_as_a_recordings_are, kill_leftovers),
		cmocka_unit_test_teardown(a_storm_of_triggers_keeps_to_max_dumps_and_counts_the_rest, kill_leftovers),
		cmocka_unit_test_teardown(dumps_stop_at_max_disk_and_count_the_rest, kill_leftovers),
		cmocka_unit_test_teardown(per_minute_histograms_count_every_span_as_a_recording_does, kill_leftovers),
		cmocka_unit_test_teardown(stop_on_control_stops_and_makes_the_pending_dump, kill_leftovers),
		cmocka_unit_test_teardown(a_fault_longer_than_dur_fires_and_is_in_its_dump, kill_leftovers),
		cmocka_unit_test_teardown(block_events_are_kept_within_max_memory_over_many_windows, kill_leftovers),
		cmocka_unit_test_teardown(a_metric_line_over_its_threshold_fires_one_dump_naming_it, kill_leftovers),
		cmocka_unit_test_teardown(metric_lines_at_the_threshold_or_malformed_fire_nothing, kill_leftovers),
		cmocka_unit_test_teardown(a_metric_datagram_fires_as_a_fifo_line_does, kill_leftovers),
		cmocka_unit_test_teardown(a_storm_of_metric_lines_keeps_to_max_dumps, kill_leftovers),
	};
	const char *s = getenv("FAULTLINE_FLIGHT_SEED");

	seed = s ? (unsigned)strtoul(s, NULL, 10) : (unsigned)time(NULL);
	printf("flight: FAULTLINE_FLIGHT_SEED=%u\n", seed);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
