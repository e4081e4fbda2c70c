/*
 * flight_block: record --flight's bounded memory of --block-io's events.
 *
 * Armed, nothing decodes the block events (collector/block_trace.h) the
 * reader queues: at each drain round the flight recorder copies them in
 * here, raw, in the order read, and a dump replays those of its window
 * through its own pipeline (record/block_io.h, BLOCK_IO_REPLAYED), which
 * matches them into block_request rows as a recording of that stretch
 * does.  So a request is in a dump as a recording from the window's
 * start to its end would hold it: issued before the start and completed
 * in the window, its completion is counted unmatched, not stored;
 * inserted before and issued in it, it has no insert_ts; still pending
 * at the end, it is unfinished.
 *
 * The memory is cap fixed-size slots used as a ring (its share of
 * --max-memory, record/flight.h).  When full, the oldest slot goes,
 * counted in `dropped` (an event's); events are read a pass of the reader
 * at a time, each CPU's in time order, so the slots are not in time order
 * across CPUs, and whole_from is past the newest slot dropped (an event,
 * or a loss: the pass that found it): every event stamped from then on is
 * still here, with what was lost of them.
 *
 * The instance's own losses (per CPU: events the writer overwrote before
 * they were read, or refused for a full buffer) are read from its stats
 * after each pass the recorder takes, and what grew since the pass
 * before is kept in a slot of its own, as events are: it belongs to the
 * events read between the two passes (since_ns to mono_ns), and a dump
 * whose window meets that span stores it as lost rows, kinds
 * 'block_overrun' and 'block_dropped', as a recording does at its end.
 * So are the events the reader read and could not queue (the recorder
 * was that far behind, making a dump): 'block_dropped' on no one CPU
 * (cpu -1).
 *
 * Every time is CLOCK_MONOTONIC.
 */
#ifndef FL_RECORD_FLIGHT_BLOCK_H
#define FL_RECORD_FLIGHT_BLOCK_H

#include <stddef.h>
#include <stdint.h>

#include "../collector/block_trace.h"

struct flight_block_slot {
	uint64_t mono_ns;	/* an event's stamp; a loss: the pass that
				 * found it */
	uint64_t since_ns;	/* a loss: the pass before it */
	uint32_t cpu;
	uint16_t loss;		/* 1: u.n holds a loss, no event */
	uint16_t size;		/* bytes of u.raw used */
	union {
		unsigned char raw[BLOCK_RAW_MAX];
		struct {
			uint64_t overrun, dropped;
		} n;
	} u;
};

struct flight_block {
	struct flight_block_slot *v;	/* owned: cap slots, mmap'd */
	size_t cap;
	uint64_t head, tail;		/* free-running slot counts */
	/* Every event stamped before it has been taken in; 0: none yet. */
	uint64_t until;
	/* Every event stamped at or after it is kept; 0: none dropped. */
	uint64_t whole_from;
	uint64_t dropped;		/* events dropped, oldest first */
	/* The instance's counts at the last pass, per reader CPU, then the
	 * reader's queue's (owned: ncpus + 1). */
	uint64_t *overrun_seen, *dropped_seen;
	int ncpus;
	struct block_trace *trace;	/* borrowed: the session's reader, or NULL */
};

/* A memory of about bytes (at least 64 slots) for the events trace
 * reads (opened: its CPUs known; NULL: none, the events come through
 * flight_block_keep alone).  0 or -ENOMEM. */
int flight_block_init(struct flight_block *fb, size_t bytes,
		      struct block_trace *trace);
void flight_block_release(struct flight_block *fb);

/* What the reader read since the last take, kept; after a pass, the
 * instance's losses since the one before.  0, or -errno of the reader or
 * of a stats file. */
int flight_block_take(struct flight_block *fb);

/* One reading, as flight_block_take hands it in: an event kept, the
 * oldest slot dropped to make room; BLOCK_READ_UNTIL moves until. */
void flight_block_keep(struct flight_block *fb, const struct block_reading *r);

/* cpu's losses so far (the instance's stats: counts since it was made;
 * cpu -1: the reader's queue's),
 * found by the pass at mono_ns after the one at since_ns: what grew since
 * the last call for cpu is kept, as a slot of its own. */
void flight_block_loss(struct flight_block *fb, int cpu, uint64_t overrun,
		       uint64_t dropped, uint64_t since_ns, uint64_t mono_ns);

/* The slots kept for the window [start_ns, end_ns]: each event stamped
 * in it, and each loss whose span meets it, oldest kept first.  s is
 * borrowed for the call.  0 or fn's first negative return. */
int flight_block_each(const struct flight_block *fb, uint64_t start_ns,
		      uint64_t end_ns,
		      int (*fn)(void *ctx, const struct flight_block_slot *s),
		      void *ctx);

#endif
