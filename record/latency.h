/*
 * latency: the record engine's part of --latency START/END[:FIELD].  A
 * START or END sample becomes an event of the ordered stream with its
 * key (the thread, or FIELD's value); the stream hands back those of
 * target threads, and every one of a pair keyed by a field
 * (decoder/fault_stream.h latency_hit); they are paired here
 * (decoder/latency_pair.h) into latency rows, the START's time as ts
 * (CLOCK_REALTIME through the session's anchors, as every row), END
 * less START as dur, both CLOCK_MONOTONIC inside.
 */
#ifndef FL_RECORD_LATENCY_H
#define FL_RECORD_LATENCY_H

#include <event-parse.h>

#include "../common/strbuf.h"
#include "../decoder/event.h"
#include "../decoder/latency_pair.h"
#include "../schema/loader.h"

struct record_latency {
	const struct lat_spec_list *specs;	/* borrowed; NULL: none */
	struct tep_event *const *events;	/* borrowed: the recorder's
						 * lat_events */
	struct lat_pending *pending;		/* owned: one a pair */
	struct strbuf json;			/* owned: scratch */
};

/* specs NULL or empty: off.  0 or -ENOMEM. */
int record_latency_init(struct record_latency *rl,
			const struct lat_spec_list *specs,
			struct tep_event *const *events);
void record_latency_release(struct record_latency *rl);

/* A START (role ROLE_TP_LAT_START) or END sample of pair idx, seen on
 * cpu, to its event: 1 with *out (an END's fields malloc'd: the order
 * queue's once pushed), 0 when its raw data is too short for the key
 * or its fields (malformed), -ENOMEM. */
int record_latency_ev(struct record_latency *rl, int end, uint16_t idx,
		      int cpu, const struct sample *s, struct ev *out);

/* An event the stream handed back: paired, or stored unfinished when
 * it displaced a START, or counted.  0 or -errno with e. */
int record_latency_hit(struct record_latency *rl, struct loader *l,
		       const struct ev *e, struct errmsg *err);

/* The end of the recording: each pending START stored unfinished, then
 * each pair's counts.  0 or -errno with e. */
int record_latency_finish(struct record_latency *rl, struct loader *l,
			  struct errmsg *e);

#endif
