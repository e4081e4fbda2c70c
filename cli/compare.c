/*
 * faultline compare: two runs side by side.  The measures are the
 * canned compare query's (queries/compare.sql: fault latency, time off
 * the CPU by state, the application's events, per thread name); then
 * what differs in the runs' environment (runs/env_diff.h): the kernel,
 * its tunables, cgroup limits, LD_* and MALLOC_*, build ids.  A side is a
 * session id, or with --label KEY a value of that label (all its
 * sessions).
 *
 * On a PostgreSQL results database the measures are the same query run
 * there (cli/query_pg.h); the sides and the environment are read from
 * the sides' session and session_env rows, copied out (cli/reader.h),
 * by the same statements as on a file.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "../common/array.h"
#include "../common/labels.h"
#include "../common/strbuf.h"
#include "../export/pg_conn.h"
#include "../runs/env_diff.h"
#include "../schema/db.h"
#include "../schema/query_def.h"
#include "commands.h"
#include "opt.h"
#include "query_pg.h"
#include "query_run.h"
#include "reader.h"
#include "table_out.h"
#include "usage.h"

static const char compare_usage[] =
	"faultline compare DB A B [--label KEY] [-f table|csv|json] [--wide]\n"
	"                         [--schema NAME]";

static const char compare_examples[] =
	"  faultline compare fleet.db 17 18\n"
	"  faultline compare fleet.db 4711 4712 --label run\n"
	"  faultline compare fleet.db 17 18 -f json\n"
	"  faultline compare 'postgresql://results@db1/perf' 4711 4712 --label run\n";

struct compare_args {
	const char *label;		/* borrowed: --label KEY, or NULL */
	const char *schema;		/* borrowed: --schema, or NULL */
	const char *shown;		/* DB as messages name it: a URL without
					 * its password; points into shown_buf
					 * or argv */
	char shown_buf[1024];
	enum out_format format;
	int wide;
	char *positional[ARGS_MAX];	/* borrowed: DB, A, B */
	int npositional;
};

/* The sessions of side value, as a JSON array into sb; a side with none
 * is the user's to fix (-ENOENT). */
static int side(sqlite3 *db, const char *path, const char *label,
		const char *value, struct strbuf *sb, struct errmsg *e)
{
	size_t n = 0;
	int err = env_side_ids(db, label, value, sb, &n, e);

	if (err == 0 && n == 0 && label)
		return errmsg_set(e, ENOENT, "no session of '%s' has the label "
				  "%s=%s; 'faultline query %s runs label=%s' "
				  "shows its values", path, label, value, path, label);
	if (err == 0 && n == 0)
		return errmsg_set(e, ENOENT, "no session %s in '%s'; 'faultline "
				  "query %s sessions' lists them, or give --label "
				  "KEY to compare label values", value, path, path);
	return err;
}

/* On a results database, the sessions copied out: both sides'. */
static int pick_sides(sqlite3 *db, void *arg, int64_t **ids, size_t *n,
		      struct errmsg *e)
{
	const struct compare_args *a = arg;
	struct strbuf a_ids, b_ids;
	sqlite3_stmt *st = NULL;
	size_t cap = 0;
	int err;

	strbuf_init(&a_ids);
	strbuf_init(&b_ids);
	err = side(db, a->shown, a->label, a->positional[1], &a_ids, e);
	if (err == 0)
		err = side(db, a->shown, a->label, a->positional[2], &b_ids, e);
	if (err == 0 && sqlite3_prepare_v2(db, "SELECT value FROM json_each(?1) UNION"
					   " SELECT value FROM json_each(?2)", -1,
					   &st, NULL) != SQLITE_OK)
		err = errmsg_set(e, EIO, "cannot read the sessions: %s",
				 sqlite3_errmsg(db));
	if (err == 0) {
		sqlite3_bind_text(st, 1, strbuf_str(&a_ids), -1, SQLITE_STATIC);
		sqlite3_bind_text(st, 2, strbuf_str(&b_ids), -1, SQLITE_STATIC);
	}
	while (err == 0 && sqlite3_step(st) == SQLITE_ROW) {
		if (ARRAY_RESERVE(*ids, cap, *n + 1) < 0)
			err = errmsg_set(e, ENOMEM, "out of memory");
		else
			(*ids)[(*n)++] = sqlite3_column_int64(st, 0);
	}
	sqlite3_finalize(st);
	strbuf_release(&a_ids);
	strbuf_release(&b_ids);
	return err;
}

/* The compare query's rows, bound to a, b and the label: in PostgreSQL
 * on a results database, else in db. */
static int measures(sqlite3 *db, const struct compare_args *a,
		    const struct table_style *style, struct errmsg *e)
{
	char arg_a[256], arg_b[256], arg_l[256];
	char *args[3] = { arg_a, arg_b, arg_l };
	sqlite3_stmt *st = NULL;
	struct query_def q;
	size_t nrows;
	int err;

	snprintf(arg_a, sizeof(arg_a), "a=%s", a->positional[1]);
	snprintf(arg_b, sizeof(arg_b), "b=%s", a->positional[2]);
	snprintf(arg_l, sizeof(arg_l), "label=%s", a->label ? a->label : "");
	query_def_init(&q);
	err = query_def_find("compare", &q, e);
	if (err == 0 && pg_is_target(a->positional[0])) {
		err = query_pg_write(a->positional[0], a->schema ? a->schema :
				     READER_PG_SCHEMA, &q, args, a->label ? 3 : 2,
				     style, e);
		query_def_release(&q);
		return err;
	}
	if (err == 0)
		err = query_prepare(db, &q, args, a->label ? 3 : 2, &st, e);
	if (err == 0)
		err = table_out(st, style, stdout, &nrows, "compare", e);
	sqlite3_finalize(st);
	query_def_release(&q);
	return err;
}

static int environment(sqlite3 *db, const char *a_ids, const char *b_ids,
		       const struct table_style *style, struct errmsg *e)
{
	sqlite3_stmt *st = NULL;
	size_t nrows;
	int err = env_diff_prepare(db, a_ids, b_ids, &st, e);

	if (err == 0)
		err = table_out(st, style, stdout, &nrows, "environment", e);
	sqlite3_finalize(st);
	return err;
}

static int run(struct compare_args *a)
{
	static const char *const tables[] = { "session", "session_env", NULL };
	const char *path = a->shown;
	const struct table_style style = { a->format, 0, NULL,
					   a->wide ? 0 : TABLE_MAX_CELL };
	struct table_style env_style = style;
	struct strbuf a_ids, b_ids;
	sqlite3 *db = NULL;
	struct errmsg e;
	int err;

	errmsg_init(&e);
	strbuf_init(&a_ids);
	strbuf_init(&b_ids);
	env_style.empty = "the same environment";
	err = reader_open_sessions("compare", a->positional[0], a->schema,
				   pick_sides, a, tables, &db, &e);
	if (err == 0)
		err = side(db, path, a->label, a->positional[1], &a_ids, &e);
	if (err == 0)
		err = side(db, path, a->label, a->positional[2], &b_ids, &e);
	if (err == 0 && a->format == OUT_JSON)
		printf("{\"measures\":");
	else if (err == 0 && a->format == OUT_TABLE)
		printf("Measures (a: %s, b: %s)\n", a->positional[1], a->positional[2]);
	if (err == 0)
		err = measures(db, a, &style, &e);
	if (err == 0 && a->format == OUT_JSON)
		printf(",\"environment\":");
	else if (err == 0)	/* CSV: an empty line, in CSV's line ending */
		printf("%s", a->format == OUT_TABLE ? "\nEnvironment: what differs\n"
						    : "\r\n");
	if (err == 0)
		err = environment(db, strbuf_str(&a_ids), strbuf_str(&b_ids),
				  &env_style, &e);
	if (err == 0 && a->format == OUT_JSON)
		printf("}\n");
	strbuf_release(&a_ids);
	strbuf_release(&b_ids);
	db_close(db);
	if (err == 0)
		return 0;
	error("compare", "%s", err == -ENOMEM ? "out of memory" : e.text);
	return err == -ENOENT || err == -EINVAL ? EXIT_USAGE : 1;
}

/* --label KEY: a key by the one label rule (common/labels.h). */
static int set_label(void *value, const char *arg, const char *opt,
		     struct errmsg *e)
{
	if (label_key_check(arg, strlen(arg), opt, arg, e) < 0)
		return -EINVAL;
	*(const char **)value = arg;
	return 0;
}

int cmd_compare(int argc, char **argv)
{
	struct compare_args a = { .format = OUT_TABLE };
	const struct opt opts[] = {
		{ 'l', "label", "KEY", "A and B are values of this label: all the "
		  "sessions of each", OPT_CALLBACK, &a.label, set_label },
		TABLE_FORMAT_OPT(&a.format),
		TABLE_WIDE_OPT(&a.wide),
		READER_SCHEMA_OPT(&a.schema),
		{ 0 },
	};
	const struct cmd_usage u = {
		"compare", compare_usage,
		"Two runs side by side: per thread, fault latency, time off the CPU\n"
		"by state and the application's events; then what differs in their\n"
		"environment (kernel, tunables, cgroup limits, LD_* and MALLOC_*,\n"
		"build ids).  A and B are session ids, or values of --label KEY.\n"
		"Reads only.",
		compare_examples, opts,
	};
	int err = opt_parse_mixed(&u, argc, argv, a.positional, &a.npositional);

	if (err == OPT_HELP)
		return 0;
	if (err < 0)
		return EXIT_USAGE;
	if (a.npositional != 3)
		return error("compare", "give a database and the two sides, e.g. "
			     "'faultline compare run.db 17 18'"), EXIT_USAGE;
	if ((err = reader_check_schema("compare", a.positional[0], a.schema)))
		return err;
	a.shown = pg_is_target(a.positional[0]) ?
		pg_shown(a.positional[0], a.shown_buf, sizeof(a.shown_buf)) :
		a.positional[0];
	return run(&a);
}
