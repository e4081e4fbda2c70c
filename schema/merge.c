#include <errno.h>
#include <string.h>
#include <sys/stat.h>

#include "../common/array.h"
#include "../common/strbuf.h"
#include "db.h"
#include "merge.h"

/* Generated from load_indexes.sql and indexes.sql by the Makefile (db.c
 * builds them the same way). */
extern const char indexes_sql[];

/* session first (the map is built from it), metric_series before metric;
 * the rest in schema.sql's order. */
const struct merge_table merge_tables[] = {
	{ "session", MERGE_BY_SESSION },
	{ "recorder_thread", MERGE_BY_SESSION },
	{ "session_env", MERGE_BY_SESSION },
	{ "clock_anchor", MERGE_BY_SESSION },
	{ "clock_step", MERGE_BY_SESSION },
	{ "thread", MERGE_BY_SESSION },
	{ "fault", MERGE_BY_SESSION },
	{ "thread_state", MERGE_BY_SESSION },
	{ "ran_instead", MERGE_BY_SESSION },
	{ "tracepoint_event", MERGE_BY_SESSION },
	{ "fault_histogram", MERGE_BY_SESSION },
	{ "syscall", MERGE_BY_SESSION },
	{ "syscall_histogram", MERGE_BY_SESSION },
	{ "syscall_file", MERGE_BY_SESSION },
	{ "latency", MERGE_BY_SESSION },
	{ "latency_count", MERGE_BY_SESSION },
	{ "block_request", MERGE_BY_SESSION },
	{ "block_request_count", MERGE_BY_SESSION },
	{ "mapping", MERGE_BY_SESSION },
	{ "lost", MERGE_BY_SESSION },
	{ "flight_dump", MERGE_BY_SESSION },
	{ "flight_dump_cpu", MERGE_BY_SESSION },
	{ "flight_summary", MERGE_BY_SESSION },
	{ "flight_minute", MERGE_BY_SESSION },
	{ "flight_cost", MERGE_BY_SESSION },
	{ "stack", MERGE_BY_SESSION },
	{ "stack_frame", MERGE_BY_SESSION },
	{ "frame", MERGE_BY_SESSION },
	{ "symbol", MERGE_BY_SESSION },
	{ "metric_series", MERGE_SERIES },
	{ "metric", MERGE_BY_SERIES },
	{ "pt_clock", MERGE_BY_SESSION },
	{ "pt_calibration", MERGE_BY_SESSION },
	{ "pt_vdso", MERGE_BY_SESSION },
	{ "pt_trace", MERGE_BY_SESSION },
	{ "pt_call", MERGE_BY_SESSION },
	{ "pt_gap", MERGE_BY_SESSION },
	{ "cgroup_cpu", MERGE_BY_SESSION },
};
const size_t merge_ntables = ARRAY_SIZE(merge_tables);

/* The maps of one input: old id (the input's) to new id (the output's).
 * Temporary tables, so they cost the output file nothing. */
static const char maps_sql[] =
	"CREATE TEMP TABLE IF NOT EXISTS merge_session"
	" (old_id INTEGER PRIMARY KEY, new_id INTEGER NOT NULL);"
	"CREATE TEMP TABLE IF NOT EXISTS merge_series"
	" (old_id INTEGER PRIMARY KEY, new_id INTEGER NOT NULL);"
	"DELETE FROM temp.merge_session; DELETE FROM temp.merge_series;";

/* Sessions whose uuid the output lacks, numbered after the output's
 * highest id in the input's order.  A session of no uuid cannot be
 * matched, so it is always taken. */
static const char session_map_sql[] =
	"INSERT INTO temp.merge_session"
	" SELECT s.session_id, (SELECT coalesce(max(session_id), 0) FROM main.session)"
	"   + row_number() OVER (ORDER BY s.session_id)"
	"  FROM src.session s"
	" WHERE s.uuid IS NULL"
	"    OR NOT EXISTS (SELECT 1 FROM main.session o WHERE o.uuid = s.uuid)";

static const char skipped_sql[] =
	"SELECT s.session_id, s.uuid FROM src.session s"
	" WHERE s.session_id NOT IN (SELECT old_id FROM temp.merge_session)"
	" ORDER BY s.session_id";

/* A session's series go with it; a series of no session (an import) is
 * taken unless the output holds the same import. */
static const char series_map_sql[] =
	"INSERT INTO temp.merge_series"
	" SELECT m.series_id, (SELECT coalesce(max(series_id), 0) FROM main.metric_series)"
	"   + row_number() OVER (ORDER BY m.series_id)"
	"  FROM src.metric_series m"
	" WHERE m.session_id IN (SELECT old_id FROM temp.merge_session)"
	"    OR (m.session_id IS NULL AND NOT EXISTS"
	"        (SELECT 1 FROM main.metric_series o"
	"          WHERE o.session_id IS NULL AND o.name = m.name"
	"            AND o.labels = m.labels AND o.unit IS m.unit"
	"            AND o.source = m.source AND o.imported_ts = m.imported_ts))";

int merge_begin(sqlite3 *out, const char *out_path, struct errmsg *e)
{
	int rc = sqlite3_exec(out, "PRAGMA journal_mode=DELETE", NULL, NULL, NULL);

	return rc == SQLITE_OK ? 0 : db_fail(out, rc, out_path, "cannot write", e);
}

static int merge_fail(sqlite3 *out, int rc, const char *out_path,
		      const char *in_path, struct errmsg *e)
{
	if ((rc & 0xff) == SQLITE_FULL)
		return errmsg_set(e, ENOSPC, "cannot merge '%s' into '%s': disk full; "
				  "nothing of '%s' was merged and every file merged "
				  "before it is kept: free space and merge it again",
				  in_path, out_path, in_path);
	if ((rc & 0xff) == SQLITE_BUSY || (rc & 0xff) == SQLITE_LOCKED ||
	    (rc & 0xff) == SQLITE_READONLY || (rc & 0xff) == SQLITE_PERM)
		return db_fail(out, rc, out_path, "cannot merge into", e);
	return errmsg_set(e, EIO, "cannot merge '%s' into '%s': %s", in_path,
			  out_path, sqlite3_errmsg(out));
}

static const struct merge_table *find_table(const char *name)
{
	for (size_t i = 0; i < merge_ntables; i++)
		if (!strcmp(merge_tables[i].name, name))
			return &merge_tables[i];
	return NULL;
}

/* Every table of the output and of the input is one merge knows how to
 * remap: a table added to schema.sql and not to merge_tables would be
 * left behind silently. */
static int check_tables(sqlite3 *out, const char *out_path, const char *in_path,
			struct errmsg *e)
{
	sqlite3_stmt *st = NULL;
	int rc, err = 0;

	rc = sqlite3_prepare_v2(out, "SELECT name FROM main.sqlite_master WHERE type = 'table'"
				" AND name NOT LIKE 'sqlite_%' UNION "
				"SELECT name FROM src.sqlite_master WHERE type = 'table'"
				" AND name NOT LIKE 'sqlite_%'", -1, &st, NULL);
	while (rc == SQLITE_OK && (rc = sqlite3_step(st)) == SQLITE_ROW) {
		const char *name = (const char *)sqlite3_column_text(st, 0);

		if (!find_table(name)) {
			err = errmsg_set(e, EPROTO, "cannot merge '%s' into '%s': table "
					 "'%s' is not one this faultline can merge; "
					 "merge with the faultline that wrote it",
					 in_path, out_path, name);
			break;
		}
		rc = SQLITE_OK;
	}
	sqlite3_finalize(st);
	if (err == 0 && rc != SQLITE_DONE)
		err = merge_fail(out, rc, out_path, in_path, e);
	return err;
}

/* The expression a column of t is copied with: an id through its map,
 * any other column as it is. */
static void add_column_expr(struct strbuf *sb, const struct merge_table *t,
			    const char *col)
{
	if (!strcmp(col, "session_id") && t->ids != MERGE_BY_SERIES)
		strbuf_adds(sb, "m.new_id");
	else if (!strcmp(col, "series_id") && t->ids != MERGE_BY_SESSION)
		strbuf_adds(sb, "ms.new_id");
	else
		strbuf_addf(sb, "x.\"%s\"", col);
}

/*
 * "INSERT INTO main.T (cols) SELECT exprs FROM src.T x CROSS JOIN map":
 * the columns are the output's (the input has the same ones: same schema
 * version), named, so their order in either file does not matter.
 * CROSS JOIN keeps the input's table the outer loop: read in its own
 * order, each row's id looked up in the small map.  Into *sb.
 */
static int build_insert(sqlite3 *out, const struct merge_table *t,
			struct strbuf *sb)
{
	struct strbuf sel;
	sqlite3_stmt *st = NULL;
	int rc, first = 1;

	strbuf_init(&sel);
	strbuf_addf(sb, "INSERT INTO main.\"%s\" (", t->name);
	rc = sqlite3_prepare_v2(out, "SELECT name FROM pragma_table_info(?1, 'main')"
				" ORDER BY cid", -1, &st, NULL);
	if (rc == SQLITE_OK)
		sqlite3_bind_text(st, 1, t->name, -1, SQLITE_STATIC);
	while (rc == SQLITE_OK && (rc = sqlite3_step(st)) == SQLITE_ROW) {
		const char *col = (const char *)sqlite3_column_text(st, 0);

		strbuf_addf(sb, "%s\"%s\"", first ? "" : ", ", col);
		if (!first)
			strbuf_adds(&sel, ", ");
		add_column_expr(&sel, t, col);
		first = 0;
		rc = SQLITE_OK;
	}
	sqlite3_finalize(st);
	strbuf_addf(sb, ") SELECT %s FROM src.\"%s\" x", strbuf_str(&sel), t->name);
	switch (t->ids) {
	case MERGE_BY_SESSION:
		strbuf_adds(sb, " CROSS JOIN temp.merge_session m ON m.old_id = x.session_id");
		break;
	case MERGE_SERIES:
		strbuf_adds(sb, " CROSS JOIN temp.merge_series ms ON ms.old_id = x.series_id"
			    " LEFT JOIN temp.merge_session m ON m.old_id = x.session_id");
		break;
	case MERGE_BY_SERIES:
		strbuf_adds(sb, " CROSS JOIN temp.merge_series ms ON ms.old_id = x.series_id");
		break;
	}
	/* SQLITE_NOMEM stands for a strbuf that ran out as well. */
	if (rc == SQLITE_DONE && (first || strbuf_error(sb) || strbuf_error(&sel)))
		rc = first ? SQLITE_ERROR : SQLITE_NOMEM;
	strbuf_release(&sel);
	return rc == SQLITE_DONE ? SQLITE_OK : rc;
}

static int exec_count(sqlite3 *out, const char *sql, int64_t *rows)
{
	int rc = sqlite3_exec(out, sql, NULL, NULL, NULL);

	if (rc == SQLITE_OK && rows)
		*rows += sqlite3_changes64(out);
	return rc;
}

static int report_skipped(sqlite3 *out, merge_skip_fn *on_skip, void *ctx,
			  struct merge_counts *c)
{
	sqlite3_stmt *st = NULL;
	int rc = sqlite3_prepare_v2(out, skipped_sql, -1, &st, NULL);

	while (rc == SQLITE_OK && (rc = sqlite3_step(st)) == SQLITE_ROW) {
		c->skipped++;
		if (on_skip)
			on_skip(ctx, sqlite3_column_int64(st, 0),
				(const char *)sqlite3_column_text(st, 1));
		rc = SQLITE_OK;
	}
	sqlite3_finalize(st);
	return rc == SQLITE_DONE ? SQLITE_OK : rc;
}

/* The rows of every table, inside the open transaction.  SQLite's code. */
static int copy_tables(sqlite3 *out, struct merge_counts *c)
{
	struct strbuf sql;
	int64_t before;
	int rc = SQLITE_OK;

	strbuf_init(&sql);
	for (size_t i = 0; i < merge_ntables && rc == SQLITE_OK; i++) {
		strbuf_reset(&sql);
		rc = build_insert(out, &merge_tables[i], &sql);
		before = c->rows;
		if (rc == SQLITE_OK)
			rc = exec_count(out, strbuf_str(&sql), &c->rows);
		if (rc == SQLITE_OK && !strcmp(merge_tables[i].name, "session"))
			c->sessions += c->rows - before;
		if (rc == SQLITE_OK && !strcmp(merge_tables[i].name, "metric_series"))
			c->series += c->rows - before;
	}
	strbuf_release(&sql);
	return rc;
}

/* One transaction: the maps, the rows, the indexes.  0 or a negative
 * errno with e set (from SQLite's message, taken before the rollback
 * replaces it). */
static int merge_attached(sqlite3 *out, const char *out_path,
			  const char *in_path, merge_skip_fn *on_skip, void *ctx,
			  struct merge_counts *c, struct errmsg *e)
{
	struct merge_counts add = { 0 };
	int rc = sqlite3_exec(out, maps_sql, NULL, NULL, NULL);

	if (rc == SQLITE_OK)
		rc = sqlite3_exec(out, "BEGIN IMMEDIATE", NULL, NULL, NULL);
	if (rc != SQLITE_OK)
		return merge_fail(out, rc, out_path, in_path, e);
	rc = exec_count(out, session_map_sql, NULL);
	if (rc == SQLITE_OK)
		rc = exec_count(out, series_map_sql, NULL);
	if (rc == SQLITE_OK)
		rc = report_skipped(out, on_skip, ctx, &add);
	if (rc == SQLITE_OK)
		rc = copy_tables(out, &add);
	if (rc == SQLITE_OK && add.rows > 0)
		rc = sqlite3_exec(out, indexes_sql, NULL, NULL, NULL);
	if (rc == SQLITE_OK)
		rc = sqlite3_exec(out, "COMMIT", NULL, NULL, NULL);
	if (rc != SQLITE_OK) {
		int err = merge_fail(out, rc, out_path, in_path, e);

		sqlite3_exec(out, "ROLLBACK", NULL, NULL, NULL);
		return err;
	}
	c->sessions += add.sessions;
	c->skipped += add.skipped;
	c->series += add.series;
	c->rows += add.rows;
	return 0;
}

int merge_check_input(const char *out_path, const char *in_path,
		       struct errmsg *e)
{
	struct stat a, b;
	sqlite3 *in = NULL;
	int err;

	if (stat(in_path, &b) < 0)
		return errmsg_set(e, errno, "cannot read '%s': %s; check the path",
				  in_path, strerror(errno));
	if (stat(out_path, &a) == 0 && a.st_dev == b.st_dev && a.st_ino == b.st_ino)
		return errmsg_set(e, EINVAL, "cannot merge '%s' into itself; give "
				  "another output file", in_path);
	err = db_open_read(in_path, &in, e);
	db_close(in);
	return err;
}

int merge_file(sqlite3 *out, const char *out_path, const char *in_path,
	       merge_skip_fn *on_skip, void *ctx, struct merge_counts *c,
	       struct errmsg *e)
{
	sqlite3_stmt *st = NULL;
	int rc, err, version = -1;

	err = merge_check_input(out_path, in_path, e);
	if (err < 0)
		return err;
	rc = sqlite3_prepare_v2(out, "ATTACH ?1 AS src", -1, &st, NULL);
	if (rc == SQLITE_OK) {
		sqlite3_bind_text(st, 1, in_path, -1, SQLITE_STATIC);
		rc = sqlite3_step(st);
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE)
		return db_fail(out, rc, in_path, "cannot attach", e);
	/* The file read above could have been replaced since: read its
	 * version again through this connection. */
	rc = sqlite3_prepare_v2(out, "PRAGMA src.user_version", -1, &st, NULL);
	if (rc == SQLITE_OK && (rc = sqlite3_step(st)) == SQLITE_ROW)
		version = sqlite3_column_int(st, 0);
	sqlite3_finalize(st);
	if (version != SCHEMA_VERSION)
		err = errmsg_set(e, EPROTO, "cannot merge '%s': its schema version "
				 "changed while it was read (%d, this faultline "
				 "reads %d)", in_path, version, SCHEMA_VERSION);
	if (err == 0)
		err = check_tables(out, out_path, in_path, e);
	if (err == 0)
		err = merge_attached(out, out_path, in_path, on_skip, ctx, c, e);
	sqlite3_exec(out, "DETACH src", NULL, NULL, NULL);
	return err;
}
