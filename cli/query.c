/*
 * faultline query: runs one canned query (queries/NAME.sql, built into
 * the binary) or any .sql file on a database, read-only, with its
 * parameters given as NAME=VALUE, and prints the rows as a table, CSV or
 * JSON.  --list shows the canned queries and their parameters.  The
 * database may be a PostgreSQL server that faultline export --to loaded
 * (a postgresql:// URL): a query that reads one session runs on that
 * session copied out (reader.h), the others in PostgreSQL (query_pg.c);
 * one query text either way.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../export/pg_conn.h"
#include "../schema/db.h"
#include "../schema/query_def.h"
#include "../schema/views.h"
#include "commands.h"
#include "opt.h"
#include "query_pg.h"
#include "query_run.h"
#include "table_out.h"
#include "reader.h"
#include "usage.h"

struct query_args {
	int list;
	int wide;			/* --wide: cells whole in a table */
	enum out_format format;
	const char *schema;		/* borrowed: --schema; NULL: not given */
	char *positional[ARGS_MAX];	/* borrowed from argv: DB, NAME,
					 * NAME=VALUE... */
	int npositional;
};

static const char query_usage_text[] =
	"faultline query DB NAME|FILE.sql [NAME=VALUE...] [-f table|csv|json]\n"
	"                       [--wide]\n"
	"       faultline query postgresql://... NAME|FILE.sql [NAME=VALUE...]\n"
	"                       [--schema NAME] [-f table|csv|json] [--wide]\n"
	"       faultline query --list";

static const char query_examples[] =
	"  faultline query run.db stalls-near metric=nak window=200ms\n"
	"  faultline query run.db fault-latency --format csv\n"
	"  faultline query run.db ./my-question.sql tid=4243 -f json\n"
	"  faultline query 'postgresql://results@db1/perf' runs label=role\n"
	"  faultline query --list\n";

/* The length of the first sentence of s, with its full stop. */
static int first_sentence(const char *s)
{
	const char *end = strstr(s, ". ");

	return end ? (int)(end - s + 1) : (int)strlen(s);
}

/* Lists each canned query: name, what it answers, its parameters. */
static int list_queries(void)
{
	struct errmsg e;

	errmsg_init(&e);
	for (size_t i = 0; i < n_embedded_queries; i++) {
		struct query_def q;
		int err;

		query_def_init(&q);
		err = query_def_parse(embedded_queries[i].name,
				      embedded_queries[i].sql, &q, &e);
		if (err < 0) {
			query_def_release(&q);
			return error("query", "%s", err == -ENOMEM ? "out of memory" : e.text), 1;
		}
		printf("%s%s\n  %.*s\n", i ? "\n" : "", q.name,
		       first_sentence(q.summary), q.summary);
		for (size_t k = 0; k < q.nparams; k++) {
			const struct query_param *p = &q.params[k];
			char lhs[64];

			snprintf(lhs, sizeof(lhs), "%s=%s", p->name,
				 query_type_name(p->type));
			printf("    %-22s %s", lhs, p->help ? p->help : "");
			if (p->required)
				printf(" (required)\n");
			else
				printf(" (default %s)\n", p->def ? p->def : "NULL");
		}
		query_def_release(&q);
	}
	return 0;
}

/*
 * Does q read one session: its :session, the latest when not given?
 * Such a query (the canned ones say "the session; the latest when
 * NULL", and pick it as max(session_id)) runs on PostgreSQL on that
 * session copied out (reader_open_session), so it runs on SQLite's views
 * as on a file; the others run in PostgreSQL itself.
 */
static int reads_one_session(const struct query_def *q)
{
	return query_def_param(q, "session") &&
	       strstr(q->sql, "(SELECT max(session_id) FROM session)");
}

/* The session a query reads, for the views of schema_wake_views_current:
 * a query of one session (reads_one_session) reads the one given, else
 * the latest; 0 for any other, which may read every session. */
static int64_t session_read(sqlite3 *db, const struct query_def *q,
			    char **args, int nargs)
{
	const char *given = query_arg_value(args, nargs, "session");
	sqlite3_stmt *st = NULL;
	int64_t id = 0;

	if (!reads_one_session(q))
		return 0;
	if (given)
		return (id = strtoll(given, NULL, 10)) > 0 ? id : 0;
	if (sqlite3_prepare_v2(db, "SELECT max(session_id) FROM session", -1,
			       &st, NULL) == SQLITE_OK &&
	    sqlite3_step(st) == SQLITE_ROW)
		id = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	return id;
}

/* Runs q on db (path names it) with args; the exit status.  Closes db. */
static int run_on(sqlite3 *db, const char *path, struct query_def *q, char **args,
		  int nargs, const struct table_style *style, struct errmsg *e)
{
	sqlite3_stmt *st = NULL;
	size_t nrows;
	int err, status = 1;

	/* A file of an older faultline may lack the views the canned
	 * queries name stacks and wake-ups by, or hold slower ones
	 * (schema/views.h). */
	err = schema_stack_views_current(db, e);
	if (err == 0)
		err = query_check_session(db, path, q, args, nargs, e);
	if (err == 0)
		err = schema_wake_views_current(db, session_read(db, q, args,
								 nargs), e);
	if (err == 0)
		err = query_check_metric(db, path, q, args, nargs, e);
	if (err == 0) {
		err = query_prepare(db, q, args, nargs, &st, e);
		/* -EINVAL here is the user's arguments: a usage error.  A bad
		 * database or query is a failure. */
		if (err == -EINVAL)
			status = EXIT_USAGE;
	}
	if (err == 0)
		err = table_out(st, style, stdout, &nrows, q->name, e);
	if (err == 0)
		status = 0;
	else if (err == -ENOMEM)
		error("query", "out of memory");
	else
		error("query", "%s", e->text);
	sqlite3_finalize(st);
	db_close(db);
	return status;
}

/* Runs q on the database or results database at target; the exit status. */
static int run_query(const char *target, const char *schema, struct query_def *q,
		     char **args, int nargs, const struct table_style *style)
{
	const char *given = query_arg_value(args, nargs, "session");
	int64_t session = given ? strtoll(given, NULL, 10) : 0;
	char shown[1024];
	sqlite3 *db = NULL;
	struct errmsg e;
	int err;

	if (pg_is_target(target) && !reads_one_session(q))
		return query_pg_run(target, schema ? schema : READER_PG_SCHEMA, q,
				    args, nargs, style);
	errmsg_init(&e);
	/* Not a number: the argument check (query_prepare) says so. */
	if (session < 0)
		session = 0;
	err = query_check_args(q, args, nargs, &e);
	if (err < 0)
		return error("query", "%s", e.text), EXIT_USAGE;
	err = reader_open_session("query", target, schema, &session, 0, q->sql,
				  &db, &e);
	if (err < 0) {
		error("query", "%s", err == -ENOMEM ? "out of memory" : e.text);
		db_close(db);
		return 1;
	}
	/* A URL's password goes no further (pg_shown). */
	return run_on(db, pg_shown(target, shown, sizeof(shown)), q, args, nargs,
		      style, &e);
}

int cmd_query(int argc, char **argv)
{
	struct query_args a = { .format = OUT_TABLE };
	const struct opt opts[] = {
		{ 'l', "list", NULL, "list the canned queries and their parameters",
		  OPT_FLAG, &a.list, NULL },
		TABLE_FORMAT_OPT(&a.format),
		TABLE_WIDE_OPT(&a.wide),
		{ 0, "schema", "NAME", "PostgreSQL: the schema faultline export "
		  "--to loaded (default faultline)", OPT_STRING, &a.schema, NULL },
		{ 0 },
	};
	const struct cmd_usage u = {
		"query", query_usage_text,
		"Run a canned query, or any .sql file, on a faultline database, or on\n"
		"PostgreSQL tables that faultline export --to loaded.\n"
		"Reads only: writes nothing, so a database on a read-only mount will do.",
		query_examples, opts,
	};
	struct table_style style;
	struct query_def q;
	struct errmsg e;
	int err, status;

	err = opt_parse_mixed(&u, argc, argv, a.positional, &a.npositional);
	if (err == OPT_HELP)
		return 0;
	if (err < 0)
		return EXIT_USAGE;
	if (a.list) {
		if (a.npositional)
			return error("query", "--list takes no other arguments"),
				EXIT_USAGE;
		return list_queries();
	}
	if (a.npositional < 2)
		return error("query", "give a database and a query name or .sql "
			     "file; 'faultline query --list' shows the queries"),
			EXIT_USAGE;
	if (a.schema && !pg_is_target(a.positional[0]))
		return error("query", "--schema applies to a PostgreSQL database "
			     "(postgresql://...)"), EXIT_USAGE;
	query_def_init(&q);
	errmsg_init(&e);
	err = query_def_find(a.positional[1], &q, &e);
	if (err < 0) {
		error("query", "%s", err == -ENOMEM ? "out of memory" : e.text);
		query_def_release(&q);
		/* No such query or file: the user's to fix; a bad header is
		 * the file's. */
		return err == -ENOENT ? EXIT_USAGE : 1;
	}
	style = (struct table_style){ a.format, 0, NULL, a.wide ? 0 : TABLE_MAX_CELL };
	status = run_query(a.positional[0], a.schema, &q, a.positional + 2,
			   a.npositional - 2, &style);
	query_def_release(&q);
	return status;
}
