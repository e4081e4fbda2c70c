/*
 * reader: how the commands that read a recording open it.  A session
 * whose recorder was killed (schema/killed.h) is said on stderr, once
 * per session, before anything is read from it, and marked 'killed'
 * where the file is writable and no other faultline writes it; a
 * finished file is opened as db_open_read opens it, writing nothing.
 */
#ifndef FL_READER_H
#define FL_READER_H

#include <sqlite3.h>
#include <stddef.h>
#include <stdint.h>

#include "../common/errmsg.h"

/* db_open_read's contract; cmd names the command in the notes. */
int reader_open(const char *cmd, const char *path, sqlite3 **db,
		struct errmsg *e);

/* The schema faultline export --to fills when none is named. */
#define READER_PG_SCHEMA "faultline"

/* The --schema NAME entry of a reader's option table; where: a
 * const char ** set to the name (borrowed from argv). */
#define READER_SCHEMA_OPT(where) \
	{ 0, "schema", "NAME", "with a postgresql:// DB: the schema faultline " \
	  "export --to loaded (default " READER_PG_SCHEMA ")", OPT_STRING, (where), NULL }

/*
 * Checks --schema (NULL: not given) against target: it names a schema of
 * a PostgreSQL database only.  0, or EXIT_USAGE with the message printed
 * as cmd's.
 */
int reader_check_schema(const char *cmd, const char *target, const char *schema);

/*
 * What a reader of one session opens.  A file: reader_open, *session
 * left for the command's session_pick.  A PostgreSQL results database (a
 * postgresql:// URL; schema NULL: READER_PG_SCHEMA): one session copied
 * out of it into a new temporary database (export/pg_stage.h), which
 * the command then reads as it reads a file holding that session alone;
 * the session is *session when not 0, else the latest one, or with
 * recorded the latest that recorded something, and *session is set to
 * it.  query_sql, when not NULL, copies only the tables it reads.  *db
 * is closed with db_close either way.  0, or a negative errno with e set.
 */
int reader_open_session(const char *cmd, const char *target, const char *schema,
			int64_t *session, int recorded, const char *query_sql,
			sqlite3 **db, struct errmsg *e);

/*
 * What a reader of many sessions (runs, compare) opens.  A file:
 * reader_open.  A PostgreSQL results database: a new temporary database
 * (export/pg_stage.h) that first holds every session's row of the
 * session table; pick, given it, chooses the sessions the command reads
 * (by the command's own query, as on a file: *ids, owned, n of them);
 * those sessions' rows of tables (a NULL-ended list, borrowed; NULL:
 * every table) are then copied in, in one snapshot, and the command
 * reads it as it reads a file holding them (ids are PostgreSQL's).  When pick chooses none, the database keeps
 * the session rows only, so the command's own message says so.  *db is
 * closed with db_close either way.  0, or a negative errno with e set.
 */
typedef int (*reader_pick_fn)(sqlite3 *db, void *arg, int64_t **ids, size_t *n,
			      struct errmsg *e);
int reader_open_sessions(const char *cmd, const char *target, const char *schema,
			 reader_pick_fn pick, void *arg, const char *const *tables,
			 sqlite3 **db, struct errmsg *e);

#endif
