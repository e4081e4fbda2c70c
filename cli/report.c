/*
 * faultline report: a readable summary of one session: the session, the
 * findings of faultline diagnose (the answer first), then the canned
 * queries rendered as titled tables: fault
 * latency of the most harmful threads, the longest stalls with their
 * stacks and states, the stalls before each imported metric's events,
 * the metrics, and what was lost.  Reads only (db_open_read).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../common/array.h"
#include "../common/json.h"
#include "../common/sql_value.h"
#include "../common/strbuf.h"
#include "../common/term_text.h"
#include "../diagnose/diagnose.h"
#include "../diagnose/render.h"
#include "../export/pg_conn.h"
#include "../schema/db.h"
#include "../schema/views.h"
#include "../schema/query_def.h"
#include "commands.h"
#include "diagnose_cli.h"
#include "opt.h"
#include "query_run.h"
#include "session_pick.h"
#include "table_out.h"
#include "reader.h"
#include "usage.h"

/* Rows shown per section: enough to see a pattern, short enough to read;
 * faultline query shows them all. */
#define REPORT_ROWS 20
/* Threads in the latency table: the worst few are what a stall is
 * about; a launcher's helpers and shells only push them down. */
#define REPORT_THREADS 10

struct section {
	const char *title;
	const char *note;	/* a line under the title, or NULL */
	const char *query;
	const char *arg;	/* a NAME=VALUE beside session=N, or NULL */
	const char *empty;	/* said when there are no rows */
	enum out_format format;
	/* With arg limiting the query to the first REPORT_THREADS threads:
	 * counts the session's (?1) threads, to say how many were left out. */
	const char *count_threads;
};

static const struct section sections[] = {
	{ "Session", NULL, "sessions", NULL, "no such session", OUT_VERTICAL, NULL },
	{ "Fault latency of the " FL_STR(REPORT_THREADS) " most harmful threads "
	  "(longest fault, then most faults)",
	  "(bucket and percentile values are upper bounds: p99_us 65.536 says 99% "
	  "took less than 65.536 us,\n'<4.096us:25' counts 25 faults shorter than "
	  "4.096 us and at least half of it; max_us is exact)",
	  "fault-latency", "limit=" FL_STR(REPORT_THREADS),
	  "no histogram: the session did not end normally, or took no fault",
	  OUT_TABLE,
	  "SELECT count(DISTINCT tid) FROM fault_histogram WHERE session_id = ?1" },
	{ "Longest stalls: the longest faults and times off the CPU with work "
	  "to do", NULL, "longest-stalls", "limit=10",
	  "no fault and no time off the CPU with work to do", OUT_TABLE, NULL },
	{ "Idle: time asleep with nothing to do (no stall), by what it waited on",
	  "(a timer, poll or epoll, a join; a sleep on a lock is a stall where "
	  "--stacks shows the lock)", "idle-waits", NULL, "no idle sleep",
	  OUT_TABLE, NULL },
	{ "Metrics beside the session", NULL, "metrics", NULL, "none", OUT_TABLE,
	  NULL },
	{ "Lost", NULL, "lost", NULL, "nothing was lost", OUT_TABLE, NULL },
};

/* How many threads s's query left out of session id (from its
 * count_threads); 0 when it limits none or on failure (the table shown
 * is right either way). */
static int64_t threads_left_out(sqlite3 *db, const struct section *s,
				int64_t id)
{
	sqlite3_stmt *st = NULL;
	int64_t n = 0;

	if (!s->count_threads ||
	    sqlite3_prepare_v2(db, s->count_threads, -1, &st, NULL) != SQLITE_OK)
		return 0;
	sqlite3_bind_int64(st, 1, id);
	if (sqlite3_step(st) == SQLITE_ROW)
		n = sqlite3_column_int64(st, 0) - REPORT_THREADS;
	sqlite3_finalize(st);
	return n > 0 ? n : 0;
}

/* The line after a section that did not show everything. */
static void print_more(sqlite3 *db, const char *path, const struct section *s,
		       char **args, int nargs, size_t nrows, int64_t id)
{
	int64_t threads;

	if (s->count_threads) {
		threads = threads_left_out(db, s, id);
		if (threads > 0)
			printf("... %" PRId64 " more thread%s: faultline query %s %s "
			       "%s\n", threads, threads == 1 ? "" : "s", path, s->query,
			       args[0]);
	} else if (nrows > REPORT_ROWS) {
		printf("... %zu more: faultline query %s %s%s%s %s\n",
		       nrows - REPORT_ROWS, path, s->query, nargs > 1 ? " " : "",
		       nargs > 1 ? args[1] : "", args[0]);
	}
}

/* Runs s's canned query with args and prints its rows under its title. */
static int section(sqlite3 *db, const char *path, const struct section *s,
		   char **args, int nargs, int64_t id, size_t max_cell)
{
	const struct table_style style = { s->format, REPORT_ROWS, s->empty,
					   s->format == OUT_TABLE ? max_cell : 0 };
	struct query_def q;
	sqlite3_stmt *st = NULL;
	struct errmsg e;
	size_t nrows = 0;
	int err;

	query_def_init(&q);
	errmsg_init(&e);
	printf("\n== %s\n\n", s->title);
	if (s->note)
		printf("%s\n\n", s->note);
	err = query_def_find(s->query, &q, &e);
	if (err == 0)
		err = query_prepare(db, &q, args, nargs, &st, &e);
	if (err == 0)
		err = table_out(st, &style, stdout, &nrows, s->query, &e);
	if (err == 0)
		print_more(db, path, s, args, nargs, nrows, id);
	sqlite3_finalize(st);
	query_def_release(&q);
	if (err == -ENOMEM)
		return error("report", "out of memory");
	return err < 0 ? error("report", "%s", e.text) : 0;
}

/* The stalls before the events of each imported metric. */
static int metric_sections(sqlite3 *db, const char *path, char *session_arg,
			   int64_t id, size_t max_cell)
{
	static const char sql[] =
		"SELECT DISTINCT name FROM metric_series WHERE session_id IS NULL "
		"ORDER BY name";
	sqlite3_stmt *st = NULL;
	int rc, err = 0;

	rc = sqlite3_prepare_v2(db, sql, -1, &st, NULL);
	while (err == 0 && rc == SQLITE_OK && (rc = sqlite3_step(st)) == SQLITE_ROW) {
		const char *name = (const char *)sqlite3_column_text(st, 0);
		char *shown = term_text_dup(name);	/* an imported name */
		char title[256], metric[160];
		char *args[2] = { session_arg, metric };
		const struct section s = { title, NULL, "stalls-near", NULL,
			"none: no thread stalled before its events", OUT_TABLE, NULL };

		snprintf(title, sizeof(title), "Stalls of 1 ms or more in the 200 ms "
			 "before each '%s' event", shown ? shown : "");
		free(shown);
		snprintf(metric, sizeof(metric), "metric=%s", name);
		err = section(db, path, &s, args, 2, id, max_cell);
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

/* --format json: one object, {"session": N, "db": PATH, "findings":
 * diagnose's JSON, "sections": [{"title", "query", "args", "rows"}]},
 * every row of every section (JSON is for programs: nothing is cut). */
static int json_section(sqlite3 *db, const char *title, const char *query,
			char **args, int nargs, int first)
{
	const struct table_style style = { OUT_JSON, 0, NULL, 0 };
	struct query_def q;
	sqlite3_stmt *st = NULL;
	struct strbuf sb;
	struct errmsg e;
	size_t nrows = 0;
	int err;

	query_def_init(&q);
	errmsg_init(&e);
	strbuf_init(&sb);
	strbuf_adds(&sb, first ? "\n{" : ",\n{");
	json_key(&sb, "title", 1);
	json_cstring(&sb, title);
	json_key(&sb, "query", 0);
	json_cstring(&sb, query);
	json_key(&sb, "args", 0);
	strbuf_addc(&sb, '[');
	for (int i = 0; i < nargs; i++) {
		strbuf_adds(&sb, i ? "," : "");
		json_cstring(&sb, args[i]);
	}
	strbuf_adds(&sb, "]");
	json_key(&sb, "rows", 0);
	err = strbuf_error(&sb) < 0 ? -ENOMEM : 0;
	if (err == 0)
		fputs(strbuf_str(&sb), stdout);
	if (err == 0)
		err = query_def_find(query, &q, &e);
	if (err == 0)
		err = query_prepare(db, &q, args, nargs, &st, &e);
	if (err == 0)
		err = table_out(st, &style, stdout, &nrows, query, &e);
	if (err == 0)
		fputs("}", stdout);
	sqlite3_finalize(st);
	query_def_release(&q);
	strbuf_release(&sb);
	if (err == -ENOMEM)
		return error("report", "out of memory");
	return err < 0 ? error("report", "%s", e.text) : 0;
}

/* diagnose on session id, its events the database's one metric when it
 * has one (*event: the metric's name, the caller's to free, or NULL). */
static int run_diagnose(sqlite3 *db, int64_t id, struct diag_request *req,
			struct diag_result *res, const char **event,
			struct errmsg *e)
{
	int err;

	diag_request_init(req);
	diag_result_init(res);
	req->session_id = id;
	*event = NULL;
	err = diag_default_event(db, NULL, event, e);
	req->event = *event;
	return err ? err : diag_run(db, req, res, e);
}

/* The findings as JSON, after the report's other keys. */
static int json_findings(sqlite3 *db, int64_t id)
{
	struct diag_request req;
	struct diag_result res;
	const char *event;
	struct strbuf sb;
	struct errmsg e;
	int err;

	errmsg_init(&e);
	strbuf_init(&sb);
	err = run_diagnose(db, id, &req, &res, &event, &e);
	if (err == 0) {
		diag_render_json(&req, &res, &sb);
		err = strbuf_error(&sb);
	}
	if (err == 0) {
		/* diag_render_json ends its object with a newline. */
		while (sb.len && sb.buf[sb.len - 1] == '\n')
			sb.buf[--sb.len] = '\0';
		fputs(strbuf_str(&sb), stdout);
	}
	strbuf_release(&sb);
	diag_result_release(&res);
	free((char *)event);
	if (err == -ENOMEM)
		return error("report", "out of memory");
	return err < 0 ? error("report", "%s", e.text) : 0;
}

/* "flight_dump": the session's flight_dump row, every column by its name
 * (times in ns, as the table keeps them), or null for a session that is
 * no flight recorder's dump. */
static void json_flight_dump(sqlite3 *db, int64_t id, struct strbuf *sb)
{
	sqlite3_stmt *st = NULL;

	json_key(sb, "flight_dump", 0);
	if (sqlite3_prepare_v2(db, "SELECT * FROM flight_dump WHERE"
			       " session_id = ?", -1, &st, NULL) == SQLITE_OK)
		sqlite3_bind_int64(st, 1, id);
	if (!st || sqlite3_step(st) != SQLITE_ROW) {
		strbuf_adds(sb, "null");
		sqlite3_finalize(st);
		return;
	}
	strbuf_addc(sb, '{');
	for (int i = 0; i < sqlite3_column_count(st); i++) {
		json_key(sb, sqlite3_column_name(st, i), i == 0);
		sql_value_json(sb, st, i);
	}
	strbuf_addc(sb, '}');
	sqlite3_finalize(st);
}

static int report_json(sqlite3 *db, const char *path, int64_t id)
{
	static const char names_sql[] = "SELECT DISTINCT name FROM metric_series"
		" WHERE session_id IS NULL ORDER BY name";
	char session_arg[48], metric[160];
	char *args[2] = { session_arg, NULL };
	sqlite3_stmt *st = NULL;
	struct strbuf sb;
	int err = 0, rc;

	snprintf(session_arg, sizeof(session_arg), "session=%" PRId64, id);
	strbuf_init(&sb);
	strbuf_adds(&sb, "{");
	json_key(&sb, "session", 1);
	json_int(&sb, id);
	json_key(&sb, "db", 0);
	json_cstring(&sb, path);
	json_flight_dump(db, id, &sb);
	json_key(&sb, "findings", 0);
	if (strbuf_error(&sb) < 0)
		err = error("report", "out of memory");
	else
		fputs(strbuf_str(&sb), stdout);
	strbuf_release(&sb);
	if (err == 0)
		err = json_findings(db, id);
	if (err == 0)
		fputs(",\n\"sections\":[", stdout);
	for (size_t i = 0; i < ARRAY_SIZE(sections) && !err; i++) {
		args[1] = (char *)sections[i].arg;
		err = json_section(db, sections[i].title, sections[i].query, args,
				   sections[i].arg ? 2 : 1, i == 0);
	}
	rc = err ? SQLITE_OK : sqlite3_prepare_v2(db, names_sql, -1, &st, NULL);
	while (err == 0 && rc == SQLITE_OK && (rc = sqlite3_step(st)) == SQLITE_ROW) {
		args[1] = metric;
		snprintf(metric, sizeof(metric), "metric=%s", sqlite3_column_text(st, 0));
		err = json_section(db, "Stalls before each event of a metric",
				   "stalls-near", args, 2, 0);
		rc = SQLITE_OK;
	}
	sqlite3_finalize(st);
	if (err == 0 && rc != SQLITE_DONE && rc != SQLITE_OK)
		err = error("report", "cannot read '%s': %s", path, sqlite3_errmsg(db));
	if (err == 0)
		fputs("]}\n", stdout);
	return err;
}

static int set_format(void *value, const char *arg, const char *opt,
		      struct errmsg *e)
{
	if (!strcmp(arg, "text") || !strcmp(arg, "json")) {
		*(int *)value = !strcmp(arg, "json");
		return 0;
	}
	return errmsg_set(e, EINVAL, "invalid %s '%s': expected text or json (a "
			  "report is several tables; 'faultline query DB NAME -f "
			  "csv' gives one of them as CSV)", opt, arg);
}

static const char report_usage[] = "faultline report DB [-s N] [--wide] "
	"[-f text|json] [--schema NAME]";

static const char report_examples[] =
	"  faultline report run.db\n"
	"  faultline report run.db --session 2 | less\n"
	"  faultline report run.db -f json | python3 -m json.tool\n"
	"  faultline report 'postgresql://results@db1/perf' --session 41\n";

/* The first line: which session, and why that one when none was asked
 * for and there is a choice. */
static void print_heading(const char *path, const struct session_choice *c,
			  int asked)
{
	printf("faultline report: session %" PRId64 " of %s", c->id, path);
	if (!asked && !c->recorded)
		printf(" (the latest; no session recorded anything)");
	else if (!asked && c->later)
		printf(" (the latest that recorded something: the %" PRId64
		       " after it recorded nothing; --session N picks another)",
		       c->later);
	else if (!asked && c->count > 1)
		printf(" (the latest; the database holds sessions %" PRId64 " to %"
		       PRId64 ": --session N picks another)", c->lo, c->hi);
	printf("\n");
}

/* Which run this is, wherever the file travels: the session's uuid,
 * host and labels (record --label, faultline label). */
static void print_identity(sqlite3 *db, int64_t id)
{
	sqlite3_stmt *st = NULL;

	if (sqlite3_prepare_v2(db, "SELECT coalesce(uuid, 'none'), host, labels"
			       " FROM session WHERE session_id = ?", -1, &st,
			       NULL) != SQLITE_OK)
		return;
	sqlite3_bind_int64(st, 1, id);
	/* The host's name and the labels are anyone's text: escaped. */
	if (sqlite3_step(st) == SQLITE_ROW) {
		printf("uuid ");
		term_text_fputs((const char *)sqlite3_column_text(st, 0), stdout);
		printf(", host ");
		term_text_fputs((const char *)sqlite3_column_text(st, 1), stdout);
		printf(", labels ");
		term_text_fputs((const char *)sqlite3_column_text(st, 2), stdout);
		printf("\n");
	}
	sqlite3_finalize(st);
}

/* A flight recorder's dump (record --flight): what fired it, in the
 * words flight_dump keeps ("metric nak = 3 > 0"). */
static void print_flight_dump(sqlite3 *db, int64_t id)
{
	sqlite3_stmt *st = NULL;

	if (sqlite3_prepare_v2(db, "SELECT reason FROM flight_dump WHERE"
			       " session_id = ?", -1, &st, NULL) != SQLITE_OK)
		return;
	sqlite3_bind_int64(st, 1, id);
	if (sqlite3_step(st) == SQLITE_ROW) {
		printf("a flight recorder's dump, fired by ");
		term_text_fputs((const char *)sqlite3_column_text(st, 0), stdout);
		printf("\n");
	}
	sqlite3_finalize(st);
}

/* The sessions after id that failed or were killed, each with its
 * error: a report of an earlier run should not hide why the last attempt
 * did not record, or stopped short. */
static void print_later_failures(sqlite3 *db, int64_t id)
{
	sqlite3_stmt *st = NULL;

	if (sqlite3_prepare_v2(db, "SELECT session_id, status, error FROM session"
			       " WHERE session_id > ? AND status IN ('failed',"
			       " 'killed') AND error IS NOT NULL ORDER BY session_id",
			       -1, &st, NULL) != SQLITE_OK)
		return;
	sqlite3_bind_int64(st, 1, id);
	while (sqlite3_step(st) == SQLITE_ROW) {
		int killed = !strcmp((const char *)sqlite3_column_text(st, 1), "killed");

		/* A killed session's error says "killed while recording...". */
		printf("(session %lld %s", (long long)sqlite3_column_int64(st, 0),
		       killed ? "was " : "failed: ");
		term_text_fputs((const char *)sqlite3_column_text(st, 2), stdout);
		printf(")\n");
	}
	sqlite3_finalize(st);
}

/* Findings shown at the top: the worst few; faultline diagnose shows all. */
#define REPORT_FINDINGS 5

/* With no one metric to line the findings up with, which metrics there
 * are and how to pick one: never a silent choice. */
static void say_metric_choice(sqlite3 *db, const char *path, const char *event)
{
	sqlite3_stmt *st = NULL;

	if (event) {
		printf("(lined up with '");
		term_text_fputs(event, stdout);
		printf("', the one imported metric)\n");
		return;
	}
	if (sqlite3_prepare_v2(db, "SELECT count(*), group_concat(name, ', ') FROM"
			       " (SELECT DISTINCT name FROM metric_series WHERE"
			       " session_id IS NULL ORDER BY name)", -1, &st,
			       NULL) == SQLITE_OK &&
	    sqlite3_step(st) == SQLITE_ROW && sqlite3_column_int64(st, 0) > 1) {
		printf("(the imported metrics ");
		term_text_fputs((const char *)sqlite3_column_text(st, 1), stdout);
		printf(": the findings are ranked by time lost, lined up with "
		       "none; 'faultline diagnose %s --event NAME' lines them up "
		       "with one)\n", path);
	}
	sqlite3_finalize(st);
}

/* The answer first: what faultline diagnose finds, the worst few. */
static int findings(sqlite3 *db, const char *path, int64_t id)
{
	struct diag_request req;
	struct diag_result res;
	const char *event;
	struct strbuf sb;
	struct errmsg e;
	int err;

	errmsg_init(&e);
	strbuf_init(&sb);
	err = run_diagnose(db, id, &req, &res, &event, &e);
	if (err == 0) {
		printf("\n== Findings: why the threads stalled (faultline diagnose)\n\n");
		say_metric_choice(db, path, event);
		diag_render_text(&req, &res, REPORT_FINDINGS, &sb);
		err = strbuf_error(&sb);
	}
	if (err == 0)
		fputs(strbuf_str(&sb), stdout);
	strbuf_release(&sb);
	diag_result_release(&res);
	free((char *)event);
	if (err == -ENOMEM)
		return error("report", "out of memory");
	return err < 0 ? error("report", "%s", e.text) : 0;
}

/* max_cell: a table cell's longest, in characters (0: whole). */
static int report(sqlite3 *db, const char *path, int64_t id, size_t max_cell)
{
	char session_arg[48];
	char *args[2] = { session_arg, NULL };
	int err = 0;

	snprintf(session_arg, sizeof(session_arg), "session=%" PRId64, id);
	for (size_t i = 0; i < ARRAY_SIZE(sections) && !err; i++) {
		const struct section *s = &sections[i];

		args[1] = (char *)s->arg;
		err = section(db, path, s, args, s->arg ? 2 : 1, id, max_cell);
		/* The answer before the tables it is drawn from. */
		if (err == 0 && i == 0)
			err = findings(db, path, id);
		/* The events the stalls line up with, after the stalls. */
		if (err == 0 && !strcmp(s->query, "longest-stalls"))
			err = symbolize_hint(db, path, id);
		if (err == 0 && !strcmp(s->query, "longest-stalls"))
			err = metric_sections(db, path, session_arg, id, max_cell);
	}
	return err;
}

int cmd_report(int argc, char **argv)
{
	int64_t id = 0;		/* 0: the latest that recorded something */
	int wide = 0, json = 0;
	const char *schema = NULL;	/* borrowed: --schema */
	const struct opt opts[] = {
		{ 's', "session", "N", "the session to summarise (default: the latest "
		  "that recorded something)", OPT_CALLBACK, &id, session_pick_parse },
		{ 'w', "wide", NULL, "long cells whole (by default cut at "
		  FL_STR(TABLE_MAX_CELL) " characters, ending in ...)", OPT_FLAG,
		  &wide, NULL },
		{ 'f', "format", "FORMAT", "text (default) or json (one object: "
		  "the findings and every section's rows)", OPT_CALLBACK, &json,
		  set_format },
		READER_SCHEMA_OPT(&schema),
		{ 0 },
	};
	const struct cmd_usage u = {
		"report", report_usage,
		"Summarise a recorded session: fault latency, the longest stalls "
		"and what they line up with, what was lost.\nReads only: writes "
		"nothing, so a database on a read-only mount will do.",
		report_examples, opts,
	};
	struct session_choice c;
	const char *path = NULL;
	sqlite3 *db = NULL;
	int64_t staged;		/* the session a results database gives */
	char shown[1024];	/* path as messages name it */
	struct errmsg e;
	int err = parse_db_args(&u, argc, argv, &path);

	if (err < 0)
		return err == OPT_HELP ? 0 : EXIT_USAGE;
	if (reader_check_schema("report", path, schema))
		return EXIT_USAGE;
	errmsg_init(&e);
	staged = id;
	err = reader_open_session("report", path, schema, &staged, 1, NULL, &db, &e);
	/* A URL's password goes no further (pg_shown). */
	path = pg_shown(path, shown, sizeof(shown));
	if (err == 0)
		err = session_pick_recorded(db, path, id, &c, &e);
	/* Its queries' views, as this faultline has them (schema/views.h). */
	if (err == 0)
		err = schema_wake_views_current(db, c.id, &e);
	if (err < 0) {
		db_close(db);
		return error("report", "%s", e.text), 1;
	}
	if (json) {
		err = report_json(db, path, c.id);
		db_close(db);
		return err < 0 ? 1 : 0;
	}
	print_heading(path, &c, id != 0);
	if (!id && c.later)
		print_later_failures(db, c.id);
	print_identity(db, c.id);
	print_flight_dump(db, c.id);
	err = report(db, path, c.id, wide ? 0 : TABLE_MAX_CELL);
	db_close(db);
	return err < 0 ? 1 : 0;
}
