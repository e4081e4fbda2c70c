/*
 * pt: the record engine's Intel PT (record --pt).  The kernel side is
 * collector/pt_record.h, the rows schema/pt_store.h and schema/pt_replay.h;
 * this file calls them at the session's steps:
 *
 *   record_pt_probe   before the database is opened: without Intel PT the
 *                     recording fails here, with the one message, and
 *                     nothing is written
 *   record_pt_begin   once the session row exists: where traces go (the
 *                     session's clock map makes their ts)
 *   (the pipeline)    each round, pt_record_round: the PT buffers are read
 *                     by the pipeline's thread, before it orders the
 *                     round's records, and the carriers' fault samples
 *                     join the ordered stream; pt_record_finish after the
 *                     last round
 *   record_pt_end     once the session is complete: faults linked to
 *                     their traces, every trace decoded
 *
 * Why the pipeline's thread: the PT buffers hold what only this code can
 * take apart (AUX areas, snapshot marks), and writing traces means SQLite,
 * which the drain thread never waits on.  Fault and stall modes write
 * little (a trace per major fault or stall); with --pt=full, a pipeline
 * that falls behind shows as TRUNCATED gaps, never as silence.
 */
#ifndef FL_RECORD_PT_H
#define FL_RECORD_PT_H

#include <sqlite3.h>
#include <stdint.h>

#include "../collector/pt_record.h"
#include "../common/strbuf.h"
#include "../decoder/clock_map.h"
#include "../schema/pt_replay.h"
#include "../schema/pt_store.h"

struct record_pt {
	struct pt_recording rec;	/* owned */
	struct pt_store store;		/* owned once begun */
	int store_begun;
	struct pt_rows rows;		/* rec's rows: into store */
	int decoded;			/* record_pt_end's decode ran and succeeded */
	struct pt_replay_stats st;	/* what it decoded */
	struct errmsg failed;		/* why it did not, if it failed */
};

void record_pt_init(struct record_pt *p);
void record_pt_release(struct record_pt *p);

/* The PMU, the config against its caps, the TSC conversion.  0, or
 * -errno with e: the message a user sees on a machine without PT. */
int record_pt_probe(struct record_pt *p, const struct pt_settings *s,
		    struct errmsg *e);

/* Once the session row exists: traces go to its tables, their ts made
 * through map (borrowed: the session's).  0 or -errno with e. */
int record_pt_begin(struct record_pt *p, sqlite3 *db, const char *path,
		    int64_t session_id, struct clock_map *map, struct errmsg *e);

/* After the session is complete: faults linked to their traces, every
 * trace decoded.  A failure is no failure of the recording: p->failed
 * says why, for a warning that names the fix (faultline pt --decode). */
void record_pt_end(struct record_pt *p, sqlite3 *db, const char *path,
		   int64_t session_id);

/* ,"pt":{...} for the session's options. */
void record_pt_json(struct strbuf *sb, const struct pt_settings *s);

#endif
