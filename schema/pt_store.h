/*
 * pt_store: writes a session's Intel PT rows: the clock parameters
 * (pt_clock, pt_calibration), the vDSO image (pt_vdso), the raw traces
 * (pt_trace), and what decoding them found (pt_call, pt_gap).
 *
 * While recording, only raw traces, sideband gaps and the clock go in
 * (cheap: the draining path never waits on a decode); the decode runs
 * after the recording stops, or later with faultline pt --decode
 * (pt_replay.h), from what is stored.
 *
 * Every ts is made here from a CLOCK_MONOTONIC time through the
 * session's clock map (decoder/clock_map.h), as the loader makes every
 * other row's.  pt_store writes inside the
 * connection's open transaction when there is one (the loader's), and
 * otherwise in its own, which it commits: it never commits a transaction
 * it did not open.
 */
#ifndef FL_PT_STORE_H
#define FL_PT_STORE_H

#include <stdint.h>
#include <sqlite3.h>

#include "../common/clock.h"
#include "../decoder/clock_map.h"
#include "../common/errmsg.h"
#include "../decoder/pt_flow.h"
#include "../decoder/pt_time.h"
#include "../decoder/pt_trace.h"

struct pt_store {
	sqlite3 *db;		/* borrowed */
	const char *path;	/* borrowed: for messages */
	int64_t session_id;
	struct clock_map *map;	/* borrowed: the recording's, or own_map */
	struct clock_map own_map;	/* owned: anchors read back from the table */
	sqlite3_stmt *trace, *call, *gap;	/* owned */
	int64_t next_trace_id;
	int own_txn;		/* pt_store opened the open transaction */
	uint64_t txn_rows;
	uint64_t traces, calls, gaps;	/* rows written */
};

/* Prepares the statements.  Times become ts through map, the live
 * recording's clock map (borrowed), or with map NULL through the
 * session's clock_anchor rows, read now.  0 or -errno with e. */
int pt_store_begin(struct pt_store *s, sqlite3 *db, const char *path,
		   int64_t session_id, struct clock_map *map, struct errmsg *e);

/* The pt_clock row and the calibration pairs (again at the end: the
 * pairs taken since are added, the row replaced).  info borrowed. */
int pt_store_clock(struct pt_store *s, const struct pt_session_info *info,
		   const struct pt_clock *c, struct errmsg *e);

int pt_store_vdso(struct pt_store *s, const void *image, size_t len,
		  struct errmsg *e);

/* A raw trace; its id into *trace_id.  t borrowed. */
int pt_store_trace(struct pt_store *s, const struct pt_trace *t,
		   int64_t *trace_id, struct errmsg *e);

/*
 * The rows and gaps of a decode of trace_id (tid's), numbered from
 * seq_base (a decode handed on in batches continues the numbers).
 * name(ctx, addr) names a function (NULL: unnamed; the string borrowed
 * until the next call), or name is NULL.
 */
int pt_store_flow(struct pt_store *s, int64_t trace_id, uint32_t tid,
		  size_t seq_base, const struct pt_flow_out *o,
		  const char *(*name)(void *ctx, uint64_t addr), void *ctx,
		  struct errmsg *e);

/* Adds delta to the depth of every pt_call row of trace_id: a decode
 * handed on in batches learns its shallowest depth at the end. */
int pt_store_shift_depth(struct pt_store *s, int64_t trace_id, int32_t delta,
			 struct errmsg *e);

/* A gap of no one stored trace (trace_id 0): an AUX record's flags, a
 * snapshot's pause.  tid / cpu < 0: unknown. */
int pt_store_gap(struct pt_store *s, int64_t trace_id, int64_t tid, int cpu,
		 const struct pt_gap *g, struct errmsg *e);

/*
 * After the session's faults are stored: each fault-mode trace gets the
 * entry ts of the major fault whose completion carried it (fault_ts):
 * the fault of its thread that ended within 10 us of the trace's ts (both
 * come from the one sample's time; the loader and pt_store convert it
 * with anchors read apart).  0 or -errno with e.
 */
int pt_store_link_faults(struct pt_store *s, struct errmsg *e);

/* Commits the transaction pt_store opened, if any. */
int pt_store_commit(struct pt_store *s, struct errmsg *e);

/* Finalizes the statements (commits nothing). */
void pt_store_release(struct pt_store *s);

#endif
