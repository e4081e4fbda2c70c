/*
 * The SVG writer (writers.h): a static picture of the plot, drawn as the
 * items come, at one column = one pixel (the driver reduces with zoom 1).
 * Geometry as plot/page.js draws it (plot/layout.h); each item has a
 * <title>, which viewers show on hover.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "../common/clock.h"
#include "../common/markup.h"
#include "layout.h"
#include "writers.h"

#define NS_PER_S 1000000000ll
#define FOOTER_LINES 9		/* the notes under the lanes, at most */
#define FOOTER_LINE_H 14

static double x_of(const struct plot_writer *w, int64_t ts)
{
	double x = LAYOUT_LEFT + (double)(ts - w->h.from_ts) * w->h.width_px /
		   (double)(w->h.to_ts - w->h.from_ts);

	return x < LAYOUT_LEFT ? LAYOUT_LEFT
	     : x > LAYOUT_LEFT + w->h.width_px ? LAYOUT_LEFT + w->h.width_px : x;
}

/* HH:MM:SS with `places` decimals (<= 9), UTC: utc_format's, cut. */
static const char *tod(char *buf, size_t n, int64_t ts, int places)
{
	char utc[UTC_LEN];

	utc_format(utc, sizeof(utc), ts);
	snprintf(buf, n, "%.*s", 8 + (places > 0 ? 1 + places : 0), utc + 11);
	return buf;
}

static void dur_text(struct strbuf *sb, int64_t ns)
{
	if (ns < 1000)
		strbuf_addf(sb, "%lld ns", (long long)ns);
	else if (ns < 1000000)
		strbuf_addf(sb, "%.4g us", ns / 1e3);
	else if (ns < NS_PER_S)
		strbuf_addf(sb, "%.4g ms", ns / 1e6);
	else
		strbuf_addf(sb, "%.5g s", ns / 1e9);
}

static int put(struct plot_writer *w)
{
	return out_file_put(w->out, &w->sb, 0, w->e);
}

/* ---- frame and axis ----------------------------------------------------- */

static const char svg_style[] =
	"<style>text{font:11px sans-serif;fill:#333}.label{font-size:12px;fill:#111}"
	".sub{font-size:10px;fill:#666}.title{font-size:14px;font-weight:600}"
	".grid{stroke:#eee}.axis{stroke:#bbb}.lanebg{fill:#fafafa}"
	".major{fill:#b00000}.minor{fill:#ff8c1a}.unfinished{fill:#fff;stroke:#b00000}"
	".merged{opacity:.75}.ev{stroke:#7b3fa0;stroke-width:1.2}"
	".tick{stroke:#0b7a75;stroke-width:1.5}.mline{fill:none;stroke:#1f5fa8;stroke-width:1.3}"
	".mband{stroke:#9cc3ea}.lost{fill:url(#fl-lost);stroke:#888;stroke-width:.5}"
	".uncertain{fill:url(#fl-hatch)}.held{opacity:.8}.procbg{fill:#e8edf3}.proc{font-size:11px;"
	"font-weight:600;fill:#223}</style>\n"
	"<defs><pattern id=\"fl-hatch\" width=\"6\" height=\"6\" patternUnits=\"userSpaceOnUse\""
	" patternTransform=\"rotate(45)\"><rect width=\"2.5\" height=\"6\" fill=\"rgba(0,0,0,0.45)\"/>"
	"</pattern><pattern id=\"fl-lost\" width=\"8\" height=\"8\" patternUnits=\"userSpaceOnUse\""
	" patternTransform=\"rotate(-45)\"><rect width=\"8\" height=\"8\" fill=\"rgba(120,120,120,0.18)\"/>"
	"<rect width=\"3\" height=\"8\" fill=\"rgba(90,90,90,0.35)\"/></pattern></defs>\n";

static int height_of(const struct plot_header *h, int top)
{
	return top + 4 +
	       (int)h->nthreads * (LAYOUT_THREAD_H + LAYOUT_GAP) +
	       (int)h->nmetrics * (LAYOUT_METRIC_H + LAYOUT_GAP) +
	       (int)h->nprocs * LAYOUT_PROC_H +
	       (h->ncpus ? LAYOUT_PROC_H + (int)h->ncpus * (LAYOUT_CPU_H + LAYOUT_GAP) : 0) +
	       FOOTER_LINES * FOOTER_LINE_H + 16;
}

/* A tick's label is centred on it unless that would run past the
 * picture's right edge: then it ends at the tick (as page.js's
 * labelAnchor; 11 px digits are about 6.2 px wide). */
static const char *label_anchor(const struct plot_writer *w, double x, const char *text)
{
	return x + strlen(text) * 3.1 > LAYOUT_LEFT + w->h.width_px + LAYOUT_RIGHT - 2
	       ? "end" : "middle";
}

/* Ticks at round times of day, as page.js's axis(). */
static void axis(struct plot_writer *w, int height)
{
	int64_t span = w->h.to_ts - w->h.from_ts, step = 1, want;
	int places, top = w->top;
	char buf[40];

	want = w->h.width_px / 120 > 2 ? w->h.width_px / 120 : 2;
	while (step * want < span) {
		if (step * 2 * want >= span) { step *= 2; break; }
		if (step * 5 * want >= span) { step *= 5; break; }
		step *= 10;
	}
	places = 9 - (int)floor(log10((double)step) + 1e-9);
	places = places < 0 ? 0 : places > 9 ? 9 : places;
	for (int64_t t = (w->h.from_ts / step + (w->h.from_ts % step > 0)) * step;
	     t <= w->h.to_ts; t += step) {
		double x = x_of(w, t);

		tod(buf, sizeof(buf), t, places);
		strbuf_addf(&w->sb, "<line class=\"grid\" x1=\"%.2f\" x2=\"%.2f\" y1=\"%d\" "
			    "y2=\"%d\"/><text x=\"%.2f\" y=\"%d\" text-anchor=\"%s\">%s"
			    "</text>\n", x, x, top, height - 36, x, top - 10,
			    label_anchor(w, x, buf), buf);
	}
	strbuf_addf(&w->sb, "<line class=\"axis\" x1=\"%d\" x2=\"%u\" y1=\"%d\" y2=\"%d\"/>\n",
		    LAYOUT_LEFT, LAYOUT_LEFT + w->h.width_px, top, top);
}

/* The legend's entries: a swatch (SVG drawn in a 14 x 12 box at 0,0)
 * and its words.  The states' come first, from plot_state_colors. */
static const struct { const char *swatch, *text; } legend_marks[] = {
	{ "<rect x=\"4\" y=\"0\" width=\"6\" height=\"12\" class=\"major\"/>",
	  "major fault (height: duration, log scale)" },
	{ "<rect x=\"4\" y=\"4\" width=\"6\" height=\"8\" class=\"minor\"/>", "minor fault" },
	{ "<rect x=\"4\" y=\"1\" width=\"6\" height=\"11\" class=\"unfinished\"/>",
	  "unfinished fault" },
	{ "<line x1=\"7\" x2=\"7\" y1=\"1\" y2=\"12\" class=\"ev\"/>", "tracepoint hit" },
	{ "<line x1=\"7\" x2=\"7\" y1=\"1\" y2=\"12\" class=\"tick\"/>", "metric event" },
	{ "<polyline points=\"0,10 5,4 9,8 14,2\" class=\"mline\"/>", "metric value" },
	{ "<rect y=\"1\" width=\"7\" height=\"7\" fill=\"hsl(40,60%,50%)\"/><rect x=\"7\" "
	  "y=\"1\" width=\"7\" height=\"7\" fill=\"hsl(200,60%,50%)\"/>",
	  "CPU lane: a target running (colour: its thread)" },
	{ "<rect y=\"6\" width=\"9\" height=\"5\" class=\"held\" fill=\"hsl(300,60%,50%)\"/>"
	  "<rect x=\"9\" y=\"6\" width=\"5\" height=\"5\" class=\"held\" fill=\"#d9d9d9\"/>",
	  "under it: who held the CPU while a target waited (shares of the wait, "
	  "not exact placement; grey: idle)" },
	{ "<rect width=\"14\" height=\"12\" class=\"lost\"/>", "records lost" },
	{ "<rect width=\"14\" height=\"12\" fill=\"#999\"/><rect width=\"14\" "
	  "height=\"12\" class=\"uncertain\"/>", "state built across lost records" },
};

/* Lays the legend out in rows under the title lines, wrapping at the
 * picture's width, and writes it to sb (NULL: only counts).  The rows. */
static int legend(struct strbuf *sb, int width)
{
	size_t nmarks = sizeof(legend_marks) / sizeof(legend_marks[0]);
	double x = 6;
	int row = 0;

	for (size_t i = 0; i < PS_NSTATES + nmarks; i++) {
		const char *text = i < PS_NSTATES ? plot_state_names[i]
				 : legend_marks[i - PS_NSTATES].text;
		double w = 18 + strlen(text) * 6.0 + 14;	/* 11 px text */
		int y = LAYOUT_TITLE + row * LAYOUT_LEGEND_ROW;

		if (x > 6 && x + w > width - 6) {
			x = 6;
			y = LAYOUT_TITLE + ++row * LAYOUT_LEGEND_ROW;
		}
		if (sb && i < PS_NSTATES)
			strbuf_addf(sb, "<g class=\"legend\" transform=\"translate(%.0f,%d)\">"
				    "<rect width=\"14\" height=\"12\" fill=\"%s\"/>", x, y,
				    plot_state_colors[i]);
		else if (sb)
			strbuf_addf(sb, "<g class=\"legend\" transform=\"translate(%.0f,%d)\">%s",
				    x, y, legend_marks[i - PS_NSTATES].swatch);
		if (sb)
			strbuf_addf(sb, "<text x=\"18\" y=\"10\">%s</text></g>\n", text);
		x += w;
	}
	return row + 1;
}

static int svg_begin(void *wp, const struct plot_header *h)
{
	struct plot_writer *w = wp;
	int width = LAYOUT_LEFT + (int)h->width_px + LAYOUT_RIGHT, height;
	char a[40], b[40];
	char date[UTC_LEN];

	w->h = *h;
	w->top = LAYOUT_TITLE + legend(NULL, width) * LAYOUT_LEGEND_ROW + LAYOUT_AXIS;
	height = height_of(h, w->top);
	utc_format(date, sizeof(date), h->from_ts);
	date[10] = '\0';	/* the day */
	strbuf_addf(&w->sb, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
		    "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" "
		    "viewBox=\"0 0 %d %d\" data-x0=\"%d\" data-width=\"%u\" "
		    "data-from-ns=\"%lld\" data-to-ns=\"%lld\" data-idle-hidden=\"%u\">\n",
		    width, height, width, height, LAYOUT_LEFT, h->width_px,
		    (long long)h->from_ts, (long long)h->to_ts, h->nidle);
	strbuf_adds(&w->sb, svg_style);
	strbuf_addf(&w->sb, "<rect width=\"%d\" height=\"%d\" fill=\"#fff\"/>\n"
		    "<text class=\"title\" x=\"6\" y=\"18\">faultline plot: session %lld of ",
		    width, height, (long long)h->session);
	markup_text(&w->sb, h->db_path);
	strbuf_addf(&w->sb, "</text>\n<text class=\"sub\" x=\"6\" y=\"34\">%s %s to %s UTC"
		    " (wall clock); host ", date, tod(a, sizeof(a), h->from_ts, 6),
		    tod(b, sizeof(b), h->to_ts, 6));
	markup_text(&w->sb, h->host);
	strbuf_adds(&w->sb, "</text>\n");
	legend(&w->sb, width);
	axis(w, height);
	w->lane_y = w->top + 4;	/* the next lane's top */
	return put(w);
}

/* ---- lanes -------------------------------------------------------------- */

/* Ends the lane being drawn: a metric's line is written whole. */
static void close_lane(struct plot_writer *w)
{
	if (!w->lane_open)
		return;
	if (w->lane.kind == LANE_METRIC && w->safe.len) {
		strbuf_adds(&w->sb, "<polyline class=\"mline\" points=\"");
		strbuf_add(&w->sb, w->safe.buf, w->safe.len);
		strbuf_adds(&w->sb, "\"/>\n");
	}
	strbuf_reset(&w->safe);
	strbuf_adds(&w->sb, "</g>\n");
	w->lane_open = 0;
}

static int lane_height(enum plot_lane_kind k)
{
	return k == LANE_THREAD ? LAYOUT_THREAD_H : k == LANE_CPU ? LAYOUT_CPU_H
	       : LAYOUT_METRIC_H;
}

static double lane_top(const struct plot_writer *w)
{
	return w->lane_y - lane_height(w->lane.kind) - LAYOUT_GAP;
}

/* s cut to fit the label column: at most max bytes, never inside a
 * UTF-8 sequence, "..." marking the cut. */
static void fit(char *s, size_t max)
{
	size_t n = strlen(s);

	if (n <= max)
		return;
	n = max - 3;
	while (n && ((unsigned char)s[n] & 0xc0) == 0x80)
		n--;
	memcpy(s + n, "...", 4);
}

static void label(struct plot_writer *w, double y, const char *text,
		  const char *sub1, const char *sub2)
{
	char a[64], b[96];

	snprintf(a, sizeof(a), "%.63s", text);
	snprintf(b, sizeof(b), "%.60s%.35s", sub1, sub2);
	fit(a, 30);
	fit(b, 38);
	strbuf_addf(&w->sb, "<text class=\"label\" x=\"6\" y=\"%.0f\">", y + 16);
	markup_text(&w->sb, a);
	strbuf_addf(&w->sb, "</text><text class=\"sub\" x=\"6\" y=\"%.0f\">", y + 30);
	markup_text(&w->sb, b);
	strbuf_adds(&w->sb, "</text>\n");
}

/* The headers of the processes up to pid, each above its threads' lanes
 * (which come by pid): its name, its lanes, its idle threads not drawn.
 * A process whose threads were all idle has its header alone. */
static void process_headers(struct plot_writer *w, int64_t pid)
{
	for (; w->next_proc < w->h.nprocs && w->h.procs[w->next_proc].pid <= pid;
	     w->next_proc++) {
		const struct plot_process *p = &w->h.procs[w->next_proc];
		char text[200];

		/* Short enough for the narrowest picture: 430 px. */
		snprintf(text, sizeof(text), "%.20s (pid %lld): %u drawn",
			 *p->comm ? p->comm : "process", (long long)p->pid, p->nthreads);
		strbuf_addf(&w->sb, "<g class=\"process\" data-pid=\"%lld\"><rect "
			    "class=\"procbg\" x=\"0\" y=\"%.0f\" width=\"%u\" height=\"%d\"/>"
			    "<text class=\"proc\" x=\"6\" y=\"%.0f\">", (long long)p->pid,
			    w->lane_y, LAYOUT_LEFT + w->h.width_px, LAYOUT_PROC_H - 2,
			    w->lane_y + 13);
		markup_text(&w->sb, text);
		if (p->nidle)
			strbuf_addf(&w->sb, ", %u idle hidden (--all-threads)", p->nidle);
		strbuf_adds(&w->sb, "</text></g>\n");
		w->lane_y += LAYOUT_PROC_H;
	}
}

/* The CPU lanes' header, above the first: what they show. */
static void cpus_header(struct plot_writer *w)
{
	strbuf_addf(&w->sb, "<g class=\"cpus\"><rect class=\"procbg\" x=\"0\" "
		    "y=\"%.0f\" width=\"%u\" height=\"%d\"/><text class=\"proc\" x=\"6\" "
		    "y=\"%.0f\">CPUs the targets ran on: %u</text></g>\n", w->lane_y,
		    LAYOUT_LEFT + w->h.width_px, LAYOUT_PROC_H - 2, w->lane_y + 13,
		    w->h.ncpus);
	w->lane_y += LAYOUT_PROC_H;
}

/* A CPU lane: its label, and its spans as they come (svg_cpu). */
static int cpu_lane(struct plot_writer *w, const struct plot_lane *l)
{
	char text[32];

	if (w->lane.kind != LANE_CPU)
		cpus_header(w);
	w->lane = *l;
	w->lane_open = 1;
	strbuf_addf(&w->sb, "<g class=\"lane cpu\" data-cpu=\"%lld\">\n<rect "
		    "class=\"lanebg\" x=\"%d\" y=\"%.0f\" width=\"%u\" height=\"%d\"/>\n",
		    (long long)l->cpu, LAYOUT_LEFT, w->lane_y, w->h.width_px, LAYOUT_CPU_H);
	snprintf(text, sizeof(text), "cpu %lld", (long long)l->cpu);
	strbuf_addf(&w->sb, "<text class=\"label\" x=\"6\" y=\"%.0f\">%s</text>\n",
		    w->lane_y + 16, text);
	w->lane_y += LAYOUT_CPU_H + LAYOUT_GAP;
	return put(w);
}

static int svg_lane(void *wp, const struct plot_lane *l)
{
	struct plot_writer *w = wp;
	double y, h = lane_height(l->kind);
	char text[160], sub[200];

	close_lane(w);
	if (l->kind == LANE_CPU)
		return cpu_lane(w, l);
	if (l->kind == LANE_THREAD)
		process_headers(w, l->pid);
	y = w->lane_y;
	w->lane = *l;
	w->lane_open = 1;
	w->lane_y += h + LAYOUT_GAP;
	if (l->kind == LANE_THREAD) {
		strbuf_addf(&w->sb, "<g class=\"lane thread\" data-tid=\"%lld\">\n",
			    (long long)l->tid);
		snprintf(text, sizeof(text), "%s %lld", *l->comm ? l->comm : "thread",
			 (long long)l->tid);
		snprintf(sub, sizeof(sub), "pid %lld%s", (long long)l->pid,
			 strcmp(l->names, l->comm) ? " · names: " : "");
	} else {
		strbuf_adds(&w->sb, "<g class=\"lane metric\" data-name=\"");
		markup_text(&w->sb, l->name);
		strbuf_addf(&w->sb, "\" data-style=\"%s\">\n",
			    l->style == STYLE_TICKS ? "ticks" : "line");
		snprintf(text, sizeof(text), "%s", l->name);
		snprintf(sub, sizeof(sub), "%s %s · max %.6g %s ", l->imported ?
			 "imported" : "sampled", strcmp(l->labels, "{}") ? l->labels : "",
			 l->vmax, l->unit ? l->unit : "");
	}
	strbuf_addf(&w->sb, "<rect class=\"lanebg\" x=\"%d\" y=\"%.0f\" width=\"%u\" "
		    "height=\"%.0f\"/>\n", LAYOUT_LEFT, y, w->h.width_px, h);
	label(w, y, text, sub, l->kind == LANE_THREAD && strcmp(l->names, l->comm)
	      ? l->names : "");
	return put(w);
}

/* ---- items -------------------------------------------------------------- */

static void title(struct plot_writer *w, const char *what, int64_t ts, int64_t dur_ns)
{
	char buf[40];

	strbuf_adds(&w->sb, "<title>");
	markup_text(&w->sb, what);
	strbuf_addf(&w->sb, " at %s UTC", tod(buf, sizeof(buf), ts, 6));
	if (dur_ns >= 0) {
		strbuf_adds(&w->sb, " for ");
		dur_text(&w->sb, dur_ns);
	}
	strbuf_adds(&w->sb, "</title>");
}

static int svg_state(void *wp, const struct plot_state *s)
{
	struct plot_writer *w = wp;
	double x = x_of(w, s->ts), x2 = x_of(w, s->ts + s->dur_ns);
	double y = lane_top(w) + LAYOUT_STATE_Y;
	char what[96];

	if (x2 - x < 0.4)
		x2 = x + 0.4;
	if (s->n > 1)
		snprintf(what, sizeof(what), "%u intervals, mostly %s", s->n,
			 plot_state_names[s->state]);
	else
		snprintf(what, sizeof(what), "%s", plot_state_names[s->state]);
	strbuf_addf(&w->sb, "<rect x=\"%.2f\" y=\"%.0f\" width=\"%.2f\" height=\"%d\" "
		    "fill=\"%s\">", x, y, x2 - x, LAYOUT_STATE_H,
		    plot_state_colors[s->state]);
	title(w, what, s->ts, s->dur_ns);
	strbuf_adds(&w->sb, "</rect>\n");
	if (s->flags & PLOT_UNCERTAIN)
		strbuf_addf(&w->sb, "<rect class=\"uncertain\" x=\"%.2f\" y=\"%.0f\" "
			    "width=\"%.2f\" height=\"%d\"/>\n", x, y, x2 - x, LAYOUT_STATE_H);
	return put(w);
}

/* A fault mark's height: log10 of its (longest) duration, 1 us to 1 s. */
static double fault_height(int64_t ns)
{
	double h = 4 + (log10(ns > 1000 ? (double)ns : 1000.0) - 3) / 6 *
		   (LAYOUT_FAULT_H - 4);

	return h < 3 ? 3 : h > LAYOUT_FAULT_H ? LAYOUT_FAULT_H : h;
}

static int svg_fault(void *wp, const struct plot_fault *f)
{
	struct plot_writer *w = wp;
	double x = x_of(w, f->ts), x2 = x_of(w, f->ts + f->dur_ns);
	double h = f->kind == PF_UNFINISHED ? LAYOUT_FAULT_H : fault_height(f->max_ns);
	double top = lane_top(w) + LAYOUT_FAULT_TOP + LAYOUT_FAULT_H - h;
	char what[96];

	if (x2 - x < 2)
		x2 = x + 2;
	if (f->n > 1)
		snprintf(what, sizeof(what), "%u %s faults (longest %.4g us)", f->n,
			 plot_fault_names[f->kind], f->max_ns / 1e3);
	else
		snprintf(what, sizeof(what), "%s fault", plot_fault_names[f->kind]);
	strbuf_addf(&w->sb, "<rect class=\"%s%s\" x=\"%.2f\" y=\"%.2f\" width=\"%.2f\" "
		    "height=\"%.2f\">", plot_fault_names[f->kind], f->n > 1 ? " merged" : "",
		    x, top, x2 - x, h);
	title(w, what, f->ts, f->kind == PF_UNFINISHED ? -1 : f->dur_ns);
	strbuf_adds(&w->sb, "</rect>\n");
	return put(w);
}

static int svg_event(void *wp, const struct plot_event *ev)
{
	struct plot_writer *w = wp;
	double x = x_of(w, ev->ts), y = lane_top(w) + LAYOUT_EV_Y;
	char what[192];

	if (ev->n > 1)
		snprintf(what, sizeof(what), "%u tracepoint hits (%s%s)", ev->n,
			 ev->name, ev->names_differ ? ", ..." : "");
	else
		snprintf(what, sizeof(what), "%s", ev->name);
	strbuf_addf(&w->sb, "<line class=\"ev\" x1=\"%.2f\" x2=\"%.2f\" y1=\"%.0f\" "
		    "y2=\"%.0f\">", x, x, y, y + LAYOUT_EV_H);
	title(w, what, ev->ts, -1);
	strbuf_adds(&w->sb, "</line>\n");
	return put(w);
}

static double value_y(const struct plot_writer *w, double v)
{
	double lo = w->lane.vmin < 0 ? w->lane.vmin : 0, hi = w->lane.vmax;
	double base = lane_top(w) + LAYOUT_METRIC_H - 4;

	if (hi <= lo)
		hi = lo + 1;
	return base - (v - lo) / (hi - lo) * (LAYOUT_METRIC_H - 10);
}

static int svg_point(void *wp, const struct plot_point *p)
{
	struct plot_writer *w = wp;
	double x = x_of(w, p->ts), base = lane_top(w) + LAYOUT_METRIC_H - 4;
	char what[96];

	if (w->lane.style == STYLE_TICKS) {
		double top = value_y(w, p->max);

		if (p->n > 1)
			snprintf(what, sizeof(what), "%u events, largest %.6g", p->n, p->max);
		else
			snprintf(what, sizeof(what), "value %.6g", p->max);
		strbuf_addf(&w->sb, "<line class=\"tick\" x1=\"%.2f\" x2=\"%.2f\" "
			    "y1=\"%.2f\" y2=\"%.2f\">", x, x, base,
			    top > base - 4 ? base - 4 : top);
		title(w, what, p->ts, -1);
		strbuf_adds(&w->sb, "</line>\n");
		return put(w);
	}
	if (p->n > 1)
		strbuf_addf(&w->sb, "<line class=\"mband\" x1=\"%.2f\" x2=\"%.2f\" "
			    "y1=\"%.2f\" y2=\"%.2f\"/>\n", x, x, value_y(w, p->min),
			    value_y(w, p->max));
	strbuf_addf(&w->safe, "%.2f,%.2f ", x, value_y(w, p->last));
	return put(w);
}

/* A thread's colour on the CPU lanes, as page.js's threadColor: hues
 * spread by tid; the idle task light grey, the others (ran_instead's
 * tid -1) dark grey. */
static void thread_color(char *buf, size_t n, int64_t tid)
{
	if (tid <= 0)
		snprintf(buf, n, "%s", tid == 0 ? "#d9d9d9" : "#8c8c8c");
	else
		snprintf(buf, n, "hsl(%lld,60%%,50%%)", (long long)(tid * 137 % 360));
}

static int svg_cpu(void *wp, const struct plot_cpu_span *c)
{
	struct plot_writer *w = wp;
	double x = x_of(w, c->ts), x2 = x_of(w, c->ts + c->dur_ns);
	double y = lane_top(w) + (c->kind == PC_HELD ? LAYOUT_HELD_Y : LAYOUT_RAN_Y);
	char color[40], what[160];

	if (x2 - x < 0.4)
		x2 = x + 0.4;
	thread_color(color, sizeof(color), c->tid);
	if (c->n > 1)
		snprintf(what, sizeof(what), "%u %s, mostly %s", c->n, c->kind == PC_HELD ?
			 "holders' shares of waits" : "intervals running",
			 c->name ? c->name : "?");
	else
		snprintf(what, sizeof(what), "%s %s", c->name ? c->name : "?",
			 c->kind == PC_HELD ? "held the CPU (its share of a wait)" : "running");
	strbuf_addf(&w->sb, "<rect%s x=\"%.2f\" y=\"%.0f\" width=\"%.2f\" height=\"%d\" "
		    "fill=\"%s\">", c->kind == PC_HELD ? " class=\"held\"" : "", x, y, x2 - x,
		    c->kind == PC_HELD ? LAYOUT_HELD_H : LAYOUT_RAN_H, color);
	title(w, what, c->ts, c->dur_ns);
	strbuf_adds(&w->sb, "</rect>\n");
	return put(w);
}

static int svg_lost(void *wp, const struct plot_lost *l)
{
	struct plot_writer *w = wp;
	double x = x_of(w, l->from_ts), x2 = x_of(w, l->to_ts);
	int top = w->top;
	char what[96];

	close_lane(w);
	process_headers(w, INT64_MAX);
	if (x2 - x < 2)
		x2 = x + 2;
	snprintf(what, sizeof(what), "lost %s: %lld on cpu %lld", l->kind,
		 (long long)l->count, (long long)l->cpu);
	strbuf_addf(&w->sb, "<rect class=\"lost\" x=\"%.2f\" y=\"%d\" width=\"%.2f\" "
		    "height=\"%.0f\">", x, top, x2 - x, w->lane_y - top);
	title(w, what, l->from_ts, l->to_ts - l->from_ts);
	strbuf_adds(&w->sb, "</rect>\n");
	return put(w);
}

static int svg_stack(void *wp, int64_t stack_id, const char *text)
{
	(void)wp;
	(void)stack_id;
	(void)text;
	return 0;
}

/* Ends the footer's line being written, if any, and begins the next
 * under it with text (NULL: none yet). */
static void footer_line(struct plot_writer *w, const char *text)
{
	if (w->footer_lines++)
		strbuf_adds(&w->sb, "</text>\n");
	strbuf_addf(&w->sb, "<text class=\"sub\" x=\"6\" y=\"%.0f\">",
		    w->lane_y + FOOTER_LINE_H * w->footer_lines);
	if (text)
		strbuf_adds(&w->sb, text);
}

static int svg_end(void *wp, const struct plot_counts *n)
{
	struct plot_writer *w = wp;
	struct strbuf *sb = &w->sb;

	close_lane(w);
	process_headers(w, INT64_MAX);
	/* Short lines, FOOTER_LINES at most, so the narrowest picture
	 * (200 px of plot) cuts none. */
	footer_line(w, "Reduced at one pixel = ");
	dur_text(sb, w->h.quantum_ns);
	strbuf_addf(sb, ": %llu state intervals drawn as %llu,", (unsigned long long)n->states_in,
		    (unsigned long long)n->states_out);
	footer_line(w, NULL);
	strbuf_addf(sb, "%llu faults as %llu single and %llu merged marks (every fault of ",
		    (unsigned long long)n->faults_in, (unsigned long long)n->faults_kept,
		    (unsigned long long)n->fault_merges);
	dur_text(sb, w->h.keep_fault_ns);
	strbuf_adds(sb, " or more kept),");
	footer_line(w, NULL);
	strbuf_addf(sb, "%llu metric points as %llu.", (unsigned long long)n->points_in,
		    (unsigned long long)n->points_out);
	if (w->h.ncpus) {
		footer_line(w, NULL);
		strbuf_addf(sb, "CPU lanes: %llu running intervals as %llu; %llu holders",
			    (unsigned long long)n->cpu_in[PC_RAN],
			    (unsigned long long)n->cpu_out[PC_RAN],
			    (unsigned long long)n->cpu_in[PC_HELD]);
		footer_line(w, NULL);
		strbuf_addf(sb, "of waits as %llu (shares of a wait, not exact placement).",
			    (unsigned long long)n->cpu_out[PC_HELD]);
	}
	footer_line(w, "Hatched grey: records lost (from the CPU's last stored record");
	footer_line(w, "to the loss report): not idleness. Hatched state: built across "
		    "lost records.");
	if (w->h.nidle) {
		footer_line(w, NULL);
		strbuf_addf(sb, "%u idle threads not drawn: no fault and no stall of 1 ms",
			    w->h.nidle);
		footer_line(w, "or more in the window (--all-threads draws them).");
	}
	strbuf_adds(sb, "</text>\n");
	strbuf_adds(sb, "</svg>\n");
	return out_file_put(w->out, sb, 1, w->e);
}

const struct plot_sink_ops plot_svg_ops = {
	svg_begin, svg_lane, svg_state, svg_fault, svg_event, svg_point,
	svg_cpu, svg_lost, svg_stack, svg_end,
};
