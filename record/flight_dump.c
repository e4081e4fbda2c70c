/*
 * flight_dump: one window of record --flight, replayed from the history
 * into a session of its own (record/flight.h says what a dump holds).
 */
#include <errno.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>

#include "../collector/procfs.h"
#include "../common/array.h"
#include "../common/version.h"
#include "../decoder/perf_record.h"
#include "../schema/flight_store.h"
#include "flight.h"
#include "session.h"

/* Where a window lies in the history, in CLOCK_MONOTONIC and positions. */
struct window {
	uint64_t start_ns, end_ns;	/* the window asked for, clamped */
	uint64_t from, to;		/* the entries replayed: [from, to) */
};

/* Each CPU's share, indexed like the recorder's cpus[]. */
struct flight_cpu_share {
	uint64_t records, bytes, lost, dropped;
};

struct dump {
	struct flight *f;
	struct record_pipeline p;	/* owned: a pipeline of its own */
	struct loader l;		/* owned once begun */
	int begun;
	struct window w;
	struct flight_cpu_share *cpus;		/* owned: rec.ncpus */
	uint8_t *one;			/* owned: a single record's entry */
	size_t one_cap;
	/* owned: the metric lines read within the window, stored at the
	 * end (through the same clock map as the trigger's time). */
	struct metric_sample *samples;
	size_t nsamples, samples_cap;
};

/* From when every CPU's records, and --block-io's events, are kept; 0:
 * all since arming. */
static uint64_t whole_from(const struct flight *f)
{
	return f->hist.whole_from > f->blk.whole_from ? f->hist.whole_from :
	       f->blk.whole_from;
}

/* The window, and the whole drain rounds that hold it: from after the
 * last round that ends before it (every record stamped after that
 * round's watermark plus RECORDER_ORDER_SLACK_NS comes later,
 * flight_history.h), to the first round whose watermark passes its end. */
static void find_window(const struct flight *f, struct window *w)
{
	const struct flight_history *h = &f->hist;
	const struct flight_trigger *t = &f->trig;
	const struct spool_entry *e;
	uint64_t next, found_end = 0;

	w->start_ns = t->mono_ns > f->cfg->before_ns ?
		      t->mono_ns - f->cfg->before_ns : 0;
	if (whole_from(f) > w->start_ns)
		w->start_ns = whole_from(f);
	w->end_ns = t->mono_ns + f->cfg->after_ns;
	if (w->start_ns > w->end_ns)
		w->start_ns = w->end_ns;	/* nothing whole left */
	w->from = h->tail;
	w->to = h->head;
	for (uint64_t p = h->tail; (e = flight_history_at(h, p, &next));
	     p = next) {
		if (e->kind != SPOOL_ROUND)
			continue;
		if (e->u.watermark != UINT64_MAX &&
		    e->u.watermark + RECORDER_ORDER_SLACK_NS <= w->start_ns)
			w->from = next;
		if (!found_end && e->u.watermark >= w->end_ns) {
			w->to = next;
			found_end = 1;
		}
	}
}

/* The anchor in force when the replay starts: the newest before it. */
static struct clock_anchor start_anchor(const struct flight *f, uint64_t from)
{
	const struct flight_history *h = &f->hist;
	struct clock_anchor a = f->dropped_anchor;
	const struct spool_entry *e;
	uint64_t next;

	/* Nothing dropped yet: the flight session's first anchor, the one
	 * its session row starts at.  Not pipe.clock.last, which each
	 * anchor the drain takes moves on (flight.c): a dump whose window
	 * began before the history's first anchor started at the dump's
	 * own moment, its row's start after its rows. */
	if (!a.mono_ns && f->rs->pipe.clock.map.n)
		a = f->rs->pipe.clock.map.v[0];
	else if (!a.mono_ns)
		a = f->rs->pipe.clock.last;
	for (uint64_t p = h->tail; p != from && (e = flight_history_at(h, p, &next));
	     p = next)
		if (e->kind == SPOOL_ANCHOR)
			a = e->u.anchor;
	return a;
}

static int oom(struct dump *d)
{
	return errmsg_set(&d->p.err, ENOMEM, "out of memory dumping the flight "
			  "recorder");
}

/* The session row of the dump, as record/session.c's begin() writes
 * the recording's, started at anchor a. */
static int begin_session(struct dump *d, const struct clock_anchor *a)
{
	struct record_session *rs = d->f->rs;
	struct clock_step unused;
	struct session_info si;
	struct utsname un;
	char cpu_model[128];
	char *options = record_options_json(&rs->cfg);
	int err;

	if (!options || clock_map_add(&d->p.clock.map, a, &unused) == -ENOMEM) {
		free(options);
		return oom(d);
	}
	d->p.clock.last = *a;
	uname(&un);
	memset(&si, 0, sizeof(si));
	si.start = *a;
	si.host = un.nodename;
	si.kernel = un.release;
	si.command_line = rs->cfg.command_line;
	si.options = options;
	si.version = FAULTLINE_VERSION;
	si.min_fault_dur_ns = rs->cfg.min_fault_dur_ns;
	si.buffer_bytes = rs->cfg.ring_bytes;
	si.cpus = rs->rec.ev.ncpus;
	proc_cpu_model(cpu_model, sizeof(cpu_model));
	si.cpu_model = cpu_model;
	si.labels_json = rs->cfg.labels_json;
	proc_ident_self(&si.recorder);
	err = loader_begin(&d->l, rs->db, rs->cfg.output, &si, &d->p.clock.map,
			   &d->p.err);
	free(options);
	if (err < 0)
		return err;
	d->begun = 1;
	return record_pipeline_begin(&d->p, &d->l);
}

/* One record kept from before the window, handed over as a DATA entry of
 * its own. */
static int replay_one(struct dump *d, uint32_t cpu, const void *rec, size_t len)
{
	struct spool_entry *e;
	size_t need = sizeof(*e) + len;

	if (need > d->one_cap) {
		void *n = realloc(d->one, need);

		if (!n)
			return oom(d);
		d->one = n;
		d->one_cap = need;
	}
	e = (struct spool_entry *)d->one;
	memset(e, 0, sizeof(*e));
	e->kind = SPOOL_DATA;
	e->cpu = cpu;
	e->len = len;
	memcpy(e + 1, rec, len);
	return record_pipeline_take(&d->p, e);
}

struct prelude_walk {
	struct dump *d;
	uint32_t cpu;
};

static int prelude_rec(void *ctx, const void *rec, size_t len)
{
	struct prelude_walk *w = ctx;
	uint32_t type = ((const struct perf_event_header *)rec)->type;

	if (type != PERF_RECORD_MMAP && type != PERF_RECORD_MMAP2 &&
	    type != PERF_RECORD_COMM)
		return 0;
	return replay_one(w->d, w->cpu, rec, len);
}

/* What the window needs from before it: the records kept aside, then
 * those in the history before the replay starts. */
static int replay_prelude(struct dump *d)
{
	struct flight *f = d->f;
	const struct spool_entry *e;
	uint64_t next, bad = 0;
	int err = 0;

	for (size_t i = f->aside.first; i < f->aside.n && err == 0; i++)
		err = replay_one(d, f->aside.v[i].cpu, f->aside.v[i].bytes,
				 f->aside.v[i].len);
	for (uint64_t p = f->hist.tail; err == 0 && p != d->w.from &&
	     (e = flight_history_at(&f->hist, p, &next)); p = next) {
		struct prelude_walk w = { d, e->cpu };

		if (e->kind == SPOOL_DATA)
			err = perf_records_walk(spool_data(e), e->len, prelude_rec,
						&w, &bad);
	}
	return err;
}

/* A block slot of the window: an event into the order queue (it flows
 * out with the rings' records, round by round), or the instance's loss
 * as lost rows, stamped inside the window. */
static int replay_block_slot(void *ctx, const struct flight_block_slot *s)
{
	struct dump *d = ctx;
	uint64_t at = s->mono_ns;
	int err = 0;

	if (!s->loss) {
		if (record_block_io_event(&d->p.blk, &d->p.order, s->mono_ns,
					  s->cpu, s->u.raw, s->size) < 0)
			return oom(d);
		return 0;
	}
	at = at < d->w.start_ns ? d->w.start_ns : at > d->w.end_ns ?
	     d->w.end_ns : at;
	if (s->u.n.overrun)
		err = loader_lost(&d->l, at, (int)s->cpu, "block_overrun",
				  s->u.n.overrun, &d->p.err);
	if (err == 0 && s->u.n.dropped)
		err = loader_lost(&d->l, at, (int)s->cpu, "block_dropped",
				  s->u.n.dropped, &d->p.err);
	return err;
}

/* --block-io's events of the window, all queued before the first round
 * lets any event out: the pipeline waits for no reader (block_io.h). */
static int replay_block(struct dump *d)
{
	const struct flight_block *fb = &d->f->blk;

	if (!fb->v)
		return 0;
	return flight_block_each(fb, d->w.start_ns, d->w.end_ns,
				 replay_block_slot, d);
}

static struct flight_cpu_share *share_of(struct dump *d, uint32_t cpu)
{
	const struct recorder *r = &d->f->rs->rec;

	for (int i = 0; i < r->ev.ncpus; i++)
		if (r->ev.cpus[i] == (int)cpu)
			return &d->cpus[i];
	return NULL;
}

/* PERF_RECORD_LOST: header, id, lost (perf_event.h). */
static int count_lost(void *ctx, const void *rec, size_t len)
{
	struct flight_cpu_share *s = ctx;
	const struct perf_event_header *h = rec;

	if (h->type == PERF_RECORD_LOST && len >= 24)
		s->lost += ((const uint64_t *)rec)[2];
	s->records++;
	return 0;
}

static void count_entry(struct dump *d, const struct spool_entry *e)
{
	struct flight_cpu_share *s;
	uint64_t bad = 0;

	if (e->kind == SPOOL_DATA && (s = share_of(d, e->cpu))) {
		s->bytes += e->len;
		perf_records_walk(spool_data(e), e->len, count_lost, s, &bad);
	} else if (e->kind == SPOOL_LOST && (s = share_of(d, e->u.lost.cpu))) {
		s->dropped += e->u.lost.records;
	}
}

/* A metric line kept in the history: the dump's when the window holds
 * its time (whole rounds hold every line read within the window: a line
 * is pushed before the round whose watermark passes its time). */
static int keep_sample(struct dump *d, const struct metric_sample *m)
{
	if (m->mono_ns < d->w.start_ns || m->mono_ns > d->w.end_ns)
		return 0;
	if (ARRAY_RESERVE(d->samples, d->samples_cap, d->nsamples + 1) < 0)
		return oom(d);
	d->samples[d->nsamples++] = *m;
	return 0;
}

/* Each watched metric's lines of the window as a series of the dump's
 * session, one per metric and source, so one query lines them up with
 * its rows. */
static int store_samples(struct dump *d)
{
	static const char *const source[] = {
		[METRIC_FROM_FIFO] = "flight:--metric-fifo",
		[METRIC_FROM_UDP] = "flight:--metric-udp",
	};
	int64_t series[FLIGHT_METRICS_MAX][2] = { { 0 } };
	const struct metric_watch *w = d->f->cfg->metrics;
	int err = 0;

	for (size_t i = 0; i < d->nsamples && err == 0; i++) {
		const struct metric_sample *m = &d->samples[i];
		int64_t *id = &series[m->watch][m->from];

		if (!*id)
			err = loader_metric_series(&d->l, w[m->watch].name, "{}",
						   NULL, source[m->from], id,
						   &d->p.err);
		if (err == 0)
			err = loader_metric(&d->l, *id, m->mono_ns, m->value,
					    &d->p.err);
	}
	return err;
}

static int replay_window(struct dump *d)
{
	struct flight_history *h = &d->f->hist;
	const struct spool_entry *e;
	uint64_t next;
	int err = 0;

	for (uint64_t p = d->w.from; err == 0 && p != d->w.to &&
	     (e = flight_history_at(h, p, &next)); p = next) {
		if (e->kind == SPOOL_TRIGGER)
			continue;
		if (e->kind == SPOOL_METRIC) {
			err = keep_sample(d, &e->u.metric);
			continue;
		}
		count_entry(d, e);
		err = record_pipeline_take(&d->p, e);
	}
	return err;
}

/* The trigger in words, into buf. */
static const char *trigger_reason(const struct flight *f, char *buf, size_t n)
{
	const struct flight_trigger *t = &f->trig;

	if (t->source == FLIGHT_SIGNAL)
		return "SIGUSR2";
	if (t->source == FLIGHT_CONTROL)
		return "'snapshot' on --control";
	if (t->source == FLIGHT_METRIC)
		return flight_metric_words(&f->cfg->metrics[t->metric], t->value,
					   buf, n);
	if (t->source == FLIGHT_OFFCPU)
		snprintf(buf, n, "an off-CPU span (%s) of thread %u %s %.3f ms",
			 thread_state_name(t->state), t->tid,
			 t->still ? "still going on after" : "that took",
			 (double)t->dur_ns / 1e6);
	else
		snprintf(buf, n, "%s of thread %u %s %.3f ms",
			 t->source == FLIGHT_FAULT ? "a fault" : "a system call",
			 t->tid, t->still ? "still going on after" : "that took",
			 (double)t->dur_ns / 1e6);
	return buf;
}

static int store_dump_rows(struct dump *d, int cut_short)
{
	struct flight *f = d->f;
	char why[160];
	struct flight_dump_row r = {
		flight_trigger_name(f->trig.source),
		trigger_reason(f, why, sizeof(why)),
		f->trig.mono_ns, f->cfg->before_ns, f->cfg->after_ns,
		d->w.start_ns, d->w.end_ns, cut_short,
		whole_from(f), f->hist.cap, f->hist.peak,
		f->hist.dropped_records, f->hist.dropped_bytes, f->suppressed,
		f->aside.dropped, f->blk.v != NULL, f->blk.dropped,
	};
	const struct recorder *rec = &f->rs->rec;
	int err;

	if (f->trig.source == FLIGHT_METRIC) {
		r.metric = f->cfg->metrics[f->trig.metric].name;
		r.metric_value = f->trig.value;
		r.metric_threshold = f->cfg->metrics[f->trig.metric].threshold;
	}
	if (cut_short && d->p.clock.last.mono_ns < r.window_end_mono_ns)
		r.window_end_mono_ns = d->p.clock.last.mono_ns;
	err = loader_flight_dump(&d->l, &r, &d->p.err);
	for (int i = 0; err == 0 && i < rec->ev.ncpus; i++) {
		struct flight_cpu_row c = { rec->ev.cpus[i], d->cpus[i].records,
					    d->cpus[i].bytes, d->cpus[i].lost,
					    d->cpus[i].dropped };

		err = loader_flight_cpu(&d->l, &c, &d->p.err);
	}
	return err;
}

static int end_session(struct dump *d, int cut_short)
{
	struct session_ending how = { "complete", "flight recorder dump", NULL };
	struct session_counts c;
	struct clock_anchor end;
	int err = record_pipeline_finish(&d->p, &end);

	if (err == 0)
		err = store_samples(d);
	if (err == 0)
		err = store_dump_rows(d, cut_short);
	if (err < 0)
		return err;
	record_pipeline_counts(&d->p, &d->f->rs->rec, &c);
	c.spool_bytes = d->f->rs->spool.cap;
	return loader_end(&d->l, &end, &c, &how, &d->p.err);
}

static int dump_run(struct dump *d, int cut_short)
{
	struct record_session *rs = d->f->rs;
	struct clock_anchor a;
	int err = record_pipeline_init(&d->p, &rs->rec, rs->cfg.targets,
				       rs->cfg.min_fault_dur_ns,
				       rs->cfg.min_syscall_dur_ns);

	d->cpus = calloc((size_t)rs->rec.ev.ncpus, sizeof(*d->cpus));
	if (err < 0 || !d->cpus)
		return oom(d);
	record_block_io_replayed(&d->p.blk);
	find_window(d->f, &d->w);
	/* Cut short: the window ends at the recording's last anchor (the
	 * block events after it are after the recording). */
	if (cut_short && rs->pipe.clock.last.mono_ns < d->w.end_ns)
		d->w.end_ns = rs->pipe.clock.last.mono_ns;
	a = start_anchor(d->f, d->w.from);
	err = begin_session(d, &a);
	if (err == 0)
		err = replay_block(d);
	if (err == 0)
		err = replay_prelude(d);
	if (err == 0)
		err = replay_window(d);
	if (err == 0)
		err = end_session(d, cut_short);
	return err;
}

/* The dump's frames named now, as a recording's are at its end: the
 * processes of its window most likely still run, with the files they
 * mapped, where the end of a flight recording may come days later. */
static void symbolize_dump(struct flight *f, int64_t session_id,
			   size_t nframes)
{
	struct record_symbolized one;

	f->dump_frames += nframes;
	record_symbolize_end(&one, f->rs->db, f->rs->cfg.output, session_id,
			     nframes, f->rs->cfg.symbolize);
	record_symbolized_add(&f->sym, &one);
}

int flight_dump(struct flight *f, int cut_short)
{
	struct dump d;
	int64_t session_id = 0;
	int err;

	memset(&d, 0, sizeof(d));
	d.f = f;
	err = dump_run(&d, cut_short);
	if (err < 0 && d.begun) {
		/* Its row says so; the first error is the one kept. */
		struct session_ending how = { "failed", "flight recorder dump",
					      d.p.err.text };
		struct session_counts c;
		struct errmsg ignored;

		errmsg_init(&ignored);
		record_pipeline_counts(&d.p, &f->rs->rec, &c);
		loader_end(&d.l, &d.p.clock.last, &c, &how, &ignored);
	}
	if (err < 0)
		*f->err = d.p.err;
	if (d.begun) {
		session_id = d.l.session_id;
		loader_release(&d.l);
	}
	if (err == 0)
		symbolize_dump(f, session_id, d.p.stacks.tab.nframes);
	record_pipeline_release(&d.p);
	free(d.cpus);
	free(d.one);
	free(d.samples);
	f->pending = 0;
	f->suppressed = 0;
	f->dumps++;	/* flight_fire noted its time */
	return err;
}
