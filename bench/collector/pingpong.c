/*
 * pingpong: a context-switch storm for bench/collector/switch_overhead.sh.
 * Two threads pass a byte back and forth through two pipes; each round
 * trip is two wake-ups and (on one CPU, or with both CPUs busy) two
 * switches.  Prints its own cost: wall time per round trip, and the CPU
 * time of both threads (user + system, which includes what the kernel
 * does for a recorder in their context):
 *
 *   round_trips=200000 ns_per_round_trip=5123.4 cpu_ns=2049000000
 *
 * Usage: pingpong [ROUND_TRIPS]   (default 200000)
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

static long trips;
static int ab[2], ba[2];

static void *pong(void *arg)
{
	char c;

	(void)arg;
	for (long i = 0; i < trips; i++)
		if (read(ab[0], &c, 1) != 1 || write(ba[1], &c, 1) != 1)
			exit(1);
	return NULL;
}

int main(int argc, char **argv)
{
	struct timespec t0, t1;
	struct rusage ru;
	pthread_t th;
	char c = 'p';

	trips = argc > 1 ? atol(argv[1]) : 200000;
	if (trips <= 0 || pipe(ab) < 0 || pipe(ba) < 0 ||
	    pthread_create(&th, NULL, pong, NULL) != 0)
		return 2;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (long i = 0; i < trips; i++)
		if (write(ab[1], &c, 1) != 1 || read(ba[0], &c, 1) != 1)
			return 1;
	clock_gettime(CLOCK_MONOTONIC, &t1);
	pthread_join(th, NULL);
	getrusage(RUSAGE_SELF, &ru);
	printf("round_trips=%ld ns_per_round_trip=%.1f cpu_ns=%lld\n", trips,
	       ((double)(t1.tv_sec - t0.tv_sec) * 1e9 +
		(double)(t1.tv_nsec - t0.tv_nsec)) / (double)trips,
	       (ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1000000000ll +
	       (ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) * 1000ll);
	return 0;
}
