#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "../common/out_file.h"
#include "../export/stack_text.h"
#include "plot.h"
#include "reduce.h"
#include "writers.h"

/* The driver between the reduction and the writer: it looks up the
 * stack of every recorded item that names one, so the writer can list
 * them at the end. */
struct driver {
	const struct plot_sink_ops *ops;	/* borrowed: the writer's */
	struct plot_writer w;
	struct stack_text stacks;
	struct errmsg *e;			/* borrowed */
};

static int note_stack(struct driver *d, int64_t stack_id)
{
	const char *text;

	return stack_id > 0 ? stack_text_get(&d->stacks, stack_id, &text, d->e) : 0;
}

static int d_begin(void *p, const struct plot_header *h)
{
	struct driver *d = p;

	return d->ops->begin(&d->w, h);
}

static int d_lane(void *p, const struct plot_lane *l)
{
	struct driver *d = p;

	return d->ops->lane(&d->w, l);
}

static int d_state(void *p, const struct plot_state *s)
{
	struct driver *d = p;
	int err = s->n == 1 ? note_stack(d, s->stack_id) : 0;

	return err < 0 ? err : d->ops->state(&d->w, s);
}

static int d_fault(void *p, const struct plot_fault *f)
{
	struct driver *d = p;
	int err = f->n == 1 ? note_stack(d, f->stack_id) : 0;

	return err < 0 ? err : d->ops->fault(&d->w, f);
}

static int d_event(void *p, const struct plot_event *ev)
{
	struct driver *d = p;

	return d->ops->event(&d->w, ev);
}

static int d_point(void *p, const struct plot_point *pt)
{
	struct driver *d = p;

	return d->ops->point(&d->w, pt);
}

static int d_cpu(void *p, const struct plot_cpu_span *c)
{
	struct driver *d = p;

	return d->ops->cpu(&d->w, c);
}

static int d_lost(void *p, const struct plot_lost *l)
{
	struct driver *d = p;

	return d->ops->lost(&d->w, l);
}

static int d_stack(void *p, int64_t id, const char *text)
{
	struct driver *d = p;

	return d->ops->stack(&d->w, id, text);
}

static int d_end(void *p, const struct plot_counts *n)
{
	struct driver *d = p;

	return d->ops->end(&d->w, n);
}

static const struct plot_sink_ops driver_ops = {
	d_begin, d_lane, d_state, d_fault, d_event, d_point, d_cpu, d_lost, d_stack,
	d_end,
};

/* ---- lanes -------------------------------------------------------------- */

static int thread_lane(struct plot_source *src, struct driver *d,
		       struct plot_reduce *r, const struct plot_thread *t)
{
	struct plot_lane l;
	int err;

	memset(&l, 0, sizeof(l));
	l.kind = LANE_THREAD;
	l.tid = t->tid;
	l.pid = t->pid;
	l.comm = t->comm;
	l.names = t->names;
	err = driver_ops.lane(d, &l);
	if (err == 0)
		err = plot_source_states(src, t->tid, r);
	if (err == 0)
		err = plot_source_faults(src, t->tid, r);
	if (err == 0)
		err = plot_source_events(src, t->tid, r);
	return err;
}

static int metric_lane(struct plot_source *src, struct driver *d,
		       struct plot_reduce *r, const struct plot_series *s)
{
	struct plot_lane l;
	int err;

	memset(&l, 0, sizeof(l));
	l.kind = LANE_METRIC;
	l.series_id = s->series_id;
	l.name = s->name;
	l.labels = s->labels;
	l.unit = s->unit;
	l.imported = s->imported;
	l.style = s->style;
	l.vmin = s->points ? s->vmin : 0;
	l.vmax = s->points ? s->vmax : 0;
	err = driver_ops.lane(d, &l);
	return err < 0 ? err : plot_source_points(src, s->series_id, r);
}

static int cpu_lane(void *p, int64_t cpu)
{
	struct plot_lane l;

	memset(&l, 0, sizeof(l));
	l.kind = LANE_CPU;
	l.cpu = cpu;
	return driver_ops.lane(p, &l);
}

struct lanes {
	struct plot_thread *threads;	/* owned: by pid, tid; drawn or idle */
	size_t nthreads;
	struct plot_series *series;	/* owned */
	size_t nseries;
	struct plot_process *procs;	/* owned; names borrowed from threads */
	size_t nprocs;
	int64_t *cpus;			/* owned: the CPU lanes, ascending */
	size_t ncpus;
	int idle_shown;			/* idle threads get lanes too */
};

static int drawn(const struct lanes *ln, const struct plot_thread *t)
{
	return ln->idle_shown || t->busy;
}

/* The processes of ln's threads (in pid order already), with what is
 * drawn of each.  -ENOMEM. */
static int processes_of(struct lanes *ln, struct errmsg *e)
{
	struct plot_process *p = NULL;

	if (ln->nthreads && !(ln->procs = calloc(ln->nthreads, sizeof(*ln->procs))))
		return errmsg_set(e, ENOMEM, "out of memory");
	for (size_t i = 0; i < ln->nthreads; i++) {
		const struct plot_thread *t = &ln->threads[i];

		if (!p || p->pid != t->pid) {
			p = &ln->procs[ln->nprocs++];
			p->pid = t->pid;
			p->comm = t->comm;
		}
		if (t->tid == t->pid)
			p->comm = t->comm;
		if (drawn(ln, t))
			p->nthreads++;
		else
			p->nidle++;
	}
	return 0;
}

/* -ENODATA when no lane has a row in the window. */
static int window_empty(const struct plot_source *src, const struct lanes *ln)
{
	char from[UTC_LEN], to[UTC_LEN], start[UTC_LEN], end[UTC_LEN];

	for (size_t i = 0; i < ln->nthreads; i++)
		if (ln->threads[i].has_rows)
			return 0;
	for (size_t i = 0; i < ln->nseries; i++)
		if (ln->series[i].points)
			return 0;
	return errmsg_set(src->e, ENODATA, "nothing recorded between %s and %s%s "
			  "in session %lld of '%s'; it ran from %s to %s: widen "
			  "or move the window (--from/--to, --around/--window)",
			  utc_format(from, sizeof(from), src->from_ts),
			  utc_format(to, sizeof(to), src->to_ts),
			  ln->nthreads || ln->nseries ? " for the threads and "
			  "metrics asked for" : "", (long long)src->session,
			  src->path, utc_format(start, sizeof(start), src->start_ts),
			  utc_format(end, sizeof(end), src->end_ts));
}

static void header_of(struct plot_header *h, const struct session_info *s,
		      const struct plot_spec *spec, const char *db_path,
		      const struct lanes *ln)
{
	int64_t columns = (int64_t)spec->width_px * (spec->zoom ? spec->zoom : 1);

	memset(h, 0, sizeof(*h));
	h->session = s->id;
	h->db_path = db_path;
	h->host = s->host;
	h->command_line = s->command_line;
	h->session_start_ts = s->start_ts;
	h->session_end_ts = s->end_ts;
	h->from_ts = spec->from_ts;
	h->to_ts = spec->to_ts;
	h->width_px = spec->width_px;
	h->zoom = spec->zoom ? spec->zoom : 1;
	h->quantum_ns = (spec->to_ts - spec->from_ts) / (columns > 0 ? columns : 1);
	if (h->quantum_ns < 1)
		h->quantum_ns = 1;
	h->keep_fault_ns = spec->keep_fault_ns;
	h->nmetrics = (unsigned)ln->nseries;
	h->ncpus = (unsigned)ln->ncpus;
	h->procs = ln->procs;
	h->nprocs = (unsigned)ln->nprocs;
	for (size_t i = 0; i < ln->nprocs; i++) {
		h->nthreads += ln->procs[i].nthreads;
		h->nidle += ln->procs[i].nidle;
	}
	h->all_threads = spec->all_threads;
}

static int draw(struct plot_source *src, struct driver *d,
		const struct plot_header *h, const struct lanes *ln,
		struct plot_counts *n)
{
	struct plot_reduce r;
	int err = driver_ops.begin(d, h);

	plot_reduce_init(&r, h->quantum_ns, h->keep_fault_ns, &driver_ops, d, n);
	/* Metrics first: they sit under the axis, above however many
	 * threads there are, so they are on screen without scrolling. */
	for (size_t i = 0; err == 0 && i < ln->nseries; i++)
		err = metric_lane(src, d, &r, &ln->series[i]);
	/* Then the CPUs, as a group above the processes: a wait on a
	 * thread's lane and who held its CPU meanwhile, one glance apart. */
	if (err == 0)
		err = plot_source_cpu_lanes(src, ln->cpus, ln->ncpus, cpu_lane, d, &r);
	for (size_t i = 0; err == 0 && i < ln->nthreads; i++)
		if (drawn(ln, &ln->threads[i]))
			err = thread_lane(src, d, &r, &ln->threads[i]);
	if (err == 0)
		err = plot_source_lost(src, &driver_ops, d, n);
	if (err == 0)
		err = stack_text_each(&d->stacks, d_stack, d);
	if (err == 0)
		err = driver_ops.end(d, n);
	plot_reduce_release(&r);
	if (err == -ENOMEM && !d->e->text[0])
		errmsg_set(d->e, ENOMEM, "out of memory");
	return err;
}

int plot_write(sqlite3 *db, const char *db_path, const struct session_info *s,
	       const struct plot_spec *spec, const char *out_path,
	       struct plot_counts *n, struct errmsg *e)
{
	struct plot_source src = { db, db_path, s->id, spec->from_ts, spec->to_ts,
				   s->start_ts, s->end_ts, e };
	struct plot_counts count;
	/* Threads asked for by tid are drawn whatever they did. */
	struct lanes ln = { NULL, 0, NULL, 0, NULL, 0, NULL, 0,
			    spec->all_threads || spec->ntids };
	struct plot_header h;
	struct out_file out;
	struct driver d;
	int err;

	memset(&count, 0, sizeof(count));
	memset(&out, 0, sizeof(out));
	d.ops = spec->format == PLOT_SVG ? &plot_svg_ops : &plot_html_ops;
	d.e = e;
	plot_writer_init(&d.w, &out, e);
	stack_text_init(&d.stacks, db, db_path, s->id, PLOT_STACK_NAMES);
	err = plot_source_threads(&src, spec->tids, spec->ntids, &ln.threads,
				  &ln.nthreads);
	if (err == 0)
		err = plot_source_series(&src, spec->metrics, spec->nmetrics,
					 &ln.series, &ln.nseries);
	if (err == 0)
		err = window_empty(&src, &ln);
	if (err == 0)
		err = plot_source_cpus(&src, &ln.cpus, &ln.ncpus);
	if (err == 0)
		err = processes_of(&ln, e);
	if (err == 0)
		err = out_file_open(&out, out_path, e);
	if (err == 0) {
		header_of(&h, s, spec, db_path, &ln);
		err = draw(&src, &d, &h, &ln, &count);
	}
	if (err == 0)
		err = out_file_commit(&out, e);
	out_file_abort(&out);
	plot_writer_release(&d.w);
	stack_text_release(&d.stacks);
	plot_threads_free(ln.threads, ln.nthreads);
	plot_series_free(ln.series, ln.nseries);
	free(ln.procs);
	free(ln.cpus);
	if (n)
		*n = count;
	return err;
}
