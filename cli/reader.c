#include <errno.h>
#include <stdlib.h>
#include <unistd.h>

#include "../export/pg_conn.h"
#include "../export/pg_schema.h"
#include "../export/pg_stage.h"
#include "../schema/db.h"
#include "../schema/killed.h"
#include "reader.h"
#include "usage.h"

int reader_open(const char *cmd, const char *path, sqlite3 **db,
		struct errmsg *e)
{
	struct killed_list k;
	struct errmsg ignored;
	char text[256];
	int err;

	if (pg_is_target(path))
		return errmsg_set(e, EINVAL, "'%s' is a PostgreSQL database; faultline "
				  "%s reads a database file here (report, diagnose, "
				  "stacks, plot, query and export --format read a "
				  "session of PostgreSQL)", pg_shown(path, text, sizeof(text)),
				  cmd);
	err = db_open_read(path, db, e);
	if (err < 0)
		return err;
	killed_list_init(&k);
	errmsg_init(&ignored);
	if (killed_find(*db, path, 0, &k, &ignored) < 0 || !k.n) {
		killed_list_release(&k);
		return 0;
	}
	for (size_t i = 0; i < k.n; i++) {
		killed_text(&k.v[i], text, sizeof(text));
		warning(cmd, "session %lld was %s", (long long)k.v[i].id, text);
	}
	killed_list_release(&k);
	/* Marked by a write of its own, with the writer's lock (none when
	 * another faultline writes the file: it marks them itself), and
	 * read again after it. */
	if (access(path, W_OK) != 0)
		return 0;
	db_close(*db);
	*db = NULL;
	killed_mark_file(path, &ignored);
	return db_open_read(path, db, e);
}

/* One session of the results database at target into *db; see
 * reader_open_session. */
static int stage(const char *target, const char *schema, int64_t *session,
		 int recorded, const char *query_sql, sqlite3 **db, struct errmsg *e)
{
	char **tables = NULL, shown[1024];
	PGconn *c = NULL;
	int err = pg_connect(target, &c, e);

	if (err == 0)
		err = pg_schema_open(c, schema, e);
	/* One snapshot: the session picked is the session copied, whole. */
	if (err == 0)
		err = pg_exec(c, "BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY",
			      "cannot begin", e);
	if (err == 0)
		err = pg_stage_pick(c, pg_shown(target, shown, sizeof(shown)), recorded,
				    session, e);
	if (err == 0)
		err = pg_stage_open(db, e);
	if (err == 0 && query_sql)
		err = pg_stage_tables_read(*db, query_sql, &tables, e);
	if (err == 0)
		err = pg_stage_session(c, *session, (const char *const *)tables, *db, e);
	if (err < 0) {
		sqlite3_close(*db);
		*db = NULL;
	}
	pg_stage_tables_free(tables);
	PQfinish(c);
	return err;
}

/* Every session row, then the picked sessions' rows of every table. */
static int stage_picked(PGconn *c, reader_pick_fn pick, void *arg,
			const char *const *tables, sqlite3 *db, struct errmsg *e)
{
	static const char *const sessions[] = { "session", NULL };
	int64_t *ids = NULL;
	size_t n = 0;
	int err = pg_stage_sessions(c, NULL, 0, sessions, db, e);

	if (err == 0)
		err = pick(db, arg, &ids, &n, e);
	if (err == 0 && n > 0 &&
	    sqlite3_exec(db, "DELETE FROM session", NULL, NULL, NULL) != SQLITE_OK)
		err = errmsg_set(e, EIO, "cannot stage the sessions: %s",
				 sqlite3_errmsg(db));
	if (err == 0 && n > 0)
		err = pg_stage_sessions(c, ids, n, tables, db, e);
	free(ids);
	return err;
}

int reader_open_sessions(const char *cmd, const char *target, const char *schema,
			 reader_pick_fn pick, void *arg, const char *const *tables,
			 sqlite3 **db, struct errmsg *e)
{
	PGconn *c = NULL;
	int err;

	*db = NULL;
	if (!pg_is_target(target))
		return reader_open(cmd, target, db, e);
	err = pg_connect(target, &c, e);
	if (err == 0)
		err = pg_schema_open(c, schema ? schema : READER_PG_SCHEMA, e);
	/* A schema that is not there is the database's state, not a wrong
	 * argument: a failure (exit 1), as every reader says it. */
	if (err == -ENOENT)
		err = -EIO;
	/* One snapshot: the sessions picked are the sessions copied. */
	if (err == 0)
		err = pg_exec(c, "BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY",
			      "cannot begin", e);
	if (err == 0)
		err = pg_stage_open(db, e);
	if (err == 0)
		err = stage_picked(c, pick, arg, tables, *db, e);
	if (err < 0) {
		sqlite3_close(*db);
		*db = NULL;
	}
	PQfinish(c);
	return err;
}

int reader_check_schema(const char *cmd, const char *target, const char *schema)
{
	if (schema && !pg_is_target(target))
		return error(cmd, "--schema applies to a PostgreSQL database "
			     "(postgresql://...)"), EXIT_USAGE;
	if (schema && !*schema)
		return error(cmd, "--schema needs a name, e.g. --schema %s",
			     READER_PG_SCHEMA), EXIT_USAGE;
	return 0;
}

int reader_open_session(const char *cmd, const char *target, const char *schema,
			int64_t *session, int recorded, const char *query_sql,
			sqlite3 **db, struct errmsg *e)
{
	*db = NULL;
	if (!pg_is_target(target))
		return reader_open(cmd, target, db, e);
	return stage(target, schema ? schema : READER_PG_SCHEMA, session, recorded,
		     query_sql, db, e);
}
