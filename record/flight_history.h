/*
 * flight_history: record --flight's bounded memory of spool entries.
 *
 * While armed, the engine's thread copies each spool entry it takes
 * (collector/spool.h: DATA with its records, ROUND, ANCHOR, LOST) in here
 * instead of decoding it, in the order taken.  The buffer is one block of
 * cap bytes used as a ring: an entry is a struct spool_entry followed by
 * its bytes (so spool_data() reads it in place, and a dump hands entries
 * to the record pipeline as if they came from the spool), contiguous,
 * 8-aligned, a SPOOL_PAD filling the end when one does not fit.
 *
 * When an entry finds no room, the oldest are dropped, up to and
 * including a SPOOL_ROUND, so the history always starts right after a
 * round and every CPU's records are cut at the same place.  What that
 * leaves: every record stamped after the first kept round's watermark
 * plus RECORDER_ORDER_SLACK_NS is still here (the drain thread reads a
 * round's rings after taking its watermark, and before taking the next
 * one's; collector/drain.c), so flight_history_start() is the time from
 * which the history is whole, for all CPUs alike.
 *
 * Positions are free-running byte counts (pos % cap is the offset), so
 * a position names an entry for as long as it is kept.
 */
#ifndef FL_RECORD_FLIGHT_HISTORY_H
#define FL_RECORD_FLIGHT_HISTORY_H

#include <stddef.h>
#include <stdint.h>

#include "../collector/spool.h"

struct flight_history {
	uint8_t *buf;		/* owned: cap bytes, mmap'd */
	size_t cap;		/* a multiple of 8 */
	size_t resident;	/* buf[0..resident) made resident (.c) */
	uint64_t head;		/* where the next entry goes */
	uint64_t tail;		/* the oldest entry kept */
	/* CLOCK_MONOTONIC: the history is whole after this; 0 while nothing
	 * was dropped (whole since arming). */
	uint64_t whole_from;
	uint64_t peak;			/* most bytes in use at once */
	uint64_t dropped_records;	/* DATA records dropped, oldest first */
	uint64_t dropped_bytes;
	uint64_t too_big;		/* DATA entries larger than half of cap */
	/* Called with each entry about to be dropped (flight.c keeps the
	 * records a dump needs from before its window); or NULL. */
	void (*on_drop)(void *ctx, uint64_t pos, const struct spool_entry *e);
	void *ctx;			/* borrowed, for on_drop */
};

/* cap rounded down to a multiple of 8; at least 64 KiB.  0 or -ENOMEM. */
int flight_history_init(struct flight_history *h, size_t cap);
void flight_history_release(struct flight_history *h);

/*
 * Copies e (and, for SPOOL_DATA, its e->len bytes at spool_data(e)) in,
 * dropping the oldest rounds to make room; *pos gets its position.
 * kept: what a DATA entry holds, when the caller has walked it already
 * (the record pipeline counts as it decodes); NULL: counted here.
 * A DATA entry larger than half the buffer is not kept: it is counted
 * (too_big, dropped_*) and the history restarts after it, as if all
 * before it had been dropped.  Returns 1 when kept, 0 when not.
 */
int flight_history_add(struct flight_history *h, const struct spool_entry *e,
		       const struct spool_kept *kept, uint64_t *pos);

/* The entry at pos (tail <= pos < head, an entry's position), borrowed
 * until the next add; *next gets the position after it.  Pads are
 * skipped: the entry returned is never SPOOL_PAD; NULL at head. */
const struct spool_entry *flight_history_at(const struct flight_history *h,
					    uint64_t pos, uint64_t *next);

/* The number of records in a DATA entry of the history (counted as it
 * came in: its u.kept, with the PERF_RECORD_ types among them). */
uint64_t flight_history_records(const struct spool_entry *e);

#endif
