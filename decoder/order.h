/*
 * order: merges the per-CPU streams into one stream in timestamp order.
 *
 * Each ring is in time order on its own, but a thread that sleeps in a
 * fault can take the entry on one CPU and the exit on another, and the
 * rings are drained one after the other.  Events are queued, and
 * order_queue_flush() hands out, sorted by (mono_ts, seq), those at or below a
 * watermark the caller guarantees no future event will undercut: the
 * collector takes it as CLOCK_MONOTONIC read before draining the rings,
 * less a slack for a writer still publishing a record it stamped earlier.
 *
 * An event pushed below a watermark already flushed is late: it is still
 * delivered (with the next flush, out of order) and counted in `late`, so
 * a wrong slack shows up as a number instead of silently mispaired faults.
 *
 * The queue owns what an event points to (an EV_TRACEPOINT's fields): it
 * frees it once fn has returned 0 for the event, or when the queue is
 * released.
 */
#ifndef FL_ORDER_H
#define FL_ORDER_H

#include <stddef.h>
#include <stdint.h>

#include "event.h"

struct order_queue {
	/* owned: the queued events, each in the slot it was pushed to
	 * until handed out (an event is never moved: at 96 bytes, moving
	 * those a flush left behind was 9% of the armed recorder's CPU);
	 * slab[0..slab_n) have been used, free[0..nfree) are free again. */
	struct ev *slab;
	size_t slab_n, slab_cap;
	uint32_t *free;		/* owned */
	size_t nfree, free_cap;
	/* owned: slots of slab, q[head..n) queued, in push order until
	 * sorted; then in (mono_ts, seq) order */
	uint32_t *q;
	size_t head, n, cap;
	int sorted;		/* q[head..n) is in (mono_ts, seq) order */
	/* Where each sorted run after the first begins in q, in push order:
	 * the rings arrive as a few runs, merged at the flush. */
	size_t *runs;		/* owned */
	size_t nruns, runs_cap;
	uint64_t next_seq;
	uint64_t flushed_to;	/* highest watermark flushed so far */
	uint64_t late;		/* events pushed at or below flushed_to */
};

typedef int (*ev_fn)(void *ctx, const struct ev *e);

void order_queue_init(struct order_queue *q);
void order_queue_release(struct order_queue *q);

/* The number of events queued. */
size_t order_queue_count(const struct order_queue *q);

/* Copies *e into the queue.  Returns 0 or -ENOMEM. */
int order_queue_push(struct order_queue *q, const struct ev *e);

/*
 * Calls fn for every queued event with mono_ts <= watermark, oldest first, and
 * drops them from the queue.  UINT64_MAX flushes everything.  Stops at
 * the first negative return of fn and passes it on (the events not yet
 * handed out stay queued); else returns the number of events handed out.
 */
long order_queue_flush(struct order_queue *q, uint64_t watermark,
		       ev_fn fn, void *ctx);

#endif
