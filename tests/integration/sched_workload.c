/*
 * sched_workload: threads of known behaviour, each of which reads the
 * kernel's own accounting of itself as its last act, so tests can hold
 * faultline's thread_state rows against it.
 *
 *   spin      burns 300 ms of CPU
 *   sleep     sleeps 10 x 20 ms
 *   ping/pong 1000 round trips through two pipes: each wakes the other
 *   disk      O_DIRECT reads of a file until 10 of them waited, at most
 *             200: uninterruptible waits (D)
 *
 * Usage: sched_workload INFO_FILE DATA_FILE
 * INFO_FILE gets one line per thread:
 *   role=spin tid=123 nvcsw=4 nivcsw=1 cpu_ns=300012345 real_ns=... real0_ns=...
 * real0_ns and real_ns are CLOCK_REALTIME just before and just after the
 * thread read its accounting.  Then one line per instant a thread read
 * CLOCK_REALTIME in user mode, so surely on a CPU (spin every 1 ms of its
 * CPU time, the others after each wait):
 *   seen role=spin t=...
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define ROUND_TRIPS 1000
#define DISK_READS 10		/* the waits wanted, and the file's reads */
#define DISK_MAX_READS 200
#define BLOCK 4096
#define MAX_SEEN ROUND_TRIPS

struct role {
	const char *name;
	void (*run)(struct role *r);
	int in_fd, out_fd;		/* ping/pong pipes */
	const char *path;		/* disk */
	long tid;
	struct rusage ru;
	struct timespec cpu;
	struct timespec real0;		/* CLOCK_REALTIME just before cpu */
	struct timespec real;		/* CLOCK_REALTIME just after cpu and ru */
	long long seen[MAX_SEEN];	/* CLOCK_REALTIME ns, read on the CPU */
	int nseen;
};

static void die(const char *what)
{
	fprintf(stderr, "sched_workload: %s: %s\n", what, strerror(errno));
	exit(2);
}

static long long ts_ns(const struct timespec *t)
{
	return (long long)t->tv_sec * 1000000000ll + t->tv_nsec;
}

static long long cpu_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
	return ts_ns(&t);
}

/* Notes that the thread is on a CPU now: it is running user code. */
static void seen_on_cpu(struct role *r)
{
	struct timespec t;

	clock_gettime(CLOCK_REALTIME, &t);
	if (r->nseen < MAX_SEEN)
		r->seen[r->nseen++] = ts_ns(&t);
}

static void run_spin(struct role *r)
{
	long long next = 1000000;

	for (long long c = cpu_ns(); c < 300000000ll; c = cpu_ns())
		if (c >= next) {
			seen_on_cpu(r);
			next += 1000000;
		}
}

static void run_sleep(struct role *r)
{
	struct timespec t = { 0, 20000000 };

	for (int i = 0; i < 10; i++) {
		nanosleep(&t, NULL);
		seen_on_cpu(r);
	}
}

/* ping writes first; each then waits for the other's byte. */
static void run_pingpong(struct role *r)
{
	char c = 'x';
	int first = !strcmp(r->name, "ping");

	for (int i = 0; i < ROUND_TRIPS; i++) {
		if (first && write(r->out_fd, &c, 1) != 1)
			die("write");
		if (read(r->in_fd, &c, 1) != 1)
			die("read");
		seen_on_cpu(r);
		if (!first && write(r->out_fd, &c, 1) != 1)
			die("write");
	}
}

static void run_disk(struct role *r)
{
	void *buf;
	int fd = open(r->path, O_RDONLY | O_DIRECT);

	if (fd < 0 || posix_memalign(&buf, BLOCK, BLOCK) != 0)
		die(r->path);
	/* A read the device completes before the thread sleeps makes no
	 * wait (all 10 of 10 once, beside two CPU hogs): read until 10
	 * waited, the file's blocks over again. */
	for (int i = 0; i < DISK_MAX_READS; i++) {
		struct rusage ru;

		if (pread(fd, buf, BLOCK, (off_t)(i % DISK_READS) * BLOCK * 16) != BLOCK)
			die("pread");
		seen_on_cpu(r);
		if (getrusage(RUSAGE_THREAD, &ru) == 0 && ru.ru_nvcsw >= DISK_READS)
			break;
	}
	free(buf);
	close(fd);
}

static void *thread_main(void *arg)
{
	struct role *r = arg;

	prctl(PR_SET_NAME, r->name, 0, 0, 0);
	r->tid = syscall(SYS_gettid);
	r->run(r);
	/* Last act: the kernel's own accounting of this thread, and when
	 * (what runs after it, the thread's exit, is not in the accounting),
	 * bracketed by two wall-clock reads. */
	clock_gettime(CLOCK_REALTIME, &r->real0);
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &r->cpu);
	getrusage(RUSAGE_THREAD, &r->ru);
	clock_gettime(CLOCK_REALTIME, &r->real);
	return NULL;
}

static void make_data(const char *path)
{
	char block[BLOCK];
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);

	memset(block, 'd', sizeof(block));
	if (fd < 0)
		die(path);
	for (int i = 0; i < DISK_READS * 16; i++)
		if (write(fd, block, sizeof(block)) != (ssize_t)sizeof(block))
			die("write data");
	if (fsync(fd) < 0)
		die("fsync");
	close(fd);
}

int main(int argc, char **argv)
{
	int ab[2], ba[2];
	struct role roles[] = {
		{ .name = "spin", .run = run_spin },
		{ .name = "sleep", .run = run_sleep },
		{ .name = "ping", .run = run_pingpong },
		{ .name = "pong", .run = run_pingpong },
		{ .name = "disk", .run = run_disk },
	};
	size_t n = sizeof(roles) / sizeof(roles[0]);
	pthread_t th[sizeof(roles) / sizeof(roles[0])];
	FILE *f;

	if (argc != 3) {
		fprintf(stderr, "usage: sched_workload INFO_FILE DATA_FILE\n");
		return 2;
	}
	make_data(argv[2]);
	if (pipe(ab) < 0 || pipe(ba) < 0)
		die("pipe");
	roles[2].out_fd = ab[1];
	roles[2].in_fd = ba[0];
	roles[3].in_fd = ab[0];
	roles[3].out_fd = ba[1];
	roles[4].path = argv[2];
	for (size_t i = 0; i < n; i++)
		if (pthread_create(&th[i], NULL, thread_main, &roles[i]) != 0)
			die("pthread_create");
	for (size_t i = 0; i < n; i++)
		pthread_join(th[i], NULL);
	f = fopen(argv[1], "w");
	if (!f)
		die(argv[1]);
	for (size_t i = 0; i < n; i++)
		fprintf(f, "role=%s tid=%ld nvcsw=%ld nivcsw=%ld cpu_ns=%lld "
			"real_ns=%lld real0_ns=%lld\n", roles[i].name,
			roles[i].tid, roles[i].ru.ru_nvcsw,
			roles[i].ru.ru_nivcsw, ts_ns(&roles[i].cpu),
			ts_ns(&roles[i].real), ts_ns(&roles[i].real0));
	for (size_t i = 0; i < n; i++)
		for (int k = 0; k < roles[i].nseen; k++)
			fprintf(f, "seen role=%s t=%lld\n", roles[i].name,
				roles[i].seen[k]);
	return fclose(f) ? 1 : 0;
}
