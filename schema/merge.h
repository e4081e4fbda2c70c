/*
 * merge: folds the sessions of one faultline database into another, set
 * by set (ATTACH, then one INSERT ... SELECT per table: no row passes
 * through C), in one transaction per input file.
 *
 * Ids are remapped so nothing collides:
 *   - session_id: each session taken gets the next free id of the
 *     output, in the input's order; every table that carries a
 *     session_id has it rewritten through that map;
 *   - series_id (metric_series, metric): the same, the next free ids;
 *   - the ids scoped by a session (stack_id, frame_id, trace_id) are
 *     unique only with their session_id, so they are kept as they are;
 *   - a fault's rowid (faultline pt --fault N) is not kept: the rows are
 *     appended, in their order, after the output's.
 *
 * A session whose uuid the output already holds is skipped (the caller
 * is told, through on_skip), with every row of it; a metric series of no
 * session (faultline import) is skipped when the output holds one of no
 * session with the same name, labels, unit, source (which names the
 * imported file's sha256) and import time.  So a second merge of the
 * same file adds nothing.
 */
#ifndef FL_MERGE_H
#define FL_MERGE_H

#include <stddef.h>
#include <stdint.h>
#include <sqlite3.h>

#include "../common/errmsg.h"

/* How a table's rows find their ids in the output. */
enum merge_ids {
	MERGE_BY_SESSION,	/* session_id through the session map */
	MERGE_SERIES,		/* metric_series: its own series_id through the
				 * series map, session_id (or NULL) through the
				 * session map */
	MERGE_BY_SERIES,	/* series_id through the series map */
};

struct merge_table {
	const char *name;
	enum merge_ids ids;
};

/* The tables merge copies, in the order it copies them: every table of
 * schema.sql.  merge_file refuses to run when the output holds a table
 * this list leaves out (a new table must say how its ids are remapped). */
extern const struct merge_table merge_tables[];
extern const size_t merge_ntables;

struct merge_counts {
	int64_t sessions;	/* sessions taken */
	int64_t skipped;	/* sessions already in the output */
	int64_t series;		/* metric series taken */
	int64_t rows;		/* rows inserted, every table */
};

/*
 * Called once for each session skipped: its id in the input and its
 * uuid (borrowed for the call).
 */
typedef void merge_skip_fn(void *ctx, int64_t in_session, const char *uuid);

/*
 * Prepares out (from db_open_write, no transaction open) for merging:
 * a rollback journal instead of WAL, as one large transaction appended
 * through a WAL would be written twice; db_end_write leaves it that way.
 * 0 or a negative errno with e set.
 */
int merge_begin(sqlite3 *out, const char *out_path, struct errmsg *e);

/*
 * Is in_path a faultline database this faultline reads (db_open_read's
 * refusals: not faultline's, newer, older with the command that upgrades
 * it), and not out_path under another name?  0 or a negative errno with
 * e set.  merge_file checks it again; a caller checks every input first
 * to refuse a bad list before merging any of it.
 */
int merge_check_input(const char *out_path, const char *in_path,
		      struct errmsg *e);

/*
 * Merges in_path into out in one transaction: all of its new sessions
 * or, on any failure, none of them.  in_path is first checked to be a
 * faultline database of this schema version (db_open_read's refusals:
 * not faultline's, newer, older with the command that upgrades it) and
 * not out itself.  c is added to.  0, or a negative errno with e set
 * (-ENOSPC: out's disk is full; out keeps what earlier calls merged).
 */
int merge_file(sqlite3 *out, const char *out_path, const char *in_path,
	       merge_skip_fn *on_skip, void *ctx, struct merge_counts *c,
	       struct errmsg *e);

#endif
