/*
 * block_io: the record engine's part of --block-io.  collector/'s
 * block_trace reads the block tracepoints from a tracefs instance on a
 * thread of its own; at each round of the pipeline this takes what it
 * read, decodes each event (decoder/block_rq.h) into an EV_BLOCK of the
 * ordered stream, and says up to when the stream may be let out
 * (record_block_io_until): an event the reader has not reached yet must
 * not arrive behind the order queue's watermark.  The stream hands each
 * one back with its target thread, if it ran in one
 * (decoder/fault_stream.h block_rq), and they are matched here into
 * block_request rows, the disk named from /sys.
 *
 * Every time is CLOCK_MONOTONIC (the instance's trace clock is "mono");
 * the loader makes the stored ts.
 */
#ifndef FL_RECORD_BLOCK_IO_H
#define FL_RECORD_BLOCK_IO_H

#include "../collector/block_trace.h"
#include "../decoder/block_rq.h"
#include "../decoder/order.h"
#include "../decoder/thread_table.h"
#include "../schema/loader.h"

struct block_disk {
	uint32_t dev;
	char name[32];		/* "" when /sys did not say */
};

/* Where the events of a record_block_io come from. */
enum block_io_source {
	BLOCK_IO_READER,	/* its own reader: taken each round */
	BLOCK_IO_REPLAYED,	/* record --flight's replay, through
				 * record_block_io_event: no reader */
	BLOCK_IO_ELSEWHERE,	/* its reader's events go to record --flight's
				 * memory (record/flight_block.h) instead */
};

struct record_block_io {
	int on;
	enum block_io_source source;
	struct block_fields fields[BLK_STEPS];	/* borrowed formats' fields */
	struct block_trace trace;	/* owned */
	struct block_pending pending;	/* owned */
	/* Every block event stamped before it is in the order queue;
	 * UINT64_MAX without --block-io, or once the reader has stopped. */
	uint64_t until;
	struct order_queue *order;	/* borrowed during a take */
	struct block_disk *disks;	/* owned: the names found so far */
	size_t ndisks, disks_cap;
	uint64_t events;		/* decoded */
	uint64_t malformed;		/* read, not decoded */
	uint64_t overrun, dropped;	/* the instance's losses, at the end */
	unsigned buffer_kb;		/* its buffer, a CPU */
	struct errmsg note;		/* stale instances removed, or "" */
};

/* events NULL: off.  0, or -ENOENT when this kernel's formats lack a
 * field the rows need. */
int record_block_io_init(struct record_block_io *b,
			 struct tep_event *const *events);
void record_block_io_release(struct record_block_io *b);

/* The instance made and on, reading the online cpus; then its thread.
 * 0 or -errno with e. */
int record_block_io_open(struct record_block_io *b, const int *cpus,
			 int ncpus, struct errmsg *e);
int record_block_io_start(struct record_block_io *b, struct errmsg *e);
/* Tracing off, the thread stopped, the rest read (until: UINT64_MAX). */
void record_block_io_stop(struct record_block_io *b);

/* What the reader read since the last take, into order (nothing
 * unless source is BLOCK_IO_READER).  0 or -errno with e. */
int record_block_io_take(struct record_block_io *b, struct order_queue *order,
			 struct errmsg *e);

/* watermark, or less when the reader has not read that far. */
static inline uint64_t record_block_io_until(const struct record_block_io *b,
					     uint64_t watermark)
{
	return watermark < b->until ? watermark : b->until;
}

/*
 * record --flight.  Replayed: the events come through
 * record_block_io_event, all before the stream is flushed, so it waits
 * for no reader (until: UINT64_MAX).  Elsewhere: the reader still runs
 * (open, start, stop as ever), but record/flight_block.h takes what it
 * reads; this stream gets none of it, waits for none and stores nothing
 * at the end.
 */
void record_block_io_replayed(struct record_block_io *b);
void record_block_io_elsewhere(struct record_block_io *b);

/* One raw event (size bytes, stamped mono_ns, CLOCK_MONOTONIC, on cpu)
 * decoded into order; one that does not decode is counted (malformed).
 * 0 or -ENOMEM. */
int record_block_io_event(struct record_block_io *b, struct order_queue *order,
			  uint64_t mono_ns, uint32_t cpu, const void *raw,
			  size_t size);

/* A step the stream handed back; t: the target thread it ran in, or
 * NULL.  0 or -errno with e. */
int record_block_io_step(struct record_block_io *b, struct loader *l,
			 const struct ev *ev, const struct thread *t,
			 struct errmsg *e);

/* The end (after stop, the stream flushed): each pending request stored
 * unfinished, the counts, the losses as lost rows at end_mono (the
 * reader's: none when replayed; nothing at all when elsewhere).  0 or
 * -errno with e. */
int record_block_io_finish(struct record_block_io *b, struct loader *l,
			   uint64_t end_mono, struct errmsg *e);

#endif
