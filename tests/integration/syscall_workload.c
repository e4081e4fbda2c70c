/*
 * syscall_workload: a known number of each kind of system call, some of
 * them made to wait, for tests/integration/test_syscalls.c.
 *
 * Usage: syscall_workload DIR INFO_FILE
 * In order, in the main thread unless said:
 *   200 pread64 of 4096 bytes of DIR/data (a file it writes first);
 *   3 sleeps of 5 ms (nanosleep);
 *   1 fsync of DIR/data after writing it again;
 *   a read of a pipe that waits 20 ms for a child thread to write (20
 *   ms from when the read blocks);
 *   a mutex a second thread holds for 20 ms once the main thread waits
 *   for it in a futex, and is woken by that thread;
 *   50 rounds of: open DIR/a, read 100 bytes, close, open DIR/b, read 200
 *   bytes, close (the two files take the same descriptor number in turn);
 *   then DIR/b opened once more, at that number, read 200 bytes, kept;
 *   a thread left blocked in read() of a pipe nobody writes, when the
 *   process exits: its call never returns.
 * INFO_FILE gets "tid=N" (the main thread), "futex_holder=N" and
 * "blocked=N" (the thread left in read); then it lives LINGER_MS more
 * (environment; default 0) before it exits, DIR/data and the first pipe
 * still open.
 *
 * Usage: syscall_workload --hang INFO_FILE
 * Only the thread that blocks in read(), started once SIGUSR1 comes
 * (blocked by whoever starts it, so none is missed); INFO_FILE gets
 * "blocked=N" once it is blocked; then it lives LINGER_MS more.
 *
 * Usage: syscall_workload --contend ROUNDS HOLD_MS INFO_FILE
 * ROUNDS times: a second thread takes a mutex, and once the main thread
 * waits for it in futex() holds it HOLD_MS more, then releases it; so
 * the main thread waits exactly ROUNDS times on that mutex, each at
 * least HOLD_MS, each woken by the holder.  INFO_FILE gets "tid=N", "holder=N" and "lock=0x..."
 * (the mutex's address, the futex's uaddr); then it lives LINGER_MS.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_barrier_t held;
/*
 * Built with AddressSanitizer (make check-san), LeakSanitizer stops every
 * thread with ptrace at exit to look for leaks: the thread blocked in
 * read() is interrupted (ERESTARTSYS) and reads again once let go, a
 * second call that lasts as long as the scan, which the tests would then
 * find beside the one the exit cut.  This workload's leaks do not matter.
 */
const char *__asan_default_options(void);
const char *__asan_default_options(void)
{
	return "detect_leaks=0";
}

static long holder_tid, blocked_tid;
static long waiter_tid;	/* the thread the others wait to wait */
static int hang[2];

static void die(const char *what)
{
	fprintf(stderr, "syscall_workload: %s: %s\n", what, strerror(errno));
	exit(2);
}

static void sleep_ms(long ms)
{
	struct timespec t = { ms / 1000, (ms % 1000) * 1000000 };

	while (nanosleep(&t, &t) < 0 && errno == EINTR)
		;
}

static void write_file(const char *path, size_t n)
{
	char buf[4096];
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);

	memset(buf, 'x', sizeof(buf));
	if (fd < 0)
		die(path);
	for (size_t done = 0; done < n; done += sizeof(buf))
		if (write(fd, buf, sizeof(buf)) != (ssize_t)sizeof(buf))
			die("write");
	close(fd);
}

static void *block_forever(void *arg)
{
	char c;

	(void)arg;
	blocked_tid = syscall(SYS_gettid);
	pthread_barrier_wait(&held);
	if (read(hang[0], &c, 1) >= 0)
		die("the pipe nobody writes gave a byte");
	return NULL;
}

/* Until thread tid is blocked inside read(), as /proc/self/task/TID/
 * syscall says: the call's number first while it is blocked in one
 * ("running" while it runs, which strtol would read as 0, read's number
 * here). */
static void wait_in_read(long tid)
{
	char path[64], line[256];

	snprintf(path, sizeof(path), "/proc/self/task/%ld/syscall", tid);
	for (int i = 0; i < 10000; i++) {
		FILE *f = fopen(path, "r");
		long nr = -1;

		if (f && fgets(line, sizeof(line), f) && line[0] >= '0' &&
		    line[0] <= '9')
			nr = strtol(line, NULL, 10);
		if (f)
			fclose(f);
		if (nr == SYS_read)
			return;
		poll(NULL, 0, 1);	/* not a sleep: the test counts those */
	}
	fprintf(stderr, "syscall_workload: thread %ld never blocked in read\n", tid);
	exit(2);
}

/* Writes the pipe 20 ms after the main thread (waiter_tid) blocks in
 * its read: however late a loaded machine runs that thread, its read
 * waits the 20 ms. */
static void *write_pipe_later(void *arg)
{
	int fd = *(int *)arg;

	wait_in_read(waiter_tid);
	sleep_ms(20);
	if (write(fd, "x", 1) != 1)
		die("write pipe");
	return NULL;
}

/* open, read n bytes, close: path's descriptor number is reused. */
static void read_once(const char *path, size_t n)
{
	char buf[256];
	int fd = open(path, O_RDONLY);

	if (fd < 0 || read(fd, buf, n) != (ssize_t)n)
		die(path);
	close(fd);
}

/* A thread blocked in read() of a pipe nobody writes, its tid told. */
static long start_blocked(void)
{
	pthread_t t;

	pthread_barrier_init(&held, NULL, 2);
	if (pipe(hang) < 0 || pthread_create(&t, NULL, block_forever, NULL))
		die("pipe");
	pthread_barrier_wait(&held);
	wait_in_read(blocked_tid);
	return blocked_tid;
}

static pthread_mutex_t contended = PTHREAD_MUTEX_INITIALIZER;
static pthread_barrier_t round_start, round_end;
static long rounds, hold_ms;

/* Until thread tid waits in futex() on the word at addr, as
 * /proc/self/task/TID/syscall says: "202 0x7f12a000 ..." (number, then
 * the arguments in hex). */
static void wait_in_futex(long tid, const void *addr)
{
	char path[64], line[256];

	snprintf(path, sizeof(path), "/proc/self/task/%ld/syscall", tid);
	for (int i = 0; i < 10000; i++) {
		FILE *f = fopen(path, "r");
		unsigned long long a = 0;
		long nr = -1;

		if (f && fgets(line, sizeof(line), f) && line[0] >= '0' &&
		    line[0] <= '9')
			sscanf(line, "%ld %llx", &nr, &a);
		if (f)
			fclose(f);
		if (nr == SYS_futex && a == (unsigned long long)(uintptr_t)addr)
			return;
		poll(NULL, 0, 1);
	}
	fprintf(stderr, "syscall_workload: thread %ld never waited on the"
		" mutex\n", tid);
	exit(2);
}

/* Holds the lock 20 ms from when the main thread (waiter_tid) waits for
 * it in futex(): however late a loaded machine runs that thread, its
 * wait is the 20 ms. */
static void *hold_lock(void *arg)
{
	(void)arg;
	holder_tid = syscall(SYS_gettid);
	pthread_mutex_lock(&lock);
	pthread_barrier_wait(&held);
	wait_in_futex(waiter_tid, &lock);
	sleep_ms(20);
	pthread_mutex_unlock(&lock);
	return NULL;
}

static void *hold_contended(void *arg)
{
	(void)arg;
	holder_tid = syscall(SYS_gettid);
	for (long i = 0; i < rounds; i++) {
		pthread_mutex_lock(&contended);
		pthread_barrier_wait(&round_start);
		wait_in_futex(waiter_tid, &contended);
		sleep_ms(hold_ms);
		pthread_mutex_unlock(&contended);
		pthread_barrier_wait(&round_end);
	}
	return NULL;
}

static int contend(long n, long ms, const char *info_path, long linger_ms)
{
	pthread_t t;
	FILE *info;

	rounds = n;
	hold_ms = ms;
	waiter_tid = syscall(SYS_gettid);
	pthread_barrier_init(&round_start, NULL, 2);
	pthread_barrier_init(&round_end, NULL, 2);
	if (pthread_create(&t, NULL, hold_contended, NULL))
		die("thread");
	for (long i = 0; i < rounds; i++) {
		pthread_barrier_wait(&round_start);
		pthread_mutex_lock(&contended);
		pthread_mutex_unlock(&contended);
		pthread_barrier_wait(&round_end);
	}
	pthread_join(t, NULL);
	if (!(info = fopen(info_path, "w")))
		die(info_path);
	fprintf(info, "tid=%ld\nholder=%ld\nlock=%p\n", waiter_tid, holder_tid,
		(void *)&contended);
	if (fclose(info) != 0)
		die(info_path);
	sleep_ms(linger_ms);
	return 0;
}

static int hang_only(const char *info_path, long linger_ms)
{
	FILE *info;
	sigset_t usr1;
	long tid;
	int sig;

	sigemptyset(&usr1);
	sigaddset(&usr1, SIGUSR1);
	sigprocmask(SIG_BLOCK, &usr1, NULL);
	if (sigwait(&usr1, &sig) != 0)
		die("sigwait");
	tid = start_blocked();
	if (!(info = fopen(info_path, "w")))
		die(info_path);
	fprintf(info, "blocked=%ld\n", tid);
	if (fclose(info) != 0)
		die(info_path);
	sleep_ms(linger_ms);
	return 0;
}

int main(int argc, char **argv)
{
	long linger_ms = getenv("LINGER_MS") ? atol(getenv("LINGER_MS")) : 0;
	char data[4096], a[4096], b[4096], buf[4096];
	pthread_t t;
	FILE *info;
	int fd, p[2];

	if (argc == 3 && !strcmp(argv[1], "--hang"))
		return hang_only(argv[2], linger_ms);
	if (argc == 5 && !strcmp(argv[1], "--contend"))
		return contend(atol(argv[2]), atol(argv[3]), argv[4], linger_ms);
	if (argc != 3)
		return fprintf(stderr, "usage: syscall_workload DIR INFO_FILE\n"), 2;
	snprintf(data, sizeof(data), "%s/data", argv[1]);
	snprintf(a, sizeof(a), "%s/a", argv[1]);
	snprintf(b, sizeof(b), "%s/b", argv[1]);
	write_file(data, 1 << 20);
	write_file(a, 4096);
	write_file(b, 4096);

	if ((fd = open(data, O_RDWR)) < 0)
		die(data);
	for (int i = 0; i < 200; i++)
		if (pread(fd, buf, sizeof(buf), 0) != (ssize_t)sizeof(buf))
			die("pread");
	for (int i = 0; i < 3; i++)
		sleep_ms(5);
	if (pwrite(fd, buf, sizeof(buf), 0) != (ssize_t)sizeof(buf) || fsync(fd) < 0)
		die("fsync");

	waiter_tid = syscall(SYS_gettid);
	if (pipe(p) < 0 || pthread_create(&t, NULL, write_pipe_later, &p[1]))
		die("pipe");
	if (read(p[0], buf, 1) != 1)
		die("read pipe");
	pthread_join(t, NULL);

	pthread_barrier_init(&held, NULL, 2);
	if (pthread_create(&t, NULL, hold_lock, NULL))
		die("thread");
	pthread_barrier_wait(&held);
	pthread_mutex_lock(&lock);
	pthread_mutex_unlock(&lock);
	pthread_join(t, NULL);
	pthread_barrier_destroy(&held);

	for (int i = 0; i < 50; i++) {
		read_once(a, 100);
		read_once(b, 200);
	}
	/* b again at the number the loop used, kept open: /proc names it
	 * while the recorder decodes the loop's reads. */
	if ((fd = open(b, O_RDONLY)) < 0 || read(fd, buf, 200) != 200)
		die(b);

	start_blocked();
	if (!(info = fopen(argv[2], "w")))
		die(argv[2]);
	fprintf(info, "tid=%ld\nfutex_holder=%ld\nblocked=%ld\n",
		(long)syscall(SYS_gettid), holder_tid, blocked_tid);
	if (fclose(info) != 0)
		die(argv[2]);
	/* Alive a while, so the recorder can still read what its
	 * descriptors name (it reads /proc when it decodes a call). */
	sleep_ms(linger_ms);
	return 0;
}
