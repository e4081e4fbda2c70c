/*
 * pg_session: one session of a SQLite file into PostgreSQL, in one
 * transaction: all of it or none of it.  A session is known by its uuid:
 * one already there is skipped, so an export can be run again.
 */
#ifndef FL_PG_SESSION_H
#define FL_PG_SESSION_H

#include "pq_lib.h"
#include <sqlite3.h>
#include <stdint.h>

#include "../common/errmsg.h"
#include "pg_copy.h"
#include "pg_schema.h"

struct pg_session_done {
	int64_t id;		/* the file's id of the session */
	int64_t pg_id;		/* PostgreSQL's; of the copy already there
				 * when skipped */
	char uuid[64];
	int skipped;		/* it was there: nothing was written */
	int finished;		/* committed, or skipped (pg_export_run) */
	uint64_t rows;		/* rows copied */
};

/*
 * Copies session id of db (path names it in messages; t its tables) into
 * the tables on c, whose search_path is the export's schema.  The file is
 * read in one read transaction, so every table shows the same moment.
 * 0 (d says what was done), or a negative errno with e set and nothing
 * of the session committed.
 */
int pg_session_export(sqlite3 *db, const char *path, PGconn *c,
		      const struct pg_tables *t, int64_t id,
		      struct pg_progress *p, struct pg_session_done *d,
		      struct errmsg *e);

#endif
