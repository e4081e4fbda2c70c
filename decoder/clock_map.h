/*
 * clock_map: a session's clock anchors, and the one conversion from the
 * recording's clock (CLOCK_MONOTONIC) to the stored wall-clock `ts`
 * (CLOCK_REALTIME ns since the epoch).
 *
 * Why an offset: the kernel keeps CLOCK_REALTIME as CLOCK_MONOTONIC plus
 * an offset (timekeeping's wall_to_monotonic).  NTP's slewing changes
 * the rate of both clocks alike; only a step (settimeofday, clock_settime,
 * date -s, an NTP step, a leap second) moves the offset.  So between
 * steps, realtime - mono is one constant, and the anchors measure it
 * again and again, each to within its own uncertainty.
 *
 * The rule: anchors come in time order.  The first starts a segment, and
 * its offset is the segment's.  A later anchor whose offset agrees with
 * the segment's (within both anchors' uncertainty plus CLOCK_STEP_MIN_NS)
 * belongs to it; one that does not is a step, and starts a new segment
 * with its own offset.  A monotonic time t becomes t + the offset of the
 * segment of the latest anchor at or before t (the first segment's, for
 * a t before every anchor).
 *
 * What follows: within a segment every ts is t + one constant, so
 * durations and order read the same on ts as on the monotonic clock,
 * and a thread's thread_state rows meet exactly.  The conversion is
 * causal: a row converted as soon as it is stored gets the ts it would
 * get after the recording, from the stored anchors alone.  A step is
 * reported (to be stored in clock_step); the rows stamped between the
 * anchor before it and the anchor after it keep the old offset, since
 * where in between it happened is not known: they may be off by the step.
 *
 * Pure: the anchors are taken by the recorder and handed in.
 */
#ifndef FL_CLOCK_MAP_H
#define FL_CLOCK_MAP_H

#include <stddef.h>
#include <stdint.h>

#include "../common/clock.h"

/* How often a recording takes an anchor: how long a step can go unseen,
 * and so how many rows may carry the old offset after it.  10 rows a
 * second in clock_anchor. */
#define CLOCK_ANCHOR_INTERVAL_NS (100ull * 1000 * 1000)

/* A move of the offset this small, beyond both anchors' uncertainty, is
 * taken for noise (a vCPU preempted between two clock reads), not a
 * step.  Real steps are milliseconds to seconds. */
#define CLOCK_STEP_MIN_NS 1000

struct clock_step {
	uint64_t from_mono_ns;	/* the anchor before the step */
	uint64_t to_mono_ns;	/* the anchor after it */
	int64_t step_ns;	/* how far realtime moved: + ahead, - back */
};

struct clock_map {
	struct clock_anchor *v;	/* owned: mono_ns strictly ascending */
	int64_t *seg_off;	/* owned: v[i]'s segment's offset, ns */
	size_t n, cap, seg_cap;
	size_t seg_first;	/* the current segment's first anchor */
	uint64_t steps;		/* segments after the first */
	size_t hint;		/* the anchor the last conversion used */
};

void clock_map_init(struct clock_map *m);
void clock_map_release(struct clock_map *m);

/*
 * Adds an anchor later than every one before it.  Returns 0; 1 when it
 * starts a new segment after a step (described in *step); -EINVAL when
 * its mono_ns is not after the last one's (nothing added); -ENOMEM.
 */
int clock_map_add(struct clock_map *m, const struct clock_anchor *a,
		  struct clock_step *step);

/*
 * The stored ts of monotonic time mono_ts (see the rule above).  Needs at
 * least one anchor.  Conversions of times in increasing order cost O(1);
 * others a binary search.
 */
uint64_t clock_map_realtime(struct clock_map *m, uint64_t mono_ts);

/* An anchor's own offset, realtime - mono, ns. */
int64_t clock_anchor_offset(const struct clock_anchor *a);

#endif
