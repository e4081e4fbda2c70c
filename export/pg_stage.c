#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../common/array.h"
#include "../common/strbuf.h"
#include "../schema/recorded.h"
#include "pg_conn.h"
#include "pg_stage.h"

/* Generated from schema/schema.sql and schema/indexes.sql. */
extern const char schema_sql[];
extern const char indexes_sql[];

/* A series the recorder sampled has a source 'sampler:...'; any other is
 * an import (metric_series.source). */
#define SAMPLED "source LIKE 'sampler:%'"

int pg_stage_open(sqlite3 **out, struct errmsg *e)
{
	/* A private temporary file, deleted when closed: SQLite keeps what
	 * fits its page cache in memory.  A session of 950k faults held 17
	 * MB resident so, 120 MB as ":memory:", in the same time. */
	int rc = sqlite3_open("", out);

	if (rc == SQLITE_OK)
		rc = sqlite3_exec(*out, schema_sql, NULL, NULL, NULL);
	if (rc != SQLITE_OK) {
		errmsg_set(e, rc == SQLITE_NOMEM ? ENOMEM : EIO, "cannot make a "
			   "temporary database: %s", *out ? sqlite3_errmsg(*out) :
			   "out of memory");
		sqlite3_close(*out);
		*out = NULL;
		return rc == SQLITE_NOMEM ? -ENOMEM : -EIO;
	}
	return 0;
}


int pg_stage_pick(PGconn *c, const char *where, int recorded, int64_t *id,
		  struct errmsg *e)
{
	char want[32];
	const char *params[] = { want, recorded ? "1" : "0" };
	PGresult *r;
	int err = 0;

	snprintf(want, sizeof(want), "%" PRId64, *id);
	r = PQexecParams(c, "SELECT min(session_id), max(session_id), count(*), "
			 "count(*) FILTER (WHERE session_id = $1::bigint), "
			 "(SELECT max(s.session_id) FROM session s WHERE $2::int = 1 "
			 "AND " SESSION_RECORDED("s.session_id") ") FROM session",
			 2, NULL, params, NULL, NULL, 0);
	if (PQresultStatus(r) != PGRES_TUPLES_OK)
		err = pg_fail(c, r, "cannot read the sessions of PostgreSQL", e);
	else if (!strcmp(PQgetvalue(r, 0, 2), "0"))
		err = errmsg_set(e, ENOENT, "'%s' holds no session; load sessions "
				 "there with 'faultline export DB --to URL'", where);
	else if (*id && !strcmp(PQgetvalue(r, 0, 3), "0"))
		err = errmsg_set(e, ENOENT, "no session %" PRId64 " in '%s': it "
				 "holds sessions %s to %s", *id, where,
				 PQgetvalue(r, 0, 0), PQgetvalue(r, 0, 1));
	else if (!*id)
		*id = strtoll(PQgetvalue(r, 0, PQgetisnull(r, 0, 4) ? 1 : 4), NULL, 10);
	PQclear(r);
	return err;
}

/* Which rows travel: the sessions (ids, n; NULL: every session), and
 * whether they are many.  One session is copied as it was in its file:
 * its rows keep their rowid, an imported series is an import again.
 * Many sessions may come from many files, whose rowids collide: their
 * rows are numbered anew, a session's after the one before it in the
 * order of its file, as faultline merge numbers them; an imported
 * series stays with the session it was exported with (each session its
 * own copy, as in PostgreSQL). */
struct stage_pick {
	const int64_t *ids;	/* borrowed */
	size_t n;
	int many;
};

/* The columns of one table on both sides. */
struct stage_table {
	const char *name;	/* borrowed from the caller */
	struct strbuf select;	/* the COPY's select list */
	struct strbuf insert;	/* INSERT INTO name (...) VALUES (...) */
	char kinds[128];	/* per copied column: 'i' integer, 'r' real,
				 * 'b' blob, 't' text */
	int n;			/* columns copied */
};

/* Is column (table, col) in PostgreSQL's list cols (rows: table_name,
 * column_name, data_type)?  Its data_type, or NULL. */
static const char *pg_type_of(const PGresult *cols, const char *table, const char *col)
{
	for (int i = 0; i < PQntuples(cols); i++)
		if (!strcmp(PQgetvalue(cols, i, 0), table) &&
		    !strcmp(PQgetvalue(cols, i, 1), col))
			return PQgetvalue(cols, i, 2);
	return NULL;
}

static char kind_of(const char *decl)
{
	if (strstr(decl, "INT"))
		return 'i';
	if (strstr(decl, "REAL") || strstr(decl, "FLOA") || strstr(decl, "DOUB"))
		return 'r';
	return strstr(decl, "BLOB") ? 'b' : 't';
}

/* Fills t with the columns of t->name that both sides have; -ENOMEM or
 * -EIO with e set. */
static int plan_columns(sqlite3 *db, const PGresult *cols, struct stage_table *t,
			int many, struct errmsg *e)
{
	sqlite3_stmt *st = NULL;
	struct strbuf values;
	int rc;

	strbuf_init(&values);
	strbuf_addf(&t->insert, "INSERT INTO \"%s\" (", t->name);
	/* The file's rowid, which the export keeps (pg_schema.c). */
	if (!many && pg_type_of(cols, t->name, "rowid")) {
		t->kinds[t->n++] = 'i';
		strbuf_adds(&t->select, "\"rowid\"");
		strbuf_adds(&t->insert, "rowid");
		strbuf_adds(&values, "?");
	}
	rc = sqlite3_prepare_v2(db, "SELECT name, upper(type) FROM pragma_table_info(?1) "
				"ORDER BY cid", -1, &st, NULL);
	if (rc == SQLITE_OK)
		rc = sqlite3_bind_text(st, 1, t->name, -1, SQLITE_STATIC);
	while (rc == SQLITE_OK && (rc = sqlite3_step(st)) == SQLITE_ROW) {
		const char *col = (const char *)sqlite3_column_text(st, 0);
		const char *decl = (const char *)sqlite3_column_text(st, 1);
		const char *type = pg_type_of(cols, t->name, col);
		const char *sep = t->n ? ", " : "";

		rc = SQLITE_OK;
		if (!type || t->n >= (int)sizeof(t->kinds))
			continue;
		t->kinds[t->n++] = kind_of(decl ? decl : "");
		if (!many && !strcmp(t->name, "metric_series") &&
		    !strcmp(col, "session_id"))
			strbuf_addf(&t->select, "%s%s", sep, "CASE WHEN " SAMPLED
				    " THEN session_id END");
		else if (!strcmp(type, "jsonb"))
			strbuf_addf(&t->select, "%s\"%s\"::text", sep, col);
		else
			strbuf_addf(&t->select, "%s\"%s\"", sep, col);
		strbuf_addf(&t->insert, "%s\"%s\"", sep, col);
		/* jsonb writes "a": 1; SQLite's JSON is compact. */
		strbuf_adds(&values, !strcmp(type, "jsonb") ? (t->n > 1 ? ", json(?)" : "json(?)") :
			    (t->n > 1 ? ", ?" : "?"));
	}
	sqlite3_finalize(st);
	strbuf_addf(&t->insert, ") VALUES (%s)", strbuf_str(&values));
	if (strbuf_error(&values) || strbuf_error(&t->insert) || strbuf_error(&t->select))
		rc = SQLITE_NOMEM;
	strbuf_release(&values);
	if (rc != SQLITE_DONE && rc != SQLITE_OK)
		return errmsg_set(e, rc == SQLITE_NOMEM ? ENOMEM : EIO, "cannot read "
				  "the schema of table '%s': %s", t->name,
				  sqlite3_errmsg(db));
	return 0;
}

static int hexval(char ch)
{
	return ch >= '0' && ch <= '9' ? ch - '0' : ch >= 'a' && ch <= 'f' ? ch - 'a' + 10 :
	       ch >= 'A' && ch <= 'F' ? ch - 'A' + 10 : -1;
}

/* Undoes COPY text escapes in s[0..n) in place; its new length. */
static size_t unescape(char *s, size_t n)
{
	size_t i = 0, k = 0;

	while (i < n) {
		char ch = s[i++];

		if (ch != '\\' || i == n) {
			s[k++] = ch;
			continue;
		}
		ch = s[i++];
		switch (ch) {
		case 'b': s[k++] = '\b'; break;
		case 'f': s[k++] = '\f'; break;
		case 'n': s[k++] = '\n'; break;
		case 'r': s[k++] = '\r'; break;
		case 't': s[k++] = '\t'; break;
		case 'v': s[k++] = '\v'; break;
		case 'x': {
			int v = 0;

			for (int d = 0; d < 2 && i < n && hexval(s[i]) >= 0; d++)
				v = v * 16 + hexval(s[i++]);
			s[k++] = (char)v;
			break;
		}
		default:
			if (ch >= '0' && ch <= '7') {
				int v = ch - '0';

				for (int d = 0; d < 2 && i < n && s[i] >= '0' && s[i] <= '7'; d++)
					v = v * 8 + (s[i++] - '0');
				s[k++] = (char)v;
			} else {
				s[k++] = ch;
			}
		}
	}
	return k;
}

/* bytea's hex output (\x0a1b) in s[0..n) to its bytes, in place. */
static size_t unhex(char *s, size_t n)
{
	size_t k = 0;

	if (n < 2 || s[0] != '\\' || s[1] != 'x')
		return n;
	for (size_t i = 2; i + 1 < n; i += 2)
		s[k++] = (char)(hexval(s[i]) * 16 + hexval(s[i + 1]));
	return k;
}

/* Binds field i (s[0..n), NUL-ended at n; is_null: \N) as kind says. */
static int bind_field(sqlite3_stmt *st, int i, char kind, char *s, size_t n, int is_null)
{
	if (is_null)
		return sqlite3_bind_null(st, i);
	n = unescape(s, n);
	s[n] = '\0';
	switch (kind) {
	case 'i':
		return sqlite3_bind_int64(st, i, strtoll(s, NULL, 10));
	case 'r':
		return sqlite3_bind_double(st, i, strtod(s, NULL));
	case 'b':
		return sqlite3_bind_blob(st, i, s, (int)unhex(s, n), SQLITE_TRANSIENT);
	default:
		return sqlite3_bind_text(st, i, s, (int)n, SQLITE_TRANSIENT);
	}
}

/* One COPY line (len bytes, ending in '\n') into ins. */
static int insert_line(sqlite3_stmt *ins, const struct stage_table *t, char *line, int len)
{
	char *p = line, *end = line + len;
	int rc = SQLITE_OK;

	if (len > 0 && end[-1] == '\n')
		*--end = '\0';
	for (int i = 0; i < t->n && rc == SQLITE_OK; i++) {
		char *tab = memchr(p, '\t', (size_t)(end - p));
		char *stop = tab ? tab : end;

		rc = bind_field(ins, i + 1, t->kinds[i], p, (size_t)(stop - p),
				stop - p == 2 && p[0] == '\\' && p[1] == 'N');
		p = tab ? tab + 1 : end;
	}
	if (rc == SQLITE_OK && (rc = sqlite3_step(ins)) == SQLITE_DONE)
		rc = SQLITE_OK;
	sqlite3_reset(ins);
	return rc;
}

/* "session_id IN (...)" of the picked sessions, or TRUE for every one. */
static void pick_where(struct strbuf *sb, const struct stage_pick *p)
{
	if (!p->ids) {
		strbuf_adds(sb, "TRUE");
		return;
	}
	strbuf_adds(sb, "session_id IN (");
	for (size_t i = 0; i < p->n; i++)
		strbuf_addf(sb, "%s%" PRId64, i ? "," : "", p->ids[i]);
	strbuf_addc(sb, ')');
}

/* Streams t's rows of the picked sessions from c into db. */
static int copy_table(PGconn *c, sqlite3 *db, const struct stage_pick *p,
		      const PGresult *cols, const char *name, struct errmsg *e)
{
	struct stage_table t = { .name = name };
	sqlite3_stmt *ins = NULL;
	struct strbuf sql;
	PGresult *r;
	char *line = NULL;
	const char *order = "";	/* many sessions: a session's rows together */
	int err, rc = SQLITE_OK, len;

	strbuf_init(&t.select);
	strbuf_init(&t.insert);
	strbuf_init(&sql);
	err = plan_columns(db, cols, &t, p->many, e);
	if (err < 0 || t.n == 0)
		goto out;
	strbuf_addf(&sql, "COPY (SELECT %s FROM \"%s\" WHERE ", strbuf_str(&t.select), name);
	if (pg_type_of(cols, name, "session_id")) {
		pick_where(&sql, p);
		order = "session_id, ";
	} else if (pg_type_of(cols, name, "series_id")) {
		order = "series_id, ";
		strbuf_adds(&sql, "series_id IN (SELECT series_id FROM metric_series "
			    "WHERE ");
		pick_where(&sql, p);
		strbuf_addc(&sql, ')');
	} else
		goto out;	/* rows of no session: the export leaves them */
	/* The file's rowid; from an export that did not keep it, the order
	 * it wrote them in (ctid). */
	strbuf_addf(&sql, " ORDER BY %s%s) TO STDOUT", p->many ? order : "",
		    pg_type_of(cols, name, "rowid") ? "\"rowid\", ctid" : "ctid");
	if (strbuf_error(&sql)) {
		err = errmsg_set(e, ENOMEM, "out of memory");
		goto out;
	}
	if (sqlite3_prepare_v2(db, strbuf_str(&t.insert), -1, &ins, NULL) != SQLITE_OK) {
		err = errmsg_set(e, EIO, "cannot copy table '%s': %s", name,
				 sqlite3_errmsg(db));
		goto out;
	}
	r = PQexec(c, strbuf_str(&sql));
	if (PQresultStatus(r) != PGRES_COPY_OUT)
		err = pg_fail(c, r, "cannot read a session from PostgreSQL", e);
	PQclear(r);
	while (err == 0 && (len = PQgetCopyData(c, &line, 0)) > 0) {
		if (rc == SQLITE_OK)
			rc = insert_line(ins, &t, line, len);
		PQfreemem(line);
	}
	if (err == 0) {
		r = PQgetResult(c);
		if (PQresultStatus(r) != PGRES_COMMAND_OK)
			err = pg_fail(c, r, "cannot read a session from PostgreSQL", e);
		PQclear(r);
		while ((r = PQgetResult(c)))
			PQclear(r);
	}
	if (err == 0 && rc != SQLITE_OK)
		err = errmsg_set(e, rc == SQLITE_NOMEM ? ENOMEM : EIO, "cannot copy "
				 "table '%s' of a session: %s", name,
				 sqlite3_errmsg(db));
out:
	sqlite3_finalize(ins);
	strbuf_release(&sql);
	strbuf_release(&t.select);
	strbuf_release(&t.insert);
	return err;
}

static int wanted(const char *const *tables, const char *name)
{
	if (!tables)
		return 1;
	for (; *tables; tables++)
		if (!strcmp(*tables, name))
			return 1;
	return 0;
}

/* The faultline tables of db, in schema order: a NULL-ended array. */
static int db_tables(sqlite3 *db, char ***out)
{
	sqlite3_stmt *st = NULL;
	size_t n = 0, cap = 0;
	int rc = sqlite3_prepare_v2(db, "SELECT name FROM sqlite_master WHERE type = "
				    "'table' ORDER BY rowid", -1, &st, NULL);

	*out = NULL;
	while (rc == SQLITE_OK && (rc = sqlite3_step(st)) == SQLITE_ROW) {
		rc = SQLITE_OK;
		if (ARRAY_RESERVE(*out, cap, n + 2) < 0 ||
		    !((*out)[n] = strdup((const char *)sqlite3_column_text(st, 0)))) {
			rc = SQLITE_NOMEM;
			break;
		}
		(*out)[++n] = NULL;
	}
	sqlite3_finalize(st);
	return rc == SQLITE_DONE && *out ? 0 : -ENOMEM;
}

static int stage(PGconn *c, const struct stage_pick *p, const char *const *tables,
		 sqlite3 *db, struct errmsg *e)
{
	char **all = NULL;
	PGresult *cols;
	int err;

	cols = PQexec(c, "SELECT table_name, column_name, data_type FROM "
		      "information_schema.columns WHERE table_schema = current_schema()");
	if (PQresultStatus(cols) != PGRES_TUPLES_OK) {
		err = pg_fail(c, cols, "cannot read the tables of PostgreSQL", e);
		PQclear(cols);
		return err;
	}
	err = db_tables(db, &all) < 0 ? errmsg_set(e, ENOMEM, "out of memory") : 0;
	if (err == 0 && sqlite3_exec(db, "BEGIN", NULL, NULL, NULL) != SQLITE_OK)
		err = errmsg_set(e, EIO, "cannot begin: %s", sqlite3_errmsg(db));
	for (size_t i = 0; err == 0 && all[i]; i++)
		if (wanted(tables, all[i]))
			err = copy_table(c, db, p, cols, all[i], e);
	if (err == 0 && sqlite3_exec(db, "COMMIT", NULL, NULL, NULL) != SQLITE_OK)
		err = errmsg_set(e, EIO, "cannot commit: %s", sqlite3_errmsg(db));
	if (err == 0 && sqlite3_exec(db, indexes_sql, NULL, NULL, NULL) != SQLITE_OK)
		err = errmsg_set(e, EIO, "cannot index: %s", sqlite3_errmsg(db));
	for (size_t i = 0; all && all[i]; i++)
		free(all[i]);
	free(all);
	PQclear(cols);
	return err;
}

int pg_stage_session(PGconn *c, int64_t id, const char *const *tables,
		     sqlite3 *db, struct errmsg *e)
{
	const struct stage_pick p = { &id, 1, 0 };

	return stage(c, &p, tables, db, e);
}

int pg_stage_sessions(PGconn *c, const int64_t *ids, size_t n,
		      const char *const *tables, sqlite3 *db, struct errmsg *e)
{
	const struct stage_pick p = { ids, n, 1 };

	if (ids && n == 0)
		return 0;
	return stage(c, &p, tables, db, e);
}

struct reads {
	char **v;		/* owned, NULL-ended */
	size_t n, cap;
	int nomem;
};

static int note_read(void *arg, int action, const char *table, const char *col,
		     const char *db, const char *trigger)
{
	struct reads *r = arg;

	(void)col;
	(void)db;
	(void)trigger;
	if (action != SQLITE_READ || !table || r->nomem)
		return SQLITE_OK;
	for (size_t i = 0; i < r->n; i++)
		if (!strcmp(r->v[i], table))
			return SQLITE_OK;
	if (ARRAY_RESERVE(r->v, r->cap, r->n + 2) < 0 || !(r->v[r->n] = strdup(table))) {
		r->nomem = 1;
		return SQLITE_OK;
	}
	r->v[++r->n] = NULL;
	return SQLITE_OK;
}

int pg_stage_tables_read(sqlite3 *db, const char *sql, char ***out, struct errmsg *e)
{
	struct reads r = { NULL, 0, 0, 0 };
	sqlite3_stmt *st = NULL;
	int rc;

	sqlite3_set_authorizer(db, note_read, &r);
	rc = sqlite3_prepare_v2(db, sql, -1, &st, NULL);
	sqlite3_set_authorizer(db, NULL, NULL);
	sqlite3_finalize(st);
	if (rc == SQLITE_OK && !r.nomem && !r.v && ARRAY_RESERVE(r.v, r.cap, 1) == 0)
		r.v[0] = NULL;
	if (rc != SQLITE_OK || r.nomem || !r.v) {
		if (rc != SQLITE_OK)
			errmsg_set(e, EINVAL, "%s", sqlite3_errmsg(db));
		pg_stage_tables_free(r.v);
		return rc != SQLITE_OK ? -EINVAL : -ENOMEM;
	}
	*out = r.v;
	return 0;
}

void pg_stage_tables_free(char **tables)
{
	for (size_t i = 0; tables && tables[i]; i++)
		free(tables[i]);
	free(tables);
}
