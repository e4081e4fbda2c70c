/*
 * session_info: what the readers of a finished recording (exports, plots)
 * need to know about its session before reading rows: its span on the
 * wall clock, its host and command, and whether it holds any events.
 */
#ifndef FL_SESSION_INFO_H
#define FL_SESSION_INFO_H

#include <sqlite3.h>
#include <stddef.h>
#include <stdint.h>

#include "../common/clock.h"
#include "../common/errmsg.h"

struct session_info {
	int64_t id;
	int64_t start_ts;	/* CLOCK_REALTIME ns: when recording began */
	/* CLOCK_REALTIME ns: when it ended; for a session that never ended
	 * (status 'recording' or 'failed' without an end), the last ts any
	 * of its threads was seen at, else start_ts. */
	int64_t end_ts;
	int ended;		/* end_ts is the session's own end_ts */
	char status[16];	/* complete, recording, failed */
	char *host;		/* owned (malloc) */
	char *command_line;	/* owned (malloc) */
	/* Whether the session's own tables (fault, thread_state,
	 * tracepoint_event) hold a row of it, and whether a metric it
	 * sampled, or an imported one, has a point in [start_ts, end_ts]. */
	int has_faults, has_states, has_events, has_metric_points;
};

/* Initialises s; nothing allocated. */
void session_info_init(struct session_info *s);

/*
 * Reads session id of db (path names it in messages) into s, which the
 * caller releases.  0, -ENOENT when there is no such session (e says
 * which there are), or another negative errno with e set.
 */
int session_info_read(sqlite3 *db, const char *path, int64_t id,
		      struct session_info *s, struct errmsg *e);

/* Does the session hold nothing to show: no fault, no thread state, no
 * tracepoint hit, no metric point in its span? */
int session_info_empty(const struct session_info *s);

/* Frees what s holds and initialises it again. */
void session_info_release(struct session_info *s);

/*
 * Whether to read table's rows of session id in the table's own order
 * (NOT INDEXED) rather than through its session_id index: when the
 * session holds half its rows or more (one session in the file, the
 * usual case), a scan reads little that is not wanted, in disk order,
 * where the index costs a b-tree search per row (chrome-trace, 10M
 * faults: 2 s against 6 s; export --to: the searches were 13% of its
 * own CPU).
 * The count walks the session's index entries only; max(rowid) is the
 * table's size when nothing was deleted.  0 also when it cannot tell (a
 * table without rowid).
 */
int session_scan_pays(sqlite3 *db, const char *table, int64_t id);

#endif
