#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "../common/clock.h"
#include "../common/markup.h"
#include "../common/out_file.h"
#include "../common/strbuf.h"
#include "../diagnose/pattern.h"
#include "page.h"

/* No fetch of any kind; the page's own inline script and style only. */
#define CSP "default-src 'none'; script-src 'unsafe-inline'; " \
	    "style-src 'unsafe-inline'; img-src data:"

static const char style[] =
	"body{font:14px system-ui,sans-serif;margin:1.5em;color:#222}"
	"#runs{display:flex;flex-wrap:wrap;gap:3px;margin:1em 0 .5em}"
	"a.run{display:block;width:34px;height:48px;line-height:48px;"
	"text-align:center;color:#000;text-decoration:none;font-size:12px;"
	"border:1px solid #0003;position:relative}"
	"a.run.cp{border-left:4px solid #000}"
	"a.run.cp::before{content:'\\25BC';position:absolute;top:-1.3em;left:-4px;"
	"font-size:12px;line-height:1em}"
	"table{border-collapse:collapse;font-size:13px}"
	"td,th{border:1px solid #ccc;padding:2px 6px;text-align:right}"
	"td.l,th.l{text-align:left}"
	"pre{background:#f6f6f6;padding:.6em;overflow-x:auto}"
	"h2.run{margin-top:2em}";

/* Once laid out, each block says where it was drawn (data-x: its
 * position in reading order), so a test can check the order the browser
 * gave them; then the body says it is ready. */
static const char script[] =
	"(function(){var b=document.querySelectorAll('a.run');"
	"for(var i=0;i<b.length;i++){var r=b[i].getBoundingClientRect();"
	"b[i].setAttribute('data-x',Math.round(r.top)*100000+Math.round(r.left));}"
	"document.body.setAttribute('data-ready','1');})();";

static const char *const shown_causes[] = {
	"lazy-binding", "file-evicted", "preemption", "cpu-quota",
};

static double figure(const struct run_row *w, const char *metric)
{
	double s = 0;

	if (metric)
		return w->metric_events < 0 ? 0 : (double)w->metric_events;
	for (size_t i = 0; i < diag_npatterns; i++)
		s += (double)w->cause_ns[i];
	return s;
}

static const char *utc_s(char *buf, size_t n, int64_t ts)
{
	char *dot;

	utc_format(buf, n, ts);
	/* to the millisecond: "2026-11-26T18:17:03.123Z" */
	if ((dot = strchr(buf, '.')) && strlen(dot) > 4)
		strcpy(dot + 4, "Z");
	return buf;
}

/* The run's labels as "k=v k2=v2", from its JSON, through SQLite. */
static void labels_text(sqlite3 *db, const char *json, struct strbuf *sb)
{
	sqlite3_stmt *st = NULL;

	if (sqlite3_prepare_v2(db, "SELECT " RUN_LABELS_TEXT("?1"), -1, &st,
			       NULL) == SQLITE_OK) {
		sqlite3_bind_text(st, 1, json, -1, SQLITE_STATIC);
		if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_text(st, 0))
			markup_text(sb, (const char *)sqlite3_column_text(st, 0));
	}
	sqlite3_finalize(st);
}

static int is_change(const struct run_changes *c, size_t run)
{
	for (size_t i = 0; i < c->n; i++)
		if (c->v[i].run == run)
			return 1;
	return 0;
}

static void blocks(sqlite3 *db, const struct runs *r, const struct run_changes *c,
		   const char *metric, struct strbuf *sb)
{
	double lo = 0, hi = 0;
	char t[UTC_LEN];

	for (size_t i = 0; i < r->n; i++) {
		double v = figure(&r->v[i], metric);

		lo = i == 0 || v < lo ? v : lo;
		hi = i == 0 || v > hi ? v : hi;
	}
	strbuf_adds(sb, "<p>Each block a run, oldest first, coloured by ");
	if (metric) {
		markup_text(sb, metric);
		strbuf_addf(sb, " events in the run: %.0f (green) to %.0f (red)", lo, hi);
	} else {
		strbuf_addf(sb, "stall time of every cause: %.3f ms (green) to %.3f ms"
			    " (red)", lo / 1e6, hi / 1e6);
	}
	strbuf_adds(sb, "; &#x25BC; a change point. A block links to its run's "
		    "report below.</p>\n<div id=\"runs\">\n");
	for (size_t i = 0; i < r->n; i++) {
		const struct run_row *w = &r->v[i];
		double v = figure(w, metric), f = hi > lo ? (v - lo) / (hi - lo) : 0;

		strbuf_addf(sb, "<a class=\"run%s\" href=\"#run-%zu\" data-run=\"%zu\""
			    " data-session=\"%" PRId64 "\" data-ts=\"%" PRId64 "\""
			    " data-value=\"%.17g\" style=\"background:hsl(%.0f,75%%,55%%)\""
			    " title=\"run %zu, session %" PRId64 ", %s, ",
			    is_change(c, i) ? " cp" : "", i + 1, i + 1, w->session_id,
			    w->start_ts, v, 120 * (1 - f), i + 1, w->session_id,
			    utc_s(t, sizeof(t), w->start_ts));
		labels_text(db, w->labels, sb);
		strbuf_addf(sb, ": %.17g\">%zu</a>\n", metric ? v : v / 1e6, i + 1);
	}
	strbuf_adds(sb, "</div>\n");
}

static void cell_ms(struct strbuf *sb, int64_t ns)
{
	strbuf_addf(sb, "<td>%.3f</td>", (double)ns / 1e6);
}

static size_t pattern_index(const char *name)
{
	for (size_t i = 0; i < diag_npatterns; i++)
		if (!strcmp(diag_patterns[i]->name, name))
			return i;
	return diag_npatterns;
}

static void table(sqlite3 *db, const struct runs *r, const char *metric,
		  struct strbuf *sb)
{
	char t[UTC_LEN];

	strbuf_adds(sb, "<h2>Runs</h2>\n<table id=\"table\"><tr><th>run</th>"
		    "<th>session</th><th class=\"l\">time</th><th class=\"l\">labels</th>");
	if (metric) {
		strbuf_adds(sb, "<th>");
		markup_text(sb, metric);
		strbuf_adds(sb, "</th>");
	}
	for (size_t k = 0; k < sizeof(shown_causes) / sizeof(*shown_causes); k++)
		strbuf_addf(sb, "<th>%s ms</th>", shown_causes[k]);
	strbuf_adds(sb, "<th>other stall ms</th><th>p99 fault us</th><th>lost</th></tr>\n");
	for (size_t i = 0; i < r->n; i++) {
		const struct run_row *w = &r->v[i];
		int64_t other = 0;

		strbuf_addf(sb, "<tr><td><a href=\"#run-%zu\">%zu</a></td><td>%" PRId64
			    "</td><td class=\"l\">%s</td><td class=\"l\">", i + 1, i + 1,
			    w->session_id, utc_s(t, sizeof(t), w->start_ts));
		labels_text(db, w->labels, sb);
		strbuf_adds(sb, "</td>");
		if (metric)
			strbuf_addf(sb, "<td>%" PRId64 "</td>", w->metric_events);
		for (size_t p = 0; p < diag_npatterns; p++)
			other += w->cause_ns[p];
		for (size_t k = 0; k < sizeof(shown_causes) / sizeof(*shown_causes); k++) {
			size_t p = pattern_index(shown_causes[k]);
			int64_t ns = p < diag_npatterns ? w->cause_ns[p] : 0;

			cell_ms(sb, ns);
			other -= ns;
		}
		cell_ms(sb, other);
		if (w->p99_fault_ns < 0)
			strbuf_adds(sb, "<td></td>");
		else
			strbuf_addf(sb, "<td>%.3f</td>", (double)w->p99_fault_ns / 1e3);
		strbuf_addf(sb, "<td>%" PRId64 "</td></tr>\n", w->lost);
	}
	strbuf_adds(sb, "</table>\n");
}

/* One change point in words, as faultline runs prints it. */
static void change_line(const struct runs *r, const struct run_change *c,
			const char *metric, struct strbuf *sb)
{
	struct strbuf text;

	strbuf_init(&text);
	run_change_text(r, c, metric, &text);
	markup_text(sb, strbuf_str(&text));
	strbuf_release(&text);
}

static void changes(const struct runs *r, const struct run_changes *c,
		    const char *metric, struct strbuf *sb)
{
	strbuf_addf(sb, "<h2>Change points</h2>\n<p>E-Divisive means (alpha 1, "
		    "999 permutations, p &le; 0.05, segments of 3 runs or more) "
		    "over %zu series in %zu group%s of comparable runs.</p>\n<ul id=\"changes\">\n",
		    c->nseries, c->ngroups, c->ngroups == 1 ? "" : "s");
	for (size_t i = 0; i < c->n; i++) {
		strbuf_addf(sb, "<li data-run=\"%zu\">", c->v[i].run + 1);
		change_line(r, &c->v[i], metric, sb);
		strbuf_adds(sb, "</li>\n");
	}
	if (c->n == 0)
		strbuf_adds(sb, "<li>none</li>\n");
	strbuf_adds(sb, "</ul>\n");
}

/* The run's environment, one "key = value" a line. */
static void environment(sqlite3 *db, int64_t session, struct strbuf *sb)
{
	sqlite3_stmt *st = NULL;
	int any = 0;

	if (sqlite3_prepare_v2(db, "SELECT key, value FROM session_env WHERE"
			       " session_id = ? ORDER BY key", -1, &st, NULL) == SQLITE_OK) {
		sqlite3_bind_int64(st, 1, session);
		while (sqlite3_step(st) == SQLITE_ROW) {
			markup_text(sb, (const char *)sqlite3_column_text(st, 0));
			strbuf_adds(sb, " = ");
			markup_text(sb, (const char *)sqlite3_column_text(st, 1));
			strbuf_addc(sb, '\n');
			any = 1;
		}
	}
	sqlite3_finalize(st);
	if (!any)
		strbuf_adds(sb, "(not recorded)\n");
}

static void report(sqlite3 *db, const struct runs *r, const struct run_changes *c,
		   size_t i, const char *metric, struct strbuf *sb)
{
	const struct run_row *w = &r->v[i];
	char t[UTC_LEN];

	strbuf_addf(sb, "<h2 class=\"run\" id=\"run-%zu\">Run %zu: session %" PRId64
		    ", %s, ", i + 1, i + 1, w->session_id, utc_s(t, sizeof(t), w->start_ts));
	labels_text(db, w->labels, sb);
	strbuf_adds(sb, "</h2>\n<pre>host ");
	markup_text(sb, w->host);
	strbuf_adds(sb, ", status ");
	markup_text(sb, w->status);
	if (metric) {
		strbuf_adds(sb, ", ");
		markup_text(sb, metric);
		strbuf_addf(sb, " events %" PRId64, w->metric_events);
	}
	strbuf_addf(sb, ", lost %" PRId64 "\nStall time by cause and thread:\n", w->lost);
	for (size_t k = 0; k < w->ncauses; k++) {
		strbuf_addf(sb, "  %-16s %10.3f ms  ", diag_patterns[w->causes[k].pattern]->name,
			    (double)w->causes[k].ns / 1e6);
		markup_text(sb, w->causes[k].comm);
		strbuf_addc(sb, '\n');
	}
	if (w->ncauses == 0)
		strbuf_adds(sb, "  none\n");
	for (size_t k = 0; k < c->n; k++)
		if (c->v[k].run == i) {
			strbuf_adds(sb, "Change point: ");
			change_line(r, &c->v[k], metric, sb);
			strbuf_addc(sb, '\n');
		}
	strbuf_adds(sb, "\nFindings (faultline diagnose):\n");
	markup_text(sb, w->findings);
	strbuf_adds(sb, "\nEnvironment:\n");
	environment(db, w->session_id, sb);
	strbuf_adds(sb, "</pre>\n");
}

int runs_page_write(sqlite3 *db, const char *db_path, const struct runs *r,
		    const struct run_changes *c, const char *metric,
		    const char *out_path, struct errmsg *e)
{
	struct out_file o;
	struct strbuf sb;
	int err;

	if ((err = out_file_open(&o, out_path, e)) < 0)
		return err;
	strbuf_init(&sb);
	strbuf_adds(&sb, "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
		    "<meta http-equiv=\"Content-Security-Policy\" content=\"" CSP "\">"
		    "<title>faultline runs: ");
	markup_text(&sb, db_path);
	strbuf_addf(&sb, "</title><style>%s</style></head>\n<body data-runs=\"%zu\">\n"
		    "<h1>Runs of ", style, r->n);
	markup_text(&sb, db_path);
	strbuf_adds(&sb, "</h1>\n");
	blocks(db, r, c, metric, &sb);
	changes(r, c, metric, &sb);
	table(db, r, metric, &sb);
	err = out_file_put(&o, &sb, 0, e);
	for (size_t i = 0; err == 0 && i < r->n; i++) {
		report(db, r, c, i, metric, &sb);
		err = out_file_put(&o, &sb, 0, e);
	}
	if (err == 0) {
		strbuf_addf(&sb, "<script>%s</script>\n</body></html>\n", script);
		err = out_file_put(&o, &sb, 1, e);
	}
	if (err == 0)
		err = out_file_commit(&o, e);
	out_file_abort(&o);
	strbuf_release(&sb);
	return err;
}
