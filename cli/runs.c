/*
 * faultline runs: a row per run (session) of a results database, in time
 * order, with the chosen metric's events, stall time by cause, the p99
 * fault and what was lost; then the change points of each series across
 * comparable runs, each with what else changed there.  -o writes the
 * chart of runs as an offline page.  The engine is runs/ (runs.h,
 * changes.h, page.h); here the options and what the user sees.  The rows
 * go through a private in-memory table so that the one table, CSV and
 * JSON writer (table_out.h) writes them.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "../common/clock.h"
#include "../common/strbuf.h"
#include "../diagnose/pattern.h"
#include "../export/pg_conn.h"
#include "../runs/changes.h"
#include "../runs/page.h"
#include "../runs/runs.h"
#include "../schema/db.h"
#include "commands.h"
#include "../common/labels.h"
#include "opt.h"
#include "query_run.h"
#include "reader.h"
#include "table_out.h"
#include "usage.h"

static const char runs_usage[] =
	"faultline runs DB [--label KEY=VALUE]... [--metric NAME] [-o FILE.html]\n"
	"                  [-f table|csv|json] [--wide] [--schema NAME]";

static const char runs_examples[] =
	"  faultline runs fleet.db --metric nak\n"
	"  faultline runs fleet.db --label role=rx --metric nak -o runs.html\n"
	"  faultline runs fleet.db -f json\n"
	"  faultline runs 'postgresql://results@db1/perf' --label role=rx --metric nak\n";

struct runs_args {
	struct labels labels;		/* --label: only runs with these */
	const char *metric;		/* borrowed: --metric, or NULL */
	const char *output;		/* borrowed: -o, or NULL */
	const char *schema;		/* borrowed: --schema, or NULL */
	enum out_format format;
	int wide;
	char *positional[ARGS_MAX];	/* borrowed: DB */
	int npositional;
};

/* The causes the table has a column for; the others are summed. */
static const char *const shown[] = {
	"lazy-binding", "file-evicted", "preemption", "cpu-quota",
};

static int add_label(void *value, const char *arg, const char *opt,
		     struct errmsg *e)
{
	return labels_add(value, arg, opt, e);
}

static size_t pattern_index(const char *name)
{
	for (size_t i = 0; i < diag_npatterns; i++)
		if (!strcmp(diag_patterns[i]->name, name))
			return i;
	return diag_npatterns;
}

static int mem_fail(sqlite3 *mem, struct errmsg *e)
{
	return errmsg_set(e, EIO, "cannot hold the rows: %s", sqlite3_errmsg(mem));
}

/* The runs table of mem: its columns, then a row per run; ms_time: the
 * time to the millisecond. */
static int fill_runs(sqlite3 *mem, const struct runs *r, const char *metric,
		     int ms_time, struct errmsg *e)
{
	char *sql = sqlite3_mprintf(
		"CREATE TABLE runs (run INTEGER, session INTEGER, time TEXT,"
		" labels TEXT%s%w%s, lazy_binding_ms REAL, file_evicted_ms REAL,"
		" preemption_ms REAL, cpu_quota_ms REAL, other_stall_ms REAL,"
		" p99_fault_us REAL, lost INTEGER)", metric ? ", \"" : "",
		metric ? metric : "", metric ? "\" INTEGER" : "");
	/* ?5 the metric's events, when there is a metric */
	char *ins = sqlite3_mprintf("INSERT INTO runs VALUES (?1, ?2, ?3, "
				    RUN_LABELS_TEXT("?4") ", %s?6, ?7, ?8, ?9, ?10,"
				    " ?11, ?12)", metric ? "?5, " : "");
	sqlite3_stmt *st = NULL;
	int err = 0;

	if (!sql || !ins || sqlite3_exec(mem, sql, NULL, NULL, NULL) != SQLITE_OK ||
	    sqlite3_prepare_v2(mem, ins, -1, &st, NULL) != SQLITE_OK)
		err = mem_fail(mem, e);
	sqlite3_free(sql);
	sqlite3_free(ins);
	for (size_t i = 0; err == 0 && i < r->n; i++) {
		const struct run_row *w = &r->v[i];
		char t[UTC_LEN];
		int64_t other = 0;
		int k = 6;	/* ?6 on: the causes, p99, lost */

		for (size_t p = 0; p < diag_npatterns; p++)
			other += w->cause_ns[p];
		sqlite3_bind_int64(st, 1, (int64_t)i + 1);
		sqlite3_bind_int64(st, 2, w->session_id);
		utc_format(t, sizeof(t), w->start_ts);
		/* a table shows the time to the millisecond */
		if (ms_time && strlen(t) > 24)
			strcpy(t + 23, "Z");
		sqlite3_bind_text(st, 3, t, -1, SQLITE_TRANSIENT);
		sqlite3_bind_text(st, 4, w->labels, -1, SQLITE_STATIC);
		if (metric)
			sqlite3_bind_int64(st, 5, w->metric_events);
		for (size_t c = 0; c < sizeof(shown) / sizeof(*shown); c++) {
			size_t p = pattern_index(shown[c]);
			int64_t ns = p < diag_npatterns ? w->cause_ns[p] : 0;

			sqlite3_bind_double(st, k++, (double)ns / 1e6);
			other -= ns;
		}
		sqlite3_bind_double(st, k++, (double)other / 1e6);
		if (w->p99_fault_ns >= 0)
			sqlite3_bind_double(st, k, (double)w->p99_fault_ns / 1e3);
		else
			sqlite3_bind_null(st, k);
		sqlite3_bind_int64(st, k + 1, w->lost);
		if (sqlite3_step(st) != SQLITE_DONE)
			err = mem_fail(mem, e);
		sqlite3_reset(st);
		sqlite3_clear_bindings(st);
	}
	sqlite3_finalize(st);
	return err;
}

/* The change points as rows, for CSV and JSON. */
static int fill_changes(sqlite3 *mem, const struct runs *r,
			const struct run_changes *c, const char *metric,
			struct errmsg *e)
{
	sqlite3_stmt *st = NULL;
	int err = 0;

	if (sqlite3_exec(mem, "CREATE TABLE change_points (run INTEGER, session"
			 " INTEGER, time TEXT, series TEXT, direction TEXT, before REAL,"
			 " after REAL, unit TEXT, p REAL, environment TEXT, text TEXT)",
			 NULL, NULL, NULL) != SQLITE_OK ||
	    sqlite3_prepare_v2(mem, "INSERT INTO change_points VALUES (?1, ?2, ?3,"
			       " ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11)", -1, &st, NULL) != SQLITE_OK)
		err = mem_fail(mem, e);
	for (size_t i = 0; err == 0 && i < c->n; i++) {
		const struct run_change *x = &c->v[i];
		const struct run_row *w = &r->v[x->run];
		int events = x->kind == SERIES_METRIC;
		char t[UTC_LEN], name[256];
		struct strbuf text;

		strbuf_init(&text);
		run_change_text(r, x, metric, &text);
		sqlite3_bind_int64(st, 1, (int64_t)x->run + 1);
		sqlite3_bind_int64(st, 2, w->session_id);
		sqlite3_bind_text(st, 3, utc_format(t, sizeof(t), w->start_ts), -1,
				  SQLITE_TRANSIENT);
		sqlite3_bind_text(st, 4, run_change_series(x, metric, name, sizeof(name)),
				  -1, SQLITE_TRANSIENT);
		sqlite3_bind_text(st, 5, x->after < x->before ? "fell" : "rose", -1,
				  SQLITE_STATIC);
		sqlite3_bind_double(st, 6, events ? x->before : x->before / 1e6);
		sqlite3_bind_double(st, 7, events ? x->after : x->after / 1e6);
		sqlite3_bind_text(st, 8, events ? "events" : "ms", -1, SQLITE_STATIC);
		sqlite3_bind_double(st, 9, x->p);
		sqlite3_bind_text(st, 10, x->environment, -1, SQLITE_STATIC);
		sqlite3_bind_text(st, 11, strbuf_str(&text), -1, SQLITE_TRANSIENT);
		if (strbuf_error(&text))
			err = errmsg_set(e, ENOMEM, "out of memory");
		else if (sqlite3_step(st) != SQLITE_DONE)
			err = mem_fail(mem, e);
		sqlite3_reset(st);
		strbuf_release(&text);
	}
	sqlite3_finalize(st);
	return err;
}

static int write_table(sqlite3 *mem, const char *sql, const struct table_style *s,
		       const char *what, struct errmsg *e)
{
	sqlite3_stmt *st = NULL;
	size_t n;
	int err;

	if (sqlite3_prepare_v2(mem, sql, -1, &st, NULL) != SQLITE_OK)
		return mem_fail(mem, e);
	err = table_out(st, s, stdout, &n, what, e);
	sqlite3_finalize(st);
	return err;
}

/* The change points in words, for people. */
static void say_changes(const struct runs *r, const struct run_changes *c,
			const char *metric)
{
	struct strbuf sb;

	strbuf_init(&sb);
	printf("\nChange points (E-Divisive means: alpha 1, 999 permutations, "
	       "p <= 0.05, segments of 3 runs or more; %zu series in %zu group%s "
	       "of comparable runs)\n", c->nseries, c->ngroups,
	       c->ngroups == 1 ? "" : "s");
	for (size_t i = 0; i < c->n; i++) {
		strbuf_reset(&sb);
		run_change_text(r, &c->v[i], metric, &sb);
		printf("  %s\n", strbuf_str(&sb));
	}
	if (c->n == 0)
		printf("  (none)\n");
	strbuf_release(&sb);
}

static int print(const struct runs_args *a, const struct runs *r,
		 const struct run_changes *c, struct errmsg *e)
{
	const struct table_style s = { a->format, 0, NULL, a->wide ? 0 : TABLE_MAX_CELL };
	sqlite3 *mem = NULL;
	int err = 0;

	if (sqlite3_open(":memory:", &mem) != SQLITE_OK)
		err = errmsg_set(e, ENOMEM, "out of memory");
	if (err == 0)
		err = fill_runs(mem, r, a->metric, a->format == OUT_TABLE, e);
	if (err == 0)
		err = fill_changes(mem, r, c, a->metric, e);
	if (err == 0 && a->format == OUT_JSON)
		printf("{\"runs\":");
	else if (err == 0 && a->format == OUT_TABLE)
		printf("Runs (%zu, oldest first)\n", r->n);
	if (err == 0)
		err = write_table(mem, "SELECT * FROM runs", &s, "runs", e);
	if (err == 0 && a->format == OUT_JSON)
		printf(",\"change_points\":");
	else if (err == 0 && a->format == OUT_CSV)
		printf("\r\n");	/* an empty line, in CSV's line ending */
	if (err == 0 && a->format == OUT_TABLE)
		say_changes(r, c, a->metric);
	else if (err == 0)
		err = write_table(mem, "SELECT * FROM change_points", &s,
				  "change points", e);
	if (err == 0 && a->format == OUT_JSON)
		printf("}\n");
	sqlite3_close(mem);
	return err;
}

struct runs_pick {
	const char *path;		/* borrowed: as messages name it */
	const struct runs_request *req;	/* borrowed */
};

/* On a results database, the sessions copied out: those the runs read,
 * picked by the same query on the copied session rows. */
static int pick_runs(sqlite3 *db, void *arg, int64_t **ids, size_t *n,
		     struct errmsg *e)
{
	const struct runs_pick *p = arg;

	return runs_session_ids(db, p->path, p->req->labels_json, ids, n, e);
}

static int run(struct runs_args *a)
{
	char shown_url[1024];
	/* what messages and the page name: a URL without its password */
	const char *path = pg_is_target(a->positional[0]) ?
		pg_shown(a->positional[0], shown_url, sizeof(shown_url)) :
		a->positional[0];
	struct runs_request req = { NULL, a->metric };
	struct runs_pick pick = { path, &req };
	struct run_changes c;
	struct strbuf filter;
	struct runs r;
	sqlite3 *db = NULL;
	struct errmsg e;
	int err;

	errmsg_init(&e);
	runs_init(&r);
	run_changes_init(&c);
	strbuf_init(&filter);
	if (a->labels.n) {
		labels_json(&a->labels, &filter);
		req.labels_json = strbuf_str(&filter);
	}
	err = strbuf_error(&filter) ? errmsg_set(&e, ENOMEM, "out of memory") : 0;
	if (err == 0)
		err = reader_open_sessions("runs", a->positional[0], a->schema,
					   pick_runs, &pick, NULL, &db, &e);
	if (err == 0)
		err = runs_read(db, path, &req, &r, &e);
	if (err == 0 && r.n == 0)
		err = errmsg_set(&e, ENOENT, "no session of '%s' has %s; "
				 "'faultline query %s sessions' lists them", path,
				 a->labels.n ? "those labels" : "been recorded", path);
	if (err == 0)
		err = run_changes_find(db, &r, a->metric, &c, &e);
	if (err == 0)
		err = print(a, &r, &c, &e);
	if (err == 0 && a->output)
		err = runs_page_write(db, path, &r, &c, a->metric, a->output, &e);
	if (err == 0 && a->output)
		fprintf(stderr, "faultline runs: wrote %s: %zu runs, %zu change "
			"point%s\n", a->output, r.n, c.n, c.n == 1 ? "" : "s");
	run_changes_release(&c);
	runs_release(&r);
	strbuf_release(&filter);
	db_close(db);
	if (err == 0)
		return 0;
	error("runs", "%s", err == -ENOMEM ? "out of memory" : e.text);
	return err == -ENOENT ? EXIT_USAGE : 1;
}

int cmd_runs(int argc, char **argv)
{
	struct runs_args a = { .format = OUT_TABLE };
	const struct opt opts[] = {
		{ 'l', "label", "KEY=VALUE", "only runs with this label (repeatable)",
		  OPT_CALLBACK, &a.labels, add_label },
		{ 'm', "metric", "NAME", "the metric whose events each run counts "
		  "(faultline import), and the page's colour", OPT_STRING, &a.metric,
		  NULL },
		{ 'o', "output", "FILE", "also write the chart of runs, an offline "
		  "HTML page", OPT_STRING, &a.output, NULL },
		TABLE_FORMAT_OPT(&a.format),
		TABLE_WIDE_OPT(&a.wide),
		READER_SCHEMA_OPT(&a.schema),
		{ 0 },
	};
	const struct cmd_usage u = {
		"runs", runs_usage,
		"The runs of a results database, oldest first: the metric's events,\n"
		"stall time by cause (faultline diagnose's), the p99 fault and what\n"
		"was lost; then where each series changed across comparable runs\n"
		"(E-Divisive means) and what else changed there.  -o draws the chart\n"
		"of runs, each run's report linked from its block.  Reads only.",
		runs_examples, opts,
	};
	int err, status;

	labels_init(&a.labels, 0);
	err = opt_parse_mixed(&u, argc, argv, a.positional, &a.npositional);
	if (err == OPT_HELP || err < 0) {
		labels_release(&a.labels);
		return err == OPT_HELP ? 0 : EXIT_USAGE;
	}
	if (a.npositional != 1) {
		labels_release(&a.labels);
		return error("runs", "give one database, e.g. 'faultline runs "
			     "fleet.db --metric nak'"), EXIT_USAGE;
	}
	status = reader_check_schema("runs", a.positional[0], a.schema);
	if (status == 0)
		status = run(&a);
	labels_release(&a.labels);
	return status;
}
