/*
 * block_trace: record --block-io's source, the block tracepoints read
 * through a tracefs instance of faultline's own, as ftrace reads them.
 *
 * Why not perf_event_open: block:block_rq_complete fires for every
 * request (ftrace counted 39 of 39 here, 38 of them in the idle task),
 * but CPU-wide perf sampling of it delivered 9 of 32 on this kernel
 * (6.18): a completion that lands while a CPU idles is lost, with no
 * LOST or THROTTLE record to say so.  The ftrace ring buffer keeps them,
 * and says what it lost in its per-CPU stats (overrun, dropped events).
 *
 * The instance, "faultline-PID", is made at open and removed at
 * release, on every path that reaches it (the end, an error, a SIGINT,
 * which the recorder reads from a signalfd).  A faultline killed outright
 * leaves its instance behind: the next open finds every "faultline-PID"
 * whose PID is no running faultline, removes it, and says so.  Only the
 * block events are enabled in it, its trace clock is "mono", so its
 * timestamps are CLOCK_MONOTONIC like every record's (open checks it: a
 * marker written between two monotonic reads must come back stamped
 * between them), and its buffer is BLOCK_TRACE_BUFFER_KB a CPU.
 *
 * The reading: a sampler thread (collector/sampler_thread.h) wakes every
 * BLOCK_TRACE_INTERVAL_NS and reads each CPU's trace_pipe_raw until it
 * is empty (tracefs_cpu_read, pages parsed with libtraceevent's kbuffer),
 * queueing each event's raw bytes as a reading; the pass ends with a
 * BLOCK_READ_UNTIL reading: every event stamped before its time has been
 * read.  The pipeline orders the events with the rest of the stream and
 * lets nothing out of its order queue past that time (record/block_io.h).
 *
 * Usage:
 *	block_trace_init(&bt);
 *	block_trace_open(&bt, cpus, ncpus, kb, &note, &e);	instance, on
 *	block_trace_start(&bt, &e);		the reading thread
 *	block_trace_take(&bt, fn, ctx);		what it read (repeat)
 *	block_trace_stop(&bt);			off, joined, the rest read
 *	block_trace_take(&bt, fn, ctx);		the rest
 *	block_trace_losses(&bt, fn, ctx);	the per-CPU stats
 *	block_trace_release(&bt);		the instance removed
 */
#ifndef FL_BLOCK_TRACE_H
#define FL_BLOCK_TRACE_H

#include <stddef.h>
#include <stdint.h>

#include "../common/errmsg.h"
#include "sampler_thread.h"

/* Per CPU: 2 MiB holds about 25,000 block events (80 bytes each), a
 * quarter of a second at 100,000 requests a second, 2.5 passes of the
 * reader. */
#define BLOCK_TRACE_BUFFER_KB 2048
/* How often the reader empties the buffers; the pipeline holds its
 * order queue about this much longer than without --block-io. */
#define BLOCK_TRACE_INTERVAL_NS (100ull * 1000 * 1000)
/* The raw bytes kept of an event: block_rq_*'s fixed fields end at 64
 * on 6.18; the rest (the cmd string) is cut off. */
#define BLOCK_RAW_MAX 96

enum block_reading_kind {
	BLOCK_READ_EVENT,	/* raw[0..size): one event of cpu */
	BLOCK_READ_UNTIL,	/* every event stamped before mono_ns is read */
};

struct block_reading {
	uint64_t mono_ns;	/* CLOCK_MONOTONIC: the event's stamp, or
				 * BLOCK_READ_UNTIL's (UINT64_MAX: all) */
	uint32_t cpu;
	uint16_t kind;		/* enum block_reading_kind */
	uint16_t size;		/* bytes of raw used */
	unsigned char raw[BLOCK_RAW_MAX];
};

struct tracefs_instance;
struct tracefs_cpu;
struct kbuffer;

struct block_trace {
	struct tracefs_instance *inst;	/* owned; NULL: none made */
	int *cpus;			/* owned copy: the CPUs read */
	struct tracefs_cpu **tcpu;	/* owned: one reader per CPU */
	int ncpus;
	void *page;			/* owned: one sub-buffer */
	int page_size;
	struct kbuffer *kbuf;		/* owned */
	struct sampler_thread thread;	/* owned */
	struct sampler_batch last;	/* owned: read after the thread stopped */
	int stopped;			/* block_trace_stop ran */
	uint64_t read;			/* events read: the thread's, then stop's */
	uint64_t taken;			/* events handed to take's fn */
	uint64_t dropped_readings;	/* queued readings the taker fell
					 * too far behind for */
};

void block_trace_init(struct block_trace *bt);

/*
 * Removes stale instances (note says which, or stays empty), makes this
 * process's, sets its clock, buffer and events (block_rq_insert,
 * block_rq_issue, block_rq_complete, block_rq_requeue), checks the clock and turns tracing
 * on.  cpus
 * (ncpus of them, online) are copied.  0 or -errno with e naming the
 * cause and the fix (tracefs not mounted or not writable: root).
 */
int block_trace_open(struct block_trace *bt, const int *cpus, int ncpus,
		     unsigned buffer_kb, struct errmsg *note, struct errmsg *e);

/* Starts the reading thread.  0 or -errno with e. */
int block_trace_start(struct block_trace *bt, struct errmsg *e);

/* Turns tracing off, stops the thread and reads what is left.  Once. */
void block_trace_stop(struct block_trace *bt);

/* Hands each reading queued since the last take to fn, in the order
 * read; after block_trace_stop, the rest too.  r is borrowed for the
 * call.  0, fn's first negative return, or the reading thread's -errno
 * once it failed. */
int block_trace_take(struct block_trace *bt,
		     int (*fn)(void *ctx, const struct block_reading *r),
		     void *ctx);

/* Events the reading thread read and could not queue so far (the taker
 * was that far behind); readable while it runs. */
uint64_t block_trace_queue_dropped(struct block_trace *bt);

/* After stop: each CPU's overrun and dropped counts (fn is called for
 * every CPU with a loss).  0, fn's negative return, or -errno when a
 * stats file cannot be read. */
int block_trace_losses(struct block_trace *bt,
		       int (*fn)(void *ctx, int cpu, uint64_t overrun,
				 uint64_t dropped),
		       void *ctx);

/* The name of the disk of dev (the kernel's dev_t: major << 20 | minor),
 * "vda", from /sys/dev/block; "" when it cannot be read. */
void block_disk_name(uint32_t dev, char *out, size_t n);

/* Closes the readers and removes the instance, if made. */
void block_trace_release(struct block_trace *bt);

#endif
