/*
 * faultline record against the real kernel: a workload makes a known
 * number of faults, and the rows must come back exactly.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <dirent.h>
#include <linux/perf_event.h>
#include <sys/syscall.h>

#include "run.h"

#define PAGES 23	/* a prime: no coincidence with batch or ring sizes */

/* Rows of the workload's anonymous region for its faulting thread. */
static int64_t anon_rows(const char *db, const char *info, const char *extra)
{
	return db_int(db, "SELECT count(*) FROM fault WHERE tid = %lld AND "
		      "addr >= %lld AND addr < %lld + %d * 4096 %s",
		      info_get(info, "tid"), info_get(info, "anon"),
		      info_get(info, "anon"), PAGES, extra);
}

/*
 * The workload run as a command, PAGES fresh pages and one major fault,
 * recorded into cmd.db (its info file cmd.info) by the first test of this
 * process that asks: the tests that read it have it whichever ran first.
 */
/* Recordings made until the major fault sleeps: on a fast disk its read
 * can end before the thread goes to sleep for it (1 run in 16 here). */
#define MAJOR_SLEEP_TRIES 8

/* Did the major fault of the recording at db sleep (state D) inside? */
static int major_slept(const char *db)
{
	const char *info = scratch_path("cmd.info");

	return db_int(db, "SELECT count(*) FROM fault_blocked WHERE kind = 'major'"
		      " AND addr = %lld AND blocked_ns > 0",
		      info_get(info, "major")) > 0;
}

static const char *command_recording(void)
{
	static int recorded;
	static char db[256];	/* scratch_path's buffers are reused */
	char pages[16];
	struct run r;

	snprintf(db, sizeof(db), "%s", scratch_path("cmd.db"));
	if (recorded)
		return db;
	snprintf(pages, sizeof(pages), "%d", PAGES);
	for (int i = 0; i < MAJOR_SLEEP_TRIES && (i == 0 || !major_slept(db)); i++) {
		unlink(db);	/* one session: the tests count its rows */
		assert_int_equal(run_faultline(&r, "record", "-q", "-o", db, "--",
					       workload_bin(), "--pages", pages,
					       "--major-file", scratch_path("major.dat"),
					       "--info", scratch_path("cmd.info"),
					       NULL), 0);
	}
	recorded = 1;
	return db;
}

static void a_command_gets_one_row_per_minor_fault_and_one_major(void **state)
{
	const char *db = command_recording();
	const char *info = scratch_path("cmd.info");
	int64_t major_dur, minor_median;

	(void)state;
	assert_int_equal(info_get(info, "major_was_resident"), 0);
	assert_int_equal(anon_rows(db, info, "AND kind = 'minor' AND dur > 0"), PAGES);
	assert_int_equal(anon_rows(db, info, ""), PAGES);
	assert_int_equal(db_int(db, "SELECT count(DISTINCT addr) FROM fault WHERE "
				"tid = %lld AND addr >= %lld AND addr < %lld + %d * 4096",
				info_get(info, "tid"), info_get(info, "anon"),
				info_get(info, "anon"), PAGES), PAGES);
	assert_int_equal(db_int(db, "SELECT count(*) FROM fault WHERE kind = 'major' "
				"AND tid = %lld AND addr = %lld AND dur > 0",
				info_get(info, "tid"), info_get(info, "major")), 1);
	major_dur = db_int(db, "SELECT dur FROM fault WHERE kind = 'major' AND "
			   "addr = %lld", info_get(info, "major"));
	minor_median = db_int(db, "SELECT dur FROM fault WHERE tid = %lld AND "
			      "addr >= %lld AND addr < %lld + %d * 4096 ORDER BY dur "
			      "LIMIT 1 OFFSET %d", info_get(info, "tid"),
			      info_get(info, "anon"), info_get(info, "anon"), PAGES,
			      PAGES / 2);
	/* A read the host answered before the thread slept is no slower
	 * than the page-table work around it: the rest holds of a fault
	 * that waited for the disk. */
	if (!major_slept(db)) {
		printf("skipped: in %d recordings the major fault never slept"
		       " (the disk read it first)\n", MAJOR_SLEEP_TRIES);
		skip();
	}
	/* A disk read against a page-table update: orders of magnitude. */
	assert_true(major_dur > 10 * minor_median);
	/* The thread waited for the read in D, inside the fault. */
	assert_int_equal(db_int(db, "SELECT blocked_ns > 0 AND blocked_ns <= dur "
				"FROM fault_blocked WHERE kind = 'major' AND addr = %lld",
				info_get(info, "major")), 1);
}

static void every_fault_lies_inside_the_sessions_wall_clock_window(void **state)
{
	const char *db = command_recording();

	(void)state;
	assert_true(db_int(db, "SELECT count(*) FROM fault") > PAGES);
	assert_int_equal(db_int(db, "SELECT count(*) FROM fault f JOIN session s "
				"USING (session_id) WHERE f.ts < s.start_ts OR "
				"f.ts + coalesce(f.dur, 0) > s.end_ts"), 0);
	/* And the window is now-ish wall-clock time, not boot time. */
	assert_true(db_int(db, "SELECT abs(start_ts / 1000000000 - "
			   "strftime('%%s', 'now')) < 600 FROM session") == 1);
}

static void the_session_names_the_thread_and_counts_what_it_saw(void **state)
{
	const char *db = command_recording();
	const char *info = scratch_path("cmd.info");

	(void)state;
	assert_int_equal(db_int(db, "SELECT count(*) FROM thread WHERE tid = %lld "
				"AND comm = 'fault_workload'", info_get(info, "tid")), 1);
	assert_int_equal(db_int(db, "SELECT status = 'complete' AND records_lost = 0 "
				"AND samples_lost = 0 AND faults_stored = "
				"(SELECT count(*) FROM fault) FROM session"), 1);
	/* With no threshold, the histograms count exactly the stored rows
	 * (the loader may also take retried faults, which count as major). */
	for (int k = 0; k < 2; k++) {
		const char *kind = k ? "major" : "minor";

		assert_int_equal(db_int(db, "SELECT sum(count) FROM fault_histogram "
					"WHERE tid = %lld AND kind = '%s'",
					info_get(info, "tid"), kind),
				 db_int(db, "SELECT count(*) FROM fault WHERE tid = %lld "
					"AND kind = '%s' AND dur IS NOT NULL",
					info_get(info, "tid"), kind));
	}
	assert_true(db_int(db, "SELECT sum(count) FROM fault_histogram WHERE "
			   "tid = %lld AND kind = 'minor'", info_get(info, "tid")) >= PAGES);
	assert_int_equal(db_int(db, "SELECT count(*) FROM lost"), 0);
	assert_true(db_int(db, "SELECT count(*) FROM mapping WHERE path LIKE "
			   "'%%fault_workload'") >= 1);
}

/* Starts the workload waiting for SIGUSR1, records it with extra, then
 * lets it fault once faultline's session is open. */
static void record_waiting_workload(const char *db, const char *info,
				    char *const wl_extra[], char *const fl_args[],
				    struct run *fl)
{
	char *wl_argv[16], *fl_argv[32], pidbuf[16], pages[16];
	struct run wl;
	int n = 0, k = 0;

	snprintf(pages, sizeof(pages), "%d", PAGES);
	wl_argv[n++] = (char *)workload_bin();
	wl_argv[n++] = "--wait-signal";
	wl_argv[n++] = "--pages";
	wl_argv[n++] = pages;
	wl_argv[n++] = "--info";
	wl_argv[n++] = (char *)info;
	for (int i = 0; wl_extra[i]; i++)
		wl_argv[n++] = wl_extra[i];
	wl_argv[n] = NULL;
	run_start_usr1_blocked(&wl, wl_argv);
	snprintf(pidbuf, sizeof(pidbuf), "%d", (int)wl.pid);
	fl_argv[k++] = (char *)faultline_bin();
	fl_argv[k++] = "record";
	fl_argv[k++] = "-q";
	fl_argv[k++] = "-o";
	fl_argv[k++] = (char *)db;
	for (int i = 0; fl_args[i]; i++)
		fl_argv[k++] = strcmp(fl_args[i], "PID") ? fl_args[i] : pidbuf;
	fl_argv[k] = NULL;
	assert_int_equal(start_recording(fl, fl_argv, 30000), 0);
	kill(wl.pid, SIGUSR1);
	assert_int_equal(run_wait(&wl), 0);
}

static void record_p_follows_a_thread_the_process_creates_later(void **state)
{
	const char *db = scratch_path("pid.db");
	const char *info = scratch_path("pid.info");
	char *wl_extra[] = { "--thread", NULL };
	char *fl_args[] = { "-p", "PID", NULL };
	struct run fl;

	(void)state;
	record_waiting_workload(db, info, wl_extra, fl_args, &fl);
	/* faultline stops by itself when the process exits. */
	assert_int_equal(run_wait(&fl), 0);
	assert_int_not_equal(info_get(info, "tid"), info_get(info, "pid"));
	assert_int_equal(anon_rows(db, info, "AND kind = 'minor'"), PAGES);
}

/*
 * -t records the threads named, not the threads they create (the man
 * page): the workload's main thread makes a thread that faults, which
 * has no events of its own and no row of any kind.  (Its birth alone
 * once gave it a runnable interval to the end of the recording.)
 */
static void record_t_keeps_no_row_of_a_thread_its_target_creates(void **state)
{
	const char *db = scratch_path("tid.db");
	const char *info = scratch_path("tid.info");
	char *wl_extra[] = { "--thread", NULL };
	char *fl_args[] = { "-t", "PID", NULL };
	struct run fl;
	int64_t pid, tid;

	(void)state;
	record_waiting_workload(db, info, wl_extra, fl_args, &fl);
	assert_int_equal(run_wait(&fl), 0);
	pid = info_get(info, "pid");
	tid = info_get(info, "tid");
	assert_int_not_equal(tid, pid);
	assert_true(db_int(db, "SELECT count(*) FROM thread_state WHERE tid = %lld",
			   pid) > 0);
	assert_int_equal(db_int(db, "SELECT count(*) FROM thread_state WHERE "
				"tid != %lld", pid), 0);
	assert_int_equal(db_int(db, "SELECT count(*) FROM thread WHERE tid != %lld",
				pid), 0);
	assert_int_equal(db_int(db, "SELECT count(*) FROM fault WHERE tid != %lld",
				pid), 0);
}

/* --no-thread-states: the same fault rows, no switch records read and no
 * thread_state rows, and the session's options say so. */
static void no_thread_states_records_faults_alone(void **state)
{
	const char *db = scratch_path("nostates.db");
	const char *info = scratch_path("nostates.info");
	char *wl_extra[] = { NULL };
	char *fl_args[] = { "--no-thread-states", "-p", "PID", NULL };
	struct run fl;

	(void)state;
	record_waiting_workload(db, info, wl_extra, fl_args, &fl);
	assert_int_equal(run_wait(&fl), 0);
	assert_int_equal(anon_rows(db, info, "AND kind = 'minor'"), PAGES);
	assert_int_equal(db_int(db, "SELECT count(*) FROM thread_state"), 0);
	assert_int_equal(db_int(db, "SELECT json_extract(options, "
				"'$.thread_states') FROM session"), 0);
	/* The workload's one thread (not LeakSanitizer's tracer at exit, a
	 * child process -p follows). */
	assert_int_equal(db_int(db, "SELECT count(*) FROM thread WHERE pid = %lld",
				info_get(info, "pid")), 1);
}

static void record_comm_catches_a_thread_renamed_after_start(void **state)
{
	const char *db = scratch_path("comm.db");
	const char *info = scratch_path("comm.info");
	char *wl_extra[] = { "--thread", "--name", "flt-target", NULL };
	char *fl_args[] = { "--comm", "flt-target", NULL };
	struct run fl;

	(void)state;
	record_waiting_workload(db, info, wl_extra, fl_args, &fl);
	/* The workload is done: stopping now still takes every record in
	 * the rings, past the ordering slack or not. */
	kill(fl.pid, SIGINT);
	assert_int_equal(run_wait(&fl), 0);
	assert_int_equal(anon_rows(db, info, "AND kind = 'minor'"), PAGES);
	/* Only the renamed thread: not the main thread, not other processes. */
	assert_int_equal(db_int(db, "SELECT count(DISTINCT tid) FROM fault"), 1);
	assert_int_equal(db_int(db, "SELECT count(*) FROM thread WHERE comm = "
				"'flt-target' AND tid = %lld", info_get(info, "tid")), 1);
}

#define COMM_THREADS 5
#define GETPPIDS 17	/* a prime, like PAGES */

/*
 * --comm catches a process by its name when it is exec'd after recording
 * began, and every thread it creates after that: each thread's faults
 * and its -e tracepoint hits come back exactly, as with -p.  (The hits
 * used to be judged before the exec that named their process had been
 * read, and were dropped.)  The workload runs under a name of its own,
 * through a symlink, so that another suite's fault_workload running at
 * the same time is not a process of that name; and without
 * LeakSanitizer, whose tracer at exit is a second process of that name.
 */
static void record_comm_keeps_every_thread_and_hit_of_a_process_started_later(void **state)
{
	const char *db = scratch_path("comm-late.db");
	const char *info = scratch_path("comm-late.info");
	const char *wl_name = "flt_late_comm";
	char *wl_path = scratch_path(wl_name);
	/* --comm observes every CPU: on a busy machine (a parallel build)
	 * other processes' wake-ups pass through the rings too, so they get
	 * room to spare, for the exact counts below need nothing lost. */
	char *fl_argv[] = { (char *)faultline_bin(), "record", "-q", "-m", "16M",
			    "-o", (char *)db, "--comm", (char *)wl_name, "-e",
			    "syscalls:sys_enter_getppid", NULL };
	char threads[16], pages[16], calls[16];
	char *wl_argv[] = { wl_path, "--threads", threads, "--pages",
			    pages, "--getppid", calls, "--info", (char *)info, NULL };
	struct run fl, wl;
	char line[256];
	int nthreads = 0;
	FILE *f;

	(void)state;
	snprintf(threads, sizeof(threads), "%d", COMM_THREADS);
	snprintf(pages, sizeof(pages), "%d", PAGES);
	snprintf(calls, sizeof(calls), "%d", GETPPIDS);
	char *wl_real = realpath(workload_bin(), NULL);

	assert_non_null(wl_real);
	unlink(wl_path);
	assert_int_equal(symlink(wl_real, wl_path), 0);
	free(wl_real);
	assert_int_equal(start_recording(&fl, fl_argv, 30000), 0);
	setenv("ASAN_OPTIONS", "detect_leaks=0", 1);
	assert_int_equal(run_argv(&wl, wl_argv), 0);
	unsetenv("ASAN_OPTIONS");
	kill(fl.pid, SIGINT);
	assert_int_equal(run_wait(&fl), 0);
	assert_int_equal(db_int(db, "SELECT records_lost + samples_lost + "
				"records_dropped FROM session"), 0);
	f = fopen(info, "r");
	assert_non_null(f);
	while (fgets(line, sizeof(line), f)) {
		long long tid, anon;

		if (sscanf(line, "thread=%lld anon=%lld", &tid, &anon) != 2)
			continue;
		nthreads++;
		assert_int_equal(db_int(db, "SELECT count(*) FROM fault WHERE tid = "
					"%lld AND addr >= %lld AND addr < %lld + "
					"%d * 4096 AND kind = 'minor'", tid, anon, anon,
					PAGES), PAGES);
		assert_int_equal(db_int(db, "SELECT count(*) FROM tracepoint_event "
					"WHERE tid = %lld", tid), GETPPIDS);
		assert_int_equal(db_int(db, "SELECT count(*) FROM thread WHERE tid = "
					"%lld AND comm = '%s'", tid, wl_name), 1);
	}
	fclose(f);
	assert_int_equal(nthreads, COMM_THREADS);
	/* And nothing of any other process. */
	assert_int_equal(db_int(db, "SELECT count(*) FROM fault WHERE pid != %lld",
				info_get(info, "pid")), 0);
}

static void a_threshold_stores_only_long_faults_but_counts_all(void **state)
{
	const char *db = scratch_path("min.db");
	const char *info = scratch_path("min.info");
	char *wl_extra[] = { NULL };
	char *fl_args[] = { "-a", "--min-fault-duration", "20us", NULL };
	struct run fl;
	int64_t stored, hist;

	(void)state;
	record_waiting_workload(db, info, wl_extra, fl_args, &fl);
	kill(fl.pid, SIGTERM);
	assert_int_equal(run_wait(&fl), 0);
	/* Exact counts need every record: say so if the rings overflowed. */
	assert_int_equal(db_int(db, "SELECT records_lost + samples_lost FROM "
				"session"), 0);
	assert_int_equal(db_int(db, "SELECT count(*) FROM fault WHERE dur < 20000"), 0);
	stored = anon_rows(db, info, "");
	hist = db_int(db, "SELECT sum(count) FROM fault_histogram WHERE tid = %lld",
		      info_get(info, "tid"));
	assert_true(hist >= PAGES);
	assert_true(stored < PAGES);	/* minor faults are far below 20 us */
	/* Every fault is either a row or counted below the threshold. */
	assert_int_equal(db_int(db, "SELECT faults_total = faults_stored + "
				"faults_below_threshold AND faults_below_threshold > 0 "
				"FROM session"), 1);
}

static void a_second_recording_adds_a_session_to_the_same_database(void **state)
{
	const char *db = scratch_path("two.db");
	struct run r;

	(void)state;
	assert_int_equal(run_faultline(&r, "record", "-q", "-o", db, "--",
				       "/bin/true", NULL), 0);
	assert_int_equal(run_faultline(&r, "record", "-q", "-o", db, "--",
				       workload_bin(), "--pages", "5", NULL), 0);
	assert_int_equal(db_int(db, "SELECT count(*) FROM session WHERE status = "
				"'complete'"), 2);
	assert_int_equal(db_int(db, "SELECT count(DISTINCT session_id) FROM fault"), 2);
	assert_int_equal(db_int(db, "SELECT count(*) FROM sqlite_master WHERE "
				"type = 'index' AND name = 'fault_by_ts'"), 1);
}

static void the_summary_reports_counts_and_nothing_lost(void **state)
{
	const char *db = scratch_path("summary.db");
	struct run r;

	(void)state;
	assert_int_equal(run_faultline(&r, "record", "-o", db, "--", workload_bin(),
				       "--pages", "7", NULL), 0);
	assert_non_null(strstr(r.err, "faultline record: session 1 in"));
	assert_non_null(strstr(r.err, "the command exited with status 0"));
	assert_non_null(strstr(r.err, "nothing lost"));
	assert_non_null(strstr(r.err, "minor faults:"));
}

/* --duration ends a command that still runs, with SIGTERM, and the
 * summary says so: a command cut short is not taken for one that
 * finished.  The command would sleep far past the duration. */
static void the_summary_says_when_duration_ended_the_command(void **state)
{
	const char *db = scratch_path("duration.db");
	struct run r;
	char *argv[] = { (char *)faultline_bin(), "record", "-o", (char *)db,
			 "--duration", "1500ms", "--", "/bin/sleep", "600", NULL };

	(void)state;
	assert_int_equal(run_argv(&r, argv), 0);
	assert_non_null(strstr(r.err, "  stopped after --duration 1500ms; the command was "
			       "still running and was ended by SIGTERM\n"));
}

static void duration_stops_the_recording_and_ends_the_command(void **state)
{
	const char *db = scratch_path("dur.db");
	struct run r;
	time_t t0 = time(NULL);

	(void)state;
	assert_int_equal(run_faultline(&r, "record", "-q", "-o", db, "--duration",
				       "1s", "--", "/bin/sleep", "30", NULL), 0);
	assert_true(time(NULL) - t0 < 10);
	assert_int_equal(db_int(db, "SELECT status = 'complete' AND "
				"end_ts - start_ts BETWEEN 900000000 AND 5000000000 "
				"FROM session"), 1);
}

/* Has parent a child process named name (comm) asleep (S)?  From /proc:
 * a command that has exec'd may still be loading, not yet in the wait
 * the test means to interrupt. */
static int child_asleep(pid_t parent, const char *name)
{
	char path[300], buf[512];
	struct dirent *d;
	DIR *dir = opendir("/proc");
	int found = 0;

	while (dir && !found && (d = readdir(dir))) {
		char *close_paren, state;
		int ppid;

		if (d->d_name[0] < '0' || d->d_name[0] > '9')
			continue;
		snprintf(path, sizeof(path), "/proc/%s/stat", d->d_name);
		slurp(path, buf, sizeof(buf));
		close_paren = strrchr(buf, ')');
		if (!close_paren || sscanf(close_paren, ") %c %d", &state, &ppid) != 2 ||
		    ppid != (int)parent || state != 'S')
			continue;
		*close_paren = '\0';
		found = strchr(buf, '(') && !strcmp(strchr(buf, '(') + 1, name);
	}
	if (dir)
		closedir(dir);
	return found;
}

/* The command's end, as recorded: it was asleep until faultline's signal
 * woke it, then ran to its exit while recording went on. */
static void assert_command_ended_recorded(const char *db)
{
	assert_int_equal(db_int(db, "SELECT count(*) FROM (SELECT x.state FROM "
				"thread_state x JOIN thread t USING (session_id, tid) "
				"WHERE t.comm = 'sleep' ORDER BY x.ts DESC LIMIT 1) WHERE "
				"state = 'running'"), 1);
	assert_int_equal(db_int(db, "SELECT count(*) FROM thread_state x JOIN thread t "
				"USING (session_id, tid) JOIN session s USING (session_id) "
				"WHERE t.comm = 'sleep' AND x.state = 'sleeping' AND "
				"(x.waker_tid = s.recorder_pid OR x.waker_tid IN (SELECT "
				"r.tid FROM recorder_thread r WHERE r.session_id = "
				"s.session_id))"), 1);
}

/*
 * A signal or --duration ends the command at once, as perf ends its
 * workload, so it does not run on unrecorded while the rings drain: its
 * wake-up by faultline's SIGTERM and its exit are in the recording.
 */
static void a_signal_or_duration_ends_the_command_while_recording(void **state)
{
	const char *db = scratch_path("stop1.db"), *db2 = scratch_path("stop2.db");
	struct run r;

	(void)state;
	assert_int_equal(run_faultline(&r, "record", "-q", "-o", db, "--duration",
				       "0.5s", "--", "/bin/sleep", "30", NULL), 0);
	assert_command_ended_recorded(db);
	{
		char *argv[] = { (char *)faultline_bin(), "record", "-q", "-o",
				 (char *)db2, "--", "/bin/sleep", "30", NULL };

		assert_int_equal(start_recording(&r, argv, 30000), 0);
		/* Stop faultline once its command sleeps in sleep(1)'s wait. */
		for (int waited = 0; waited < 10000 && !child_asleep(r.pid, "sleep");
		     waited += 10)
			sleep_ms(10);
		kill(r.pid, SIGTERM);
		assert_int_equal(run_wait(&r), 0);
	}
	assert_command_ended_recorded(db2);
	/* A signal stops a session; --duration completes one. */
	assert_int_equal(db_int(db2, "SELECT count(*) FROM session WHERE status = "
				"'stopped' AND end_reason = 'stopped by SIGTERM'"), 1);
	assert_int_equal(db_int(db, "SELECT count(*) FROM session WHERE status = "
				"'complete' AND end_reason = '--duration reached'"), 1);
}

static void a_command_is_recorded_alongside_every_cpu_targets(void **state)
{
	const char *db = scratch_path("cmd-a.db");
	const char *info = scratch_path("cmd-a.info");
	char pages[16];
	struct run r;

	(void)state;
	snprintf(pages, sizeof(pages), "%d", PAGES);
	assert_int_equal(run_faultline(&r, "record", "-q", "-o", db, "-a", "--",
				       workload_bin(), "--pages", pages,
				       "--info", info, NULL), 0);
	assert_int_equal(anon_rows(db, info, "AND kind = 'minor'"), PAGES);
	/* -a keeps every thread: more than the command's. */
	assert_true(db_int(db, "SELECT count(DISTINCT pid) FROM thread") > 1);
	/* But never faultline's own: it would record its own recording. */
	assert_int_equal(db_int(db, "SELECT count(*) FROM thread WHERE pid = %d",
				(int)r.pid), 0);
}

static void faultline_does_not_record_itself_with_a_command(void **state)
{
	const char *db = scratch_path("self.db");
	struct run r;

	(void)state;
	assert_int_equal(run_faultline(&r, "record", "-q", "-o", db, "--",
				       workload_bin(), "--pages", "5", NULL), 0);
	assert_int_equal(db_int(db, "SELECT count(*) FROM thread_state WHERE "
				"pid = %d", (int)r.pid), 0);
	assert_int_equal(db_int(db, "SELECT count(*) FROM thread WHERE pid = %d",
				(int)r.pid), 0);
	assert_true(db_int(db, "SELECT count(*) FROM thread_state") > 0);
	/* Its threads are named as the observer's instead: the main thread
	 * and the decoding thread at least. */
	assert_int_equal(db_int(db, "SELECT recorder_pid FROM session"), (int)r.pid);
	assert_int_equal(db_int(db, "SELECT count(*) FROM recorder_thread WHERE "
				"tid = %d", (int)r.pid), 1);
	assert_true(db_int(db, "SELECT count(*) FROM recorder_thread") >= 2);
}

/*
 * Another user can make /tmp/perf-PID.map of a process a FIFO; root's
 * record --stacks reads the maps of the processes it symbolizes at its
 * end, and an open() of a FIFO waits for a writer, deaf to signals.  The
 * recording ends within its time and names the map it skipped.
 */
static void a_fifo_planted_as_a_perf_map_neither_hangs_record_nor_goes_unsaid(void **state)
{
	const char *db = scratch_path("fifo-map.db");
	char *wl_argv[] = { (char *)workload_bin(), "--wait-signal", "--pages",
			    "200", NULL };
	char *fl_argv[] = { (char *)faultline_bin(), "record", "-o", (char *)db,
			    "--stacks=fp", "--stacks-on=faults", "-p", NULL, NULL };
	char pid[16], map[64];
	struct run wl, fl;
	int st, waited_ms = 0;
	pid_t got;

	(void)state;
	run_start_usr1_blocked(&wl, wl_argv);
	snprintf(pid, sizeof(pid), "%d", (int)wl.pid);
	fl_argv[7] = pid;
	snprintf(map, sizeof(map), "/tmp/perf-%d.map", (int)wl.pid);
	unlink(map);
	assert_int_equal(mkfifo(map, 0666), 0);
	if (geteuid() == 0)
		assert_int_equal(chown(map, 65534, 65534), 0);
	assert_int_equal(start_recording(&fl, fl_argv, 30000), 0);
	kill(wl.pid, SIGUSR1);
	assert_int_equal(run_wait(&wl), 0);
	while ((got = waitpid(fl.pid, &st, WNOHANG)) == 0 && waited_ms < 60000) {
		sleep_ms(50);
		waited_ms += 50;
	}
	unlink(map);
	if (got == 0) {
		kill(fl.pid, SIGKILL);
		run_wait(&fl);
		fail_msg("record still running 60 s after its target ended");
	}
	forget_started(fl.pid);
	assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	slurp(fl.errpath, fl.err, sizeof(fl.err));
	slurp(fl.outpath, fl.out, sizeof(fl.out));
	if (!strstr(fl.err, map) && !strstr(fl.out, map))
		fail_msg("no word of %s:\n%s%s", map, fl.out, fl.err);
	assert_true(strstr(fl.err, "(a FIFO, not a regular file)") ||
		    strstr(fl.out, "(a FIFO, not a regular file)"));
}

/* faultline is stopped while the workload faults, so its 8 KiB ring must
 * overflow: the kernel's LOST records become rows and a line on stderr. */
static void lost_records_are_stored_and_summarised_on_stderr(void **state)
{
	const char *db = scratch_path("lost.db");
	char *wl_argv[] = { (char *)workload_bin(), "--wait-signal", "--pages",
			    "20000", NULL };
	char *fl_argv[] = { (char *)faultline_bin(), "record", "-m", "8K", "-o",
			    (char *)db, "-p", NULL, NULL };
	char pid[16];
	struct run wl, fl;

	(void)state;
	run_start_usr1_blocked(&wl, wl_argv);
	snprintf(pid, sizeof(pid), "%d", (int)wl.pid);
	fl_argv[7] = pid;
	assert_int_equal(start_recording(&fl, fl_argv, 30000), 0);
	kill(fl.pid, SIGSTOP);
	kill(wl.pid, SIGUSR1);
	assert_int_equal(run_wait(&wl), 0);
	kill(fl.pid, SIGCONT);
	assert_int_equal(run_wait(&fl), 0);
	assert_true(db_int(db, "SELECT records_lost FROM session") > 0);
	assert_int_equal(db_int(db, "SELECT sum(count) FROM lost WHERE kind = "
				"'records'"), db_int(db, "SELECT records_lost FROM session"));
	assert_non_null(strstr(fl.err, "LOST: "));
}

/*
 * A thread that lived when recording began is named as it was then, even
 * when the pipeline meets its first event only after it is gone: here
 * faultline is stopped while the workload faults, exits and is reaped,
 * so /proc no longer has the thread when the events are decoded.
 */
static void a_thread_gone_before_its_events_are_decoded_keeps_its_name(void **state)
{
	const char *db = scratch_path("gone.db");
	char *wl_argv[] = { (char *)workload_bin(), "--wait-signal", "--pages",
			    "100", NULL };
	char *fl_argv[] = { (char *)faultline_bin(), "record", "-o", (char *)db,
			    "-p", NULL, NULL };
	char pid[16];
	struct run wl, fl;

	(void)state;
	run_start_usr1_blocked(&wl, wl_argv);
	snprintf(pid, sizeof(pid), "%d", (int)wl.pid);
	fl_argv[5] = pid;
	assert_int_equal(start_recording(&fl, fl_argv, 30000), 0);
	kill(fl.pid, SIGSTOP);
	kill(wl.pid, SIGUSR1);
	assert_int_equal(run_wait(&wl), 0);
	kill(fl.pid, SIGCONT);
	assert_int_equal(run_wait(&fl), 0);
	assert_true(db_int(db, "SELECT count(*) FROM fault WHERE tid = %s", pid) >= 100);
	assert_int_equal(db_int(db, "SELECT count(*) FROM thread WHERE tid = %s AND "
				"comm = 'fault_workload'", pid), 1);
	assert_int_equal(db_int(db, "SELECT count(*) FROM thread WHERE tid = %s AND "
				"comm != 'fault_workload'", pid), 0);
}

/*
 * The engine is held to 512 KB/s of records (a test hook) while the
 * workload makes about 6 MB of them in a burst of 40000 faults, through
 * a 1 MiB spool and a spill file of at most spill bytes.  The rings
 * (-m 16M) hold the whole burst, so that a drain thread kept off the CPU
 * by a loaded machine makes no kernel loss.  Returns the recording, its
 * summary in err; the workload's info in info.
 */
static struct run record_slow_burst(const char *db, const char *info,
				    const char *spill)
{
	char *wl_argv[] = { (char *)workload_bin(), "--wait-signal", "--pages",
			    "40000", "--info", (char *)info, NULL };
	char *fl_argv[] = { (char *)faultline_bin(), "record", "--spool-size",
			    "1M", "--spill-size", (char *)spill, "-m", "16M",
			    "-o", (char *)db, "-p", NULL, NULL };
	char pid[16];
	struct run wl, fl;

	run_start_usr1_blocked(&wl, wl_argv);
	snprintf(pid, sizeof(pid), "%d", (int)wl.pid);
	fl_argv[11] = pid;
	setenv("FAULTLINE_TEST_PIPELINE_BYTES_PER_S", "524288", 1);
	assert_int_equal(start_recording(&fl, fl_argv, 30000), 0);
	unsetenv("FAULTLINE_TEST_PIPELINE_BYTES_PER_S");
	kill(wl.pid, SIGUSR1);
	assert_int_equal(run_wait(&wl), 0);
	assert_int_equal(run_wait(&fl), 0);
	return fl;
}

/*
 * With no spill file (--spill-size 0) the spool fills, and what has no
 * room is dropped by faultline, not the kernel.  The spool never holds
 * more than its bound, every dropped record is in a 'spool' row of lost,
 * the summary says so, and the database is whole.
 */
static void a_slow_engine_drops_at_the_spool_bound_and_says_so(void **state)
{
	const char *db = scratch_path("spool.db");
	struct run fl = record_slow_burst(db, scratch_path("spool.info"), "0");
	long long dropped;

	(void)state;
	dropped = db_int(db, "SELECT records_dropped FROM session");
	assert_true(dropped > 0);
	assert_int_equal(db_int(db, "SELECT sum(count) FROM lost WHERE kind = "
				"'spool'"), dropped);
	assert_int_equal(db_int(db, "SELECT spool_bytes FROM session"), 1 << 20);
	assert_true(db_int(db, "SELECT spool_peak_bytes FROM session") <= 1 << 20);
	assert_true(db_int(db, "SELECT spool_peak_bytes FROM session") > 0);
	assert_int_equal(db_int(db, "SELECT count(*) FROM session WHERE "
				"status = 'complete'"), 1);
	assert_int_equal(db_int(db, "SELECT count(*) FROM pragma_integrity_check "
				"WHERE integrity_check = 'ok'"), 1);
	assert_int_equal(db_int(db, "SELECT records_lost FROM session"), 0);
	assert_non_null(strstr(fl.err, "DROPPED "));
	assert_null(strstr(fl.err, "nothing lost"));
}

/* The entries of dir whose names start with prefix. */
static int entries_starting(const char *dir, const char *prefix)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	int n = 0;

	assert_non_null(d);
	while ((de = readdir(d)))
		n += !strncmp(de->d_name, prefix, strlen(prefix));
	closedir(d);
	return n;
}

/*
 * The same burst with a spill file (4G, the default): what the spool
 * cannot take waits on disk and is decoded later, so every fault of the
 * burst is stored, nothing is dropped, and the summary says how much
 * waited.  The file leaves nothing behind in the database's directory.
 */
static void a_slow_engine_spills_to_disk_and_loses_nothing(void **state)
{
	const char *db = scratch_path("spill.db");
	const char *info = scratch_path("spill.info");
	struct run fl = record_slow_burst(db, info, "4G");

	(void)state;
	assert_int_equal(db_int(db, "SELECT records_dropped FROM session"), 0);
	assert_int_equal(db_int(db, "SELECT records_lost FROM session"), 0);
	assert_int_equal(db_int(db, "SELECT count(*) FROM lost"), 0);
	assert_int_equal(db_int(db, "SELECT count(*) FROM fault WHERE tid = %lld "
				"AND kind = 'minor' AND addr >= %lld AND addr < "
				"%lld + 40000 * 4096", info_get(info, "tid"),
				info_get(info, "anon"), info_get(info, "anon")), 40000);
	assert_non_null(strstr(fl.err, "waited in a file beside the database"));
	assert_non_null(strstr(fl.err, "nothing lost"));
	assert_int_equal(entries_starting(scratch_dir(), ".faultline-spill"), 0);
}

/*
 * Another recorder in another clock samples the same event on the same
 * thread (a sampling page-faults event opened after faultline's, as
 * perf record -e page-faults -t TID opens one): the kernel stamps
 * faultline's samples of each fault with the clock of the event it
 * filled the sample for first, the newer one.  Its clock here is
 * CLOCK_REALTIME, far from CLOCK_MONOTONIC whatever the machine, where
 * perf record's default (the perf clock) was 7 to 9 ms behind it on the
 * test VM.  The session row counts the samples that went back in time,
 * and the readers say so: query lost, and diagnose in text and JSON.
 */
static void a_recorder_in_another_clock_is_counted_and_said(void **state)
{
	const char *db = scratch_path("mistimed.db");
	char *wl_argv[] = { (char *)workload_bin(), "--wait-signal", "--pages",
			    "500", NULL };
	char *fl_argv[] = { (char *)faultline_bin(), "record", "-o", (char *)db,
			    "-t", NULL, NULL };
	struct perf_event_attr a;
	struct run wl, fl, r;
	char tid[16];
	long long mistimed;
	int fd;

	(void)state;
	run_start_usr1_blocked(&wl, wl_argv);
	snprintf(tid, sizeof(tid), "%d", (int)wl.pid);
	fl_argv[5] = tid;
	assert_int_equal(start_recording(&fl, fl_argv, 30000), 0);
	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.type = PERF_TYPE_SOFTWARE;
	a.config = PERF_COUNT_SW_PAGE_FAULTS;
	a.sample_period = 1;
	a.sample_type = PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_TID | PERF_SAMPLE_TIME;
	a.use_clockid = 1;
	a.clockid = CLOCK_REALTIME;
	fd = (int)syscall(SYS_perf_event_open, &a, wl.pid, -1, -1, 0);
	assert_true(fd >= 0);
	kill(wl.pid, SIGUSR1);
	assert_int_equal(run_wait(&wl), 0);
	close(fd);
	kill(fl.pid, SIGINT);
	assert_int_equal(run_wait(&fl), 0);
	assert_non_null(strstr(fl.err, "went back in time"));
	mistimed = db_int(db, "SELECT samples_mistimed FROM session");
	assert_true(mistimed > 0);
	assert_int_equal(run_faultline(&r, "query", db, "lost", NULL), 0);
	assert_non_null(strstr(r.out, "samples in another clock"));
	assert_int_equal(run_faultline(&r, "diagnose", db, NULL), 0);
	assert_non_null(strstr(r.out, "mistimed: "));
	assert_int_equal(run_faultline(&r, "diagnose", "-f", "json", db, NULL), 0);
	assert_non_null(strstr(r.out, "\"samples_mistimed\":"));
	assert_null(strstr(r.out, "\"samples_mistimed\":0"));
}

/*
 * Three recorders of one thread.  The kernel fills the id (and time) of
 * samples that fire together once, from one event, so a recorder's
 * samples can carry another's id (decoder/sample_owner.h).  Samples of -t
 * carry their own event's id too: that recording stores every fault
 * whatever else records.  The newest of two -p recordings stores every
 * fault; the older one either does too, or says how many samples it
 * could not store: never silently fewer.
 */
static void recorders_beside_each_other_store_every_fault_or_say_so(void **state)
{
	const char *info = scratch_path("beside.info");
	const char *db[3] = { scratch_path("beside-t.db"), scratch_path("beside-p1.db"),
			      scratch_path("beside-p2.db") };
	char *wl_argv[] = { (char *)workload_bin(), "--wait-signal", "--pages",
			    "500", "--info", (char *)info, NULL };
	char pid[16];
	struct run wl, fl[3];

	(void)state;
	run_start_usr1_blocked(&wl, wl_argv);
	snprintf(pid, sizeof(pid), "%d", (int)wl.pid);
	for (int i = 0; i < 3; i++) {
		char *fl_argv[] = { (char *)faultline_bin(), "record", "-o",
				    (char *)db[i], i ? "-p" : "-t", pid, NULL };

		assert_int_equal(start_recording(&fl[i], fl_argv, 30000), 0);
	}
	kill(wl.pid, SIGUSR1);
	assert_int_equal(run_wait(&wl), 0);
	for (int i = 0; i < 3; i++) {
		int64_t got;

		assert_int_equal(run_wait(&fl[i]), 0);
		slurp(fl[i].errpath, fl[i].err, sizeof(fl[i].err));
		got = db_int(db[i], "SELECT count(*) FROM fault WHERE tid = %lld "
			     "AND kind = 'minor' AND addr >= %lld AND addr < "
			     "%lld + 500 * 4096", info_get(info, "tid"),
			     info_get(info, "anon"), info_get(info, "anon"));
		if (i != 1) {
			assert_int_equal(got, 500);
			continue;
		}
		if (got != 500 && !strstr(fl[i].err, "carried another recorder's "
					  "event id and were not stored"))
			fail_msg("%lld of 500 faults stored, and no word of the "
				 "others:\n%s", (long long)got, fl[i].err);
		if (got != 500)
			assert_true(db_int(db[i], "SELECT records_unknown FROM "
					   "session") >= 500 - got);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(a_command_gets_one_row_per_minor_fault_and_one_major, kill_leftovers),
		cmocka_unit_test_teardown(recorders_beside_each_other_store_every_fault_or_say_so,
					  kill_leftovers),
		cmocka_unit_test_teardown(every_fault_lies_inside_the_sessions_wall_clock_window, kill_leftovers),
		cmocka_unit_test_teardown(the_session_names_the_thread_and_counts_what_it_saw, kill_leftovers),
		cmocka_unit_test_teardown(record_p_follows_a_thread_the_process_creates_later, kill_leftovers),
		cmocka_unit_test_teardown(record_t_keeps_no_row_of_a_thread_its_target_creates,
					  kill_leftovers),
		cmocka_unit_test_teardown(no_thread_states_records_faults_alone, kill_leftovers),
		cmocka_unit_test_teardown(record_comm_catches_a_thread_renamed_after_start, kill_leftovers),
		cmocka_unit_test_teardown(record_comm_keeps_every_thread_and_hit_of_a_process_started_later, kill_leftovers),
		cmocka_unit_test_teardown(a_threshold_stores_only_long_faults_but_counts_all, kill_leftovers),
		cmocka_unit_test_teardown(a_second_recording_adds_a_session_to_the_same_database, kill_leftovers),
		cmocka_unit_test_teardown(the_summary_says_when_duration_ended_the_command,
					  kill_leftovers),
		cmocka_unit_test_teardown(the_summary_reports_counts_and_nothing_lost, kill_leftovers),
		cmocka_unit_test_teardown(duration_stops_the_recording_and_ends_the_command, kill_leftovers),
		cmocka_unit_test_teardown(a_signal_or_duration_ends_the_command_while_recording, kill_leftovers),
		cmocka_unit_test_teardown(a_command_is_recorded_alongside_every_cpu_targets, kill_leftovers),
		cmocka_unit_test_teardown(faultline_does_not_record_itself_with_a_command, kill_leftovers),
		cmocka_unit_test_teardown(lost_records_are_stored_and_summarised_on_stderr, kill_leftovers),
		cmocka_unit_test_teardown(a_fifo_planted_as_a_perf_map_neither_hangs_record_nor_goes_unsaid,
					  kill_leftovers),
		cmocka_unit_test_teardown(a_slow_engine_drops_at_the_spool_bound_and_says_so, kill_leftovers),
		cmocka_unit_test_teardown(a_slow_engine_spills_to_disk_and_loses_nothing, kill_leftovers),
		cmocka_unit_test_teardown(a_recorder_in_another_clock_is_counted_and_said, kill_leftovers),
		cmocka_unit_test_teardown(a_thread_gone_before_its_events_are_decoded_keeps_its_name,
					  kill_leftovers),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
