/*
 * pg_export: sessions of a SQLite file into a PostgreSQL schema: the
 * tables made or upgraded (pg_schema), each session copied in its own
 * transaction (pg_session), then the indexes.  Prints nothing: the caller
 * reports from what it returns.
 */
#ifndef FL_PG_EXPORT_H
#define FL_PG_EXPORT_H

#include <sqlite3.h>
#include <stddef.h>
#include <stdint.h>

#include "../common/errmsg.h"
#include "pg_copy.h"
#include "pg_session.h"

struct pg_export {
	const char *target;	/* borrowed: URI or conninfo, for libpq */
	const char *schema;	/* borrowed */
	const int64_t *ids;	/* borrowed: the file's session ids */
	size_t nids;
	/* Connections at once: sessions loaded side by side (each in its
	 * own transaction on one of them), then the indexes built. */
	int jobs;
};

/*
 * Exports x->ids of db (path names it in messages), done[i] saying what
 * became of the i-th (done has x->nids entries, zeroed by the caller;
 * finished set for each session committed or skipped); *ndone counts
 * them.  With one connection (x->jobs 1, or one session) they go in
 * order and p shows the rows as they are copied; with more, several at
 * once, each connection reading the file on its own, and p gets the rows
 * when each session ends.  On a failure the sessions finished stay
 * committed, the failed one holds nothing, those not started are not
 * tried.  0, or a negative errno with e set (the first failure's).
 */
int pg_export_run(sqlite3 *db, const char *path, const struct pg_export *x,
		  struct pg_progress *p, struct pg_session_done *done,
		  size_t *ndone, struct errmsg *e);

#endif
