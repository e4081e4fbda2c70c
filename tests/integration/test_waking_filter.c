/*
 * Wake-ups and switches for per-thread targets: the kernel records the
 * targets' own (per-task sched_switch and sched_waking, sched_waking on
 * every CPU filtered on the woken pid), not every thread's on the
 * machine, nor for long those of a process started after the recording;
 * and a target thread whose pid the filter could not foresee (pids
 * wrapped) is added to it while recording.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <dirent.h>
#include <sys/mman.h>
#include <sys/stat.h>

#include "run.h"

static const char *db_path(void)
{
	return scratch_path("waking.db");
}

static const char *workload(void)
{
	static char path[512];
	const char *build = getenv("BUILD");

	snprintf(path, sizeof(path), "%s/tests/waking_workload",
		 build ? build : "build/release");
	return path;
}

/* Two processes passing a byte back and forth through two pipes, as
 * fast as they can; *trips counts round trips (shared memory). */
struct storm {
	pid_t pid[2];
	volatile long *trips;
};

static void storm_side(int in, int out, int first, volatile long *trips)
{
	char c = 'x';

	for (;;) {
		if (first && write(out, &c, 1) != 1)
			_exit(1);
		if (read(in, &c, 1) != 1)
			_exit(1);
		if (!first && write(out, &c, 1) != 1)
			_exit(1);
		if (first)
			__atomic_add_fetch(trips, 1, __ATOMIC_RELAXED);
	}
}

static void storm_start(struct storm *s)
{
	int ab[2], ba[2];

	s->trips = mmap(NULL, sizeof(long), PROT_READ | PROT_WRITE,
			MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	assert_true(s->trips != MAP_FAILED);
	assert_int_equal(pipe(ab), 0);
	assert_int_equal(pipe(ba), 0);
	for (int i = 0; i < 2; i++) {
		s->pid[i] = fork();
		assert_true(s->pid[i] >= 0);
		if (s->pid[i] == 0)
			storm_side(i ? ab[0] : ba[0], i ? ba[1] : ab[1], !i, s->trips);
		if (nstarted < 64)
			started[nstarted++] = s->pid[i];
	}
	close(ab[0]); close(ab[1]); close(ba[0]); close(ba[1]);
}

static long trips(const struct storm *s)
{
	return __atomic_load_n(s->trips, __ATOMIC_RELAXED);
}

static void storm_stop(struct storm *s)
{
	for (int i = 0; i < 2; i++) {
		kill(s->pid[i], SIGKILL);
		waitpid(s->pid[i], NULL, 0);
		forget_started(s->pid[i]);
	}
	munmap((void *)s->trips, sizeof(long));
}

/* faultline record -- waking_workload INFO FIFO, recording once this
 * returns; the FIFO is made first.  Without the switches of every thread
 * on every CPU (--no-ran-instead), which record the storm's by design:
 * what is tested here is that its wake-ups stay out. */
static void record_workload_with(struct run *r, const char *fifo,
				const char *option)
{
	char *info = scratch_path("waking.info"), *argv[12];
	int n = 0;

	argv[n++] = (char *)faultline_bin();
	argv[n++] = "record";
	argv[n++] = "-q";
	argv[n++] = "-o";
	argv[n++] = (char *)db_path();
	argv[n++] = "--no-ran-instead";
	if (option)
		argv[n++] = (char *)option;
	argv[n++] = "--";
	argv[n++] = (char *)workload();
	argv[n++] = info;
	argv[n++] = (char *)fifo;
	argv[n] = NULL;
	unlink(db_path());
	unlink(info);
	unlink(fifo);
	assert_int_equal(mkfifo(fifo, 0600), 0);
	assert_int_equal(start_recording(r, argv, 30000), 0);
}

static void record_workload(struct run *r, const char *fifo)
{
	record_workload_with(r, fifo, NULL);
}

static void say(const char *fifo, const char *bytes)
{
	int fd = open(fifo, O_WRONLY);

	assert_true(fd >= 0);
	assert_int_equal(write(fd, bytes, strlen(bytes)), (ssize_t)strlen(bytes));
	close(fd);
}

/*
 * A switch storm between two processes that are no targets, started
 * before the recording: none of its switches and wake-ups may reach the
 * rings (before, every CPU's sched_switch and sched_waking were opened
 * for every thread: four records or more a round trip).  The bound is
 * one record a round trip, not none: the filter passes every process
 * started after the recording began (a target's child may be one), and
 * on a busy machine (a parallel build) those wake up too.
 */
static void a_storm_outside_the_targets_is_not_recorded(void **state)
{
	char *fifo = scratch_path("waking.fifo");
	struct storm s;
	struct run r;
	long t0, t1;
	long long seen;

	(void)state;
	storm_start(&s);
	record_workload(&r, fifo);
	t0 = trips(&s);
	for (int waited = 0; trips(&s) < t0 + 20000 && waited < 60000; waited += 10)
		sleep_ms(10);
	t1 = trips(&s);
	say(fifo, "gq");
	assert_int_equal(run_wait(&r), 0);
	storm_stop(&s);
	if (t1 < t0 + 20000)
		fail_msg("the storm made %ld round trips in 60 s", t1 - t0);
	seen = db_int(db_path(), "SELECT records_seen FROM session");
	if (seen > t1 - t0)
		fail_msg("%lld records read while the storm made %ld round trips",
			 seen, t1 - t0);
}

/* The storm's round trips after its first two seconds, in those two. */
#define STORM_AFTER 5

/*
 * The same storm started after the recording began: the filter's "every
 * pid handed out after the start" (new target threads) takes it in at
 * first, until it moves up past the storm's pids, at most a second
 * later (WAKING_REBASE_NS).  Before it moved, a long recording beside a
 * load started after it (a benchmark's client) recorded two wake-ups a
 * round trip, each with its kernel callchain, for as long as it ran.
 * The storm runs until it made five times its round trips of the first
 * two seconds, so at most a sixth of them fall in the first two.  The
 * move waits for the pipeline to read a wake-up of the storm, and the
 * pipeline can lag: beside two CPU hogs, with churn, the storm once got
 * in for about four seconds (1,035,276 records over 938,535 round trips,
 * 234,483 in the first two), past the bound of three times.
 * With churn, the workload first starts and ends more threads than one
 * filter can name: the filter must forget them to move up.
 */
static void storm_started_after_recording(int churn)
{
	char *fifo = scratch_path("waking.fifo"), *info = scratch_path("waking.info");
	struct storm s;
	struct run r;
	long t0, t2, t1;
	long long seen, tid = -1;

	record_workload(&r, fifo);
	if (churn) {
		say(fifo, "c");
		for (int waited = 0; tid < 0 && waited < 30000; waited += 5) {
			tid = info_get(info, "tid");
			sleep_ms(5);
		}
		assert_true(tid > 0);
	}
	storm_start(&s);
	t0 = trips(&s);
	sleep_ms(2000);
	t2 = trips(&s);
	for (int waited = 0; waited < 60000 &&
	     (trips(&s) < t2 + STORM_AFTER * (t2 - t0) || trips(&s) < t2 + 20000);
	     waited += 10)
		sleep_ms(10);
	t1 = trips(&s);
	say(fifo, churn ? "q" : "gq");
	assert_int_equal(run_wait(&r), 0);
	storm_stop(&s);
	if (t1 < t2 + STORM_AFTER * (t2 - t0) || t1 < t2 + 20000)
		fail_msg("the storm made %ld round trips in 2 s, then %ld in 60 s",
			 t2 - t0, t1 - t2);
	seen = db_int(db_path(), "SELECT records_seen FROM session");
	if (seen > t1 - t0)
		fail_msg("%lld records read while the storm made %ld round trips "
			 "(%ld in its first 2 s)", seen, t1 - t0, t2 - t0);
}

static void a_storm_started_later_is_left_out_within_a_second(void **state)
{
	(void)state;
	storm_started_after_recording(0);
}

static void a_storm_is_left_out_after_a_thousand_threads_ended(void **state)
{
	(void)state;
	storm_started_after_recording(1);
}

static long long read_ll(const char *path)
{
	char buf[64];

	slurp(path, buf, sizeof(buf));
	return buf[0] ? strtoll(buf, NULL, 10) : -1;
}

/* The first of 64 free pids in a row below limit, from 301 up (the
 * kernel hands out pids from 301 again after a wrap); 0 if there is
 * none. */
static pid_t free_pids_below(pid_t limit)
{
	for (pid_t p = 301; p + 64 < limit; p += 64) {
		int used = 0;

		for (pid_t q = p; q < p + 64 && !used; q++)
			used = kill(q, 0) == 0 || errno != ESRCH;
		if (!used)
			return p;
	}
	return 0;
}

/* The kernel hands out pids after this one next. */
static int set_last_pid(pid_t pid)
{
	char buf[32];
	int fd = open("/proc/sys/kernel/ns_last_pid", O_WRONLY), err = 0;

	snprintf(buf, sizeof(buf), "%d", (int)pid);
	if (fd < 0 || write(fd, buf, strlen(buf)) < 0)
		err = -1;
	if (fd >= 0)
		close(fd);
	return err;
}

/* pid's perf event descriptors, in the order /proc lists them, into
 * fds[max]; how many. */
static int perf_fds_list(pid_t pid, int *fds, int max)
{
	char path[300], link[64];
	struct dirent *d;
	DIR *dir;
	int n = 0;

	snprintf(path, sizeof(path), "/proc/%d/fd", (int)pid);
	dir = opendir(path);
	while (dir && (d = readdir(dir))) {
		ssize_t len;

		snprintf(path, sizeof(path), "/proc/%d/fd/%s", (int)pid, d->d_name);
		len = readlink(path, link, sizeof(link) - 1);
		if (len <= 0)
			continue;
		link[len] = '\0';
		if (!strcmp(link, "anon_inode:[perf_event]") && n < max)
			fds[n++] = atoi(d->d_name);
	}
	if (dir)
		closedir(dir);
	return n;
}

/*
 * The perf events pid holds open, into fds (at most max): two listings
 * in a row that agree.  The recorder replaces its sched_waking set while
 * it records (waking_filter.h: a new set opens, then the old one
 * closes), and a listing read across that can miss both.
 */
static int perf_fds_stable(pid_t pid, int *fds, int max)
{
	int b[512], n = perf_fds_list(pid, fds, max), nb;

	for (int tries = 0; tries < 1000; tries++, n = nb) {
		nb = perf_fds_list(pid, b, max < 512 ? max : 512);
		if (n == nb && !memcmp(fds, b, (size_t)n * sizeof(*b)))
			break;
		memcpy(fds, b, (size_t)nb * sizeof(*b));
	}
	return n;
}

/* How many of pid's perf events were not open in before[nbefore]: the
 * sets opened since, whether to add a thread or to replace the others
 * (a rebase names every target thread then alive). */
static int perf_fds_new(pid_t pid, const int *before, int nbefore)
{
	int now[512], n = perf_fds_stable(pid, now, 512), fresh = 0;

	for (int i = 0; i < n; i++) {
		int seen = 0;

		for (int j = 0; j < nbefore && !seen; j++)
			seen = now[i] == before[j];
		fresh += !seen;
	}
	return fresh;
}

/* Waits until thread tid sleeps in a pipe read (its wchan says so; where
 * wchan is hidden, its state is S). */
static int wait_in_pipe_read(long long tid)
{
	char path[64], buf[512];

	for (int waited = 0; waited < 10000; waited++) {
		snprintf(path, sizeof(path), "/proc/%lld/wchan", tid);
		slurp(path, buf, sizeof(buf));
		if (strstr(buf, "pipe"))
			return 0;
		if (!strcmp(buf, "0")) {
			snprintf(path, sizeof(path), "/proc/%lld/stat", tid);
			slurp(path, buf, sizeof(buf));
			if (strstr(buf, ") S "))
				return 0;
		}
		sleep_ms(1);
	}
	return -1;
}

/*
 * The kernel hands the workload's new thread a pid below the last one
 * handed out when recording began (the test sets ns_last_pid, as after
 * a wrap), so the first filter does not name it.  Its FORK record makes
 * the recorder open a further set of sched_waking events naming it, one
 * event per online CPU, each enabled as it opens; once the whole set is
 * open (faultline holds that many more fds: a wake-up on a CPU whose
 * event is not open yet is rightly missed), every wake-up the test gives
 * it must name the test as the waker.
 */
static long long last_pid_before = -1;	/* ns_last_pid when the test began */

/* Teardown: pids go on from where they were, whatever happened to the
 * test, so later runs and other programs find the pids they expect. */
static int put_last_pid_back(void **state)
{
	if (last_pid_before > 0 &&
	    read_ll("/proc/sys/kernel/ns_last_pid") < last_pid_before)
		set_last_pid((pid_t)last_pid_before);
	last_pid_before = -1;
	return kill_leftovers(state);
}

/* Fails saying what faultline (r) did instead of opening a set of n
 * events for tid: exited, with its status and stderr, or still running
 * with how many perf events it holds (nfds0 before). */
static void no_set_opened(struct run *r, int n, long long tid, int nfds0)
{
	int fds[512], status;

	if (waitpid(r->pid, &status, WNOHANG) == r->pid) {
		forget_started(r->pid);
		slurp(r->errpath, r->err, sizeof(r->err));
		fail_msg("no sched_waking set of %d events was opened for thread "
			 "%lld: faultline exited (wait status 0x%x):\n%s", n, tid,
			 status, r->err);
	}
	fail_msg("no sched_waking set of %d events was opened for thread %lld: "
		 "faultline holds %d perf events, %d before", n, tid,
		 perf_fds_stable(r->pid, fds, 512), nfds0);
}

static void a_thread_born_after_a_wrap_gets_its_wakers(void **state)
{
	char *fifo = scratch_path("waking.fifo"), *info = scratch_path("waking.info");
	long long last = read_ll("/proc/sys/kernel/ns_last_pid"), tid = -1;
	const int wakes = 20;
	pid_t low = free_pids_below((pid_t)last - 100);
	struct run r;
	int fds0[512], nfds0, set = (int)sysconf(_SC_NPROCESSORS_ONLN);
	long long woken;

	(void)state;
	if (!low)
		skip_msg("no 64 free pids in a row below %lld", last);
	record_workload(&r, fifo);
	last_pid_before = last;
	if (set_last_pid(low - 1) < 0) {
		say(fifo, "gq");
		run_wait(&r);
		skip_msg("cannot set ns_last_pid: %s", strerror(errno));
	}
	/* Taken with pids below the filter's bound: no rebase opens a set
	 * until the thread is born and the bound is put back.  Then either
	 * an extension for it or a rebase listing it opens one (a rebase
	 * first leaves no extension to count). */
	nfds0 = perf_fds_stable(r.pid, fds0, 512);
	say(fifo, "g");
	for (int waited = 0; tid < 0 && waited < 10000; waited += 5) {
		tid = info_get(info, "tid");
		sleep_ms(5);
	}
	/* Pids go on from where they were, so the next run finds free
	 * pids below them again. */
	if (read_ll("/proc/sys/kernel/ns_last_pid") < last)
		set_last_pid((pid_t)last);
	assert_true(tid > 0);
	if (tid >= last) {
		say(fifo, "q");
		run_wait(&r);
		skip_msg("the new thread got pid %lld, not one below %lld", tid, last);
	}
	for (int waited = 0; perf_fds_new(r.pid, fds0, nfds0) < set &&
	     waited < 30000; waited += 5)
		sleep_ms(5);
	if (perf_fds_new(r.pid, fds0, nfds0) < set)
		no_set_opened(&r, set, tid, nfds0);
	for (int i = 0; i < wakes; i++) {
		assert_int_equal(wait_in_pipe_read(tid), 0);
		say(fifo, i + 1 < wakes ? "x" : "q");
	}
	assert_int_equal(run_wait(&r), 0);
	woken = db_int(db_path(), "SELECT count(*) FROM thread_state WHERE "
		       "tid = %lld AND state = 'sleeping' AND waker_tid = %d",
		       tid, (int)getpid());
	if (woken < wakes)
		fail_msg("%lld of %d sleeps name the test as waker; the thread's "
			 "off-CPU intervals: %lld, with any waker: %lld", woken,
			 wakes, db_int(db_path(), "SELECT count(*) FROM "
				       "thread_state WHERE tid = %lld AND state "
				       "!= 'running'", tid),
			 db_int(db_path(), "SELECT count(*) FROM thread_state "
				"WHERE tid = %lld AND waker_tid >= 0", tid));
}

/* Records the workload with option opt and wakes its thread wakes
 * times through the pipe it sleeps on, each time once it sleeps there;
 * returns the thread's tid once the recording has ended. */
static long long record_woken_sleeps(const char *opt, int wakes)
{
	char *fifo = scratch_path("waking.fifo"), *info = scratch_path("waking.info");
	long long tid = -1;
	struct run r;

	record_workload_with(&r, fifo, opt);
	say(fifo, "g");
	for (int waited = 0; tid < 0 && waited < 30000; waited += 5) {
		tid = info_get(info, "tid");
		sleep_ms(5);
	}
	assert_true(tid > 0);
	for (int i = 0; i < wakes; i++) {
		assert_int_equal(wait_in_pipe_read(tid), 0);
		say(fifo, i + 1 < wakes ? "x" : "q");
	}
	assert_int_equal(run_wait(&r), 0);
	return tid;
}

/*
 * --no-wakers opens no sched_waking event: the thread's sleeps are still
 * recorded (from its switches), each lasting until its switch in, none
 * naming a waker, though the test wakes it each time.
 */
static void without_wakers_no_sleep_names_a_waker(void **state)
{
	const int wakes = 10;
	long long tid, sleeps;

	(void)state;
	tid = record_woken_sleeps("--no-wakers", wakes);
	sleeps = db_int(db_path(), "SELECT count(*) FROM thread_state WHERE "
			"tid = %lld AND state = 'sleeping'", tid);
	if (sleeps < wakes)
		fail_msg("%lld sleeps of thread %lld recorded; it slept %d times",
			 sleeps, tid, wakes);
	assert_int_equal(db_int(db_path(), "SELECT count(*) FROM thread_state "
				"WHERE waker_tid IS NOT NULL"), 0);
	assert_int_equal(db_int(db_path(), "SELECT json_extract(options, "
				"'$.wakers') FROM session"), 0);
}

/*
 * --no-wake-stacks keeps the wakers without their kernel stacks: each of
 * the thread's sleeps names the test as its waker, and no wake-up stack
 * is stored.
 */
static void without_wake_stacks_sleeps_still_name_their_waker(void **state)
{
	const int wakes = 10;
	long long tid, woken;

	(void)state;
	tid = record_woken_sleeps("--no-wake-stacks", wakes);
	woken = db_int(db_path(), "SELECT count(*) FROM thread_state WHERE "
		       "tid = %lld AND state = 'sleeping' AND waker_tid = %d",
		       tid, (int)getpid());
	if (woken < wakes)
		fail_msg("%lld of %d sleeps name the test as waker", woken, wakes);
	assert_int_equal(db_int(db_path(), "SELECT count(*) FROM thread_state "
				"WHERE waker_stack_id IS NOT NULL"), 0);
	assert_int_equal(db_int(db_path(), "SELECT count(*) FROM stack"), 0);
	assert_int_equal(db_int(db_path(), "SELECT json_extract(options, "
				"'$.wake_stacks') FROM session"), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(a_storm_outside_the_targets_is_not_recorded,
					  kill_leftovers),
		cmocka_unit_test_teardown(a_storm_started_later_is_left_out_within_a_second,
					  kill_leftovers),
		cmocka_unit_test_teardown(a_storm_is_left_out_after_a_thousand_threads_ended,
					  kill_leftovers),
		cmocka_unit_test_teardown(a_thread_born_after_a_wrap_gets_its_wakers,
					  put_last_pid_back),
		cmocka_unit_test_teardown(without_wakers_no_sleep_names_a_waker,
					  kill_leftovers),
		cmocka_unit_test_teardown(without_wake_stacks_sleeps_still_name_their_waker,
					  kill_leftovers),
	};

	return cmocka_run_group_tests_name("waking filter", tests, NULL, NULL);
}
