#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../common/array.h"
#include "../common/strbuf.h"
#include "../schema/db.h"
#include "pg_conn.h"
#include "pg_session.h"
#include "session_info.h"

/* The metric series that go with a session: those it sampled, and the
 * imported ones with a point in its span (?2 to ?3, CLOCK_REALTIME ns),
 * as faultline export --format csv takes them. */
#define SERIES_WHERE \
	"session_id = ?1 OR (session_id IS NULL AND EXISTS (SELECT 1 FROM " \
	"metric m WHERE m.series_id = metric_series.series_id AND m.ts " \
	"BETWEEN ?2 AND ?3))"

/* The rows of table t that belong to the session, into sb; 0, or -1 when
 * t holds rows of no session (not exported). */
static int table_where(const struct pg_table *t, struct strbuf *sb)
{
	if (!strcmp(t->name, "metric_series"))
		strbuf_adds(sb, " WHERE " SERIES_WHERE);
	else if (t->session_col >= 0)
		strbuf_adds(sb, " WHERE session_id = ?1");
	else if (t->series_col >= 0)
		strbuf_adds(sb, " WHERE series_id IN (SELECT series_id FROM "
			    "metric_series WHERE session_id = ?1) OR (series_id IN "
			    "(SELECT series_id FROM metric_series WHERE session_id IS "
			    "NULL) AND ts BETWEEN ?2 AND ?3)");
	else
		return -1;
	return 0;
}

struct span {
	int64_t start_ts, end_ts;	/* CLOCK_REALTIME ns */
};

static int read_session(sqlite3 *db, const char *path, int64_t id,
			struct span *s, struct pg_session_done *d, struct errmsg *e)
{
	sqlite3_stmt *st = NULL;
	int rc = sqlite3_prepare_v2(db, "SELECT uuid, start_ts, coalesce(end_ts, "
		"(SELECT max(last_ts) FROM thread WHERE session_id = ?1), start_ts) "
		"FROM session WHERE session_id = ?1", -1, &st, NULL);
	const char *uuid;

	if (rc == SQLITE_OK)
		rc = sqlite3_bind_int64(st, 1, id);
	if (rc == SQLITE_OK)
		rc = sqlite3_step(st);
	if (rc == SQLITE_DONE) {
		sqlite3_finalize(st);
		return errmsg_set(e, ENOENT, "no session %" PRId64 " in '%s'; "
				  "faultline query %s sessions lists them", id,
				  path, path);
	}
	if (rc != SQLITE_ROW) {
		sqlite3_finalize(st);
		return db_fail(db, rc, path, "cannot read the session of", e);
	}
	uuid = (const char *)sqlite3_column_text(st, 0);
	snprintf(d->uuid, sizeof(d->uuid), "%s", uuid ? uuid : "");
	s->start_ts = sqlite3_column_int64(st, 1);
	s->end_ts = sqlite3_column_int64(st, 2);
	sqlite3_finalize(st);
	if (!*d->uuid)
		return errmsg_set(e, EINVAL, "session %" PRId64 " of '%s' has no "
				  "uuid, which an export keys it by", id, path);
	return 0;
}

/* One row, one bigint column, of sql with parameters; -1 when none. */
static int pg_one_int(PGconn *c, const char *sql, int n, const char *const *params,
		      int64_t *out, const char *what, struct errmsg *e)
{
	PGresult *r = PQexecParams(c, sql, n, NULL, params, NULL, NULL, 0);
	int err = 0;

	*out = -1;
	if (PQresultStatus(r) != PGRES_TUPLES_OK)
		err = pg_fail(c, r, what, e);
	else if (PQntuples(r) > 0)
		*out = strtoll(PQgetvalue(r, 0, 0), NULL, 10);
	PQclear(r);
	return err;
}

/* Gives each series of the session a PostgreSQL id: *map (owned, sorted
 * by the file's id), *n pairs. */
static int map_series(sqlite3 *db, const char *path, PGconn *c, int64_t id,
		      const struct span *s, struct pg_id_pair **map, size_t *n,
		      struct errmsg *e)
{
	sqlite3_stmt *st = NULL;
	size_t cap = 0;
	char count[32];
	const char *params[] = { count };
	PGresult *r;
	int rc, err = 0;

	*map = NULL;
	*n = 0;
	rc = sqlite3_prepare_v2(db, "SELECT series_id FROM metric_series WHERE "
				SERIES_WHERE " ORDER BY series_id", -1, &st, NULL);
	if (rc == SQLITE_OK)
		rc = sqlite3_bind_int64(st, 1, id);
	if (rc == SQLITE_OK)
		rc = sqlite3_bind_int64(st, 2, s->start_ts);
	if (rc == SQLITE_OK)
		rc = sqlite3_bind_int64(st, 3, s->end_ts);
	while (rc == SQLITE_OK && (rc = sqlite3_step(st)) == SQLITE_ROW) {
		rc = SQLITE_OK;
		if (ARRAY_RESERVE(*map, cap, *n + 1) < 0) {
			rc = SQLITE_NOMEM;
			break;
		}
		(*map)[(*n)++].from = sqlite3_column_int64(st, 0);
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE)
		return db_fail(db, rc, path, "cannot read the metric series of", e);
	if (!*n)
		return 0;
	snprintf(count, sizeof(count), "%zu", *n);
	r = PQexecParams(c, "SELECT nextval('series_id_seq') FROM "
			 "generate_series(1, $1::bigint)", 1, NULL, params, NULL, NULL, 0);
	if (PQresultStatus(r) != PGRES_TUPLES_OK || (size_t)PQntuples(r) != *n)
		err = pg_fail(c, r, "cannot number the metric series", e);
	for (size_t i = 0; err == 0 && i < *n; i++)
		(*map)[i].to = strtoll(PQgetvalue(r, (int)i, 0), NULL, 10);
	PQclear(r);
	return err;
}

static int copy_one(sqlite3 *db, const char *path, PGconn *c,
		    const struct pg_table *t, int64_t id, const struct span *s,
		    const struct pg_remap *m, struct pg_progress *p, struct errmsg *e)
{
	sqlite3_stmt *st = NULL;
	struct strbuf sb;
	int rc, err;

	strbuf_init(&sb);
	strbuf_adds(&sb, "SELECT ");
	for (size_t i = 0; i < t->ncols; i++) {
		const char *n = t->cols[i].name;

		/* jsonb takes JSON only: a text that is not JSON (a hand-made
		 * row) goes as a JSON string holding it, not as a failed load. */
		if (!strcmp(t->cols[i].type, "jsonb"))
			strbuf_addf(&sb, "%sCASE WHEN json_valid(\"%s\") THEN \"%s\" "
				    "ELSE json_quote(\"%s\") END", i ? ", " : "", n, n, n);
		else
			strbuf_addf(&sb, "%s\"%s\"", i ? ", " : "", n);
	}
	strbuf_addf(&sb, " FROM \"%s\"", t->name);
	/* Rows go in the order they are read: PostgreSQL keeps no order
	 * but the rowid column (pg_schema.h). */
	if (t->session_col >= 0 && strcmp(t->name, "metric_series") &&
	    session_scan_pays(db, t->name, id))
		strbuf_adds(&sb, " NOT INDEXED");
	if (table_where(t, &sb) < 0) {
		strbuf_release(&sb);
		return 0;
	}
	if (strbuf_error(&sb)) {
		strbuf_release(&sb);
		return errmsg_set(e, ENOMEM, "out of memory");
	}
	rc = sqlite3_prepare_v2(db, strbuf_str(&sb), -1, &st, NULL);
	strbuf_release(&sb);
	if (rc == SQLITE_OK)
		rc = sqlite3_bind_int64(st, 1, id);
	if (rc == SQLITE_OK && sqlite3_bind_parameter_count(st) >= 3)
		rc = sqlite3_bind_int64(st, 2, s->start_ts);
	if (rc == SQLITE_OK && sqlite3_bind_parameter_count(st) >= 3)
		rc = sqlite3_bind_int64(st, 3, s->end_ts);
	if (rc != SQLITE_OK) {
		sqlite3_finalize(st);
		return db_fail(db, rc, path, "cannot read", e);
	}
	err = pg_copy_table(c, t, st, m, p, e);
	sqlite3_finalize(st);
	return err;
}

/* The session's rows, table by table, inside the open transaction. */
static int copy_session(sqlite3 *db, const char *path, PGconn *c,
			const struct pg_tables *t, int64_t id, const struct span *s,
			struct pg_progress *p, struct pg_session_done *d,
			struct errmsg *e)
{
	const char *params[] = { d->uuid };
	struct pg_id_pair *map = NULL;
	struct pg_remap m = { 0, NULL, 0 };
	uint64_t before = p->rows;
	int err;

	err = pg_one_int(c, "SELECT session_id FROM session WHERE uuid = $1", 1,
			 params, &d->pg_id, "cannot look the session up", e);
	if (err == 0 && d->pg_id >= 0) {
		d->skipped = 1;
		return 0;
	}
	if (err == 0)
		err = pg_one_int(c, "SELECT nextval('session_id_seq')", 0, NULL,
				 &d->pg_id, "cannot number the session", e);
	if (err == 0)
		err = map_series(db, path, c, id, s, &map, &m.nseries, e);
	m.session_id = d->pg_id;
	m.series = map;
	for (size_t i = 0; err == 0 && i < t->n; i++)
		err = copy_one(db, path, c, &t->t[i], id, s, &m, p, e);
	d->rows = p->rows - before;
	free(map);
	return err;
}

int pg_session_export(sqlite3 *db, const char *path, PGconn *c,
		      const struct pg_tables *t, int64_t id,
		      struct pg_progress *p, struct pg_session_done *d,
		      struct errmsg *e)
{
	struct span s = { 0, 0 };
	int err;

	memset(d, 0, sizeof(*d));
	d->id = id;
	p->session = id;
	if (sqlite3_exec(db, "BEGIN", NULL, NULL, NULL) != SQLITE_OK)
		return db_fail(db, sqlite3_errcode(db), path, "cannot read", e);
	err = read_session(db, path, id, &s, d, e);
	if (err == 0)
		err = pg_exec(c, "BEGIN", "cannot begin a transaction", e);
	if (err == 0)
		err = copy_session(db, path, c, t, id, &s, p, d, e);
	if (err == 0 && !d->skipped)
		err = pg_exec(c, "COMMIT", "cannot commit the session", e);
	else if (PQstatus(c) == CONNECTION_OK &&
		 PQtransactionStatus(c) != PQTRANS_IDLE)
		PQclear(PQexec(c, "ROLLBACK"));
	sqlite3_exec(db, "COMMIT", NULL, NULL, NULL);
	return err;
}
