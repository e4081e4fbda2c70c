#include "clock.h"

void clock_anchor_take(struct clock_anchor *a)
{
	uint64_t best = UINT64_MAX;

	for (int i = 0; i < CLOCK_ANCHOR_TRIES; i++) {
		uint64_t m1 = monotonic_ns();
		uint64_t r = realtime_ns();
		uint64_t m2 = monotonic_ns();
		uint64_t width = m2 - m1;

		if (width >= best)
			continue;
		best = width;
		a->mono_ns = m1 + width / 2;
		a->realtime_ns = r;
		a->uncertainty_ns = (width + 1) / 2;
	}
}
