/*
 * pingpong: a context-switch storm for bench/collector/switch_overhead.sh.
 * Two threads pass a byte back and forth through two pipes; each round
 * trip is two wake-ups and (on one CPU, or with both CPUs busy) two
 * switches.  Prints its own cost:
 *
 *   round_trips=200000 ns_per_round_trip=5123.4
 *
 * Usage: pingpong [ROUND_TRIPS]   (default 200000)
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
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
	printf("round_trips=%ld ns_per_round_trip=%.1f\n", trips,
	       ((double)(t1.tv_sec - t0.tv_sec) * 1e9 +
		(double)(t1.tv_nsec - t0.tv_nsec)) / (double)trips);
	return 0;
}
