/*
 * faultline report: a readable summary of one session, as a sequence of
 * the canned queries rendered as titled tables: the session, fault
 * latency per thread, the longest stalls with their stacks and states,
 * the stalls before each imported metric's events, the metrics, and what
 * was lost.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "../schema/db.h"
#include "../schema/query_def.h"
#include "commands.h"
#include "opt.h"
#include "query_run.h"
#include "session_pick.h"
#include "table_out.h"
#include "usage.h"

/* Rows shown per section: enough to see a pattern, short enough to read;
 * faultline query shows them all. */
#define REPORT_ROWS 20

struct section {
	const char *title;
	const char *query;
	const char *arg;	/* a NAME=VALUE beside session=N, or NULL */
	const char *empty;	/* said when there are no rows */
	enum out_format format;
};

static const struct section sections[] = {
	{ "Session", "sessions", NULL, "no such session", OUT_VERTICAL },
	{ "Fault latency per thread (log2 buckets of fault_histogram: each "
	  "percentile is its bucket's upper bound)", "fault-latency", NULL,
	  "no histogram: the session did not end normally, or took no fault" },
	{ "Longest stalls: the longest faults and times off the CPU",
	  "longest-stalls", "limit=10", "no fault and no time off the CPU" },
	{ "Metrics beside the session", "metrics", NULL, "none" },
	{ "Lost", "lost", NULL, "nothing was lost" },
};

/* Runs s's canned query with args and prints its rows under its title. */
static int section(sqlite3 *db, const char *path, const struct section *s,
		   char **args, int nargs)
{
	struct query_def q;
	sqlite3_stmt *st = NULL;
	struct errmsg e;
	size_t nrows = 0;
	int err;

	query_def_init(&q);
	errmsg_init(&e);
	printf("\n== %s\n\n", s->title);
	err = query_def_find(s->query, &q, &e);
	if (err == 0)
		err = query_prepare(db, &q, args, nargs, &st, &e);
	if (err == 0)
		err = table_out(st, s->format, REPORT_ROWS, stdout, &nrows, s->query, &e);
	if (err == 0 && nrows == 0)
		printf("(%s)\n", s->empty);
	else if (err == 0 && nrows > REPORT_ROWS)
		printf("... %zu more: faultline query %s %s%s%s %s\n",
		       nrows - REPORT_ROWS, path, s->query, nargs > 1 ? " " : "",
		       nargs > 1 ? args[1] : "", args[0]);
	sqlite3_finalize(st);
	query_def_release(&q);
	if (err == -ENOMEM)
		return error("report", "out of memory");
	return err < 0 ? error("report", "%s", e.text) : 0;
}

/* The stalls before the events of each imported metric. */
static int metric_sections(sqlite3 *db, const char *path, char *session_arg)
{
	static const char sql[] =
		"SELECT DISTINCT name FROM metric_series WHERE session_id IS NULL "
		"ORDER BY name";
	sqlite3_stmt *st = NULL;
	int rc, err = 0;

	rc = sqlite3_prepare_v2(db, sql, -1, &st, NULL);
	while (err == 0 && rc == SQLITE_OK && (rc = sqlite3_step(st)) == SQLITE_ROW) {
		const char *name = (const char *)sqlite3_column_text(st, 0);
		char title[256], metric[160];
		char *args[2] = { session_arg, metric };
		const struct section s = { title, "stalls-near", NULL,
			"none: no thread stalled before its events", OUT_TABLE };

		snprintf(title, sizeof(title), "Stalls of 1 ms or more in the 200 ms "
			 "before each '%s' event", name);
		snprintf(metric, sizeof(metric), "metric=%s", name);
		err = section(db, path, &s, args, 2);
		rc = SQLITE_OK;
	}
	if (err == 0 && rc != SQLITE_DONE && rc != SQLITE_OK)
		err = error("report", "cannot read '%s': %s", path, sqlite3_errmsg(db));
	sqlite3_finalize(st);
	return err;
}

/* Says so when the session has stack frames symbolization has not named
 * yet (the stacks show addresses then), and how to name them. */
static int symbolize_hint(sqlite3 *db, const char *path, int64_t id)
{
	sqlite3_stmt *st = NULL;
	int rc = sqlite3_prepare_v2(db, "SELECT count(*) FROM frame WHERE "
				    "session_id = ? AND status IS NULL", -1, &st, NULL);

	if (rc == SQLITE_OK)
		rc = sqlite3_bind_int64(st, 1, id);
	if (rc == SQLITE_OK)
		rc = sqlite3_step(st);
	if (rc == SQLITE_ROW && sqlite3_column_int64(st, 0) > 0)
		printf("(%lld stack frames are not symbolized yet: 'faultline "
		       "symbolize %s' names them)\n",
		       (long long)sqlite3_column_int64(st, 0), path);
	sqlite3_finalize(st);
	if (rc != SQLITE_ROW)
		return error("report", "cannot read '%s': %s", path, sqlite3_errmsg(db));
	return 0;
}

static const char report_usage[] = "faultline report DB [--session N]";

static const char report_examples[] =
	"  faultline report run.db\n"
	"  faultline report run.db --session 2 | less\n";

static int report(sqlite3 *db, const char *path, int64_t id)
{
	char session_arg[48];
	char *args[2] = { session_arg, NULL };
	int err = 0;

	snprintf(session_arg, sizeof(session_arg), "session=%" PRId64, id);
	printf("faultline report: session %" PRId64 " of %s\n", id, path);
	for (size_t i = 0; i < sizeof(sections) / sizeof(sections[0]) && !err; i++) {
		const struct section *s = &sections[i];

		args[1] = (char *)s->arg;
		err = section(db, path, s, args, s->arg ? 2 : 1);
		/* The events the stalls line up with, after the stalls. */
		if (err == 0 && !strcmp(s->query, "longest-stalls"))
			err = symbolize_hint(db, path, id);
		if (err == 0 && !strcmp(s->query, "longest-stalls"))
			err = metric_sections(db, path, session_arg);
	}
	return err;
}

int cmd_report(int argc, char **argv)
{
	int64_t id = 0;		/* 0: the latest */
	const struct opt opts[] = {
		{ 's', "session", "N", "the session to summarise (default: the latest)",
		  OPT_CALLBACK, &id, session_pick_parse },
		{ 0 },
	};
	const struct cmd_usage u = {
		"report", report_usage,
		"Summarise a recorded session: fault latency, the longest stalls "
		"and what they line up with, what was lost.",
		report_examples, opts,
	};
	const char *path = NULL;
	sqlite3 *db = NULL;
	struct errmsg e;
	int err = parse_db_args(&u, argc, argv, &path);

	if (err < 0)
		return err == OPT_HELP ? 0 : EXIT_USAGE;
	errmsg_init(&e);
	err = db_open_read(path, &db, &e);
	if (err == 0)
		err = session_pick(db, path, &id, &e);
	if (err < 0) {
		db_close(db);
		return error("report", "%s", e.text), 1;
	}
	err = report(db, path, id);
	db_close(db);
	return err < 0 ? 1 : 0;
}
