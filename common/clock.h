/*
 * clock: the two clocks faultline names.  A stored `ts` is CLOCK_REALTIME
 * nanoseconds since the Unix epoch; a `mono_ns` is CLOCK_MONOTONIC and is
 * only kept beside a realtime reading as an anchor pair (see session).
 */
#ifndef FL_CLOCK_H
#define FL_CLOCK_H

#include <stdint.h>
#include <time.h>

static inline uint64_t clock_ns(clockid_t id)
{
	struct timespec t;

	clock_gettime(id, &t);
	return (uint64_t)t.tv_sec * 1000000000ull + (uint64_t)t.tv_nsec;
}

static inline uint64_t realtime_ns(void) { return clock_ns(CLOCK_REALTIME); }
static inline uint64_t monotonic_ns(void) { return clock_ns(CLOCK_MONOTONIC); }

/* A (realtime, monotonic) pair read back to back: lets a reader audit or
 * redo a conversion between the clocks. */
struct clock_anchor {
	uint64_t realtime_ns;
	uint64_t monotonic_ns;
};

static inline struct clock_anchor clock_anchor_now(void)
{
	struct clock_anchor a;

	a.realtime_ns = realtime_ns();
	a.monotonic_ns = monotonic_ns();
	return a;
}

#endif
