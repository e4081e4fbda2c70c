#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "reduce.h"

const char *const plot_state_names[PS_NSTATES] = {
	"running", "runnable", "sleeping", "blocked", "waiting", "other", "unknown",
};

/* Running green, waiting for a CPU amber, asleep light blue, blocked (D)
 * red: the states a stall is made of stand out from the quiet ones. */
const char *const plot_state_colors[PS_NSTATES] = {
	"#2ca02c", "#f2b701", "#aec7e8", "#d62728", "#9edae5", "#c5b0d5", "#7f7f7f",
};

const char *const plot_fault_names[PF_NKINDS] = { "minor", "major", "unfinished" };

enum plot_state_kind plot_state_parse(const char *s)
{
	for (int i = 0; s && i < PS_NSTATES; i++)
		if (!strcmp(s, plot_state_names[i]))
			return (enum plot_state_kind)i;
	return PS_OTHER;
}

void plot_reduce_init(struct plot_reduce *r, int64_t quantum_ns,
		      int64_t keep_fault_ns, const struct plot_sink_ops *ops,
		      void *w, struct plot_counts *n)
{
	memset(r, 0, sizeof(*r));
	r->quantum_ns = quantum_ns > 0 ? quantum_ns : 1;
	r->keep_fault_ns = keep_fault_ns;
	r->ops = ops;
	r->w = w;
	r->n = n;
	strbuf_init(&r->ev_name);
	strbuf_init(&r->ev_fields);
}

void plot_reduce_release(struct plot_reduce *r)
{
	strbuf_release(&r->ev_name);
	strbuf_release(&r->ev_fields);
}

static int64_t max64(int64_t a, int64_t b)
{
	return a > b ? a : b;
}

/* ---- states ------------------------------------------------------------- */

static int flush_state(struct plot_reduce *r)
{
	struct plot_state *b = &r->st;

	if (!r->st_open)
		return 0;
	r->st_open = 0;
	r->n->states_out++;
	if (b->n == 1)
		return r->ops->state(r->w, b);
	for (int i = 0; i < PS_NSTATES; i++)
		if (b->ns[i] > b->ns[b->state])
			b->state = (enum plot_state_kind)i;
	b->cpu = b->waker_tid = b->next_tid = b->stack_id = -1;
	b->waker = b->next_comm = NULL;
	return r->ops->state(r->w, b);
}

static const char *keep_copy(char *buf, size_t n, const char *s)
{
	if (!s)
		return NULL;
	snprintf(buf, n, "%s", s);
	return buf;
}

int plot_reduce_state(struct plot_reduce *r, const struct plot_state *s)
{
	struct plot_state *b = &r->st;
	int err;

	r->n->states_in++;
	if (s->dur_ns >= r->quantum_ns) {
		err = flush_state(r);
		r->n->states_out++;
		return err < 0 ? err : r->ops->state(r->w, s);
	}
	if (!r->st_open) {
		*b = *s;
		memset(b->ns, 0, sizeof(b->ns));
		b->waker = keep_copy(r->waker, sizeof(r->waker),
					  s->waker);
		b->next_comm = keep_copy(r->next_comm, sizeof(r->next_comm),
					 s->next_comm);
		r->st_open = 1;
	} else {
		b->n++;
		b->flags |= s->flags;
		b->dur_ns = max64(b->ts + b->dur_ns, s->ts + s->dur_ns) - b->ts;
	}
	b->ns[s->state] += s->dur_ns;
	return b->dur_ns >= r->quantum_ns ? flush_state(r) : 0;
}

/* ---- faults ------------------------------------------------------------- */

static int flush_fault(struct plot_reduce *r, enum plot_fault_kind k)
{
	struct plot_fault *g = &r->fl[k];

	if (!r->fl_open[k])
		return 0;
	r->fl_open[k] = 0;
	if (g->n == 1) {
		r->n->faults_kept++;
	} else {
		r->n->fault_merges++;
		g->addr = g->ip = g->cpu = g->exit_cpu = g->stack_id = -1;
	}
	return r->ops->fault(r->w, g);
}

int plot_reduce_fault(struct plot_reduce *r, const struct plot_fault *f)
{
	struct plot_fault *g = &r->fl[f->kind];
	int err = 0;

	r->n->faults_in++;
	if (f->kind == PF_UNFINISHED || f->dur_ns >= r->keep_fault_ns) {
		r->n->faults_kept++;
		return r->ops->fault(r->w, f);
	}
	if (r->fl_open[f->kind] && f->ts - g->ts >= r->quantum_ns)
		err = flush_fault(r, f->kind);
	if (err < 0)
		return err;
	if (!r->fl_open[f->kind]) {
		*g = *f;
		g->max_ns = g->total_ns = f->dur_ns;
		r->fl_open[f->kind] = 1;
		return 0;
	}
	g->n++;
	g->dur_ns = max64(g->ts + g->dur_ns, f->ts + f->dur_ns) - g->ts;
	g->max_ns = max64(g->max_ns, f->dur_ns);
	g->total_ns += f->dur_ns;
	return 0;
}

/* ---- tracepoint hits ---------------------------------------------------- */

static int flush_event(struct plot_reduce *r)
{
	if (!r->ev_open)
		return 0;
	r->ev_open = 0;
	r->n->events_out++;
	if (strbuf_error(&r->ev_name) < 0 || strbuf_error(&r->ev_fields) < 0)
		return -ENOMEM;	/* a copy was cut short */
	r->ev.name = strbuf_str(&r->ev_name);
	r->ev.fields = r->ev.n == 1 ? strbuf_str(&r->ev_fields) : NULL;
	return r->ops->event(r->w, &r->ev);
}

int plot_reduce_event(struct plot_reduce *r, const struct plot_event *ev)
{
	int err = 0;

	r->n->events_in++;
	if (r->ev_open && ev->ts - r->ev.ts >= r->quantum_ns)
		err = flush_event(r);
	if (err < 0)
		return err;
	if (!r->ev_open) {
		r->ev = *ev;
		r->ev_open = 1;
		strbuf_reset(&r->ev_name);
		strbuf_reset(&r->ev_fields);
		strbuf_adds(&r->ev_name, ev->name ? ev->name : "");
		strbuf_adds(&r->ev_fields, ev->fields ? ev->fields : "{}");
		return 0;
	}
	r->ev.n++;
	r->ev.span_ns = ev->ts - r->ev.ts;
	if (!r->ev.names_differ && strcmp(ev->name ? ev->name : "",
					  strbuf_str(&r->ev_name)))
		r->ev.names_differ = 1;
	return 0;
}

/* ---- metric points ------------------------------------------------------ */

static int flush_point(struct plot_reduce *r)
{
	if (!r->pt_open)
		return 0;
	r->pt_open = 0;
	r->n->points_out++;
	return r->ops->point(r->w, &r->pt);
}

int plot_reduce_point(struct plot_reduce *r, const struct plot_point *p)
{
	struct plot_point *g = &r->pt;
	int err = 0;

	r->n->points_in++;
	if (r->pt_open && p->ts - g->ts >= r->quantum_ns)
		err = flush_point(r);
	if (err < 0)
		return err;
	if (!r->pt_open) {
		*g = *p;
		r->pt_open = 1;
		return 0;
	}
	g->n++;
	g->span_ns = p->ts - g->ts;
	g->min = p->min < g->min ? p->min : g->min;
	g->max = p->max > g->max ? p->max : g->max;
	g->last = p->last;
	return 0;
}

/* ---- CPU spans ---------------------------------------------------------- */

static int flush_cpu(struct plot_reduce *r, enum plot_cpu_kind k)
{
	struct plot_cpu_span *g = &r->cs[k];

	if (!r->cs_open[k])
		return 0;
	r->cs_open[k] = 0;
	r->n->cpu_out[k]++;
	if (g->n > 1)
		g->wait_tid = g->wait_ts = g->wait_dur_ns = -1;
	return r->ops->cpu(r->w, g);
}

/* Like states: a span of a column or more as recorded, a run of shorter
 * ones (of one kind) merged until it spans a column, named after the
 * thread of its longest span. */
int plot_reduce_cpu(struct plot_reduce *r, const struct plot_cpu_span *c)
{
	struct plot_cpu_span *g = &r->cs[c->kind];
	int err;

	r->n->cpu_in[c->kind]++;
	if (c->dur_ns >= r->quantum_ns) {
		err = flush_cpu(r, c->kind);
		r->n->cpu_out[c->kind]++;
		return err < 0 ? err : r->ops->cpu(r->w, c);
	}
	if (!r->cs_open[c->kind]) {
		*g = *c;
		g->name = keep_copy(r->cs_name[c->kind], sizeof(r->cs_name[0]), c->name);
		r->cs_longest[c->kind] = c->dur_ns;
		r->cs_open[c->kind] = 1;
	} else {
		g->n++;
		g->busy_ns += c->dur_ns;
		g->dur_ns = max64(g->ts + g->dur_ns, c->ts + c->dur_ns) - g->ts;
		if (c->dur_ns > r->cs_longest[c->kind]) {
			r->cs_longest[c->kind] = c->dur_ns;
			g->tid = c->tid;
			g->name = keep_copy(r->cs_name[c->kind], sizeof(r->cs_name[0]),
					    c->name);
		}
	}
	return g->dur_ns >= r->quantum_ns ? flush_cpu(r, c->kind) : 0;
}

int plot_reduce_flush(struct plot_reduce *r)
{
	int err = flush_state(r);

	for (int k = 0; err == 0 && k < PC_NKINDS; k++)
		err = flush_cpu(r, (enum plot_cpu_kind)k);

	for (int k = 0; err == 0 && k < PF_NKINDS; k++)
		err = flush_fault(r, (enum plot_fault_kind)k);
	if (err == 0)
		err = flush_event(r);
	if (err == 0)
		err = flush_point(r);
	return err;
}
