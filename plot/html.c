/*
 * The HTML writer (writers.h): the page's frame, then the plot's data as
 * one JSON object, streamed as the lanes come:
 *
 *   {"session":N, "db":..., "origin_ns":"<from, CLOCK_REALTIME ns>",
 *    "span_ns":..., ..., "metrics":[LANE...], "cpus":[LANE...],
 *    "threads":[LANE...], "lost":[...], "stacks":{"ID":"f <- g", ...},
 *    "counts":{...}}
 *
 * Every time in an item is ns relative to origin_ns (a double holds
 * those exactly; it cannot hold ns since the epoch).  Items are arrays,
 * short keys being most of a large page:
 *
 *   processes   [{"pid","comm","threads","idle"}]: the thread lanes' processes,
 *               by pid: lanes drawn, idle threads not drawn ("idle_hidden"
 *               in all; "all_threads": 1 when they were asked for)
 *   thread lane {"tid","pid","comm","names","s":[...],"f":[...],"e":[...]}
 *     s  [t, dur, state, flags, cpu, waker_tid, waker, stack,
 *         next_tid, next_comm, waker_cpu]   a recorded interval
 *                                       (trailing nulls left out)
 *        [t, dur, state, flags|4, n, [ns per state]]     a merge
 *     f  [t, dur, kind, 1, addr, ip, cpu, exit_cpu, stack]  a recorded
 *                                       fault (addr, ip: "0x..." text)
 *        [t, span, kind, n, longest, total]                a merge
 *     e  [t, name, 1, fields]  a tracepoint hit (fields: its JSON, as text)
 *        [t, name, n, span, names_differ]                  a merge
 *   cpu lane    {"cpu","r":[...],"h":[...]}   (model.h, plot_cpu_span)
 *     r  a target running there, h  a holder's share of a target's wait:
 *        [t, dur, 1, tid, name]  recorded (h: then wait_tid, wait_t,
 *                                wait_dur: the wait it is a share of)
 *        [t, span, n, tid, name, busy]  a merge (tid, name: its longest)
 *   metric lane {"name","labels","unit","imported","style","vmin","vmax",
 *                "p":[...]}
 *     p  [t, value]  a point;  [t, span, n, min, max, first, last]  a merge
 *   lost [from, to, cpu, kind, count]
 *
 * state is an index into "states", kind into "fault_kinds"; flags:
 * 1 uncertain, 2 preempted, 4 merged.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "../common/json.h"
#include "writers.h"

/* Generated from plot/page.js and plot/page.css by the Makefile. */
extern const char plot_page_js[], plot_page_css[];

/* No fetch of any kind; the page's own inline script and style only. */
#define CSP "default-src 'none'; script-src 'unsafe-inline'; " \
	    "style-src 'unsafe-inline'; img-src data:"

/* The sections in the order they are written: the metric lanes first,
 * as they are drawn, under the axis. */
enum { SEC_NONE, SEC_METRICS, SEC_CPUS, SEC_THREADS, SEC_LOST, SEC_STACKS };

void plot_writer_init(struct plot_writer *w, struct out_file *out,
		      struct errmsg *e)
{
	memset(w, 0, sizeof(*w));
	w->out = out;
	w->e = e;
	strbuf_init(&w->sb);
	strbuf_init(&w->safe);
}

void plot_writer_release(struct plot_writer *w)
{
	strbuf_release(&w->sb);
	strbuf_release(&w->safe);
}

/*
 * Hands the JSON over, '<' written as \u003c: inside <script> the HTML
 * parser ends the element at "</script" and changes state at "<!--",
 * whatever JSON thinks of them, and a thread may be named either.  '<'
 * can only stand inside a JSON string, where \u003c means the same.
 */
static int put_json(struct plot_writer *w, int all)
{
	const char *p, *lt;
	size_t left;

	if (!all && w->sb.len < OUT_FILE_CHUNK)
		return 0;
	if (strbuf_error(&w->sb) < 0)
		return errmsg_set(w->e, ENOMEM, "out of memory");
	for (p = w->sb.buf, left = w->sb.len; p && left; ) {
		lt = memchr(p, '<', left);
		if (!lt) {
			strbuf_add(&w->safe, p, left);
			break;
		}
		strbuf_add(&w->safe, p, (size_t)(lt - p));
		strbuf_adds(&w->safe, "\\u003c");
		left -= (size_t)(lt - p) + 1;
		p = lt + 1;
	}
	strbuf_reset(&w->sb);
	return out_file_put(w->out, &w->safe, 1, w->e);
}

static void item_begin(struct plot_writer *w)
{
	strbuf_adds(&w->sb, w->first ? "\n[" : ",\n[");
	w->first = 0;
}

static void num_or_null(struct plot_writer *w, int64_t v)
{
	strbuf_addc(&w->sb, ',');
	if (v < 0)
		strbuf_adds(&w->sb, "null");
	else
		json_int(&w->sb, v);
}

static void str_or_null(struct plot_writer *w, const char *s)
{
	strbuf_addc(&w->sb, ',');
	if (s)
		json_cstring(&w->sb, s);
	else
		strbuf_adds(&w->sb, "null");
}

/* ---- frame and header --------------------------------------------------- */

static void key_str(struct strbuf *sb, const char *key, const char *v)
{
	json_key(sb, key, 0);
	json_cstring(sb, v ? v : "");
}

static void key_int(struct strbuf *sb, const char *key, int64_t v)
{
	json_key(sb, key, 0);
	json_int(sb, v);
}

static void names_array(struct strbuf *sb, const char *key,
			const char *const *names, int n)
{
	json_key(sb, key, 0);
	for (int i = 0; i < n; i++) {
		strbuf_addc(sb, i ? ',' : '[');
		json_cstring(sb, names[i]);
	}
	strbuf_addc(sb, ']');
}

static int html_begin(void *wp, const struct plot_header *h)
{
	struct plot_writer *w = wp;
	struct strbuf *sb = &w->sb;
	int err;

	w->h = *h;
	strbuf_adds(sb, "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n"
		    "<meta http-equiv=\"Content-Security-Policy\" content=\"" CSP "\">\n"
		    "<meta name=\"viewport\" content=\"width=device-width\">\n"
		    "<meta name=\"generator\" content=\"faultline plot\">\n"
		    "<title>faultline plot</title>\n<style>\n");
	strbuf_adds(sb, plot_page_css);
	strbuf_adds(sb, "</style></head>\n<body>\n<noscript>This page draws its "
		    "timeline with its own script, which needs nothing from the "
		    "network: allow scripts for this file.</noscript>\n"
		    "<div id=\"fl-root\"></div>\n"
		    "<script type=\"application/json\" id=\"fl-data\">\n");
	/* The frame is ours and holds no '<' but its tags: written as is. */
	err = out_file_put(w->out, sb, 1, w->e);
	if (err < 0)
		return err;
	strbuf_adds(sb, "{\"format\":1");
	key_int(sb, "session", h->session);
	key_str(sb, "db", h->db_path);
	key_str(sb, "host", h->host);
	key_str(sb, "command", h->command_line);
	json_key(sb, "origin_ns", 0);
	strbuf_addf(sb, "\"%lld\"", (long long)h->from_ts);
	key_int(sb, "span_ns", h->to_ts - h->from_ts);
	key_int(sb, "session_start", h->session_start_ts - h->from_ts);
	key_int(sb, "session_end", h->session_end_ts - h->from_ts);
	key_int(sb, "width", h->width_px);
	key_int(sb, "zoom", h->zoom);
	key_int(sb, "quantum_ns", h->quantum_ns);
	key_int(sb, "keep_fault_ns", h->keep_fault_ns);
	names_array(sb, "states", plot_state_names, PS_NSTATES);
	names_array(sb, "state_colors", plot_state_colors, PS_NSTATES);
	names_array(sb, "fault_kinds", plot_fault_names, PF_NKINDS);
	key_int(sb, "all_threads", h->all_threads);
	key_int(sb, "idle_hidden", h->nidle);
	strbuf_adds(sb, ",\"processes\":[");
	for (unsigned i = 0; i < h->nprocs; i++) {
		strbuf_adds(sb, i ? ",\n{\"pid\":" : "\n{\"pid\":");
		json_int(sb, h->procs[i].pid);
		key_str(sb, "comm", h->procs[i].comm);
		key_int(sb, "threads", h->procs[i].nthreads);
		key_int(sb, "idle", h->procs[i].nidle);
		strbuf_addc(sb, '}');
	}
	strbuf_addc(sb, ']');
	return put_json(w, 0);
}

/* ---- lanes -------------------------------------------------------------- */

/* Moves a thread lane on to array `to` (s, then f, then e), or a CPU
 * lane's (r, then h), closing and opening what lies between, so every
 * lane has all its arrays. */
static void lane_arrays_to(struct plot_writer *w, char to)
{
	const char *order = w->section == SEC_CPUS ? "rh" : "sfe";

	while (w->arr != to) {
		const char *next = strchr(order, w->arr);

		if (!next || !next[1])
			return;
		strbuf_addf(&w->sb, "],\"%c\":[", next[1]);
		w->arr = next[1];
		w->first = 1;
	}
}

static void close_lane(struct plot_writer *w)
{
	if (w->section == SEC_THREADS && w->arr)
		lane_arrays_to(w, 'e');
	if (w->section == SEC_CPUS && w->arr)
		lane_arrays_to(w, 'h');
	if (w->arr)
		strbuf_adds(&w->sb, "]}");
	w->arr = 0;
}

/* Opens section sec ("metrics", "threads", "lost", "stacks"), closing
 * the one before; a section never opened is written empty. */
static void open_section(struct plot_writer *w, int sec)
{
	static const char *const names[] = { "", "metrics", "cpus", "threads", "lost",
					     "stacks" };

	close_lane(w);
	while (w->section < sec) {
		if (w->section != SEC_NONE)
			strbuf_adds(&w->sb, w->section == SEC_STACKS ? "}" : "]");
		w->section++;
		strbuf_addf(&w->sb, ",\n\"%s\":%c", names[w->section],
			    w->section == SEC_STACKS ? '{' : '[');
		w->section_empty = 1;
	}
}

static int html_lane(void *wp, const struct plot_lane *l)
{
	struct plot_writer *w = wp;
	struct strbuf *sb = &w->sb;

	open_section(w, l->kind == LANE_THREAD ? SEC_THREADS :
		     l->kind == LANE_CPU ? SEC_CPUS : SEC_METRICS);
	strbuf_adds(sb, w->section_empty ? "\n{" : ",\n{");
	w->section_empty = 0;
	if (l->kind == LANE_CPU) {
		strbuf_adds(sb, "\"cpu\":");
		json_int(sb, l->cpu);
		strbuf_adds(sb, ",\"r\":[");
		w->arr = 'r';
	} else if (l->kind == LANE_THREAD) {
		strbuf_adds(sb, "\"tid\":");
		json_int(sb, l->tid);
		key_int(sb, "pid", l->pid);
		key_str(sb, "comm", l->comm);
		key_str(sb, "names", l->names);
		strbuf_adds(sb, ",\"s\":[");
		w->arr = 's';
	} else {
		strbuf_adds(sb, "\"name\":");
		json_cstring(sb, l->name);
		key_str(sb, "labels", l->labels);
		json_key(sb, "unit", 0);
		json_cstring_or_null(sb, l->unit);
		key_int(sb, "imported", l->imported);
		key_str(sb, "style", l->style == STYLE_TICKS ? "ticks" : "line");
		json_key(sb, "vmin", 0);
		json_real(sb, l->vmin);
		json_key(sb, "vmax", 0);
		json_real(sb, l->vmax);
		strbuf_adds(sb, ",\"p\":[");
		w->arr = 'p';
	}
	w->first = 1;
	return put_json(w, 0);
}

/* ---- items -------------------------------------------------------------- */

/* cpu, waker_tid, waker, stack, next_tid, next_comm, waker_cpu: up to
 * the last one present (most intervals have a cpu or a waker and nothing
 * after; a woken one mostly its next_comm too). */
static void recorded_state_fields(struct plot_writer *w, const struct plot_state *s)
{
	int last = s->waker_cpu >= 0 ? 7 : s->next_comm ? 6 : s->next_tid >= 0 ? 5 :
		   s->stack_id >= 0 ? 4 : s->waker ? 3 : s->waker_tid >= 0 ? 2 :
		   s->cpu >= 0 ? 1 : 0;

	if (last >= 1)
		num_or_null(w, s->cpu);
	if (last >= 2)
		num_or_null(w, s->waker_tid);
	if (last >= 3)
		str_or_null(w, s->waker);
	if (last >= 4)
		num_or_null(w, s->stack_id);
	if (last >= 5)
		num_or_null(w, s->next_tid);
	if (last >= 6)
		str_or_null(w, s->next_comm);
	if (last >= 7)
		num_or_null(w, s->waker_cpu);
}

static int html_state(void *wp, const struct plot_state *s)
{
	struct plot_writer *w = wp;
	struct strbuf *sb = &w->sb;

	lane_arrays_to(w, 's');
	item_begin(w);
	json_int(sb, s->ts - w->h.from_ts);
	strbuf_addc(sb, ',');
	json_int(sb, s->dur_ns);
	strbuf_addc(sb, ',');
	json_int(sb, s->state);
	strbuf_addc(sb, ',');
	json_int(sb, s->flags | (s->n > 1 ? 4 : 0));
	if (s->n > 1) {
		strbuf_addc(sb, ',');
		json_int(sb, s->n);
		for (int i = 0; i < PS_NSTATES; i++) {
			strbuf_adds(sb, i ? "," : ",[");
			json_int(sb, s->ns[i]);
		}
		strbuf_addc(sb, ']');
	} else {
		recorded_state_fields(w, s);
	}
	strbuf_addc(sb, ']');
	return put_json(w, 0);
}

static void hex(struct plot_writer *w, int64_t v)
{
	if (v == -1)
		strbuf_adds(&w->sb, ",null");
	else
		strbuf_addf(&w->sb, ",\"0x%llx\"", (unsigned long long)v);
}

static int html_fault(void *wp, const struct plot_fault *f)
{
	struct plot_writer *w = wp;
	struct strbuf *sb = &w->sb;

	lane_arrays_to(w, 'f');
	item_begin(w);
	json_int(sb, f->ts - w->h.from_ts);
	strbuf_addc(sb, ',');
	json_int(sb, f->dur_ns);
	strbuf_addc(sb, ',');
	json_int(sb, f->kind);
	strbuf_addc(sb, ',');
	json_int(sb, f->n);
	if (f->n > 1) {
		strbuf_addc(sb, ',');
		json_int(sb, f->max_ns);
		strbuf_addc(sb, ',');
		json_int(sb, f->total_ns);
	} else {
		hex(w, f->addr);
		hex(w, f->ip);
		num_or_null(w, f->cpu);
		num_or_null(w, f->exit_cpu);
		num_or_null(w, f->stack_id);
	}
	strbuf_addc(sb, ']');
	return put_json(w, 0);
}

static int html_event(void *wp, const struct plot_event *ev)
{
	struct plot_writer *w = wp;
	struct strbuf *sb = &w->sb;

	lane_arrays_to(w, 'e');
	item_begin(w);
	json_int(sb, ev->ts - w->h.from_ts);
	str_or_null(w, ev->name);
	strbuf_addc(sb, ',');
	json_int(sb, ev->n);
	if (ev->n > 1) {
		strbuf_addc(sb, ',');
		json_int(sb, ev->span_ns);
		strbuf_addc(sb, ',');
		json_int(sb, ev->names_differ);
	} else {
		str_or_null(w, ev->fields);
	}
	strbuf_addc(sb, ']');
	return put_json(w, 0);
}

static int html_point(void *wp, const struct plot_point *p)
{
	struct plot_writer *w = wp;
	struct strbuf *sb = &w->sb;

	item_begin(w);
	json_int(sb, p->ts - w->h.from_ts);
	if (p->n > 1) {
		strbuf_addc(sb, ',');
		json_int(sb, p->span_ns);
		strbuf_addc(sb, ',');
		json_int(sb, p->n);
		strbuf_addc(sb, ',');
		json_real(sb, p->min);
		strbuf_addc(sb, ',');
		json_real(sb, p->max);
		strbuf_addc(sb, ',');
		json_real(sb, p->first);
	}
	strbuf_addc(sb, ',');
	json_real(sb, p->last);
	strbuf_addc(sb, ']');
	return put_json(w, 0);
}

static int html_cpu(void *wp, const struct plot_cpu_span *c)
{
	struct plot_writer *w = wp;
	struct strbuf *sb = &w->sb;

	lane_arrays_to(w, c->kind == PC_HELD ? 'h' : 'r');
	item_begin(w);
	json_int(sb, c->ts - w->h.from_ts);
	strbuf_addc(sb, ',');
	json_int(sb, c->dur_ns);
	strbuf_addc(sb, ',');
	json_int(sb, c->n);
	strbuf_addc(sb, ',');
	json_int(sb, c->tid);
	str_or_null(w, c->name);
	if (c->n > 1) {
		strbuf_addc(sb, ',');
		json_int(sb, c->busy_ns);
	} else if (c->kind == PC_HELD) {
		strbuf_addc(sb, ',');
		json_int(sb, c->wait_tid);
		strbuf_addc(sb, ',');
		json_int(sb, c->wait_ts - w->h.from_ts);
		strbuf_addc(sb, ',');
		json_int(sb, c->wait_dur_ns);
	}
	strbuf_addc(sb, ']');
	return put_json(w, 0);
}

static int html_lost(void *wp, const struct plot_lost *l)
{
	struct plot_writer *w = wp;
	struct strbuf *sb = &w->sb;

	open_section(w, SEC_LOST);
	strbuf_adds(sb, w->section_empty ? "\n[" : ",\n[");
	w->section_empty = 0;
	json_int(sb, l->from_ts - w->h.from_ts);
	strbuf_addc(sb, ',');
	json_int(sb, l->to_ts - w->h.from_ts);
	num_or_null(w, l->cpu);
	str_or_null(w, l->kind);
	strbuf_addc(sb, ',');
	json_int(sb, l->count);
	strbuf_addc(sb, ']');
	return put_json(w, 0);
}

static int html_stack(void *wp, int64_t stack_id, const char *text)
{
	struct plot_writer *w = wp;
	char key[24];

	open_section(w, SEC_STACKS);
	snprintf(key, sizeof(key), "%lld", (long long)stack_id);
	json_key(&w->sb, key, w->section_empty);
	w->section_empty = 0;
	json_cstring(&w->sb, text);
	return put_json(w, 0);
}

static int html_end(void *wp, const struct plot_counts *n)
{
	struct plot_writer *w = wp;
	struct strbuf *sb = &w->sb;
	int err;

	open_section(w, SEC_STACKS);
	strbuf_adds(sb, "},\n\"counts\":{\"states_in\":");
	json_int(sb, (int64_t)n->states_in);
	key_int(sb, "states_out", (int64_t)n->states_out);
	key_int(sb, "faults_in", (int64_t)n->faults_in);
	key_int(sb, "faults_kept", (int64_t)n->faults_kept);
	key_int(sb, "fault_merges", (int64_t)n->fault_merges);
	key_int(sb, "events_in", (int64_t)n->events_in);
	key_int(sb, "events_out", (int64_t)n->events_out);
	key_int(sb, "points_in", (int64_t)n->points_in);
	key_int(sb, "points_out", (int64_t)n->points_out);
	key_int(sb, "lost_spans", (int64_t)n->lost_spans);
	key_int(sb, "lost_untimed", (int64_t)n->lost_untimed);
	key_int(sb, "ran_in", (int64_t)n->cpu_in[PC_RAN]);
	key_int(sb, "ran_out", (int64_t)n->cpu_out[PC_RAN]);
	key_int(sb, "held_in", (int64_t)n->cpu_in[PC_HELD]);
	key_int(sb, "held_out", (int64_t)n->cpu_out[PC_HELD]);
	strbuf_adds(sb, "}}\n");
	err = put_json(w, 1);
	if (err < 0)
		return err;
	strbuf_adds(sb, "</script>\n<script>\n");
	strbuf_adds(sb, plot_page_js);
	strbuf_adds(sb, "</script>\n</body></html>\n");
	return out_file_put(w->out, sb, 1, w->e);
}

const struct plot_sink_ops plot_html_ops = {
	html_begin, html_lane, html_state, html_fault, html_event, html_point,
	html_cpu, html_lost, html_stack, html_end,
};
