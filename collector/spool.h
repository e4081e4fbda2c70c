/*
 * spool: memory between the kernel's rings and the record engine.
 *
 * The drain thread moves what the kernel wrote into the spool and
 * releases the ring at once; the engine's thread takes entries out in the
 * same order and decodes and stores at its own pace.  So the kernel-facing
 * side never waits on decoding or SQLite: a burst the engine cannot keep
 * up with piles up here, not in the rings.  The spool is bounded: when it
 * is full, the drain thread still empties the rings but drops the newest
 * records itself, and says so with a SPOOL_LOST entry (which CPU, how
 * many records and bytes), so the loss is stored and counted like the
 * kernel's own.  With a spill file (spool_spill_to), records that find
 * no room in memory go to the file instead, while it has room: the
 * buffer holds a header in their place (SPOOL_SPILLED, internal), and
 * the consumer gets them back as a SPOOL_DATA entry read from the file,
 * in the same order as everything else.
 *
 * Entries, in the order pushed:
 *   SPOOL_DATA    whole ring records from one CPU's ring, in ring order
 *   SPOOL_ROUND   every record stamped at or before u.watermark
 *                 (CLOCK_MONOTONIC ns) is in an earlier entry
 *   SPOOL_ANCHOR  a clock anchor the drain thread took at that point
 *   SPOOL_LOST    records of u.lost.cpu the spool had no room for
 *   SPOOL_END     nothing follows
 *   SPOOL_TRIGGER record --flight: a snapshot asked for at u.trigger.mono_ns
 *                 (SIGUSR2, --control); the record engine ignores it
 *   SPOOL_METRIC  record --flight: a line of a watched metric, read at
 *                 u.metric.mono_ns (collector/metric_feed.h), a trigger
 *                 when over its threshold; the record engine ignores it
 * Control entries (all but DATA) are never dropped: one that finds no
 * room waits in the drain thread's side and goes in before any later
 * data, so nothing overtakes it.
 *
 * One producer (the drain thread) and one consumer (the engine's thread),
 * and no lock: each position is written by one side only (but for the
 * producer's rewind of an empty spool to the buffer's start, a
 * compare-and-swap of tail the consumer allows for: spool.c) and read by
 * the other with acquire/release ordering, and a side that must sleep
 * (the consumer on an empty spool, the producer at the end waiting for
 * room) sleeps on a futex word the other side bumps after each move.  So
 * the drain thread never waits for the engine's thread to be scheduled,
 * which runs at a lower priority and, on a busy machine, may not be for
 * a long while (with a mutex it could be preempted holding it).  An entry is contiguous
 * in memory (a pad fills the end of the buffer when one does not fit), so
 * the consumer reads records in place, without copying, until it hands
 * the entry back with spool_done.
 *
 * Usage (producer):
 *	dst = spool_data_begin(s, want, &room);	room contiguous bytes at dst
 *	... copy n <= room bytes of records to dst ...
 *	spool_data_end(s, cpu, n);
 *	spool_push(s, &control_entry);
 * (consumer):
 *	while ((e = spool_next(s, 1))->kind != SPOOL_END) {
 *		... e, and SPOOL_DATA's bytes at spool_data(e), are borrowed ...
 *		spool_done(s);
 *	}
 */
#ifndef FL_SPOOL_H
#define FL_SPOOL_H

#include <stddef.h>
#include <stdint.h>

#include "../common/clock.h"
#include "metric_feed.h"
#include "spill_file.h"

enum spool_kind {
	SPOOL_PAD,		/* internal: skip to the buffer's start */
	SPOOL_DATA,
	SPOOL_ROUND,
	SPOOL_ANCHOR,
	SPOOL_LOST,
	SPOOL_END,
	SPOOL_TRIGGER,
	SPOOL_METRIC,
	SPOOL_SPILLED,		/* internal: a SPOOL_DATA whose bytes are in
				 * the spill file */
};

/* Who asked for a SPOOL_TRIGGER. */
enum spool_trigger_source {
	TRIGGER_SIGNAL,		/* SIGUSR2 */
	TRIGGER_CONTROL,	/* 'snapshot' on the --control FIFO */
};

/* What a SPOOL_DATA entry holds, counted by whoever walked it. */
struct spool_kept {
	uint64_t records;
	uint64_t types;		/* 1 << PERF_RECORD_* of each, below 64 */
};

struct spool_entry {
	uint32_t kind;		/* enum spool_kind */
	uint32_t cpu;		/* SPOOL_DATA: the ring's CPU */
	uint64_t len;		/* SPOOL_DATA: bytes of records after the entry */
	union {
		uint64_t watermark;		/* SPOOL_ROUND */
		struct clock_anchor anchor;	/* SPOOL_ANCHOR */
		struct {
			uint64_t records, bytes;
			/* when they were dropped: the first and the last
			 * drop this entry counts */
			uint64_t first_mono_ns, mono_ns;
			uint32_t cpu;
		} lost;				/* SPOOL_LOST */
		struct {
			uint64_t mono_ns;	/* when it was asked for */
			uint32_t source;	/* enum spool_trigger_source */
		} trigger;
		struct metric_sample metric;	/* SPOOL_METRIC */
		struct {
			uint64_t off;		/* in the spill file */
			uint64_t records;	/* how many, should the
						 * reading back fail */
		} spilled;			/* SPOOL_SPILLED */
		/* SPOOL_DATA, kept in record --flight's history
		 * (record/flight_history.h); unset in the spool. */
		struct spool_kept kept;
	} u;
};

/* Control entries that found no room, waiting to go in (see above). */
#define SPOOL_PENDING_MAX 64

struct spool {
	uint8_t *buf;		/* owned: cap bytes, mmap'd */
	size_t cap;		/* a multiple of 8 */
	/* The producer's: which 1 MiB steps of buf are resident (spool.c). */
	uint8_t *resident;	/* owned: one flag a step */
	size_t nsteps, nresident;
	uint64_t populated;	/* steps made resident, counting each again */
	/* Free-running byte positions, each written by one side with
	 * release ordering and read by the other with acquire: an entry's
	 * bytes are in place before head passes them, and done with before
	 * tail does. */
	uint64_t head;		/* the producer's: where it writes next */
	uint64_t tail;		/* the consumer's: the oldest entry not done */
	/* Futex words: bumped after head (tail) moves; the side that sleeps
	 * says so in its flag first. */
	uint32_t head_moves, tail_moves;
	uint32_t consumer_sleeps, producer_sleeps;
	/* The producer's own. */
	uint64_t pending_head;	/* spool_data_begin's reservation */
	uint64_t pad_from, pad_to;	/* the latest skip to the start */
	struct spool_entry pending[SPOOL_PENDING_MAX];
	size_t npending;
	uint8_t *stage;		/* owned: records bound for the spill file */
	size_t stage_cap;
	int staged;		/* spool_data_begin's place is stage */
	/* The consumer's own. */
	uint64_t next_tail;	/* the tail once the entry it holds is done */
	uint64_t next_read;	/* the spill file's, likewise; 0: not from it */
	struct spool_entry *readback;	/* owned: a spilled entry read back */
	size_t readback_cap;
	struct spool_entry unread;	/* the loss of one that could not be */
	/* Shared, see spill_file.h. */
	struct spill_file spill;
	/* Counters: read them once both sides are done. */
	uint64_t peak;		/* the most bytes of entries in at once */
	uint64_t dropped_records, dropped_bytes;	/* by spool_drop */
};

/* Maps cap bytes (rounded down to a multiple of 8; at least 64 KiB),
 * made resident a MiB at a time as the producer comes to write there and
 * given back behind the consumer beyond a few MiB: what is resident
 * follows the consumer's lag, the whole buffer being there for a burst.
 * 0 or -ENOMEM. */
int spool_init(struct spool *s, size_t cap);
void spool_release(struct spool *s);
/* Sends what finds no room in memory to an unnamed file in dir, up to
 * cap bytes waiting there at once (beyond that, records are dropped as
 * without one).  Before either side starts.  0 or -errno. */
int spool_spill_to(struct spool *s, const char *dir, uint64_t cap);

/*
 * Producer: the place for up to *room bytes of records (contiguous,
 * 8-aligned), preferring a place with at least want bytes.  *room is 0
 * when the spool has no room (or control entries are still waiting):
 * the records are then to be dropped with spool_drop.
 */
void *spool_data_begin(struct spool *s, size_t want, size_t *room);
/* Publishes n bytes (a multiple of 8, whole records) written at the place
 * spool_data_begin gave, as one SPOOL_DATA entry of cpu's ring. */
void spool_data_end(struct spool *s, int cpu, size_t n);
/* Records of cpu that found no room: counted, and a SPOOL_LOST entry
 * queued (merged with one still waiting for the same CPU). */
void spool_drop(struct spool *s, int cpu, uint64_t records, uint64_t bytes,
		uint64_t mono_ns);
/* A control entry; it waits in the producer if there is no room yet. */
void spool_push(struct spool *s, const struct spool_entry *e);
/* Has every control entry gone in?  Tries to put them in first. */
int spool_flushed(struct spool *s);
/* Blocks until every control entry has gone in (the consumer makes
 * room): how the producer ends, after pushing SPOOL_END. */
void spool_wait_flushed(struct spool *s);

/*
 * Consumer: the oldest entry, borrowed until spool_done; NULL when there
 * is none and wait is 0 (with wait, blocks until there is one).
 */
const struct spool_entry *spool_next(struct spool *s, int wait);
/* The records of a SPOOL_DATA entry (e->len bytes), borrowed likewise. */
const void *spool_data(const struct spool_entry *e);
/* Hands the entry spool_next returned back: its bytes may be reused. */
void spool_done(struct spool *s);

/* Bytes in use now (a moment's view). */
uint64_t spool_used(struct spool *s);

#endif
