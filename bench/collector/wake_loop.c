/*
 * wake_loop: a thread that only wakes every INTERVAL_NS (absolute
 * clock_nanosleep, as the socket sampler's thread does) COUNT times and
 * does nothing else: the floor under what sampling at that interval can
 * cost on this machine.  bench/collector/udp_sampling.sh runs it.
 *
 * Usage: wake_loop INTERVAL_NS COUNT
 */
#include <stdlib.h>
#include <time.h>

int main(int argc, char **argv)
{
	long interval = argc > 1 ? atol(argv[1]) : 1000000;
	long count = argc > 2 ? atol(argv[2]) : 1000;
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	for (long i = 0; i < count; i++) {
		t.tv_nsec += interval;
		while (t.tv_nsec >= 1000000000) {
			t.tv_nsec -= 1000000000;
			t.tv_sec++;
		}
		clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &t, NULL);
	}
	return 0;
}
