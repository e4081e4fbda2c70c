#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../common/array.h"
#include "../common/strbuf.h"
#include "db.h"
#include "upgrade.h"

/* Generated from schema.sql, load_indexes.sql and indexes.sql by the
 * Makefile. */
extern const char schema_sql[];
extern const char indexes_sql[];

/*
 * The target of an upgrade is schema.sql itself, made in a private
 * in-memory database: the file gains each table and column it lacks, and
 * faultline's views are made again from schema.sql (they hold no rows).  So an
 * upgrade step is written once, in schema.sql, as the new table or
 * column; only what ALTER TABLE cannot do is listed here.  Views of other
 * names are the user's and stay:
 *
 *   - a table whose constraints changed is rebuilt (renamed aside, made
 *     anew, its rows copied): lost's kind CHECK gained 'spool' in 4
 *     and 'block_overrun', 'block_dropped' in 8,
 *     session's status CHECK 'stopped' and 'killed' in 7;
 *   - a column whose default is an expression is added without it and
 *     filled: session.uuid in 5.
 */
static const struct rebuild {
	int before;		/* rebuilt when upgrading from below this */
	const char *table;
} rebuilds[] = {
	{ 8, "lost" },
	{ 7, "session" },
};

static int run(sqlite3 *db, const char *sql, const char *path,
	       struct errmsg *e)
{
	int rc = sqlite3_exec(db, sql, NULL, NULL, NULL);

	return rc == SQLITE_OK ? 0 : db_fail(db, rc, path, "cannot upgrade", e);
}

/* Runs the SQL that sb holds, then empties sb. */
static int run_sb(sqlite3 *db, struct strbuf *sb, const char *path,
		  struct errmsg *e)
{
	int err;

	if (strbuf_error(sb))
		return errmsg_set(e, ENOMEM, "out of memory");
	err = run(db, sb->buf, path, e);
	strbuf_reset(sb);
	return err;
}

/* Does sql, with a and b bound to its two parameters, give a row? */
static int has_row(sqlite3 *db, const char *sql, const char *a, const char *b)
{
	sqlite3_stmt *st = NULL;
	int found = 0;

	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) == SQLITE_OK) {
		sqlite3_bind_text(st, 1, a, -1, SQLITE_STATIC);
		sqlite3_bind_text(st, 2, b, -1, SQLITE_STATIC);
		found = sqlite3_step(st) == SQLITE_ROW;
	}
	sqlite3_finalize(st);
	return found;
}

/* Is there an object of this type (table, index, view) in the file? */
static int has_object(sqlite3 *db, const char *type, const char *name)
{
	return has_row(db, "SELECT 1 FROM main.sqlite_master WHERE type = ?"
		       " AND name = ?", type, name);
}

static int has_column(sqlite3 *db, const char *table, const char *column)
{
	return has_row(db, "SELECT 1 FROM pragma_table_info(?) WHERE name = ?",
		       table, column);
}

/* The old table moves aside, the new one is made from schema.sql, and
 * the rows it had come across by the columns both have. */
static int rebuild_table(sqlite3 *db, sqlite3 *want, const char *table,
			 const char *path, struct errmsg *e)
{
	sqlite3_stmt *st = NULL;
	struct strbuf sb, cols, keep;
	int err = 0, n = 0;

	strbuf_init(&sb);
	strbuf_init(&cols);
	strbuf_init(&keep);
	if (sqlite3_prepare_v2(want, "SELECT name FROM pragma_table_info(?)",
			       -1, &st, NULL) != SQLITE_OK) {
		err = db_fail(want, sqlite3_errcode(want), path, "cannot upgrade", e);
		goto out;
	}
	sqlite3_bind_text(st, 1, table, -1, SQLITE_STATIC);
	while (sqlite3_step(st) == SQLITE_ROW) {
		const char *c = (const char *)sqlite3_column_text(st, 0);

		if (has_column(db, table, c))
			strbuf_addf(&cols, "%s\"%s\"", n++ ? ", " : "", c);
	}
	/* The user's indexes and triggers on the table go with the old one
	 * (they move with the rename): kept to be made again on the new
	 * one, as they were.  faultline's own come from load_indexes.sql and
	 * indexes.sql. */
	sqlite3_finalize(st);
	st = NULL;
	if (sqlite3_prepare_v2(db, "SELECT type, name, sql FROM main.sqlite_master"
			       " WHERE type IN ('index', 'trigger') AND sql IS NOT NULL"
			       " AND tbl_name = ?", -1, &st, NULL) != SQLITE_OK) {
		err = db_fail(db, sqlite3_errcode(db), path, "cannot upgrade", e);
		goto out;
	}
	sqlite3_bind_text(st, 1, table, -1, SQLITE_STATIC);
	while (sqlite3_step(st) == SQLITE_ROW)
		if (!has_object(want, (const char *)sqlite3_column_text(st, 0),
				(const char *)sqlite3_column_text(st, 1)))
			strbuf_addf(&keep, " %s;", sqlite3_column_text(st, 2));
	/* legacy_alter_table: the rename must not rewrite the views that
	 * name the table (they are made again anyway). */
	strbuf_addf(&sb, "PRAGMA legacy_alter_table = ON;"
		    " ALTER TABLE \"%s\" RENAME TO \"%s_upgrading\";"
		    " PRAGMA legacy_alter_table = OFF;", table, table);
	if ((err = run_sb(db, &sb, path, e)) < 0)
		goto out;
	sqlite3_finalize(st);
	st = NULL;
	if (sqlite3_prepare_v2(want, "SELECT sql FROM sqlite_master WHERE "
			       "type = 'table' AND name = ?", -1, &st, NULL) != SQLITE_OK) {
		err = db_fail(want, sqlite3_errcode(want), path, "cannot upgrade", e);
		goto out;
	}
	sqlite3_bind_text(st, 1, table, -1, SQLITE_STATIC);
	if (sqlite3_step(st) != SQLITE_ROW) {
		err = errmsg_set(e, EPROTO, "cannot upgrade '%s': no table %s in "
				 "this faultline's schema", path, table);
		goto out;
	}
	strbuf_addf(&sb, "%s; INSERT INTO \"%s\" (%s) SELECT %s FROM \"%s_upgrading\";"
		    " DROP TABLE \"%s_upgrading\";", sqlite3_column_text(st, 0),
		    table, strbuf_str(&cols), strbuf_str(&cols), table, table);
	strbuf_adds(&sb, strbuf_str(&keep));
	err = run_sb(db, &sb, path, e);
out:
	sqlite3_finalize(st);
	strbuf_release(&sb);
	strbuf_release(&cols);
	strbuf_release(&keep);
	return err;
}

/* Can ALTER TABLE ADD COLUMN take this default?  Only a literal:
 * pragma table_info gives an expression without its parentheses. */
static int literal_default(const char *dflt)
{
	char *end;
	size_t n;

	if (!dflt)
		return 0;
	n = strlen(dflt);
	if (n >= 2 && dflt[0] == '\'' && dflt[n - 1] == '\'') {
		/* 'text', a quote inside doubled: 'it''s' */
		for (size_t i = 1; i < n - 1; i++)
			if (dflt[i] == '\'' && dflt[++i] != '\'')
				return 0;
		return 1;
	}
	strtod(dflt, &end);
	return end != dflt && *end == '\0';
}

/* ALTER TABLE ADD COLUMN for each column of want's table the file lacks.
 * An expression default cannot be added so; uuid is filled instead. */
static int add_columns(sqlite3 *db, sqlite3 *want, const char *table,
		       const char *path, struct errmsg *e)
{
	sqlite3_stmt *st = NULL;
	struct strbuf sb;
	int err = 0;

	strbuf_init(&sb);
	if (sqlite3_prepare_v2(want, "SELECT name, type, \"notnull\", dflt_value"
			       " FROM pragma_table_info(?)", -1, &st, NULL) != SQLITE_OK)
		return db_fail(want, sqlite3_errcode(want), path, "cannot upgrade", e);
	sqlite3_bind_text(st, 1, table, -1, SQLITE_STATIC);
	while (err == 0 && sqlite3_step(st) == SQLITE_ROW) {
		const char *name = (const char *)sqlite3_column_text(st, 0);
		const char *type = (const char *)sqlite3_column_text(st, 1);
		const char *dflt = (const char *)sqlite3_column_text(st, 3);
		int constant = literal_default(dflt);

		if (has_column(db, table, name))
			continue;
		strbuf_addf(&sb, "ALTER TABLE \"%s\" ADD COLUMN \"%s\" %s", table,
			    name, type ? type : "");
		/* NOT NULL needs a default to add; without one the column
		 * stays nullable in an upgraded file. */
		if (constant)
			strbuf_addf(&sb, "%s DEFAULT %s",
				    sqlite3_column_int(st, 2) ? " NOT NULL" : "", dflt);
		if (!strcmp(table, "session") && !strcmp(name, "uuid"))
			strbuf_adds(&sb, "; UPDATE session SET uuid = " FL_SQL_UUID);
		err = run_sb(db, &sb, path, e);
	}
	sqlite3_finalize(st);
	strbuf_release(&sb);
	return err;
}

/* Each table of want: made when the file lacks it, rebuilt or given its
 * new columns when it has it.  Then views again, and the indexes. */
static int bring_up(sqlite3 *db, sqlite3 *want, const char *path, int from,
		    struct errmsg *e)
{
	sqlite3_stmt *st = NULL;
	int err = 0;

	if (sqlite3_prepare_v2(want, "SELECT type, name, sql FROM sqlite_master"
			       " WHERE sql IS NOT NULL ORDER BY type = 'view', rowid",
			       -1, &st, NULL) != SQLITE_OK)
		return db_fail(want, sqlite3_errcode(want), path, "cannot upgrade", e);
	while (err == 0 && sqlite3_step(st) == SQLITE_ROW) {
		const char *type = (const char *)sqlite3_column_text(st, 0);
		const char *name = (const char *)sqlite3_column_text(st, 1);
		const char *sql = (const char *)sqlite3_column_text(st, 2);
		int rebuild = 0;

		for (size_t i = 0; i < ARRAY_SIZE(rebuilds); i++)
			if (from < rebuilds[i].before && !strcmp(name, rebuilds[i].table))
				rebuild = 1;
		if (!strcmp(type, "table") && has_object(db, "table", name))
			err = rebuild ? rebuild_table(db, want, name, path, e)
				      : add_columns(db, want, name, path, e);
		else if (!strcmp(type, "view") || !has_object(db, type, name))
			err = run(db, sql, path, e);
	}
	sqlite3_finalize(st);
	if (err == 0)
		err = run(db, indexes_sql, path, e);
	return err;
}

/* faultline's views hold no rows: dropped, and made again by bring_up
 * from want.  A view of the file that want does not have is the user's,
 * and stays as it is. */
static int drop_views(sqlite3 *db, sqlite3 *want, const char *path,
		      struct errmsg *e)
{
	sqlite3_stmt *st = NULL;
	struct strbuf sb;
	int err = 0;

	strbuf_init(&sb);
	if (sqlite3_prepare_v2(db, "SELECT name FROM main.sqlite_master WHERE "
			       "type = 'view'", -1, &st, NULL) != SQLITE_OK)
		return db_fail(db, sqlite3_errcode(db), path, "cannot upgrade", e);
	while (sqlite3_step(st) == SQLITE_ROW) {
		const char *name = (const char *)sqlite3_column_text(st, 0);

		if (has_object(want, "view", name))
			strbuf_addf(&sb, "DROP VIEW \"%s\";", name);
	}
	sqlite3_finalize(st);
	if (sb.len)
		err = run_sb(db, &sb, path, e);
	strbuf_release(&sb);
	return err;
}

int db_upgrade(sqlite3 *db, const char *path, int from, struct errmsg *e)
{
	sqlite3 *want = NULL;
	int err;

	if (sqlite3_open(":memory:", &want) != SQLITE_OK ||
	    sqlite3_exec(want, schema_sql, NULL, NULL, NULL) != SQLITE_OK) {
		err = errmsg_set(e, ENOMEM, "cannot upgrade '%s': %s", path,
				 want ? sqlite3_errmsg(want) : "out of memory");
		sqlite3_close(want);
		return err;
	}
	err = run(db, "BEGIN IMMEDIATE", path, e);
	if (err == 0)
		err = drop_views(db, want, path, e);
	if (err == 0)
		err = bring_up(db, want, path, from, e);
	if (err == 0)
		err = run(db, "PRAGMA application_id = " FL_STR(FL_APPLICATION_ID) ";"
			  " PRAGMA user_version = " FL_STR(SCHEMA_VERSION) "; COMMIT",
			  path, e);
	if (err < 0)
		sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL);
	sqlite3_close(want);
	return err;
}
