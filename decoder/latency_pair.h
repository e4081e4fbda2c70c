/*
 * latency_pair: record --latency START/END[:FIELD], the entry/exit
 * pairing of faults and system calls for any two tracepoints the user
 * names.
 *
 * The pairing rule: in time order, an END belongs to the latest START
 * of the same key.  The key is the thread (both events fire in it: a
 * call's entry and exit) or, with FIELD, the value of a field both
 * events carry (block_rq_issue and block_rq_complete's sector: the
 * completion runs in whatever an interrupt hit, not the issuer).  What
 * breaks the rule, and what becomes of it:
 *   - a START while one of its key is pending: the first END was lost or
 *     never came; the first is handed out unfinished (no duration).
 *   - an END with no START of its key pending (the recording began
 *     inside it, or the START was lost): counted, not stored, as nothing
 *     says when it began.
 *   - a START pending at the end of the recording: unfinished.
 * Pure: no I/O; the caller stores what it hands out.
 */
#ifndef FL_LATENCY_PAIR_H
#define FL_LATENCY_PAIR_H

#include <stddef.h>
#include <stdint.h>

#include "../common/errmsg.h"
#include "tracepoint.h"

/* One --latency, as given. */
struct lat_spec {
	char *name;	/* owned: "START/END[:FIELD]" as given */
	char *key;	/* owned: FIELD; NULL: keyed by the thread */
};

/* The --latency pairs, in the order given; their tracepoints in tps,
 * pair i's START at 2i and its END at 2i + 1. */
struct lat_spec_list {
	struct lat_spec *v;		/* owned */
	size_t n, cap;
	struct tp_spec_list tps;	/* owned */
};

void lat_spec_list_init(struct lat_spec_list *l);
void lat_spec_list_release(struct lat_spec_list *l);

/* Parses "SUBSYS:NAME/SUBSYS:NAME[:FIELD]" and appends it to l.  0,
 * -EINVAL with e quoting opt and arg, or -ENOMEM. */
int lat_spec_add(struct lat_spec_list *l, const char *arg, const char *opt,
		 struct errmsg *e);

#define LAT_NO_DUR UINT64_MAX

/* A START, pending or handed out. */
struct lat_start {
	uint64_t key;
	uint64_t mono_ts;	/* CLOCK_MONOTONIC ns */
	uint32_t tid, pid, cpu;
};

/* Pending STARTs of one pair.  Found by a linear search: they are few
 * (one a thread; a device's queue depth, a few hundred at most). */
struct lat_pending {
	struct lat_start *v;	/* owned */
	size_t n, cap;
	uint64_t paired, unfinished, unmatched_ends;
};

void lat_pending_init(struct lat_pending *p);
void lat_pending_release(struct lat_pending *p);

/* A START s.  1 with *orphan (unfinished) when one of its key was
 * pending, else 0; -ENOMEM. */
int lat_pair_start(struct lat_pending *p, const struct lat_start *s,
		   struct lat_start *orphan);

/* An END of key at mono_ts: 1 with *start and *dur_ns when it matched,
 * 0 when no START of that key was pending (counted). */
int lat_pair_end(struct lat_pending *p, uint64_t key, uint64_t mono_ts,
		 struct lat_start *start, uint64_t *dur_ns);

/* Takes one pending START as unfinished (the end of the recording):
 * 1 with *out, 0 when none is left. */
int lat_pair_drain(struct lat_pending *p, struct lat_start *out);

#endif
