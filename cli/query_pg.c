/*
 * The query's :name parameters become $N (N: the parameter's place in
 * the header), bound as text and typed by the header (INTEGER and
 * DURATION bigint, REAL double precision, TEXT and LABEL text), so "$1 IS NULL"
 * has a type.  The answer is put into an in-memory SQLite table, typed by
 * each column's PostgreSQL type, and written by table_out from there:
 * one writer, and the same text for the same values on both engines.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../common/strbuf.h"
#include "../export/pg_conn.h"
#include "../export/pg_functions.h"
#include "../export/pg_schema.h"
#include "query_pg.h"
#include "query_run.h"
#include "usage.h"

/* PostgreSQL type oids (pg_type.h): what a value is read back as. */
enum {
	OID_BOOL = 16, OID_INT8 = 20, OID_INT2 = 21, OID_INT4 = 23, OID_TEXT = 25,
	OID_OID = 26, OID_FLOAT4 = 700, OID_FLOAT8 = 701, OID_NUMERIC = 1700,
};

static int is_word(char ch, int first)
{
	return (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || ch == '_' ||
	       (!first && ch >= '0' && ch <= '9');
}

/* q->sql with each :name made $N, into sb; -EBADMSG with e set when a
 * name is not declared. */
static int rewrite(const struct query_def *q, struct strbuf *sb, struct errmsg *e)
{
	const char *p = q->sql;

	while (*p) {
		if (p[0] == '-' && p[1] == '-') {
			const char *end = strchr(p, '\n');
			size_t n = end ? (size_t)(end - p) : strlen(p);

			strbuf_add(sb, p, n);
			p += n;
		} else if (*p == '\'' || *p == '"') {
			const char *end = strchr(p + 1, *p);
			size_t n = end ? (size_t)(end - p + 1) : strlen(p);

			strbuf_add(sb, p, n);
			p += n;
		} else if (p[0] == ':' && p[1] == ':') {
			strbuf_add(sb, p, 2);
			p += 2;
		} else if (p[0] == ':' && is_word(p[1], 1)) {
			const char *n = ++p;
			size_t i;

			while (is_word(*p, 0))
				p++;
			for (i = 0; i < q->nparams; i++)
				if (strlen(q->params[i].name) == (size_t)(p - n) &&
				    !strncmp(q->params[i].name, n, (size_t)(p - n)))
					break;
			if (i == q->nparams)
				return errmsg_set(e, EBADMSG, "query '%s' uses :%.*s, which "
						  "its header does not declare under "
						  "Parameters; declare it as ':name TYPE what'",
						  q->name, (int)(p - n), n);
			strbuf_addf(sb, "$%zu", i + 1);
		} else {
			strbuf_addc(sb, *p++);
		}
	}
	return strbuf_error(sb) ? errmsg_set(e, ENOMEM, "out of memory") : 0;
}

/* The parameters' values (text, or NULL) and types, from args and the
 * defaults.  values[i] points into bufs (nparams * 256 bytes). */
static int values_of(const struct query_def *q, char *const *args, int nargs,
		     const char **values, Oid *types, char *bufs, struct errmsg *e)
{
	int err = query_check_args(q, args, nargs, e);

	for (size_t i = 0; err == 0 && i < q->nparams; i++) {
		const struct query_param *p = &q->params[i];
		const char *v = query_arg_value(args, nargs, p->name);

		types[i] = p->type == QT_REAL ? OID_FLOAT8 :
			   p->type == QT_TEXT || p->type == QT_LABEL ? OID_TEXT :
			   OID_INT8;
		if (!v && p->required)
			return errmsg_set(e, EINVAL, "query '%s' needs %s=%s (%s)",
					  q->name, p->name, query_type_name(p->type),
					  p->help ? p->help : "no description");
		if (!v)
			v = p->def;
		values[i] = NULL;
		if (v) {
			err = query_value_text(p, v, bufs + 256 * i, 256, e);
			values[i] = bufs + 256 * i;
		}
		if (err < 0 && !query_arg_value(args, nargs, p->name))
			return errmsg_set(e, EBADMSG, "query '%s': the default of :%s "
					  "is not a valid %s", q->name, p->name,
					  query_type_name(p->type));
	}
	return err;
}

/* Binds one value of r as its column's type says. */
static int bind_cell(sqlite3_stmt *st, int i, const PGresult *r, int row, int col)
{
	const char *v = PQgetvalue(r, row, col);

	if (PQgetisnull(r, row, col))
		return sqlite3_bind_null(st, i);
	switch (PQftype(r, col)) {
	case OID_INT2: case OID_INT4: case OID_INT8: case OID_OID:
		return sqlite3_bind_int64(st, i, strtoll(v, NULL, 10));
	case OID_NUMERIC:
		/* sum() of integers is numeric here, an integer in SQLite:
		 * a value without a fraction or exponent is one. */
		if (!strpbrk(v, ".eEN") && strlen(v) < 19)
			return sqlite3_bind_int64(st, i, strtoll(v, NULL, 10));
		return sqlite3_bind_double(st, i, strtod(v, NULL));
	case OID_FLOAT4: case OID_FLOAT8:
		return sqlite3_bind_double(st, i, strtod(v, NULL));
	case OID_BOOL:
		return sqlite3_bind_int(st, i, *v == 't');
	default:
		return sqlite3_bind_text(st, i, v, -1, SQLITE_STATIC);
	}
}

/* r's rows into table r of a new in-memory database *out; *st selects
 * them back, in order. */
static int stage(const PGresult *r, sqlite3 **out, sqlite3_stmt **sel)
{
	int ncol = PQnfields(r), rc;
	sqlite3_stmt *ins = NULL;
	struct strbuf sb;

	strbuf_init(&sb);
	rc = sqlite3_open(":memory:", out);
	strbuf_adds(&sb, "CREATE TABLE r (");
	for (int i = 0; i < ncol; i++) {
		const char *name = PQfname(r, i);

		strbuf_adds(&sb, i ? ", \"" : "\"");
		for (; *name; name++) {
			if (*name == '"')
				strbuf_addc(&sb, '"');
			strbuf_addc(&sb, *name);
		}
		strbuf_addc(&sb, '"');
	}
	strbuf_adds(&sb, ")");
	if (rc == SQLITE_OK)
		rc = strbuf_error(&sb) ? SQLITE_NOMEM :
			sqlite3_exec(*out, strbuf_str(&sb), NULL, NULL, NULL);
	strbuf_reset(&sb);
	strbuf_adds(&sb, "INSERT INTO r VALUES (");
	for (int i = 0; i < ncol; i++)
		strbuf_adds(&sb, i ? ", ?" : "?");
	strbuf_adds(&sb, ")");
	if (rc == SQLITE_OK)
		rc = sqlite3_prepare_v2(*out, strbuf_str(&sb), -1, &ins, NULL);
	for (int row = 0; rc == SQLITE_OK && row < PQntuples(r); row++) {
		for (int i = 0; rc == SQLITE_OK && i < ncol; i++)
			rc = bind_cell(ins, i + 1, r, row, i);
		if (rc == SQLITE_OK && (rc = sqlite3_step(ins)) == SQLITE_DONE)
			rc = sqlite3_reset(ins);
	}
	sqlite3_finalize(ins);
	strbuf_release(&sb);
	if (rc == SQLITE_OK)
		rc = sqlite3_prepare_v2(*out, "SELECT * FROM r ORDER BY rowid", -1, sel, NULL);
	return rc == SQLITE_OK ? 0 : -ENOMEM;
}

/* Runs sql read-only in schema on c: *out the answer (caller clears). */
static int run_sql(PGconn *c, const char *schema, const struct query_def *q,
		   const char *sql, const char **values, const Oid *types,
		   PGresult **out, struct errmsg *e)
{
	char what[300];
	int err = pg_schema_open(c, schema, e);

	/* The SQLite built-ins the query may use (pg_functions.h). */
	if (err == 0)
		err = pg_functions_current(c, e);
	if (err == 0)
		err = pg_exec(c, "BEGIN READ ONLY", "cannot begin", e);
	if (err < 0)
		return err;
	*out = PQexecParams(c, sql, (int)q->nparams, types, values, NULL, NULL, 0);
	if (PQresultStatus(*out) != PGRES_TUPLES_OK) {
		snprintf(what, sizeof(what), "query '%s' failed on schema '%s'",
			 q->name, schema);
		err = pg_fail(c, *out, what, e);
	}
	PQclear(PQexec(c, "ROLLBACK"));
	return err;
}

int query_pg_write(const char *target, const char *schema, const struct query_def *q,
		   char *const *args, int nargs, const struct table_style *style,
		   struct errmsg *e)
{
	const char **values = calloc(q->nparams + 1, sizeof(*values));
	Oid *types = calloc(q->nparams + 1, sizeof(*types));
	char *bufs = calloc(q->nparams + 1, 256);
	PGresult *r = NULL;
	sqlite3 *mem = NULL;
	sqlite3_stmt *st = NULL;
	PGconn *c = NULL;
	struct strbuf sql;
	size_t nrows;
	int err;

	strbuf_init(&sql);
	err = values && types && bufs ? 0 : errmsg_set(e, ENOMEM, "out of memory");
	if (err == 0)
		err = values_of(q, args, nargs, values, types, bufs, e);
	if (err == 0)
		err = rewrite(q, &sql, e);
	if (err == 0)
		err = pg_connect(target, &c, e);
	if (err == 0)
		err = run_sql(c, schema, q, strbuf_str(&sql), values, types, &r, e);
	if (err == 0 && stage(r, &mem, &st) < 0)
		err = errmsg_set(e, ENOMEM, "out of memory");
	if (err == 0)
		err = table_out(st, style, stdout, &nrows, q->name, e);
	sqlite3_finalize(st);
	sqlite3_close(mem);
	PQclear(r);
	PQfinish(c);
	strbuf_release(&sql);
	free(values);
	free(types);
	free(bufs);
	return err;
}

int query_pg_run(const char *target, const char *schema, const struct query_def *q,
		 char *const *args, int nargs, const struct table_style *style)
{
	struct errmsg e;
	int err;

	errmsg_init(&e);
	err = query_pg_write(target, schema, q, args, nargs, style, &e);
	if (err == 0)
		return 0;
	error("query", "%s", e.text);
	return err == -EINVAL ? EXIT_USAGE : 1;
}
