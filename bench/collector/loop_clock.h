/*
 * loop_clock: the two clocks a benchmark loop reports by: its own CPU
 * time (user and system, which holds what the kernel does for a recorder
 * in the loop's thread) and the monotonic wall clock, both in ns.
 */
#ifndef FL_BENCH_LOOP_CLOCK_H
#define FL_BENCH_LOOP_CLOCK_H

#include <sys/resource.h>
#include <time.h>

static long long cpu_ns(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return (ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1000000000ll +
	       (ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) * 1000ll;
}

static double now_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec * 1e9 + (double)t.tv_nsec;
}

#endif
