/*
 * record --syscalls: each call of a target thread timed from entry to
 * exit, the long ones stored with their arguments and descriptor, every
 * one counted.  The workload makes a known number of each call
 * (tests/integration/syscall_workload.c) and makes some of them wait.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include "run.h"

static const char *workload(void)
{
	static char path[512];
	const char *build = getenv("BUILD");

	snprintf(path, sizeof(path), "%s/tests/syscall_workload",
		 build ? build : "build/release");
	return path;
}

static const char *db_path(void)
{
	return scratch_path("sys.db");
}

static long long tid, holder, blocked;

/* One recording for every test: --min-syscall-duration 2ms.  The
 * workload stays 2 s after its work, its descriptors open, so that the
 * recorder can read what they name. */
static int record_once(void **state)
{
	const char *info = scratch_path("sys.info");
	char *argv[] = { (char *)faultline_bin(), "record", "-o", (char *)db_path(),
			 "--syscalls", "--min-syscall-duration", "2ms", "--",
			 (char *)workload(), (char *)scratch_dir(), (char *)info,
			 NULL };
	struct run r;

	(void)state;
	unlink(db_path());
	setenv("LINGER_MS", "2000", 1);
	if (run_argv(&r, argv) != 0) {
		fprintf(stderr, "record failed: %s\n", r.err);
		return -1;
	}
	tid = info_get(info, "tid");
	holder = info_get(info, "futex_holder");
	blocked = info_get(info, "blocked");
	return tid > 0 && holder > 0 && blocked > 0 ? 0 : -1;
}

static int64_t counted(const char *name, long long t)
{
	return db_int(db_path(), "SELECT coalesce(sum(count), 0) FROM"
		      " syscall_histogram WHERE tid = %lld AND name = '%s'", t, name);
}

/* Every call is counted, stored or not: the 200 preads of the data file
 * exactly (syscall_file, by the file: the loader's own preads are of
 * other files), the 3 sleeps and the one fsync. */
static void every_call_is_counted_and_the_short_ones_summed_per_file(void **state)
{
	(void)state;
	assert_int_equal(db_int(db_path(), "SELECT calls FROM syscall_file WHERE"
				" tid = %lld AND name = 'pread64' AND fd_name ="
				" '%s/data'", tid, scratch_dir()), 200);
	assert_int_equal(db_int(db_path(), "SELECT count(*) FROM syscall WHERE"
				" tid = %lld AND name = 'pread64' AND fd_name ="
				" '%s/data' AND dur < 2000000", tid, scratch_dir()), 0);
	/* The three sleeps and the linger. */
	assert_int_equal(counted("clock_nanosleep", tid) + counted("nanosleep", tid), 4);
	assert_int_equal(counted("fsync", tid), 1);
	/* Each stored, finished row is one of its histogram's calls. */
	assert_int_equal(db_int(db_path(), "SELECT count(*) FROM (SELECT tid, name,"
				" count(*) AS n FROM syscall WHERE dur IS NOT NULL"
				" GROUP BY 1, 2) s WHERE s.n > (SELECT sum(h.count)"
				" FROM syscall_histogram h WHERE h.tid = s.tid AND"
				" h.name = s.name)"), 0);
}

/* The calls made to wait are stored: the sleeps, with their arguments
 * by name; the pipe read, its descriptor named; the futex wait. */
static void the_waits_are_stored_with_their_arguments_and_descriptor(void **state)
{
	(void)state;
	/* (the fourth sleep is the 2 s the workload lingers) */
	assert_int_equal(db_int(db_path(), "SELECT count(*) FROM syscall WHERE"
				" tid = %lld AND name IN ('nanosleep',"
				" 'clock_nanosleep') AND dur >= 5000000 AND dur <"
				" 1000000000 AND ret = 0", tid), 3);
	assert_true(db_int(db_path(), "SELECT count(*) FROM syscall WHERE"
			   " tid = %lld AND name = 'clock_nanosleep' AND args GLOB"
			   " 'which_clock=*, flags=*, rqtp=0x*, rmtp=0x*'", tid) >= 1
		    || counted("nanosleep", tid) == 3);
	assert_int_equal(db_int(db_path(), "SELECT count(*) FROM syscall WHERE"
				" tid = %lld AND name = 'read' AND dur >= 15000000"
				" AND ret = 1 AND fd_name LIKE 'pipe:[%]'", tid), 1);
	assert_true(db_int(db_path(), "SELECT count(*) FROM syscall WHERE"
			   " tid = %lld AND name = 'futex' AND dur >= 15000000",
			   tid) >= 1);
}

/* A call still in progress when the recording stops is stored
 * unfinished: a thread of a -p target blocks in read() after the
 * recording began, and SIGINT ends the recording, not the target. */
static void a_call_in_progress_at_the_end_is_stored_unfinished(void **state)
{
	const char *db = scratch_path("hang.db"), *info = scratch_path("hang.info");
	char *wl[] = { (char *)workload(), "--hang", (char *)info, NULL };
	char pid_s[32];
	struct run w, r;
	long long tid_blocked = -1;

	(void)state;
	unlink(info);
	setenv("LINGER_MS", "60000", 1);
	run_start_usr1_blocked(&w, wl);
	snprintf(pid_s, sizeof(pid_s), "%d", (int)w.pid);
	{
		char *argv[] = { (char *)faultline_bin(), "record", "-q", "-o",
				 (char *)db, "--syscalls", "-p", pid_s, NULL };

		assert_int_equal(start_recording(&r, argv, 30000), 0);
	}
	kill(w.pid, SIGUSR1);
	for (int waited = 0; waited < 30000 && tid_blocked <= 0; waited += 10) {
		sleep_ms(10);
		if (access(info, F_OK) == 0)
			tid_blocked = info_get(info, "blocked");
	}
	assert_true(tid_blocked > 0);
	kill(r.pid, SIGINT);
	assert_int_equal(run_wait(&r), 0);
	kill(w.pid, SIGKILL);
	run_wait(&w);
	assert_int_equal(db_int(db, "SELECT count(*) FROM syscall WHERE tid = %lld"
				" AND name = 'read' AND dur IS NULL AND ret IS NULL"
				" AND fd_name LIKE 'pipe:[%]'", tid_blocked), 1);
}

/* The same when --duration ends the recording, with --stacks: the read
 * keeps the kernel stack it sleeps in, taken at its switch out, though
 * --stacks-on keeps stacks of blocked intervals only and a pipe read
 * sleeps (S). */
static void a_call_in_progress_when_the_duration_ends_keeps_its_stack(void **state)
{
	const char *db = scratch_path("hang2.db"), *info = scratch_path("hang2.info");
	char *wl[] = { (char *)workload(), "--hang", (char *)info, NULL };
	char pid_s[32];
	struct run w, r;
	long long tid_blocked = -1;

	(void)state;
	unlink(info);
	setenv("LINGER_MS", "60000", 1);
	run_start_usr1_blocked(&w, wl);
	snprintf(pid_s, sizeof(pid_s), "%d", (int)w.pid);
	{
		char *argv[] = { (char *)faultline_bin(), "record", "-q", "-o",
				 (char *)db, "--syscalls=read", "--stacks=fp",
				 "--duration", "4s", "-p", pid_s, NULL };

		assert_int_equal(start_recording(&r, argv, 30000), 0);
	}
	kill(w.pid, SIGUSR1);
	assert_int_equal(run_wait(&r), 0);
	tid_blocked = info_get(info, "blocked");
	kill(w.pid, SIGKILL);
	run_wait(&w);
	if (tid_blocked <= 0)
		fail_msg("the workload's thread did not block in read() within"
			 " the recording's 4 s");
	assert_int_equal(db_int(db, "SELECT count(*) FROM syscall WHERE tid = %lld"
				" AND name = 'read' AND dur IS NULL AND ret IS NULL"
				" AND fd_name LIKE 'pipe:[%%]' AND args GLOB 'fd=*,"
				" buf=0x*, count=1'", tid_blocked), 1);
	/* Its stack is stored, and is the pipe read's (anon_pipe_read on 6.18). */
	assert_int_equal(db_int(db, "SELECT count(*) FROM syscall c JOIN stack_frame_name"
				" n ON n.session_id = c.session_id AND n.stack_id ="
				" c.stack_id WHERE c.tid = %lld AND c.dur IS NULL AND"
				" n.name GLOB '*pipe_read'", tid_blocked), 1);
}

/* A call that its thread's end cut short (the process exited while it
 * was blocked) returns, to the tracepoint, the kernel's restart code. */
static void a_call_cut_by_the_exit_is_stored_with_what_it_returned(void **state)
{
	(void)state;
	assert_int_equal(db_int(db_path(), "SELECT count(*) FROM syscall WHERE"
				" tid = %lld AND name = 'read' AND ret < 0 AND dur"
				" >= 2000000", blocked), 1);
}

/* Two files take the same descriptor number in turn, 50 times, then
 * the second is opened at that number and kept while the recorder reads
 * /proc: of the 101 reads on that number, only the last may be named as
 * the second file, as the recording saw every other one closed after. */
static void a_reused_descriptor_is_never_named_as_another_file(void **state)
{
	(void)state;
	assert_int_equal(db_int(db_path(), "SELECT coalesce(sum(calls), 0) FROM"
				" syscall_file WHERE tid = %lld AND name = 'read' AND"
				" fd_name = '%s/b'", tid, scratch_dir()), 1);
	assert_int_equal(db_int(db_path(), "SELECT coalesce(sum(calls), 0) FROM"
				" syscall_file WHERE tid = %lld AND name = 'read' AND"
				" fd_name = '%s/a'", tid, scratch_dir()), 0);
}

/* Recordings of the cold reads before the test gives up: a fast disk
 * can answer a read before the reader sleeps, which then waited for
 * nothing the recording could see. */
#define COLD_READ_TRIES 4

/* Records python3 reading data cold into db; 0 when the page cache kept
 * the file. */
static int record_cold_reads(const char *db, const char *data)
{
	char script[1024];
	struct run r;

	if (file_evict(data) > 0)
		return 0;
	/* Every 64th page, backwards: read-ahead cannot serve the next. */
	snprintf(script, sizeof(script), "import os, time\n"
		 "fd = os.open('%s', os.O_RDONLY)\n"
		 "os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_RANDOM)\n"
		 "for i in range(4095, 0, -64):\n"
		 "    os.pread(fd, 4096, i * 4096)\n"
		 "time.sleep(1)\n", data);
	unlink(db);
	if (run_faultline(&r, "record", "-q", "-o", db, "--syscalls", "--",
			  "/usr/bin/python3", "-c", script, NULL) != 0)
		fail_msg("record failed: %s", r.err);
	return 1;
}

/*
 * Many short reads of a file dropped from the page cache, each waiting
 * for the disk: each is stored as it blocked, however short, and
 * diagnose names the file as one finding with their sum.
 */
static void short_disk_reads_are_stored_and_diagnosed_by_their_file(void **state)
{
	const char *db = scratch_path("cold.db"), *data = scratch_path("cold.bin");
	char needle[600];
	struct run r;
	FILE *f = fopen(data, "w");
	int tries, recorded = 0;

	(void)state;
	assert_non_null(f);
	for (int i = 0; i < 4096; i++)
		for (int k = 0; k < 4096; k++)
			fputc(i * 31 + k, f);
	assert_int_equal(fclose(f), 0);
	unsetenv("LINGER_MS");
	for (tries = 0; tries < COLD_READ_TRIES; tries++) {
		if (!record_cold_reads(db, data))
			continue;
		recorded++;
		if (db_int(db, "SELECT count(*) FROM syscall WHERE name = 'pread64'"
			   " AND fd_name = '%s' AND blocked_ns > 0", data) >= 1)
			break;
	}
	if (!recorded)
		skip_msg("the page cache kept %s after POSIX_FADV_DONTNEED, %d"
			 " times", data, COLD_READ_TRIES);
	if (tries == COLD_READ_TRIES)
		skip_msg("in %d recordings no read of %s was seen blocked (a"
			 " fast disk can answer before the reader sleeps)",
			 recorded, data);
	assert_int_equal(db_int(db, "SELECT count(*) FROM syscall WHERE name ="
				" 'pread64' AND fd_name = '%s' AND blocked_ns > dur",
				data), 0);
	/* Each blocked wait is tied to the read it lay in. */
	assert_true(db_int(db, "SELECT count(*) FROM wait_in_call w JOIN thread_state"
			   " x ON x.rowid = w.state_id WHERE x.state = 'blocked'"
			   " AND w.waited_in = 'pread64 of %s'", data) >= 1);
	assert_int_equal(run_faultline(&r, "query", db, "longest-stalls", "--wide",
				       "limit=50", NULL), 0);
	snprintf(needle, sizeof(needle), "in pread64 of %s", data);
	if (!strstr(r.out, needle))
		fail_msg("longest-stalls does not say '%s':\n%s", needle, r.out);
	assert_int_equal(run_faultline(&r, "diagnose", db, NULL), 0);
	snprintf(needle, sizeof(needle), "cause:     %s", data);
	if (!strstr(r.out, "file I/O: a read or write of a file waited for the disk")
	    || !strstr(r.out, needle))
		fail_msg("diagnose does not name %s:\n%s", data, r.out);
}

/*
 * Lock contention: a thread holds a mutex 5 ms, 10 times, each time
 * until the other waits for it: diagnose finds the 10 waits on that
 * futex, one finding, and names the holder as the thread that woke
 * each; longest-stalls says the same of each wait (with the stacks of
 * every switch out, the sleeps on a lock are stalls).
 */
static void futex_waits_are_diagnosed_by_lock_with_the_holder(void **state)
{
	const char *db = scratch_path("lock.db"), *info = scratch_path("lock.info");
	char needle[256], lock[64];
	long long waiter, holder_tid;
	struct run r;
	FILE *f;

	(void)state;
	unsetenv("LINGER_MS");
	if (run_faultline(&r, "record", "-q", "-o", db, "--syscalls", "--stacks=fp",
			  "--stacks-on", "switches", "--", workload(), "--contend",
			  "10", "5", info, NULL) != 0)
		fail_msg("record failed: %s", r.err);
	waiter = info_get(info, "tid");
	holder_tid = info_get(info, "holder");
	assert_true(waiter > 0 && holder_tid > 0);
	assert_non_null(f = fopen(info, "r"));
	lock[0] = '\0';
	while (fgets(needle, sizeof(needle), f))
		if (sscanf(needle, "lock=%63s", lock) == 1)
			break;
	fclose(f);
	assert_true(lock[0] == '0');
	/* Each wait is a row, of that futex, longer than the hold. */
	assert_int_equal(db_int(db, "SELECT count(*) FROM syscall WHERE tid = %lld"
				" AND name = 'futex' AND args LIKE 'uaddr=%s,%%'"
				" AND dur >= 5000000", waiter, lock), 10);
	assert_int_equal(run_faultline(&r, "diagnose", db, NULL), 0);
	snprintf(needle, sizeof(needle), "cause:     futex %s\n   holder:    "
		 "syscall_workloa (%lld) woke it in 10 of 10 waits\n", lock,
		 holder_tid);
	if (!strstr(r.out, "lock contention: waited for a lock") ||
	    !strstr(r.out, needle) || !strstr(r.out, " 10 stalls over "))
		fail_msg("diagnose does not name the lock and its holder"
			 " ('%s'):\n%s", needle, r.out);
	assert_int_equal(run_faultline(&r, "query", db, "longest-stalls", "--wide",
				       "limit=30", NULL), 0);
	snprintf(needle, sizeof(needle), "in futex %s held by syscall_workloa (%lld)",
		 lock, holder_tid);
	if (!strstr(r.out, needle))
		fail_msg("longest-stalls does not say '%s':\n%s", needle, r.out);
}

/* An unknown call is a usage error that names the one meant. */
static void a_misspelt_call_is_refused_with_the_one_meant(void **state)
{
	(void)state;
	assert_refused_with(2, "did you mean 'fsync'?", "record", "-o",
			    scratch_path("x.db"), "--syscalls=fsynk", "--", "true",
			    NULL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(every_call_is_counted_and_the_short_ones_summed_per_file),
		cmocka_unit_test(the_waits_are_stored_with_their_arguments_and_descriptor),
		cmocka_unit_test(a_call_cut_by_the_exit_is_stored_with_what_it_returned),
		cmocka_unit_test_teardown(a_call_in_progress_at_the_end_is_stored_unfinished,
					  kill_leftovers),
		cmocka_unit_test_teardown(a_call_in_progress_when_the_duration_ends_keeps_its_stack,
					  kill_leftovers),
		cmocka_unit_test(a_reused_descriptor_is_never_named_as_another_file),
		cmocka_unit_test(short_disk_reads_are_stored_and_diagnosed_by_their_file),
		cmocka_unit_test(futex_waits_are_diagnosed_by_lock_with_the_holder),
		cmocka_unit_test(a_misspelt_call_is_refused_with_the_one_meant),
	};

	return cmocka_run_group_tests(tests, record_once, NULL);
}
