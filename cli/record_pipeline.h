/*
 * record_pipeline: the record command's wiring from raw ring records to
 * rows.  It is the recorder's sink:
 *
 *   ring bytes -> perf_rec_decode -> ev_from_rec -> order_queue
 *     -> (watermark) fault_stream -> loader_fault / loader_thread
 *   MMAP2 -> loader_mapping;  LOST, LOST_SAMPLES, THROTTLE -> loader_lost
 *   --stacks: a sample's callchain, or its stack copy unwound (dwarf:
 *     held_records first), -> stack_table -> the event's stack_id; a
 *     stack's rows (loader_stack, loader_frame) when a row first names it
 *
 * Glue only: decoding is decoder/'s, writing is schema/'s.
 */
#ifndef FL_RECORD_PIPELINE_H
#define FL_RECORD_PIPELINE_H

#include <stdint.h>

#include "../collector/recorder.h"
#include "../collector/targets.h"
#include "../decoder/fault_stream.h"
#include "../decoder/held_records.h"
#include "../decoder/order.h"
#include "../decoder/stack_table.h"
#include "../decoder/tracepoint.h"
#include "../decoder/unwind.h"
#include "../schema/loader.h"
#include "record_udp.h"

struct pipeline_counts {
	uint64_t records;		/* ring records seen */
	uint64_t lost_records;		/* PERF_RECORD_LOST totals */
	uint64_t lost_samples;		/* PERF_RECORD_LOST_SAMPLES totals */
	uint64_t throttles;		/* PERF_RECORD_THROTTLE records */
	uint64_t malformed;		/* records that did not decode */
	uint64_t unknown;		/* record types not handled */
	uint64_t mappings;		/* mapping rows */
	uint64_t tracepoints;		/* tracepoint_event rows */
	uint64_t stacks;		/* samples that carried a stack */
	uint64_t stacks_truncated;	/* of those, ended before the outermost frame */
};

struct record_pipeline {
	const struct sample_fmt *fmt;	/* borrowed: the recorder's */
	struct sample_fmt tp_fmt;	/* what tracepoint samples carry */
	struct sched_fields sched;	/* sched_switch / sched_waking fields */
	int have_sched;
	const struct recorder *rec;	/* borrowed: -e events, in order */
	const struct idmap *ids;	/* borrowed: the recorder's */
	const struct target_set *targets;	/* borrowed */
	/* -a or --comm: events see every thread, rows are kept for target
	 * threads only; but mappings are kept for every process, since a
	 * process may gain a matching thread after it mapped its files. */
	int system_wide;
	/* --stacks: samples whose id has idmap arg 1 decode with this. */
	const struct sample_fmt *stack_fmt;	/* borrowed: the recorder's */
	struct stack_config stacks;
	struct stack_table stack_tab;	/* owned: stacks deduplicated */
	struct unwinder unwinder;	/* owned: --stacks=dwarf */
	struct held_records held;	/* owned: --stacks=dwarf, to the round's end */
	struct order_queue order;	/* owned */
	struct fault_stream faults;	/* owned */
	struct loader *loader;		/* borrowed: begun by the command */
	struct record_udp *udp;		/* borrowed: --udp-port, or NULL */
	struct pipeline_counts n;
	struct errmsg err;		/* the first failure */
	/* CLOCK_REALTIME - CLOCK_MONOTONIC, from an anchor pair read at each
	 * drain round: converts the tracepoint rings' timestamps. */
	int64_t mono_to_real_ns;
	/* Live status, when stderr is a terminal. */
	int live;
	uint64_t start_mono;
};

void record_pipeline_init(struct record_pipeline *p, const struct recorder *r,
			  const struct target_set *t, struct loader *l,
			  uint64_t min_fault_dur_ns, int live);
void record_pipeline_release(struct record_pipeline *p);

/* The recorder_sink that feeds this pipeline. */
struct recorder_sink record_pipeline_sink(struct record_pipeline *p);

/* Mappings that existed before recording began, from /proc/PID/maps of
 * the -p processes (every process with -a or --comm).  0 or -errno with
 * p->err. */
int record_pipeline_synthesize(struct record_pipeline *p, uint64_t ts);

/* After the recorder stopped: pending faults, thread rows, histograms. */
int record_pipeline_finish(struct record_pipeline *p);

/* The counts for the session row. */
void record_pipeline_counts(const struct record_pipeline *p,
			    const struct recorder *r, struct session_counts *c);

#endif
