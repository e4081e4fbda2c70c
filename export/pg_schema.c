#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../common/array.h"
#include "../common/strbuf.h"
#include "../schema/db.h"
#include "pg_conn.h"
#include "pg_schema.h"

/* The canonical secondary indexes (schema/indexes.sql, embedded). */
extern const char indexes_sql[];

/* TEXT columns that hold a JSON object: jsonb in PostgreSQL. */
static const struct { const char *table, *column; } json_columns[] = {
	{ "session", "options" },
	{ "session", "labels" },
	{ "metric_series", "labels" },
	{ "tracepoint_event", "fields" },
};

/* The tables whose own id PostgreSQL gives; their key is PRIMARY KEY. */
static int owns_id(const struct pg_table *t, size_t col)
{
	return (!strcmp(t->name, "session") && (int)col == t->session_col) ||
	       (!strcmp(t->name, "metric_series") && (int)col == t->series_col);
}

static const char *pg_type(const char *table, const char *column, const char *decl)
{
	for (size_t i = 0; i < ARRAY_SIZE(json_columns); i++)
		if (!strcmp(json_columns[i].table, table) &&
		    !strcmp(json_columns[i].column, column))
			return "jsonb";
	if (strstr(decl, "INT"))
		return "bigint";
	if (strstr(decl, "REAL") || strstr(decl, "FLOA") || strstr(decl, "DOUB"))
		return "double precision";
	if (strstr(decl, "BLOB"))
		return "bytea";
	return "text";
}

void pg_tables_release(struct pg_tables *t)
{
	for (size_t i = 0; i < t->n; i++) {
		for (size_t k = 0; k < t->t[i].ncols; k++)
			free(t->t[i].cols[k].name);
		free(t->t[i].cols);
		free(t->t[i].name);
	}
	free(t->t);
	free(t->index_sql);
	memset(t, 0, sizeof(*t));
}

const struct pg_table *pg_tables_find(const struct pg_tables *t, const char *name)
{
	for (size_t i = 0; i < t->n; i++)
		if (!strcmp(t->t[i].name, name))
			return &t->t[i];
	return NULL;
}

static int read_columns(sqlite3 *db, struct pg_table *t)
{
	sqlite3_stmt *st = NULL;
	int rc = sqlite3_prepare_v2(db, "SELECT name, upper(type), \"notnull\", pk "
				    "FROM pragma_table_info(?1) ORDER BY cid",
				    -1, &st, NULL);

	if (rc == SQLITE_OK)
		rc = sqlite3_bind_text(st, 1, t->name, -1, SQLITE_STATIC);
	while (rc == SQLITE_OK && (rc = sqlite3_step(st)) == SQLITE_ROW) {
		const char *name = (const char *)sqlite3_column_text(st, 0);
		const char *decl = (const char *)sqlite3_column_text(st, 1);
		struct pg_column *c;

		if (ARRAY_RESERVE(t->cols, t->cols_cap, t->ncols + 1) < 0) {
			rc = SQLITE_NOMEM;
			break;
		}
		c = &t->cols[t->ncols];
		c->name = strdup(name ? name : "");
		if (!c->name) {
			rc = SQLITE_NOMEM;
			break;
		}
		c->type = pg_type(t->name, c->name, decl ? decl : "");
		c->not_null = sqlite3_column_int(st, 2);
		c->key = sqlite3_column_int(st, 3);
		c->int_decl = decl && !strcmp(decl, "INTEGER");
		if (!strcmp(c->name, "session_id"))
			t->session_col = (int)t->ncols;
		if (!strcmp(c->name, "series_id"))
			t->series_col = (int)t->ncols;
		t->ncols++;
		rc = SQLITE_OK;
	}
	sqlite3_finalize(st);
	return rc == SQLITE_DONE ? SQLITE_OK : rc;
}

/* Adds column "rowid" to t when the file's rows have a rowid of their
 * own (not WITHOUT ROWID, no INTEGER PRIMARY KEY naming it): the views
 * and the readers name rows by it (a thread_state row of a finding), so
 * a session copied back out (pg_stage.h) keeps the file's. */
static int add_rowid(sqlite3 *db, struct pg_table *t)
{
	sqlite3_stmt *st = NULL;
	char sql[300];
	int npk = 0, alias = 0;

	for (size_t i = 0; i < t->ncols; i++)
		npk += t->cols[i].key > 0;
	for (size_t i = 0; i < t->ncols; i++)
		alias |= npk == 1 && t->cols[i].key == 1 && t->cols[i].int_decl;
	snprintf(sql, sizeof(sql), "SELECT rowid FROM \"%s\"", t->name);
	if (alias || sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK) {
		sqlite3_finalize(st);
		return SQLITE_OK;	/* WITHOUT ROWID */
	}
	sqlite3_finalize(st);
	if (ARRAY_RESERVE(t->cols, t->cols_cap, t->ncols + 1) < 0)
		return SQLITE_NOMEM;
	memset(&t->cols[t->ncols], 0, sizeof(t->cols[0]));
	t->cols[t->ncols].name = strdup("rowid");
	t->cols[t->ncols].type = "bigint";
	if (!t->cols[t->ncols].name)
		return SQLITE_NOMEM;
	t->ncols++;
	return SQLITE_OK;
}

/* The file's CREATE INDEX statements, IF NOT EXISTS, into sb. */
static int read_indexes(sqlite3 *db, struct strbuf *sb)
{
	sqlite3_stmt *st = NULL;
	int rc = sqlite3_prepare_v2(db, "SELECT sql FROM sqlite_master WHERE "
				    "type = 'index' AND sql IS NOT NULL", -1, &st, NULL);

	while (rc == SQLITE_OK && (rc = sqlite3_step(st)) == SQLITE_ROW) {
		const char *sql = (const char *)sqlite3_column_text(st, 0);
		const char *rest;

		rc = SQLITE_OK;
		if (!sql || !(rest = strstr(sql, "INDEX ")) || strstr(sql, "IF NOT EXISTS"))
			continue;
		rest += 6;
		strbuf_add(sb, sql, (size_t)(rest - sql));
		strbuf_adds(sb, "IF NOT EXISTS ");
		strbuf_adds(sb, rest);
		strbuf_adds(sb, ";\n");
	}
	sqlite3_finalize(st);
	return rc == SQLITE_DONE ? SQLITE_OK : rc;
}

int pg_tables_read(sqlite3 *db, const char *path, struct pg_tables *out,
		   struct errmsg *e)
{
	sqlite3_stmt *st = NULL;
	struct strbuf sb;
	int rc;

	memset(out, 0, sizeof(*out));
	strbuf_init(&sb);
	rc = sqlite3_prepare_v2(db, "SELECT name FROM sqlite_master WHERE type = "
				"'table' AND name NOT LIKE 'sqlite_%' ORDER BY rowid",
				-1, &st, NULL);
	while (rc == SQLITE_OK && (rc = sqlite3_step(st)) == SQLITE_ROW) {
		const char *name = (const char *)sqlite3_column_text(st, 0);
		struct pg_table *t;

		if (ARRAY_RESERVE(out->t, out->cap, out->n + 1) < 0) {
			rc = SQLITE_NOMEM;
			break;
		}
		t = &out->t[out->n];
		memset(t, 0, sizeof(*t));
		t->session_col = t->series_col = -1;
		t->name = strdup(name ? name : "");
		if (!t->name) {
			rc = SQLITE_NOMEM;
			break;
		}
		out->n++;
		rc = read_columns(db, t);
		if (rc == SQLITE_OK)
			rc = add_rowid(db, t);
	}
	sqlite3_finalize(st);
	if (rc == SQLITE_DONE)
		rc = read_indexes(db, &sb);
	if (rc == SQLITE_OK && strbuf_error(&sb))
		rc = SQLITE_NOMEM;
	if (rc == SQLITE_OK) {
		out->index_sql = strbuf_detach(&sb);
		if (!out->index_sql)
			out->index_sql = strdup("");
		if (!out->index_sql)
			rc = SQLITE_NOMEM;
	}
	strbuf_release(&sb);
	if (rc != SQLITE_OK) {
		pg_tables_release(out);
		return db_fail(db, rc, path, "cannot read the tables of", e);
	}
	return 0;
}

int pg_schema_use(PGconn *c, const char *schema, struct errmsg *e)
{
	char q[300], sql[400];

	if (pg_ident(schema, q, sizeof(q)) < 0)
		return errmsg_set(e, ENAMETOOLONG, "schema name '%s' is too long", schema);
	snprintf(sql, sizeof(sql), "SET search_path TO %s", q);
	return pg_exec(c, sql, "cannot use the schema", e);
}

int pg_schema_open(PGconn *c, const char *schema, struct errmsg *e)
{
	const char *params[] = { schema };
	int err = pg_schema_use(c, schema, e);
	PGresult *r;

	if (err < 0)
		return err;
	r = PQexecParams(c, "SELECT 1 FROM information_schema.tables WHERE "
			 "table_schema = $1 AND table_name = 'session'", 1, NULL,
			 params, NULL, NULL, 0);
	if (PQresultStatus(r) != PGRES_TUPLES_OK)
		err = pg_fail(c, r, "cannot read the tables of PostgreSQL", e);
	else if (PQntuples(r) == 0)
		err = errmsg_set(e, ENOENT, "schema '%s' holds no faultline tables; "
				 "load sessions there with faultline export DB --to "
				 "URL --schema %s, or name the schema they are in",
				 schema, schema);
	PQclear(r);
	return err;
}

static void create_table(struct strbuf *sb, const struct pg_table *t)
{
	strbuf_addf(sb, "CREATE TABLE \"%s\" (", t->name);
	for (size_t i = 0; i < t->ncols; i++)
		strbuf_addf(sb, "%s\n\t\"%s\" %s%s%s", i ? "," : "", t->cols[i].name,
			    t->cols[i].type, t->cols[i].not_null ? " NOT NULL" : "",
			    owns_id(t, i) ? " PRIMARY KEY" : "");
	strbuf_adds(sb, "\n);\n");
}

/* Is ts (CLOCK_REALTIME ns) what this column holds? */
static int is_time(const struct pg_column *c)
{
	size_t n = strlen(c->name);

	return !strcmp(c->type, "bigint") &&
	       (!strcmp(c->name, "ts") || (n > 3 && !strcmp(c->name + n - 3, "_ts")));
}

static void create_view(struct strbuf *sb, const struct pg_table *t)
{
	int any = 0;

	for (size_t i = 0; i < t->ncols; i++)
		any |= is_time(&t->cols[i]);
	if (!any)
		return;
	strbuf_addf(sb, "DROP VIEW IF EXISTS \"%s_tz\";\nCREATE VIEW \"%s_tz\" AS "
		    "SELECT", t->name, t->name);
	for (size_t i = 0; i < t->ncols; i++) {
		const char *n = t->cols[i].name;

		strbuf_addf(sb, "%s \"%s\"", i ? "," : "", n);
		if (is_time(&t->cols[i]))
			strbuf_addf(sb, ", timestamptz 'epoch' + (\"%s\" / 1000) * "
				    "interval '1 microsecond' AS \"%s_time\"", n, n);
	}
	strbuf_addf(sb, " FROM \"%s\";\n", t->name);
}

/* Checks table t against what PostgreSQL holds of it (rows of r:
 * table_name, column_name, data_type, is_nullable, has_default) and adds
 * what is missing to sb. */
static int check_table(const struct pg_table *t, PGresult *r, const char *schema,
		       struct strbuf *sb, struct errmsg *e)
{
	int n = PQntuples(r), have = 0, ident = 0;
	int idcol = t->session_col >= 0 ? t->session_col : t->series_col;

	for (int i = 0; i < n; i++) {
		const char *col = PQgetvalue(r, i, 1), *type = PQgetvalue(r, i, 2);
		int known = 0;

		if (strcmp(PQgetvalue(r, i, 0), t->name))
			continue;
		have++;
		for (size_t k = 0; k < t->ncols; k++) {
			if (strcmp(t->cols[k].name, col))
				continue;
			known = 1;
			ident |= (int)k == idcol;
			if (strcmp(t->cols[k].type, type))
				return errmsg_set(e, EEXIST, "schema '%s' holds a table "
						  "'%s' whose column '%s' is %s, not %s: it "
						  "is not faultline's; export into another "
						  "schema (--schema) or drop that table",
						  schema, t->name, col, type, t->cols[k].type);
		}
		if (!known && !strcmp(PQgetvalue(r, i, 3), "NO") &&
		    !strcmp(PQgetvalue(r, i, 4), "f"))
			return errmsg_set(e, EEXIST, "schema '%s' holds a table '%s' "
					  "with a column '%s' that faultline does not "
					  "fill and that may not be NULL: it is not "
					  "faultline's; export into another schema "
					  "(--schema) or drop that table", schema,
					  t->name, col);
	}
	if (!have) {
		create_table(sb, t);
		return 0;
	}
	if (idcol >= 0 && !ident)
		return errmsg_set(e, EEXIST, "schema '%s' holds a table '%s' without "
				  "a column '%s': it is not faultline's; export into "
				  "another schema (--schema) or drop that table",
				  schema, t->name, t->cols[idcol].name);
	for (size_t k = 0; k < t->ncols; k++) {
		int found = 0;

		for (int i = 0; i < n && !found; i++)
			found = !strcmp(PQgetvalue(r, i, 0), t->name) &&
				!strcmp(PQgetvalue(r, i, 1), t->cols[k].name);
		if (!found)
			strbuf_addf(sb, "ALTER TABLE \"%s\" ADD COLUMN \"%s\" %s;\n",
				    t->name, t->cols[k].name, t->cols[k].type);
	}
	return 0;
}

static int existing_columns(PGconn *c, const char *schema, PGresult **out,
			    struct errmsg *e)
{
	const char *params[] = { schema };
	PGresult *r = PQexecParams(c, "SELECT table_name, column_name, data_type, "
				   "is_nullable, column_default IS NOT NULL "
				   "FROM information_schema.columns WHERE "
				   "table_schema = $1", 1, NULL, params, NULL, NULL, 0);

	if (PQresultStatus(r) != PGRES_TUPLES_OK) {
		int err = pg_fail(c, r, "cannot read the tables of PostgreSQL", e);

		PQclear(r);
		return err;
	}
	*out = r;
	return 0;
}

int pg_schema_prepare(PGconn *c, const char *schema, const struct pg_tables *t,
		      struct errmsg *e)
{
	char q[300];
	PGresult *r = NULL;
	struct strbuf sb;
	int err;

	strbuf_init(&sb);
	if (pg_ident(schema, q, sizeof(q)) < 0)
		return errmsg_set(e, ENAMETOOLONG, "schema name '%s' is too long", schema);
	err = pg_exec(c, "BEGIN; SELECT pg_advisory_xact_lock(hashtext('faultline "
		      "schema'))", "cannot begin", e);
	if (err == 0) {
		strbuf_addf(&sb, "CREATE SCHEMA IF NOT EXISTS %s; SET LOCAL "
			    "search_path TO %s", q, q);
		err = strbuf_error(&sb) ? -ENOMEM :
			pg_exec(c, strbuf_str(&sb), "cannot create the schema", e);
		strbuf_reset(&sb);
	}
	if (err == 0)
		err = existing_columns(c, schema, &r, e);
	strbuf_adds(&sb, "CREATE SEQUENCE IF NOT EXISTS session_id_seq;\n"
		    "CREATE SEQUENCE IF NOT EXISTS series_id_seq;\n");
	for (size_t i = 0; err == 0 && i < t->n; i++)
		err = check_table(&t->t[i], r, schema, &sb, e);
	for (size_t i = 0; err == 0 && i < t->n; i++)
		create_view(&sb, &t->t[i]);
	/* Re-exporting a session changes nothing: its uuid is found, and two
	 * exporters of one session at once cannot both commit it. */
	strbuf_adds(&sb, "CREATE UNIQUE INDEX IF NOT EXISTS session_uuid ON "
		    "session (uuid);\n");
	if (err == 0 && strbuf_error(&sb))
		err = errmsg_set(e, ENOMEM, "out of memory");
	if (err == 0)
		err = pg_exec(c, strbuf_str(&sb), "cannot create the tables", e);
	if (err == 0)
		err = pg_exec(c, "COMMIT", "cannot create the tables", e);
	else if (PQstatus(c) == CONNECTION_OK)
		PQclear(PQexec(c, "ROLLBACK"));
	PQclear(r);
	strbuf_release(&sb);
	return err;
}

/* The index name of a "CREATE ... INDEX IF NOT EXISTS name ..." statement:
 * its start, and its length in *n; NULL when there is none. */
static const char *index_name(const char *sql, size_t len, size_t *n)
{
	const char *p = memmem(sql, len, "EXISTS ", 7);

	if (!p)
		return NULL;
	p += 7;
	*n = strcspn(p, " (");
	return p + *n <= sql + len ? p : NULL;
}

/* Does the statement sql (len bytes) make the index that stmt makes? */
static int same_index(const char *stmt, const char *sql, size_t len)
{
	size_t n1 = 0, n2 = 0;
	const char *a = index_name(stmt, strlen(stmt), &n1);
	const char *b = index_name(sql, len, &n2);

	return a && b && n1 == n2 && !memcmp(a, b, n1);
}

/* The CREATE INDEX statements to run, one a string, split from sql at
 * each ';' (the files hold none in their comments), each index once
 * (schema/indexes.sql and the file name the same ones). */
static int split_statements(const char *sql, char ***out, size_t *n, size_t *cap)
{
	while (*sql) {
		const char *end = strchr(sql, ';');
		size_t len = end ? (size_t)(end - sql) : strlen(sql);
		const char *p = sql;
		int has_sql = 0;

		/* Only comments and blanks: nothing to run. */
		while (p < sql + len && !has_sql) {
			if (p[0] == '-' && p[1] == '-') {
				const char *nl = memchr(p, '\n', (size_t)(sql + len - p));

				p = nl ? nl + 1 : sql + len;
			} else {
				has_sql = !(*p == ' ' || *p == '\t' || *p == '\n');
				p++;
			}
		}
		for (size_t i = 0; has_sql && i < *n; i++)
			has_sql = !same_index((*out)[i], sql, len);
		if (has_sql) {
			if (ARRAY_RESERVE(*out, *cap, *n + 1) < 0)
				return -ENOMEM;
			if (!((*out)[*n] = strndup(sql, len)))
				return -ENOMEM;
			(*n)++;
		}
		sql += len + (end ? 1 : 0);
	}
	return 0;
}

/* The statements' work, shared by the connections that build them. */
struct index_work {
	const char *target, *schema;
	char **stmts;		/* borrowed */
	size_t n;
	size_t next;		/* the next statement to take; under lock */
	int err;		/* the first failure; under lock */
	struct errmsg *e;	/* the caller's, set with the first failure */
	pthread_mutex_t lock;
};

/* Takes the transaction's lock on the index stmt makes. */
static int lock_index(PGconn *c, const char *schema, const char *stmt,
		      struct errmsg *e)
{
	size_t n = 0;
	const char *name = index_name(stmt, strlen(stmt), &n);
	char key[512];
	const char *params[] = { key };
	PGresult *r;
	int err = 0;

	snprintf(key, sizeof(key), "faultline index %s.%.*s", schema, (int)n,
		 name ? name : "");
	r = PQexecParams(c, "SELECT pg_advisory_xact_lock(hashtext($1))", 1, NULL,
			 params, NULL, NULL, 0);
	if (PQresultStatus(r) != PGRES_TUPLES_OK)
		err = pg_fail(c, r, "cannot index the tables", e);
	PQclear(r);
	return err;
}

static void *index_worker(void *arg)
{
	struct index_work *w = arg;
	struct errmsg e;
	PGconn *c = NULL;
	int err;

	errmsg_init(&e);
	err = pg_connect(w->target, &c, &e);
	if (err == 0)
		err = pg_schema_use(c, w->schema, &e);
	for (;;) {
		size_t i;

		pthread_mutex_lock(&w->lock);
		if (err < 0 && w->err == 0) {
			w->err = err;
			snprintf(w->e->text, sizeof(w->e->text), "%s", e.text);
		}
		i = w->err < 0 ? w->n : w->next++;
		pthread_mutex_unlock(&w->lock);
		if (i >= w->n)
			break;
		/* Two exporters at once may build the same index: the second
		 * waits, then finds it. */
		err = pg_exec(c, "BEGIN", "cannot index the tables", &e);
		if (err == 0)
			err = lock_index(c, w->schema, w->stmts[i], &e);
		if (err == 0)
			err = pg_exec(c, w->stmts[i], "cannot index the tables", &e);
		if (err == 0)
			err = pg_exec(c, "COMMIT", "cannot index the tables", &e);
	}
	PQfinish(c);
	return NULL;
}

int pg_schema_indexes(const char *target, const char *schema,
		      const struct pg_tables *t, int jobs, struct errmsg *e)
{
	struct index_work w = { target, schema, NULL, 0, 0, 0, e,
				PTHREAD_MUTEX_INITIALIZER };
	pthread_t threads[PG_JOBS_MAX];
	struct strbuf sb;
	size_t cap = 0;
	int err = 0, started = 0;

	strbuf_init(&sb);
	strbuf_adds(&sb, indexes_sql);
	strbuf_adds(&sb, t->index_sql);
	for (size_t i = 0; i < t->n; i++) {
		const struct pg_table *tb = &t->t[i];
		int nkey = 0, first = 1;

		for (size_t k = 0; k < tb->ncols; k++)
			nkey += tb->cols[k].key > 0;
		if (!nkey || (tb->session_col >= 0 && owns_id(tb, (size_t)tb->session_col)) ||
		    (tb->series_col >= 0 && owns_id(tb, (size_t)tb->series_col)))
			continue;
		strbuf_addf(&sb, "CREATE UNIQUE INDEX IF NOT EXISTS \"%s_key\" ON "
			    "\"%s\" (", tb->name, tb->name);
		for (int pos = 1; pos <= nkey; pos++)
			for (size_t k = 0; k < tb->ncols; k++)
				if (tb->cols[k].key == pos) {
					strbuf_addf(&sb, "%s\"%s\"", first ? "" : ", ",
						    tb->cols[k].name);
					first = 0;
				}
		strbuf_adds(&sb, ");\n");
	}
	if (strbuf_error(&sb) ||
	    split_statements(strbuf_str(&sb), &w.stmts, &w.n, &cap) < 0)
		err = errmsg_set(e, ENOMEM, "out of memory");
	if (jobs < 1)
		jobs = 1;
	if (jobs > PG_JOBS_MAX)
		jobs = PG_JOBS_MAX;
	/* The largest tables' indexes come first in the list: each
	 * connection takes the next one as it finishes its last. */
	for (int i = 0; err == 0 && i < jobs; i++) {
		if (pthread_create(&threads[i], NULL, index_worker, &w) != 0) {
			if (!started)
				err = errmsg_set(e, EAGAIN, "cannot start a thread to "
						 "build the indexes");
			break;
		}
		started++;
	}
	for (int i = 0; i < started; i++)
		pthread_join(threads[i], NULL);
	if (err == 0)
		err = w.err;
	for (size_t i = 0; i < w.n; i++)
		free(w.stmts[i]);
	free(w.stmts);
	strbuf_release(&sb);
	return err;
}
