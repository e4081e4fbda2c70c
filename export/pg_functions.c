#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "../common/sha256.h"
#include "../common/strbuf.h"
#include "pg_conn.h"
#include "pg_functions.h"

/* export/pg_functions.sql, embedded by the Makefile. */
extern const char pg_functions_sql[];

/* The function whose comment holds the hash of the file. */
#define MARK_FN "_fl_printf(text, text)"

/* Does schema (set as search_path) hold the functions of hash?  1, 0,
 * or -EIO with e set. */
static int have_current(PGconn *c, const char *hash, struct errmsg *e)
{
	PGresult *r = PQexec(c, "SELECT obj_description(to_regprocedure('"
			     MARK_FN "'), 'pg_proc')");
	int ret;

	if (PQresultStatus(r) != PGRES_TUPLES_OK)
		ret = pg_fail(c, r, "cannot look up faultline's functions", e);
	else
		ret = PQntuples(r) == 1 && !strcmp(PQgetvalue(r, 0, 0), hash);
	PQclear(r);
	return ret;
}

/* Runs each statement of pg_functions_sql (split at lines holding only
 * ';'), then marks them with hash, inside the open transaction. */
static int make(PGconn *c, const char *hash, struct errmsg *e)
{
	const char *p = pg_functions_sql;
	struct strbuf sb;
	int err = 0;

	strbuf_init(&sb);
	while (err == 0 && *p) {
		const char *end = strstr(p, "\n;\n");
		size_t n = end ? (size_t)(end - p) : strlen(p);

		strbuf_reset(&sb);
		strbuf_add(&sb, p, n);
		err = strbuf_error(&sb) ? errmsg_set(e, ENOMEM, "out of memory") :
			pg_exec(c, strbuf_str(&sb), "cannot make faultline's "
				"functions in PostgreSQL (a role with CREATE on the "
				"schema makes them: faultline export --to, or query "
				"once as that role)", e);
		p += n + (end ? 3 : 0);
	}
	strbuf_reset(&sb);
	strbuf_addf(&sb, "COMMENT ON FUNCTION " MARK_FN " IS '%s'", hash);
	if (err == 0)
		err = strbuf_error(&sb) ? errmsg_set(e, ENOMEM, "out of memory") :
			pg_exec(c, strbuf_str(&sb), "cannot mark faultline's functions", e);
	strbuf_release(&sb);
	return err;
}

int pg_functions_current(PGconn *c, struct errmsg *e)
{
	char hash[SHA256_HEX_LEN + 1];
	struct sha256 s;
	int err;

	sha256_init(&s);
	sha256_update(&s, pg_functions_sql, strlen(pg_functions_sql));
	sha256_hex(&s, hash);
	err = have_current(c, hash, e);
	if (err != 0)
		return err < 0 ? err : 0;
	/* Two faultlines at once make them one after the other; the
	 * second finds them made. */
	err = pg_exec(c, "BEGIN; SELECT pg_advisory_xact_lock(hashtext('faultline "
		      "functions'))", "cannot begin", e);
	if (err == 0)
		err = have_current(c, hash, e);
	if (err == 0)
		err = make(c, hash, e);
	if (err >= 0)
		err = pg_exec(c, "COMMIT", "cannot make faultline's functions", e);
	else if (PQstatus(c) == CONNECTION_OK)
		PQclear(PQexec(c, "ROLLBACK"));
	return err;
}
