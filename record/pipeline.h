/*
 * pipeline: the record engine's path from raw ring records to rows, on
 * a thread of its own: it takes the spool's entries (collector/spool.h)
 * in the order the drain thread put them in, at its own pace.
 *
 *   ring bytes -> perf_rec_decode -> ev_from_rec -> order_queue
 *     -> (watermark) fault_stream -> loader_fault / loader_state / loader_thread
 *   MMAP2 -> loader_mapping;  LOST, LOST_SAMPLES, THROTTLE -> loader_lost
 *   -e tracepoint samples -> their fields as JSON -> loader_tracepoint
 *   --stacks: a sample's stack -> record/stacks.h -> the event's stack_id
 *     (dwarf: mappings, execs and stacked samples held to the end of the
 *     drain round and replayed in time order first: decoder/held_records.h)
 *   SPOOL_ANCHOR: the session's clock map and clock_anchor (record/clock.h)
 *   SPOOL_ROUND: events up to its watermark leave the order queue; the
 *     socket sampler's readings (record/udp.h); --block-io's events,
 *     read from tracefs on a thread of their own, join the queue first,
 *     and the watermark waits for that reader (record/block_io.h)
 *   SPOOL_LOST: records the spool had no room for -> loader_lost 'spool'
 *   SPOOL_ROUND, LOADER_COMMIT_NS after the last commit: the session row's
 *     alive_ts and stored_until_ts, and a commit (what a SIGKILL loses)
 *   every RECORD_TICK_NS: live threads' rows, a commit, the status callback
 *
 * Every time in here is CLOCK_MONOTONIC; the loader makes the stored ts.
 * Decoding is decoder/'s, writing is schema/'s; this file wires them.
 */
#ifndef FL_RECORD_PIPELINE_H
#define FL_RECORD_PIPELINE_H

#include <stdint.h>

#include "../collector/pt_record.h"
#include "../collector/recorder.h"
#include "../collector/spool.h"
#include "../collector/targets.h"
#include "../common/strbuf.h"
#include "../decoder/fault_stream.h"
#include "../decoder/held_records.h"
#include "../decoder/order.h"
#include "../decoder/syscall_ev.h"
#include "../decoder/tracepoint.h"
#include "../schema/loader.h"
#include "block_io.h"
#include "clock.h"
#include "latency.h"
#include "stacks.h"
#include "syscalls.h"
#include "thread_names.h"
#include "udp.h"
#include "cgroup.h"

/* How often the pipeline commits and calls the status callback. */
#define RECORD_TICK_NS (1000ull * 1000 * 1000)

struct pipeline_counts {
	uint64_t records;		/* ring records seen */
	uint64_t dropped;		/* records the spool had no room for */
	uint64_t framing_errors;	/* spool entries cut short by bad framing */
	uint64_t lost_records;		/* PERF_RECORD_LOST totals */
	uint64_t lost_samples;		/* PERF_RECORD_LOST_SAMPLES totals */
	uint64_t throttles;		/* PERF_RECORD_THROTTLE records */
	uint64_t malformed;		/* records that did not decode */
	uint64_t unknown;		/* record types not handled */
	uint64_t by_read_id;		/* samples that carried another
					 * session's id (decoder/sample_owner.h) */
	uint64_t foreign;		/* samples of no event of ours: counted
					 * in unknown too */
	uint64_t time_reversed;		/* fault samples behind the one before
					 * in their ring (check_ring_time) */
	uint64_t mappings;		/* mapping rows */
	uint64_t tracepoints;		/* tracepoint_event rows */
	uint64_t unstored;		/* records read after storing failed */
};

struct record_pipeline;

/* Called every tick while recording, for a live status line. */
typedef void (*pipeline_status_fn)(void *ctx, const struct record_pipeline *p);

struct record_pipeline {
	const struct sample_fmt *fmt;	/* borrowed: the recorder's */
	struct sample_layout fault_layout;	/* fmt's: on_fixed_rec */
	struct sample_fmt tp_fmt;	/* what tracepoint samples carry */
	struct sample_fmt waking_fmt;	/* sched_waking's: with its callchain */
	/* tp_fmt's and waking_fmt's: on_tracepoint reads in place */
	struct sample_layout tp_layout, waking_layout;
	struct sched_fields sched;	/* sched_switch / sched_waking fields */
	int have_sched;
	struct syscall_fields sys_fields;	/* raw_syscalls' (--syscalls) */
	int have_sys;
	struct record_syscalls sys;	/* owned: --syscalls' rows */
	struct record_latency lat;	/* owned: --latency's pairs */
	struct record_block_io blk;	/* owned: --block-io's requests */
	const struct recorder *rec;	/* borrowed: -e events, in order */
	const struct idmap *ids;	/* borrowed: the recorder's */
	/* borrowed: the recorder's, extended by this thread (it adds
	 * to ids) as target threads are born; unused with -a. */
	struct waking_filter *waking;
	const struct target_set *targets;	/* borrowed */
	struct thread_names names;	/* owned: the targets' at the start */
	/* -a or --comm: events see every thread, rows are kept for target
	 * threads only; but mappings are kept for every process, since a
	 * process may gain a matching thread after it mapped its files. */
	int system_wide;
	/* The flight recorder's watch (record/flight_watch.h): spans are
	 * checked, nothing is stored, so what only a stored row says is not
	 * decoded: what ran instead (every CPU's switch records, with
	 * per-thread targets) and the stacks of wake-ups. */
	int checks_only;
	struct record_stacks stacks;	/* owned: --stacks */
	struct held_records held;	/* owned: --stacks=dwarf, to the round's end */
	struct order_queue order;	/* owned */
	struct fault_stream faults;	/* owned */
	struct record_clock clock;	/* owned: the session's anchors */
	struct loader *loader;		/* borrowed: begun by the session */
	struct record_udp *udp;		/* borrowed: --udp-port, or NULL */
	struct record_cgroup *cgroup;	/* borrowed: --cgroup, or NULL */
	struct pt_recording *pt;	/* borrowed: --pt, or NULL (record/pt.h) */
	int pt_finished;		/* pt_record_finish ran */
	struct strbuf tp_json;		/* owned: a -e hit's fields */
	struct pipeline_counts n;
	struct errmsg err;		/* the first failure */
	pipeline_status_fn status;	/* or NULL */
	void *status_ctx;		/* borrowed */
	/* borrowed while record_pipeline_consume takes its entries, else
	 * NULL: what waits there, for the status line */
	const struct spool *spool;
	uint64_t next_tick;		/* CLOCK_MONOTONIC */
	uint64_t next_commit;		/* CLOCK_MONOTONIC: LOADER_COMMIT_NS on */
	uint64_t stored_until;		/* CLOCK_MONOTONIC: every event before
					 * it has left the order queue */
	uint64_t cpu_of_entry;		/* the CPU of the SPOOL_DATA being read */
	/* What the last SPOOL_DATA taken held, counted as it was decoded
	 * (record --flight keeps it with the entry in its history). */
	struct spool_kept last_data;
	/* The time of the last fault sample read from each CPU's ring
	 * (perf clock, CLOCK_MONOTONIC), for check_ring_time. */
#define RING_TIME_CPUS 1024
	uint64_t ring_sample_ts[RING_TIME_CPUS];
	/* A test hook, from FAULTLINE_TEST_PIPELINE_BYTES_PER_S: the
	 * engine takes SPOOL_DATA no faster than this, to fall behind the
	 * drain thread; 0: unset. */
	uint64_t test_bytes_per_s;
};

/* Sets up the pipeline for the recorder's events (r, opened) and targets;
 * no allocation.  r's sched_waking filter is extended from this thread
 * as targets start threads.  The loader is attached by record_pipeline_begin. */
/* 0, or -ENOMEM; release it either way. */
int record_pipeline_init(struct record_pipeline *p, struct recorder *r,
			 const struct target_set *t, uint64_t min_fault_dur_ns,
			 uint64_t min_syscall_dur_ns);
void record_pipeline_release(struct record_pipeline *p);

/* Takes the session's first clock anchor into *first (the session row
 * stores it), before loader_begin.  0 or -ENOMEM. */
int record_pipeline_clock_start(struct record_pipeline *p,
				struct clock_anchor *first);

/* Attaches the begun loader and writes the mappings that existed before
 * recording began, from /proc/PID/maps of the -p processes (every
 * process with -a or --comm).  0 or -errno with p->err. */
int record_pipeline_begin(struct record_pipeline *p, struct loader *l);

/*
 * Takes the spool's entries until SPOOL_END.  On a failure (p->err says
 * which) it sets *abort, which stops the drain thread, and goes on
 * taking entries without using them, so the drain thread can end.
 * 0 or the first failure's -errno.
 */
int record_pipeline_consume(struct record_pipeline *p, struct spool *sp,
			    int *abort);

/* One entry, as record_pipeline_consume takes it, from elsewhere than a
 * spool: record --flight replays what it kept (record/flight.h).  e is
 * borrowed for the call.  0 or -errno with p->err. */
int record_pipeline_take(struct record_pipeline *p, const struct spool_entry *e);

/* After SPOOL_END: pending faults, thread rows, histograms; *end gets the
 * last clock anchor (for the session row).  0 or -errno with p->err. */
int record_pipeline_finish(struct record_pipeline *p, struct clock_anchor *end);

/* The counts for the session row. */
void record_pipeline_counts(const struct record_pipeline *p,
			    const struct recorder *r, struct session_counts *c);

#endif
