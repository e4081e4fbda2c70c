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

int schema_views_current(sqlite3 *db, const char *const *names, size_t n,
			 struct errmsg *e)
{
	sqlite3 *mem = NULL;
	int err = 0, made = 0;

	if (sqlite3_open(":memory:", &mem) != SQLITE_OK ||
	    sqlite3_exec(mem, schema_sql, NULL, NULL, NULL) != SQLITE_OK)
		err = errmsg_set(e, EIO, "cannot make the schema's view '%s': %s",
				 n ? names[0] : "", sqlite3_errmsg(mem));
	/* A view of the file reads the file's views, never a TEMP one: once
	 * one is made TEMP, those after it (which read it) are too. */
	for (size_t i = 0; i < n && err == 0; i++)
		err = view_current(db, mem, names[i], made, &made, e);
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

int schema_wake_views_current(sqlite3 *db, struct errmsg *e)
{
	/* In the order they read each other: a TEMP view finds the TEMP
	 * views made before it first. */
	static const char *const names[] = {
		"wake_source_by_stack", "wake_source", "thread_state_waker",
		"sleep_wait", "stall",
	};

	return schema_views_current(db, names, sizeof(names) / sizeof(names[0]), e);
}
