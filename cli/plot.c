/*
 * faultline plot: a session's timeline as a page a browser opens offline,
 * or an SVG picture.  Glue only: options, the session and the window, a
 * call into plot/, the closing line.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#include "../common/array.h"
#include "../export/session_info.h"
#include "../plot/plot.h"
#include "../plot/when.h"
#include "../export/pg_conn.h"
#include "../schema/db.h"
#include "../schema/views.h"
#include "commands.h"
#include "opt.h"
#include "plot_finding.h"
#include "session_pick.h"
#include "reader.h"
#include "usage.h"

#define DEFAULT_WIDTH 1600
#define DEFAULT_ZOOM 4
#define DEFAULT_THRESHOLD_NS 1000000ull	/* 1 ms: a major fault, not a minor */
#define DEFAULT_WINDOW_NS 1000000000ull	/* --around without --window */

struct plot_args {
	int64_t session;			/* 0: the latest */
	const char *output;			/* borrowed from argv */
	const char *from, *to, *around;		/* borrowed; NULL: not given */
	uint64_t window_ns;			/* 0: not given */
	uint64_t finding;			/* 0: not given */
	int64_t *tids;				/* owned */
	size_t ntids, tids_cap;
	struct plot_metric_pick *metrics;	/* owned; names borrowed */
	size_t nmetrics, metrics_cap;
	uint64_t width, zoom, threshold_ns;
	int all_threads;
	int quiet;
	const char *schema;			/* borrowed: --schema; NULL: not given */
};

static int add_tid(void *value, const char *arg, const char *opt,
		   struct errmsg *e)
{
	struct plot_args *a = value;
	int64_t v;
	int err = opt_parse_tid(&v, arg, opt, e);

	if (err == 0 && ARRAY_RESERVE(a->tids, a->tids_cap, a->ntids + 1) < 0)
		return errmsg_set(e, ENOMEM, "out of memory");
	if (err == 0)
		a->tids[a->ntids++] = v;
	return err;
}

/* --finding N: 1 is diagnose's worst. */
static int parse_finding(void *value, const char *arg, const char *opt,
			 struct errmsg *e)
{
	return opt_parse_u64_in(arg, opt, 1, 1000000, "a finding's number as "
				"faultline diagnose prints it (1: the worst)",
				value, e);
}

/* NAME, NAME=line or NAME=ticks; the name is cut in place (argv's). */
static int add_metric(void *value, const char *arg, const char *opt,
		      struct errmsg *e)
{
	struct plot_args *a = value;
	char *eq = strrchr(arg, '=');
	enum plot_metric_style style = STYLE_AUTO;

	if (eq && !strcmp(eq + 1, "line"))
		style = STYLE_LINE;
	else if (eq && !strcmp(eq + 1, "ticks"))
		style = STYLE_TICKS;
	else if (eq)
		return errmsg_set(e, EINVAL, "invalid %s '%s': after '=' comes line "
				  "or ticks", opt, arg);
	if (eq)
		*eq = '\0';
	if (!*arg)
		return errmsg_set(e, EINVAL, "invalid %s: give a metric name", opt);
	if (ARRAY_RESERVE(a->metrics, a->metrics_cap, a->nmetrics + 1) < 0)
		return errmsg_set(e, ENOMEM, "out of memory");
	a->metrics[a->nmetrics++] = (struct plot_metric_pick){ arg, style, 0 };
	return 0;
}

static int parse_count(void *value, const char *arg, const char *opt,
		       struct errmsg *e, uint64_t lo, uint64_t hi)
{
	int err = opt_parse_u64(arg, opt, value, e);

	if (err == 0 && (*(uint64_t *)value < lo || *(uint64_t *)value > hi))
		return errmsg_set(e, ERANGE, "invalid %s '%s': from %llu to %llu",
				  opt, arg, (unsigned long long)lo,
				  (unsigned long long)hi);
	return err;
}

static int parse_width(void *value, const char *arg, const char *opt,
		       struct errmsg *e)
{
	return parse_count(value, arg, opt, e, 200, 100000);
}

static int parse_zoom(void *value, const char *arg, const char *opt,
		      struct errmsg *e)
{
	return parse_count(value, arg, opt, e, 1, 1000);
}

/* ---- the window --------------------------------------------------------- */

/* A TS option's value: "+DUR" after the session's start, else when.h's. */
static int resolve_ts(const char *s, const char *opt, const struct session_info *si,
		      int64_t *ts, struct errmsg *e)
{
	uint64_t ns;

	if (s[0] != '+')
		return plot_when_parse(s, opt, si->start_ts, si->end_ts, ts, e);
	if (opt_parse_duration(s + 1, opt, &ns, e) < 0 || ns > INT64_MAX / 2)
		return errmsg_set(e, EINVAL, "invalid %s '%s': after '+' comes a "
				  "duration from the session's start, e.g. +1500ms",
				  opt, s);
	*ts = si->start_ts + (int64_t)ns;
	return 0;
}

static int window(const struct plot_args *a, const struct session_info *si,
		  struct plot_spec *spec, struct errmsg *e)
{
	int64_t at, half = (int64_t)((a->window_ns ? a->window_ns : DEFAULT_WINDOW_NS) / 2);
	char f[UTC_LEN], t[UTC_LEN];
	int err = 0;

	spec->from_ts = si->start_ts;
	spec->to_ts = si->end_ts;
	if (a->around) {
		err = resolve_ts(a->around, "--around", si, &at, e);
		spec->from_ts = at - half;
		spec->to_ts = at + half + (half == 0);
	}
	if (err == 0 && a->from)
		err = resolve_ts(a->from, "--from", si, &spec->from_ts, e);
	if (err == 0 && a->to)
		err = resolve_ts(a->to, "--to", si, &spec->to_ts, e);
	if (err == 0 && spec->to_ts <= spec->from_ts)
		err = errmsg_set(e, EINVAL, "the window is empty: it runs from %s to %s; "
				 "--to must come after --from",
				 utc_format(f, sizeof(f), spec->from_ts),
				 utc_format(t, sizeof(t), spec->to_ts));
	return err;
}

/* ---- the command -------------------------------------------------------- */

static int format_of(const char *path, enum plot_format *f)
{
	const char *dot = strrchr(path, '.');

	if (dot && (!strcasecmp(dot, ".html") || !strcasecmp(dot, ".htm")))
		*f = PLOT_HTML;
	else if (dot && !strcasecmp(dot, ".svg"))
		*f = PLOT_SVG;
	else
		return -1;
	return 0;
}

static void summary(const char *path, const struct plot_args *a,
		    const struct plot_spec *spec, const struct session_info *si,
		    const struct plot_counts *n)
{
	char f[UTC_LEN], t[UTC_LEN];
	struct stat st;

	fprintf(stderr, "faultline plot: session %" PRId64 " of '%s', %s to %s, "
		"to '%s' (%.1f MB): %" PRIu64 " state intervals drawn as %" PRIu64
		", %" PRIu64 " faults as %" PRIu64 " single and %" PRIu64 " merged, %"
		PRIu64 " tracepoint hits as %" PRIu64 ", %" PRIu64 " metric points as %"
		PRIu64 ", %" PRIu64 " lost spans\n", si->id, path,
		utc_format(f, sizeof(f), spec->from_ts), utc_format(t, sizeof(t), spec->to_ts),
		a->output, stat(a->output, &st) == 0 ? st.st_size / 1e6 : 0.0,
		n->states_in, n->states_out, n->faults_in, n->faults_kept,
		n->fault_merges, n->events_in, n->events_out, n->points_in,
		n->points_out, n->lost_spans);
}

static int plot_run(const char *path, struct plot_args *a, enum plot_format format)
{
	struct plot_spec spec = { format, 0, 0, a->tids, a->ntids, a->metrics,
				  a->nmetrics, (unsigned)a->width,
				  format == PLOT_SVG ? 1 : (unsigned)a->zoom,
				  (int64_t)a->threshold_ns, a->all_threads };
	struct plot_finding found = { 0, 0, 0 };
	struct session_info si;
	struct plot_counts n;
	sqlite3 *db = NULL;
	int64_t staged;		/* the session a results database gives */
	char shown[1024];	/* path as messages name it */
	struct errmsg e;
	int err, res = 1;

	errmsg_init(&e);
	session_info_init(&si);
	staged = a->session;
	err = reader_open_session("plot", path, a->schema, &staged, 0, NULL, &db, &e);
	/* A URL's password goes no further (pg_shown). */
	path = pg_shown(path, shown, sizeof(shown));
	if (err == 0)
		err = session_pick(db, path, &a->session, &e);
	if (err == 0)
		err = session_info_read(db, path, a->session, &si, &e);
	/* What issued the session's wake-ups, worked out once
	 * (schema/views.h). */
	if (err == 0)
		err = schema_wake_views_current(db, si.id, &e);
	if (err == 0 && session_info_empty(&si))
		err = errmsg_set(&e, ENODATA, "session %" PRId64 " of '%s' holds "
				 "nothing to plot: no fault, thread state, "
				 "tracepoint hit or metric point; choose another "
				 "with --session (faultline query %s sessions)",
				 si.id, path, path);
	if (err == 0 && a->finding) {
		err = plot_finding_window(db, path, si.id, a->finding, &found, &e);
		spec.from_ts = found.from_ts;
		spec.to_ts = found.to_ts;
		if (!a->ntids) {
			spec.tids = &found.tid;
			spec.ntids = 1;
		}
	} else if (err == 0 && window(a, &si, &spec, &e) < 0) {
		/* An option's value, found wrong only once the session is known. */
		res = EXIT_USAGE;
		err = -EINVAL;
	}
	if (err == 0)
		err = plot_write(db, path, &si, &spec, a->output, &n, &e);
	if (err == 0 && !a->quiet)
		summary(path, a, &spec, &si, &n);
	session_info_release(&si);
	db_close(db);
	return err < 0 ? error("plot", "%s", e.text), res : 0;
}

static const char plot_usage[] =
	"faultline plot DB -o FILE.html|FILE.svg [--session N]\n"
	"                      [--from TS] [--to TS] [--around TS] [--window DUR]\n"
	"                      [--finding N]\n"
	"                      [--tid TID]... [--all-threads]\n"
	"                      [--metric NAME[=line|ticks]]...\n"
	"                      [--width PX] [--zoom N] [--fault-threshold DUR] [-q]\n"
	"                      [--schema NAME]";

static const char plot_examples[] =
	"  faultline plot run.db -o timeline.html\n"
	"  faultline plot run.db -o stall.html --around 15:41:18.014 --window 300ms\n"
	"  faultline plot run.db -o rx.svg --tid 4243 --metric nak --from +2s --to +4s\n"
	"  faultline plot run.db -o worst.html --finding 1\n"
	"  faultline plot 'postgresql://results@db1/perf' --session 41 -o run41.html\n";

/* Writing the plot over the database it reads would destroy both. */
static int same_file(const char *x, const char *y)
{
	struct stat sx, sy;

	return stat(x, &sx) == 0 && stat(y, &sy) == 0 &&
	       sx.st_dev == sy.st_dev && sx.st_ino == sy.st_ino;
}

static int check_args(const char *path, const struct plot_args *a,
		      enum plot_format *format)
{
	if (!a->output)
		return error("plot", "no output given: add -o FILE.html (a page) "
			     "or -o FILE.svg (a picture)");
	if (same_file(a->output, path))
		return error("plot", "-o '%s' is the database itself; write the "
			     "plot to another path", a->output);
	if (format_of(a->output, format) < 0)
		return error("plot", "cannot tell the format of '%s': name it "
			     ".html for a page or .svg for a picture", a->output);
	if (a->around && (a->from || a->to))
		return error("plot", "--around and --from/--to each choose the "
			     "window: give one or the other");
	if (a->finding && (a->around || a->from || a->to))
		return error("plot", "--finding and --around/--from/--to each choose "
			     "the window: give one or the other");
	if (a->window_ns && !a->around)
		return error("plot", "--window needs --around TS: the time to "
			     "centre it on");
	return 0;
}

int cmd_plot(int argc, char **argv)
{
	struct plot_args a;
	const struct opt opts[] = {
		{ 'o', "output", "FILE", "the page (.html) or picture (.svg) to "
		  "write", OPT_STRING, &a.output, NULL },
		{ 's', "session", "N", "the session to plot (default: the latest)",
		  OPT_CALLBACK, &a.session, session_pick_parse },
		{ 0, "from", "TS", "start the window here (default: the session's "
		  "start)", OPT_STRING, &a.from, NULL },
		{ 0, "to", "TS", "end the window here (default: the session's end)",
		  OPT_STRING, &a.to, NULL },
		{ 0, "around", "TS", "centre the window here", OPT_STRING,
		  &a.around, NULL },
		{ 0, "window", "DUR", "the window's length with --around (default 1s)",
		  OPT_DURATION, &a.window_ns, NULL },
		{ 0, "finding", "N", "the window and thread of faultline diagnose's "
		  "Nth finding", OPT_CALLBACK, &a.finding, parse_finding },
		{ 0, "tid", "TID", "a lane for this thread (repeat; default: every "
		  "thread with rows)", OPT_CALLBACK, &a, add_tid },
		{ 0, "all-threads", NULL, "a lane for idle threads too (default: "
		  "only threads with a fault or a stall of 1ms or more)", OPT_FLAG,
		  &a.all_threads, NULL },
		{ 0, "metric", "NAME", "a lane for this metric, =line or =ticks to "
		  "choose how (repeat; default: every metric)", OPT_CALLBACK, &a,
		  add_metric },
		{ 0, "width", "PX", "the plot's width in pixels (default "
		  FL_STR(DEFAULT_WIDTH) ")", OPT_CALLBACK, &a.width, parse_width },
		{ 0, "zoom", "N", "keep detail for zooming in N times (HTML; "
		  "default " FL_STR(DEFAULT_ZOOM) ")", OPT_CALLBACK, &a.zoom, parse_zoom },
		{ 0, "fault-threshold", "DUR", "draw every fault this long as "
		  "recorded (default 1ms)", OPT_DURATION, &a.threshold_ns, NULL },
		{ 'q', "quiet", NULL, "no summary line", OPT_FLAG, &a.quiet, NULL },
		READER_SCHEMA_OPT(&a.schema),
		{ 0 },
	};
	const struct cmd_usage u = {
		"plot", plot_usage,
		"Draw a session's threads, faults and metrics on one wall-clock "
		"axis: a page a browser opens offline, or an SVG picture.",
		plot_examples, opts,
	};
	const char *path = NULL;
	enum plot_format format = PLOT_HTML;
	int res;

	memset(&a, 0, sizeof(a));
	a.width = DEFAULT_WIDTH;
	a.zoom = DEFAULT_ZOOM;
	a.threshold_ns = DEFAULT_THRESHOLD_NS;
	res = parse_db_args(&u, argc, argv, &path);
	if (res == 0 && check_args(path, &a, &format) < 0)
		res = OPT_USAGE;
	if (res == 0 && reader_check_schema("plot", path, a.schema))
		res = OPT_USAGE;
	if (res == 0)
		res = plot_run(path, &a, format);
	else
		res = res == OPT_HELP ? 0 : EXIT_USAGE;
	free(a.tids);
	free(a.metrics);
	return res;
}
