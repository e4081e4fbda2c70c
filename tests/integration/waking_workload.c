/*
 * waking_workload: a thread the test wakes from outside, byte by byte.
 *
 * Usage: waking_workload INFO_FILE FIFO
 * The main thread waits for a first byte on FIFO (the test may set the
 * next pid before sending it; 'c' has it start and join CHURN_THREADS
 * threads that end at once, first), then starts a thread, which writes
 * "tid=N" to INFO_FILE and reads FIFO one byte at a time, sleeping in
 * read() until the test writes the next, until it reads 'q'.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

/* More than the sched_waking filter could name (collector/
 * waking_filter.h), were exited threads kept in it. */
#define CHURN_THREADS 1000

struct reader {
	const char *info;
	int fd;
};

static void die(const char *what)
{
	fprintf(stderr, "waking_workload: %s: %s\n", what, strerror(errno));
	exit(2);
}

static void *read_until_q(void *arg)
{
	struct reader *r = arg;
	FILE *f = fopen(r->info, "w");
	char c = 0;

	if (!f)
		die(r->info);
	fprintf(f, "tid=%ld\n", (long)syscall(SYS_gettid));
	if (fclose(f) != 0)
		die(r->info);
	while (c != 'q')
		if (read(r->fd, &c, 1) != 1)
			die("read");
	return NULL;
}

static void *end_at_once(void *arg)
{
	return arg;
}

static void churn(void)
{
	pthread_t t;

	for (int i = 0; i < CHURN_THREADS; i++) {
		if (pthread_create(&t, NULL, end_at_once, NULL) != 0)
			die("pthread_create");
		pthread_join(t, NULL);
	}
}

int main(int argc, char **argv)
{
	struct reader r;
	pthread_t t;
	char c;

	if (argc != 3) {
		fprintf(stderr, "usage: waking_workload INFO_FILE FIFO\n");
		return 2;
	}
	r.info = argv[1];
	/* O_RDWR: the open does not wait for a writer. */
	r.fd = open(argv[2], O_RDWR);
	if (r.fd < 0)
		die(argv[2]);
	if (read(r.fd, &c, 1) != 1)
		die("read");
	if (c == 'c')
		churn();
	if (pthread_create(&t, NULL, read_until_q, &r) != 0)
		die("pthread_create");
	pthread_join(t, NULL);
	return 0;
}
