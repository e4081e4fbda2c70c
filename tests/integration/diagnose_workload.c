/*
 * diagnose_workload: makes one stall pattern happen for real, for the
 * diagnose tests.  Every mode writes "victim=TID" (the thread that
 * stalls) and "culprit=TID" (the thread that causes it, where one does)
 * to --info FILE, and runs for about --ms N (default 400).
 *
 *   --preempt  a victim busy-loops on CPU 0; a SCHED_FIFO thread pinned
 *              there too wakes every 20 ms and spins 5 ms: each time it
 *              preempts the victim for those 5 ms, whatever else runs
 *   --wakeup   a SCHED_FIFO thread spins on CPU 0 for 8 ms at a time;
 *              a waker on CPU 1 wakes the victim, which sleeps pinned
 *              to CPU 0, in the middle of each spin: the victim is left
 *              runnable until the spin ends
 *   --idle     the victim waits in pause() for a signal that never comes
 *              (the test stops it): a thread with no work
 *   --busy     the victim busy-loops alone, unpinned
 *   --busy0    the victim busy-loops pinned to CPU 0
 *   --waits --file PATH
 *              a wait of each kind, a few rounds: the victim waits on a
 *              condition variable whose timeout never fires (a futex)
 *              until the culprit, after a nanosleep (a timer), signals
 *              it; then the victim reads pages of PATH that were dropped
 *              from the page cache (disk)
 *   --in-flight --file PATH
 *              a few rounds of: PATH (IN_FLIGHT_MIB) dropped from the
 *              page cache, read ahead whole (POSIX_FADV_WILLNEED starts
 *              the reads and returns), then its last page touched
 *              through a mapping: a fault on a page in the page cache
 *              whose read is still queued, which waits for the disk
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "dropped_page.h"

static long run_ms = 400;
static volatile int stop;
static pid_t victim_tid, culprit_tid;
static int pipefd[2];

static void die(const char *what)
{
	fprintf(stderr, "diagnose_workload: %s: %s\n", what, strerror(errno));
	exit(2);
}

static uint64_t now_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

static void spin_ns(uint64_t ns)
{
	uint64_t end = now_ns() + ns;

	while (now_ns() < end)
		;
}

static void sleep_ns(uint64_t ns)
{
	struct timespec t = { (time_t)(ns / 1000000000u), (long)(ns % 1000000000u) };

	nanosleep(&t, NULL);
}

static void pin(int cpu)
{
	cpu_set_t s;

	CPU_ZERO(&s);
	CPU_SET(cpu, &s);
	if (sched_setaffinity(0, sizeof(s), &s) < 0)
		die("sched_setaffinity");
}

static void fifo(void)
{
	struct sched_param p = { .sched_priority = 10 };

	if (sched_setscheduler(0, SCHED_FIFO, &p) < 0)
		die("sched_setscheduler SCHED_FIFO");
}

static void *busy_victim(void *arg)
{
	int pinned = *(int *)arg;

	victim_tid = (pid_t)syscall(SYS_gettid);
	if (pinned)
		pin(0);
	while (!stop)
		spin_ns(100000);
	return NULL;
}

/* --preempt: the FIFO thread. */
static void *preemptor(void *arg)
{
	(void)arg;
	culprit_tid = (pid_t)syscall(SYS_gettid);
	pin(0);
	fifo();
	while (!stop) {
		sleep_ns(20000000);
		spin_ns(5000000);
	}
	return NULL;
}

/* --wakeup: the victim sleeps on the pipe, pinned where the spinner is. */
static void *sleeper(void *arg)
{
	char c;

	(void)arg;
	victim_tid = (pid_t)syscall(SYS_gettid);
	pin(0);
	while (read(pipefd[0], &c, 1) == 1 && c == 'w')
		spin_ns(50000);
	return NULL;
}

static void *spinner(void *arg)
{
	(void)arg;
	culprit_tid = (pid_t)syscall(SYS_gettid);
	pin(0);
	fifo();
	while (!stop) {
		spin_ns(8000000);
		sleep_ns(12000000);
	}
	return NULL;
}

/* The waker wakes the sleeper 3 ms into each 20 ms period of the spinner;
 * the periods drift apart, so it lands in a spin most of the time. */
static void waker(void)
{
	uint64_t end = now_ns() + (uint64_t)run_ms * 1000000u;

	pin(1);
	while (now_ns() < end) {
		sleep_ns(20000000);
		if (write(pipefd[1], "w", 1) != 1)
			die("write");
	}
	if (write(pipefd[1], "q", 1) != 1)
		die("write");
}

/* --waits: the victim's condition, and what it reads. */
#define WAIT_ROUNDS 4
#define DROPPED_PAGES 16
static pthread_mutex_t wait_mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t wait_cv = PTHREAD_COND_INITIALIZER;
static int waiting, signalled;	/* under wait_mu */
static int dropped_fd = -1;

/* A file of DROPPED_PAGES pages, written, synced (dirty pages cannot be
 * dropped), dropped from the page cache, read-ahead off: each page read
 * later is an I/O of its own. */
static void prepare_dropped(const char *path)
{
	long page = sysconf(_SC_PAGESIZE);
	char *buf = calloc(DROPPED_PAGES, (size_t)page);

	dropped_fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0644);
	if (!buf || dropped_fd < 0 ||
	    write(dropped_fd, buf, (size_t)page * DROPPED_PAGES) != page * DROPPED_PAGES ||
	    fsync(dropped_fd) < 0)
		die(path);
	free(buf);
	if (posix_fadvise(dropped_fd, 0, 0, POSIX_FADV_DONTNEED) != 0 ||
	    posix_fadvise(dropped_fd, 0, 0, POSIX_FADV_RANDOM) != 0)
		die("posix_fadvise");
}

/* The victim: a futex wait per round, then the dropped pages, one read
 * each (a read whose I/O completes before the thread sleeps does not
 * block: there are several). */
static void *waits_victim(void *arg)
{
	long page = sysconf(_SC_PAGESIZE);
	struct timespec far;
	char c;

	(void)arg;
	victim_tid = (pid_t)syscall(SYS_gettid);
	clock_gettime(CLOCK_REALTIME, &far);
	far.tv_sec += 3600;
	for (int round = 0; round < WAIT_ROUNDS; round++) {
		pthread_mutex_lock(&wait_mu);
		waiting = 1;
		while (!signalled)
			if (pthread_cond_timedwait(&wait_cv, &wait_mu, &far) == ETIMEDOUT)
				die("pthread_cond_timedwait timed out");
		signalled = 0;
		waiting = 0;
		pthread_mutex_unlock(&wait_mu);
	}
	for (int i = 0; i < DROPPED_PAGES; i++)
		if (pread(dropped_fd, &c, 1, (off_t)i * page) != 1)
			die("pread");
	return NULL;
}

/* The culprit: sleeps until the victim waits, then 20 ms more (it is in
 * its futex by then), and signals it. */
static void *waits_culprit(void *arg)
{
	(void)arg;
	culprit_tid = (pid_t)syscall(SYS_gettid);
	for (int round = 0; round < WAIT_ROUNDS; round++) {
		int ready = 0;

		while (!ready) {
			sleep_ns(20000000);
			pthread_mutex_lock(&wait_mu);
			ready = waiting && !signalled;
			pthread_mutex_unlock(&wait_mu);
		}
		sleep_ns(20000000);
		pthread_mutex_lock(&wait_mu);
		signalled = 1;
		pthread_cond_signal(&wait_cv);
		pthread_mutex_unlock(&wait_mu);
	}
	return NULL;
}

/* --in-flight: big enough that the disk is still reading the last page
 * when the fault comes, microseconds after the read-ahead was asked.
 * WILLNEED reads at most the file's read-ahead size (128 KiB by
 * default) of what it is asked: the file is asked for in pieces that
 * size. */
#define IN_FLIGHT_MIB 32
#define IN_FLIGHT_CHUNK (128 << 10)
#define IN_FLIGHT_ROUNDS 4

static void in_flight(const char *path)
{
	size_t len = (size_t)IN_FLIGHT_MIB << 20;
	long page = sysconf(_SC_PAGESIZE);
	char *buf = calloc(1, 1 << 20);
	int fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0644);
	volatile char sum = 0;

	victim_tid = (pid_t)syscall(SYS_gettid);
	if (!buf || fd < 0)
		die(path);
	for (int i = 0; i < IN_FLIGHT_MIB; i++)
		if (write(fd, buf, 1 << 20) != 1 << 20)
			die(path);
	if (fsync(fd) < 0)
		die(path);
	free(buf);
	for (int round = 0; round < IN_FLIGHT_ROUNDS; round++) {
		char *map = mmap(NULL, len, PROT_READ, MAP_SHARED, fd, 0);

		if (map == MAP_FAILED)
			die("mmap");
		drop_cached(fd, map + len - (size_t)page);
		for (size_t off = 0; off < len; off += IN_FLIGHT_CHUNK)
			if (posix_fadvise(fd, (off_t)off, IN_FLIGHT_CHUNK,
					  POSIX_FADV_WILLNEED) != 0)
				die("posix_fadvise WILLNEED");
		sum += map[len - (size_t)page];
		munmap(map, len);
	}
	close(fd);
}

static void write_info(const char *path)
{
	FILE *f = fopen(path, "w");

	if (!f)
		die(path);
	fprintf(f, "pid=%d\nvictim=%d\nculprit=%d\n", (int)getpid(),
		(int)victim_tid, (int)culprit_tid);
	fclose(f);
}

int main(int argc, char **argv)
{
	const char *mode = NULL, *info = NULL, *file = NULL;
	pthread_t a, b;
	int pinned = 1;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--info") && i + 1 < argc)
			info = argv[++i];
		else if (!strcmp(argv[i], "--file") && i + 1 < argc)
			file = argv[++i];
		else if (!strcmp(argv[i], "--ms") && i + 1 < argc)
			run_ms = atol(argv[++i]);
		else
			mode = argv[i];
	}
	if (!mode || !info) {
		fprintf(stderr, "usage: diagnose_workload --preempt|--wakeup|--idle|"
			"--busy|--waits|--in-flight --info FILE [--ms N] [--file PATH]\n");
		return 2;
	}
	if (!strcmp(mode, "--idle")) {
		victim_tid = (pid_t)syscall(SYS_gettid);
		write_info(info);
		pause();
		return 0;
	}
	if (!strcmp(mode, "--in-flight")) {
		if (!file)
			die("--in-flight needs --file PATH");
		in_flight(file);
	} else if (!strcmp(mode, "--waits")) {
		if (!file)
			die("--waits needs --file PATH");
		prepare_dropped(file);
		pthread_create(&a, NULL, waits_victim, NULL);
		pthread_create(&b, NULL, waits_culprit, NULL);
		pthread_join(a, NULL);
		pthread_join(b, NULL);
		close(dropped_fd);
	} else if (!strcmp(mode, "--wakeup")) {
		if (pipe(pipefd) < 0)
			die("pipe");
		pthread_create(&a, NULL, sleeper, NULL);
		pthread_create(&b, NULL, spinner, NULL);
		waker();
		stop = 1;
		pthread_join(a, NULL);
		pthread_join(b, NULL);
	} else {
		int preempt = !strcmp(mode, "--preempt");

		pinned = preempt || !strcmp(mode, "--busy0");
		pthread_create(&a, NULL, busy_victim, &pinned);
		if (preempt)
			pthread_create(&b, NULL, preemptor, NULL);
		sleep_ns((uint64_t)run_ms * 1000000u);
		stop = 1;
		pthread_join(a, NULL);
		if (preempt)
			pthread_join(b, NULL);
	}
	write_info(info);
	return 0;
}
