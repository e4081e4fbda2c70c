#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "../common/strbuf.h"
#include "views.h"

/* Generated from schema.sql by the Makefile. */
extern const char schema_sql[];

/* The sql of view name in schema "main" of db, owned by the caller;
 * NULL in *out when there is none.  0 or -ENOMEM. */
static int view_sql(sqlite3 *db, const char *name, char **out)
{
	sqlite3_stmt *st = NULL;
	const char *s = NULL;

	*out = NULL;
	if (sqlite3_prepare_v2(db, "SELECT sql FROM main.sqlite_master WHERE"
			       " type = 'view' AND name = ?", -1, &st, NULL) != SQLITE_OK)
		return 0;
	sqlite3_bind_text(st, 1, name, -1, SQLITE_STATIC);
	if (sqlite3_step(st) == SQLITE_ROW)
		s = (const char *)sqlite3_column_text(st, 0);
	if (s && !(*out = strdup(s))) {
		sqlite3_finalize(st);
		return -ENOMEM;
	}
	sqlite3_finalize(st);
	return 0;
}

/* Makes view name current on db, mem holding schema.sql's; with force
 * even when the file's is the same.  *made: a TEMP view was made. */
static int view_current(sqlite3 *db, sqlite3 *mem, const char *name,
			int force, int *made, struct errmsg *e)
{
	static const char create[] = "CREATE VIEW ";
	char *want = NULL, *have = NULL;
	struct strbuf sb;
	int err = 0;

	strbuf_init(&sb);
	if ((err = view_sql(mem, name, &want)) < 0 ||
	    (err = view_sql(db, name, &have)) < 0)
		goto out;
	if (!want || strncmp(want, create, strlen(create))) {
		err = errmsg_set(e, EIO, "schema.sql has no view '%s'", name);
		goto out;
	}
	if (have && !strcmp(have, want) && !force)
		goto out;
	strbuf_addf(&sb, "DROP VIEW IF EXISTS temp.\"%s\"; CREATE TEMP VIEW %s",
		    name, want + strlen(create));
	if (strbuf_error(&sb)) {
		err = -ENOMEM;
		goto out;
	}
	if (sqlite3_exec(db, strbuf_str(&sb), NULL, NULL, NULL) != SQLITE_OK)
		err = errmsg_set(e, EIO, "cannot make the view '%s' current: %s",
				 name, sqlite3_errmsg(db));
	else
		*made = 1;
out:
	strbuf_release(&sb);
	free(want);
	free(have);
	return err;
}

/* schema.sql in a database of its own, in memory, into *mem (closed by
 * the caller either way). */
static int schema_in_memory(sqlite3 **mem, struct errmsg *e)
{
	if (sqlite3_open(":memory:", mem) != SQLITE_OK ||
	    sqlite3_exec(*mem, schema_sql, NULL, NULL, NULL) != SQLITE_OK)
		return errmsg_set(e, EIO, "cannot make the schema's views: %s",
				  sqlite3_errmsg(*mem));
	return 0;
}

/* names[0..n) current, all of them TEMP when made is 1.  A view of the
 * file reads the file's views, never a TEMP one: once one is made TEMP,
 * those after it (which read it) are too. */
static int views_current(sqlite3 *db, sqlite3 *mem, const char *const *names,
			 size_t n, int made, struct errmsg *e)
{
	int err = 0;

	for (size_t i = 0; i < n && err == 0; i++)
		err = view_current(db, mem, names[i], made, &made, e);
	return err;
}

int schema_views_current(sqlite3 *db, const char *const *names, size_t n,
			 struct errmsg *e)
{
	sqlite3 *mem = NULL;
	int err = schema_in_memory(&mem, e);

	if (err == 0)
		err = views_current(db, mem, names, n, 0, e);
	sqlite3_close(mem);
	return err;
}

int schema_view_current(sqlite3 *db, const char *name, struct errmsg *e)
{
	return schema_views_current(db, &name, 1, e);
}

int schema_stack_views_current(sqlite3 *db, struct errmsg *e)
{
	static const char *const names[] = {
		"stack_cut", "stack_shown", "stack_frame_name",
	};

	return schema_views_current(db, names, sizeof(names) / sizeof(names[0]), e);
}

/* wake_source_by_stack's rows for session_id (0: every session's) into a
 * TEMP table of that name, worked out once: the TEMP views made after it
 * read the table, where the view would work out every stack of the file
 * in each statement. */
static int wake_sources_of(sqlite3 *db, sqlite3 *mem, int64_t session_id,
			   struct errmsg *e)
{
	static const char name[] = "wake_source_by_stack";
	char *want = NULL;
	const char *body;
	struct strbuf sb;
	int err = view_sql(mem, name, &want);

	strbuf_init(&sb);
	if (err < 0)
		goto out;
	body = want ? strstr(want + strlen("CREATE VIEW ") + strlen(name), " AS") :
		      NULL;
	if (!body) {
		err = errmsg_set(e, EIO, "schema.sql has no view '%s'", name);
		goto out;
	}
	/* Again for another session: the table of the last one goes. */
	strbuf_addf(&sb, "DROP TABLE IF EXISTS temp.%s; CREATE TEMP TABLE %s "
		    "AS SELECT * FROM (%s)", name, name, body + 3);
	if (session_id > 0)
		strbuf_addf(&sb, " WHERE session_id = %lld", (long long)session_id);
	if (strbuf_error(&sb))
		err = -ENOMEM;
	else if (sqlite3_exec(db, strbuf_str(&sb), NULL, NULL, NULL) != SQLITE_OK)
		err = errmsg_set(e, EIO, "cannot work out what issued the "
				 "wake-ups: %s", sqlite3_errmsg(db));
out:
	strbuf_release(&sb);
	free(want);
	return err;
}

int schema_wake_views_current(sqlite3 *db, int64_t session_id,
			      struct errmsg *e)
{
	/* Each before the views that read it. */
	static const char *const names[] = {
		"wake_source", "thread_state_waker", "sleep_wait", "stall",
		"thread_state_reason",
	};
	sqlite3 *mem = NULL;
	int err = schema_in_memory(&mem, e);

	if (err == 0)
		err = wake_sources_of(db, mem, session_id, e);
	/* All TEMP: they must read the table, not the file's view. */
	if (err == 0)
		err = views_current(db, mem, names, sizeof(names) / sizeof(names[0]),
				    1, e);
	sqlite3_close(mem);
	return err;
}
