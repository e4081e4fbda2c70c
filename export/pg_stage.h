/*
 * pg_stage: one session of a PostgreSQL results database (the tables
 * faultline export --to filled) copied back into a SQLite database with
 * faultline's schema (schema/schema.sql, its views, indexes.sql), so
 * the readers (report, diagnose, stacks, plot, export, the canned
 * queries that read one session) run unchanged on it and give the same
 * answers as on the file the session came from, by construction.
 *
 * Only the session's rows travel: each table's rows of that session_id
 * (metric: of the session's series), in the order they were exported
 * (ctid), streamed with COPY ... TO STDOUT, a row at a time.  What the
 * export changed is undone: an imported series, which the export gave
 * to the session it was exported with, is an import again (session_id
 * NULL), as in the file.  JSON columns come back in PostgreSQL's jsonb
 * form, written compact as SQLite writes JSON: the keys in jsonb's order,
 * which may not be the file's.  Session and series ids are PostgreSQL's.
 * The readers of many sessions (runs, compare) take several at once
 * (pg_stage_sessions), as a file merged from theirs holds them.
 */
#ifndef FL_PG_STAGE_H
#define FL_PG_STAGE_H

#include "pq_lib.h"
#include <sqlite3.h>
#include <stddef.h>
#include <stdint.h>

#include "../common/errmsg.h"

/*
 * A new temporary SQLite database (in SQLite's temporary directory,
 * deleted when closed) with faultline's schema and views, no rows, into
 * *out (the caller closes it with sqlite3_close).  0, or
 * -ENOMEM / -EIO with e set.
 */
int pg_stage_open(sqlite3 **out, struct errmsg *e);

/*
 * The session to stage, in the schema c's search_path names: *id when
 * it is not 0 (checked to be there), else the latest session, or with
 * recorded the latest that recorded something (a fault, a histogram, a
 * thread state or a tracepoint hit; the latest of all when none did), as
 * session_pick and session_pick_recorded pick in a file.  where names
 * the database in messages.  0, -ENOENT with e saying what is there, or
 * -EIO.
 */
int pg_stage_pick(PGconn *c, const char *where, int recorded, int64_t *id,
		  struct errmsg *e);

/*
 * Copies session id's rows from c (search_path: the export's schema)
 * into db (from pg_stage_open), in one transaction of db's, then builds
 * the indexes.  tables: a NULL-ended list of the tables to copy (a
 * query's, pg_stage_tables_read); NULL copies every table.  A table or
 * column an older export lacks stays empty (NULL).  0, or a negative
 * errno with e set.
 */
int pg_stage_session(PGconn *c, int64_t id, const char *const *tables,
		     sqlite3 *db, struct errmsg *e);

/*
 * pg_stage_session for several sessions at once: ids (n of them,
 * borrowed; NULL: every session) into db, each table in one COPY.  An
 * imported series stays with the session it was exported with, as in
 * PostgreSQL (each session holds its own copy, with its points in the
 * session's span), so a reader that takes a session's imports by
 * session_id or by time counts each once.  Called again on the same db,
 * it adds rows: a session staged twice is refused by its primary key.
 */
int pg_stage_sessions(PGconn *c, const int64_t *ids, size_t n,
		      const char *const *tables, sqlite3 *db, struct errmsg *e);

/*
 * The tables sql reads on db (through its views too), as SQLite's
 * authorizer reports them while preparing it: a NULL-ended array into
 * *out, owned by the caller (pg_stage_tables_free).  0, or -ENOMEM, or
 * -EINVAL with e holding SQLite's message (sql does not prepare).
 */
int pg_stage_tables_read(sqlite3 *db, const char *sql, char ***out,
			 struct errmsg *e);
void pg_stage_tables_free(char **tables);

#endif
