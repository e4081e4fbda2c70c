/*
 * faultline export: a session out of its database, into another tool's
 * format.  Glue only: options, the session, a call into export/, the
 * closing line.
 *
 * Destinations, one row each in `formats`: a format written to a path
 * (-o), the work in export/<format>.c.  A destination that is not a path
 * (a database server's URL) takes its own option and its own branch in
 * export_run(), beside the one for --format: --to, PostgreSQL
 * (export/pg_export.c), which takes any number of sessions.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../common/array.h"
#include "../export/chrome_trace.h"
#include "../export/csv.h"
#include "../export/pg_export.h"
#include "../export/session_info.h"
#include "../export/session_select.h"
#include "../export/pg_conn.h"
#include "../schema/db.h"
#include "../schema/views.h"
#include "commands.h"
#include "opt.h"
#include "session_pick.h"
#include "reader.h"
#include "usage.h"

struct export_args {
	int64_t session;		/* 0: the latest; the first --session */
	int64_t *sessions;		/* owned: every --session, in order */
	size_t nsessions, sessions_cap;
	struct labels labels;		/* --label: only sessions with these */
	const char *to;			/* borrowed: --to, NULL: not given */
	const char *schema;		/* borrowed: --schema, NULL: not given */
	uint64_t jobs;			/* --jobs; 0: not given */
	const struct export_format *format;	/* borrowed: a row of formats;
						 * NULL: not given */
	const char *output;		/* borrowed from argv; NULL: not given */
	uint64_t min_fault_ns;		/* chrome-trace: shorter faults left out */
	int quiet;
};

static int to_chrome_trace(sqlite3 *db, const char *path,
			   const struct session_info *s,
			   const struct export_args *a, struct errmsg *e)
{
	struct chrome_trace_counts n;
	int err = chrome_trace_write(db, path, s, a->min_fault_ns, a->output, &n, e);

	if (err == 0 && !a->quiet)
		fprintf(stderr, "faultline export: session %" PRId64 " of '%s' to "
			"'%s': %" PRIu64 " threads, %" PRIu64 " state intervals, %"
			PRIu64 " faults, %" PRIu64 " tracepoint hits, %" PRIu64
			" counter points, %" PRIu64 " losses, %" PRIu64 " wake-up "
			"arrows, %" PRIu64 " stacks (%" PRIu64 " frames)\n", s->id,
			path, a->output, n.threads, n.states, n.faults,
			n.tracepoints, n.counter_points, n.lost, n.wake_flows,
			n.stacks, n.frames);
	if (err == 0 && n.lost_untimed)
		warning("export", "%" PRIu64 " loss reports have no time and are "
			"not in the trace (faultline query %s lost lists them)",
			n.lost_untimed, path);
	if (err == 0 && n.skipped_values)
		warning("export", "%" PRIu64 " metric values are not finite numbers "
			"and are not in the trace", n.skipped_values);
	return err;
}

static int to_csv(sqlite3 *db, const char *path, const struct session_info *s,
		  const struct export_args *a, struct errmsg *e)
{
	struct csv_counts n;
	int err = csv_export(db, path, s, a->output, &n, e);

	if (err == 0 && !a->quiet)
		fprintf(stderr, "faultline export: session %" PRId64 " of '%s' to "
			"'%s': %zu files, %" PRIu64 " rows\n", s->id, path,
			a->output, n.files, n.rows);
	return err;
}

static const struct export_format {
	const char *name;
	int (*write)(sqlite3 *db, const char *path, const struct session_info *s,
		     const struct export_args *a, struct errmsg *e);
} formats[] = {
	{ "chrome-trace", to_chrome_trace },
	{ "csv", to_csv },
};

static int parse_format(void *value, const char *arg, const char *opt,
			struct errmsg *e)
{
	for (size_t i = 0; i < ARRAY_SIZE(formats); i++)
		if (!strcmp(arg, formats[i].name)) {
			*(const struct export_format **)value = &formats[i];
			return 0;
		}
	return errmsg_set(e, EINVAL, "invalid %s '%s': expected chrome-trace or "
			  "csv", opt, arg);
}

/* Writing the export over the database it reads would destroy both. */
static int same_file(const char *a, const char *b)
{
	struct stat sa, sb;

	return stat(a, &sa) == 0 && stat(b, &sb) == 0 &&
	       sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

static int add_session(void *value, const char *arg, const char *opt,
		       struct errmsg *e)
{
	struct export_args *a = value;
	int64_t id;

	if (session_pick_parse(&id, arg, opt, e) < 0)
		return -EINVAL;
	if (ARRAY_RESERVE(a->sessions, a->sessions_cap, a->nsessions + 1) < 0)
		return errmsg_set(e, ENOMEM, "out of memory");
	a->sessions[a->nsessions++] = id;
	if (a->nsessions == 1)
		a->session = id;
	return 0;
}

static int parse_jobs(void *value, const char *arg, const char *opt,
		      struct errmsg *e)
{
	return opt_parse_u64_in(arg, opt, 1, PG_JOBS_MAX, "a number of connections "
				"from 1 to " FL_STR(PG_JOBS_MAX), value, e);
}

/* --label KEY=VALUE (repeatable; a KEY given again takes the last). */
static int add_label(void *value, const char *arg, const char *opt,
		     struct errmsg *e)
{
	return labels_add(value, arg, opt, e);
}

static int export_write(const char *path, struct export_args *a)
{
	struct session_info s;
	sqlite3 *db = NULL;
	int64_t staged;		/* the session a results database gives */
	char shown[1024];	/* path as messages name it */
	struct errmsg e;
	int err;

	errmsg_init(&e);
	session_info_init(&s);
	staged = a->session;
	err = reader_open_session("export", path, a->schema, &staged, 0, NULL, &db, &e);
	/* A URL's password goes no further (pg_shown). */
	path = pg_shown(path, shown, sizeof(shown));
	if (err == 0)
		err = session_pick(db, path, &a->session, &e);
	if (err == 0)
		err = session_info_read(db, path, a->session, &s, &e);
	/* What issued the session's wake-ups, worked out once
	 * (schema/views.h). */
	if (err == 0)
		err = schema_wake_views_current(db, s.id, &e);
	if (err == 0 && session_info_empty(&s))
		err = errmsg_set(&e, ENODATA, "session %" PRId64 " of '%s' holds "
				 "nothing to export: no fault, thread state, "
				 "tracepoint hit or metric point; choose another "
				 "with --session (faultline query %s sessions)",
				 s.id, path, path);
	if (err == 0)
		err = a->format->write(db, path, &s, a, &e);
	session_info_release(&s);
	db_close(db);
	return err < 0 ? error("export", "%s", e.text), 1 : 0;
}

static const char export_usage[] =
	"faultline export DB --format chrome-trace|csv -o PATH [--session N]\n"
	"                        [--min-fault-duration DUR] [-q] [--schema NAME]\n"
	"       faultline export DB --to URL [--schema NAME] [--jobs N]\n"
	"                        [--session N | --label KEY=VALUE]... [-q]";

static const char export_examples[] =
	"  faultline export run.db --format chrome-trace -o trace.json\n"
	"  faultline export run.db --format chrome-trace --min-fault-duration 100us -o big.json\n"
	"  faultline export run.db --session 2 --format csv -o run-csv\n"
	"  faultline export run.db --to postgresql://results@db1/perf --label run=4711\n"
	"  PGSERVICE=results faultline export run.db --to '' --schema faultline\n";

/* The options that go together; a usage error (printed, OPT_USAGE) when
 * they do not. */
static int check_args(const char *path, const struct export_args *a)
{
	/* --format from a results database: --schema names the one read. */
	int reads_schema = !a->to && pg_is_target(path);

	if (a->to && a->format)
		return error("export", "--to and --format are exclusive: --to loads "
			     "a PostgreSQL database, --format writes a file; give "
			     "one"), OPT_USAGE;
	if (a->to && (a->output || a->min_fault_ns))
		return error("export", "%s applies to --format; --to loads the "
			     "rows into PostgreSQL", a->output ? "-o" :
			     "--min-fault-duration"), OPT_USAGE;
	if (!a->to && ((a->schema && !reads_schema) || a->labels.n ||
			a->nsessions > 1 || a->jobs))
		return error("export", "%s applies to --to (PostgreSQL)%s; --format "
			     "writes one session, chosen with --session N",
			     a->schema ? "--schema" : a->labels.n ? "--label" :
			     a->jobs ? "--jobs" : "more than one --session",
			     a->schema ? ", or names the schema a postgresql:// DB "
			     "is read from" : ""), OPT_USAGE;
	if (a->schema && !*a->schema)
		return error("export", "--schema needs a name, e.g. --schema "
			     "faultline"), OPT_USAGE;
	return 0;
}

static int export_file(const char *path, struct export_args *a)
{
	if (!a->format)
		return error("export", "no destination given: add --format "
			     "chrome-trace or --format csv, and -o PATH; or --to "
			     "postgresql://..."), EXIT_USAGE;
	if (!a->output)
		return error("export", "--format %s needs -o PATH: the %s to write",
			     a->format->name, a->format->write == to_csv ?
			     "directory" : "file"), EXIT_USAGE;
	if (a->min_fault_ns && a->format->write != to_chrome_trace)
		return error("export", "--min-fault-duration applies to --format "
			     "chrome-trace; a CSV export holds every row"), EXIT_USAGE;
	if (same_file(path, a->output))
		return error("export", "-o '%s' is the database itself; write the "
			     "export to another path", a->output), EXIT_USAGE;
	return export_write(path, a);
}

/* The progress line: on a terminal only, where it is rewritten in place
 * (a log file would get a line every quarter second). */
static void show_progress(const struct pg_progress *p)
{
	double dt = pg_now_s() - p->start_s;

	fprintf(stderr, "\r\033[Kfaultline export: session %" PRId64 ", %s: %"
		PRIu64 " rows, %.0f rows/s", p->session, p->table ? p->table : "",
		p->rows, dt > 0 ? (double)p->rows / dt : 0.0);
	fflush(stderr);
}

static void report_pg(const char *path, const struct export_args *a,
		      const char *schema, const struct pg_session_done *d,
		      size_t n, size_t ndone, const struct pg_progress *p)
{
	double dt = pg_now_s() - p->start_s;
	size_t skipped = 0;

	if (p->show && p->shown_s > 0)
		fputs("\r\033[K", stderr);
	for (size_t i = 0; i < n; i++) {
		if (!d[i].finished)
			continue;
		skipped += d[i].skipped;
		if (a->quiet)
			continue;
		if (d[i].skipped)
			fprintf(stderr, "faultline export: session %" PRId64 " of '%s' "
				"(uuid %s) is already in schema '%s' as session %"
				PRId64 ": nothing changed\n", d[i].id, path,
				d[i].uuid, schema, d[i].pg_id);
		else
			fprintf(stderr, "faultline export: session %" PRId64 " of '%s' "
				"(uuid %s) to schema '%s' as session %" PRId64 ": %"
				PRIu64 " rows\n", d[i].id, path, d[i].uuid, schema,
				d[i].pg_id, d[i].rows);
	}
	if (!a->quiet && ndone)
		fprintf(stderr, "faultline export: %zu session%s loaded, %zu already "
			"there; %" PRIu64 " rows in %.2f s, %.0f rows/s\n", ndone - skipped,
			ndone - skipped == 1 ? "" : "s", skipped, p->rows, dt,
			dt > 0 ? (double)p->rows / dt : 0.0);
}

static int export_pg(const char *path, struct export_args *a)
{
	struct pg_export x = { a->to, a->schema ? a->schema : "faultline", NULL, 0,
			       a->jobs ? (int)a->jobs : 2 };
	struct pg_progress p = { isatty(2) ? show_progress : NULL, 0, 0, pg_now_s(),
				 0, 0, NULL };
	struct pg_session_done *done = NULL;
	int64_t *ids = NULL;
	size_t n = 0, ndone = 0, recording = 0;
	sqlite3 *db = NULL;
	struct errmsg e;
	int err;

	errmsg_init(&e);
	err = reader_open("export", path, &db, &e);
	if (err == 0)
		err = session_select(db, path, a->sessions, a->nsessions, &a->labels,
				     &ids, &n, &recording, &e);
	if (err == 0 && recording)
		warning("export", "%zu sessions of '%s' are still recording and are "
			"left out; export them once they end", recording, path);
	if (err == 0 && n == 0)
		err = errmsg_set(&e, ENOENT, "no session of '%s' to export%s; "
				 "faultline query %s sessions lists them", path,
				 a->labels.n ? " with those labels" : "", path);
	if (err == 0 && !(done = calloc(n, sizeof(*done))))
		err = errmsg_set(&e, ENOMEM, "out of memory");
	x.ids = ids;
	x.nids = n;
	if (err == 0)
		err = pg_export_run(db, path, &x, &p, done, &ndone, &e);
	if (done)
		report_pg(path, a, x.schema, done, n, ndone, &p);
	free(done);
	free(ids);
	db_close(db);
	return err < 0 ? error("export", "%s", e.text), 1 : 0;
}

int cmd_export(int argc, char **argv)
{
	struct export_args a = { 0 };
	const struct opt opts[] = {
		{ 0, "format", "FORMAT", "chrome-trace (a JSON file for the "
		  "Perfetto UI and chrome://tracing) or csv (a directory, a file "
		  "a table)", OPT_CALLBACK, &a.format, parse_format },
		{ 'o', "output", "PATH", "the file (chrome-trace) or directory "
		  "(csv) to write", OPT_STRING, &a.output, NULL },
		{ 0, "to", "URL", "load PostgreSQL instead: a postgresql:// URL "
		  "or key=value conninfo, as psql takes it", OPT_STRING, &a.to,
		  NULL },
		{ 0, "schema", "NAME", "--to: the PostgreSQL schema (default "
		  "faultline), created if missing; --format from a postgresql:// "
		  "DB: the schema read", OPT_STRING, &a.schema, NULL },
		{ 's', "session", "N", "the session to export (default: the latest; "
		  "--to: all); --to takes it more than once", OPT_CALLBACK, &a,
		  add_session },
		{ 0, "label", "KEY=VALUE", "--to: the sessions labelled so (more "
		  "than once: all of them)", OPT_CALLBACK, &a.labels, add_label },
		{ 0, "jobs", "N", "--to: connections at once: sessions loaded side "
		  "by side, then the indexes (default 2)", OPT_CALLBACK, &a.jobs,
		  parse_jobs },
		{ 0, "min-fault-duration", "DUR", "chrome-trace: leave out faults "
		  "shorter than this (default 0: none)", OPT_DURATION,
		  &a.min_fault_ns, NULL },
		{ 'q', "quiet", NULL, "no summary line", OPT_FLAG, &a.quiet, NULL },
		{ 0 },
	};
	const struct cmd_usage u = {
		"export", export_usage,
		"Export a session for another tool: a trace the Perfetto UI opens, "
		"a CSV file per table, or sessions into PostgreSQL.",
		export_examples, opts,
	};
	const char *path = NULL;
	int res = parse_db_args(&u, argc, argv, &path);

	if (res == 0)
		res = check_args(path, &a);
	if (res == 0)
		res = a.to ? export_pg(path, &a) : export_file(path, &a);
	free(a.sessions);
	labels_release(&a.labels);
	return res == OPT_HELP ? 0 : res < 0 ? EXIT_USAGE : res;
}

