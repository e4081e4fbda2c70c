#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include "../common/clock.h"
#include "../schema/flight_store.h"
#include "flight_watch.h"
#include "session.h"

/* Generated from schema.sql by the Makefile. */
extern const char schema_sql[];

/* The scratch rows (mappings, losses, anchors) are of no use once the
 * rounds they came with are decoded.  Every 5 s: the fault storm of
 * tests/soak.sh maps memory about 2,500 times a second, 12,500 mapping
 * rows (2 MiB) between two emptyings. */
#define WATCH_SCRATCH_EMPTY_NS (5ull * 1000 * 1000 * 1000)

/* How often the recorder's own cost is stored: days of running make a
 * few hundred rows. */
#define WATCH_COST_NS (3600ull * 1000 * 1000 * 1000)

/* Does spec s take a span of kind k, of thread tid in state? */
static int spec_takes(const struct flight_watch *w,
		      const struct flight_trigger_spec *s,
		      enum flight_trigger_kind k, uint32_t tid, uint32_t state)
{
	const struct thread *t;

	if (s->kind != k || (s->states && !(s->states & (1u << state))) ||
	    (s->tid && s->tid != tid))
		return 0;
	if (!s->comm[0])
		return 1;
	t = thread_table_find(&w->p.faults.threads, tid);
	return t && !strcmp(t->comm, s->comm);
}

/* The shortest DUR among the triggers that take this span; NULL when
 * none does. */
static const struct flight_trigger_spec *spec_of(const struct flight_watch *w,
						 enum flight_trigger_kind k,
						 uint32_t tid, uint32_t state)
{
	const struct flight_config *c = w->f->cfg;
	const struct flight_trigger_spec *best = NULL;

	for (size_t i = 0; i < c->ntriggers; i++)
		if (spec_takes(w, &c->triggers[i], k, tid, state) &&
		    (!best || c->triggers[i].dur_ns < best->dur_ns))
			best = &c->triggers[i];
	return best;
}

/* The fault stream's callbacks get the pipeline (ops.ctx stays &w->p,
 * which its own callbacks, resolve and wanted, need): w is around it. */
static struct flight_watch *watch_of(void *ctx)
{
	return (struct flight_watch *)((char *)ctx -
				       offsetof(struct flight_watch, p));
}

static int was_fired(struct flight_watch *w, uint32_t tid, uint32_t kind,
		     uint64_t since, int forget)
{
	for (size_t i = 0; i < w->nfired; i++)
		if (w->fired[i].tid == tid && w->fired[i].kind == kind &&
		    w->fired[i].since == since) {
			if (forget)
				w->fired[i] = w->fired[--w->nfired];
			return 1;
		}
	return 0;
}

/* A span of tid that began at since and lasted dur_ns (still: it goes
 * on), held against the trigger of kind. */
static void check(struct flight_watch *w, enum flight_trigger_kind kind,
		  uint32_t tid, uint32_t state, uint64_t since, uint64_t dur_ns,
		  int still)
{
	const struct flight_trigger_spec *s = spec_of(w, kind, tid, state);
	struct flight_trigger t;

	if (!s || dur_ns < s->dur_ns)
		return;
	if (was_fired(w, tid, kind, since, !still))
		return;
	if (still) {
		if (w->nfired == sizeof(w->fired) / sizeof(w->fired[0]))
			w->nfired--;	/* the oldest stays; its end may fire */
		w->fired[w->nfired++] = (struct fired){ tid, kind, since };
	}
	memset(&t, 0, sizeof(t));
	t.source = kind;
	t.tid = tid;
	t.span_mono_ns = since;
	t.still = still;
	t.state = state;
	/* Still going on: when it passed DUR; else when it ended. */
	t.dur_ns = still ? s->dur_ns : dur_ns;
	t.mono_ns = since + t.dur_ns;
	flight_fire(w->f, &t);
}

static int off_cpu(enum thread_state_kind s)
{
	return s != TS_NONE && s != TS_RUNNING && s != TS_UNKNOWN;
}

/* A finished span: counted in the minute's histograms, held against
 * its trigger. */
static int span(struct flight_watch *w, enum flight_trigger_kind trig,
		uint32_t kind, uint32_t tid, uint32_t state, uint64_t since,
		uint64_t dur_ns)
{
	if (flight_minute_add(&w->minute, tid, kind, dur_ns) < 0)
		return errmsg_set(&w->p.err, ENOMEM, "out of memory counting "
				  "spans");
	check(w, trig, tid, state, since, dur_ns, 0);
	return 0;
}

static int on_fault(void *ctx, const struct fault *f)
{
	if (f->dur_ns == FAULT_NO_DUR)
		return 0;
	return span(watch_of(ctx), FLIGHT_FAULT, FM_FAULT + (uint32_t)f->kind,
		    f->tid, 0, f->mono_ts, f->dur_ns);
}

static int on_state(void *ctx, const struct state_interval *iv)
{
	if (!off_cpu(iv->state))
		return 0;
	return span(watch_of(ctx), FLIGHT_OFFCPU, FM_OFFCPU + (uint32_t)iv->state,
		    iv->tid, iv->state, iv->mono_ts, iv->dur_ns);
}

/* A call --syscalls asks for (the others are only traced for what they
 * say of descriptors). */
static int on_syscall(void *ctx, const struct syscall_call *c, int store)
{
	struct flight_watch *w = watch_of(ctx);

	(void)store;
	if (c->dur_ns == SYSCALL_NO_DUR || c->nr < 0 ||
	    !record_syscalls_wanted(&w->p.sys, c->nr))
		return 0;
	return span(w, FLIGHT_SYSCALL, FM_SYSCALL + (uint32_t)c->nr, c->tid, 0,
		    c->mono_ts, c->dur_ns);
}

static int on_nothing_t(void *ctx, const struct thread *t)
{
	(void)ctx;
	(void)t;
	return 0;
}

static int on_nothing_ev(void *ctx, const struct ev *e)
{
	(void)ctx;
	(void)e;
	return 0;
}

/* The open spans of every target thread, up to now: what the stream has
 * seen of them is complete up to its watermark. */
static void check_open(struct flight_watch *w, uint64_t now)
{
	struct thread_table *tt = &w->p.faults.threads;

	for (size_t i = 0; i < tt->n; i++) {
		struct thread *t = tt->by_order[i];

		if (!t->wanted || t->exited)
			continue;
		if (t->pending.active && now > t->pending.mono_ts)
			check(w, FLIGHT_FAULT, t->tid, 0, t->pending.mono_ts,
			      now - t->pending.mono_ts, 1);
		if (off_cpu(t->tl.state) && now > t->tl.since)
			check(w, FLIGHT_OFFCPU, t->tid, t->tl.state, t->tl.since,
			      now - t->tl.since, 1);
		if (t->sys.active && now > t->sys.mono_ts)
			check(w, FLIGHT_SYSCALL, t->tid, 0, t->sys.mono_ts,
			      now - t->sys.mono_ts, 1);
	}
}

static int scratch_open(struct flight_watch *w)
{
	struct record_session *rs = w->f->rs;
	struct session_info si;
	int err;

	if (sqlite3_open(":memory:", &w->scratch) != SQLITE_OK ||
	    sqlite3_exec(w->scratch, schema_sql, NULL, NULL, NULL) != SQLITE_OK)
		return errmsg_set(w->f->err, ENOMEM, "cannot make the flight "
				  "recorder's scratch database: %s",
				  sqlite3_errmsg(w->scratch));
	memset(&si, 0, sizeof(si));
	si.start = rs->pipe.clock.last;
	si.host = si.kernel = si.command_line = si.version = si.cpu_model = "";
	si.options = "{}";
	err = loader_begin(&w->l, w->scratch, ":memory:", &si, &w->p.clock.map,
			   w->f->err);
	if (err == 0)
		w->begun = 1;
	return err;
}

/* The start of the wall-clock minute holding mono_ns, in
 * CLOCK_MONOTONIC, by anchor a. */
static uint64_t minute_start(const struct clock_anchor *a, uint64_t mono_ns)
{
	int64_t off = clock_anchor_offset(a);
	uint64_t rt = (uint64_t)((int64_t)mono_ns + off);

	return (uint64_t)((int64_t)(rt - rt % FLIGHT_MINUTE_NS) - off);
}

int flight_watch_open(struct flight_watch *w, struct flight *f)
{
	struct record_session *rs = f->rs;
	struct clock_step unused;
	int err;

	memset(w, 0, sizeof(*w));
	w->f = f;
	err = record_pipeline_init(&w->p, &rs->rec, rs->cfg.targets,
				   rs->cfg.min_fault_dur_ns,
				   rs->cfg.min_syscall_dur_ns);
	if (err < 0)
		return errmsg_set(f->err, ENOMEM, "out of memory");
	/* Checks in place of stores (see the header). */
	w->p.checks_only = 1;
	w->p.faults.ops.store_fault = on_fault;
	w->p.faults.ops.store_state = rs->cfg.thread_states ? on_state : NULL;
	w->p.faults.ops.syscall_done = rs->cfg.syscalls ? on_syscall : NULL;
	w->p.faults.ops.spell_end = on_nothing_t;
	w->p.faults.ops.store_tracepoint = on_nothing_ev;
	w->p.faults.ops.latency_hit = on_nothing_ev;
	/* No block events come here (flight_block.h keeps them): none to
	 * wait for. */
	record_block_io_replayed(&w->p.blk);
	if (clock_map_add(&w->p.clock.map, &rs->pipe.clock.last, &unused) == -ENOMEM)
		return errmsg_set(f->err, ENOMEM, "out of memory");
	w->p.clock.last = rs->pipe.clock.last;
	err = scratch_open(w);
	w->p.loader = &w->l;
	w->next_empty = monotonic_ns() + WATCH_SCRATCH_EMPTY_NS;
	w->next_cost = monotonic_ns() + WATCH_COST_NS;
	flight_minute_init(&w->minute, minute_start(&rs->pipe.clock.last,
						    rs->pipe.clock.last.mono_ns));
	return err;
}

void flight_watch_release(struct flight_watch *w)
{
	flight_minute_release(&w->minute);
	if (w->begun)
		loader_release(&w->l);
	record_pipeline_release(&w->p);
	sqlite3_close(w->scratch);
}

static void scratch_empty(struct flight_watch *w)
{
	sqlite3_exec(w->scratch, "DELETE FROM mapping; DELETE FROM lost;"
		     " DELETE FROM clock_anchor; DELETE FROM clock_step;"
		     " DELETE FROM thread;", NULL, NULL, NULL);
}

/* VmRSS of this process, bytes; 0 when it cannot be read. */
static uint64_t rss_now(void)
{
	char line[256];
	uint64_t kib = 0;
	FILE *f = fopen("/proc/self/status", "r");

	while (f && fgets(line, sizeof(line), f))
		if (!strncmp(line, "VmRSS:", 6))
			kib = strtoull(line + 6, NULL, 10);
	if (f)
		fclose(f);
	return kib * 1024;
}

/* The recorder's cost so far, on the flight session. */
static int store_cost(struct flight_watch *w)
{
	struct record_session *rs = w->f->rs;
	struct flight_cost_row r;
	struct rusage ru;

	memset(&r, 0, sizeof(r));
	r.mono_ns = monotonic_ns();
	if (getrusage(RUSAGE_SELF, &ru) == 0) {
		r.user_ns = timeval_ns(ru.ru_utime);
		r.sys_ns = timeval_ns(ru.ru_stime);
		r.max_rss_bytes = (uint64_t)ru.ru_maxrss * 1024ull;
	}
	r.rss_bytes = rss_now();
	/* The kernel updates the high-water mark lazily: now may be above. */
	if (r.rss_bytes > r.max_rss_bytes)
		r.max_rss_bytes = r.rss_bytes;
	r.history_bytes = w->f->hist.head - w->f->hist.tail +
			  (w->f->blk.head - w->f->blk.tail) *
			  sizeof(struct flight_block_slot);
	return loader_flight_cost(&rs->loader, &r, w->f->err);
}

/* The minutes the watermark has passed: the current one written (those
 * after it, with nothing counted, are skipped). */
static int minute_passed(struct flight_watch *w, uint64_t watermark)
{
	const struct clock_anchor *a = &w->f->rs->pipe.clock.last;
	struct flight_minute *m = &w->minute;

	if (watermark < m->start_mono_ns + FLIGHT_MINUTE_NS)
		return 0;
	return flight_minute_flush(m, &w->f->rs->loader, clock_anchor_offset(a),
				   minute_start(a, watermark), w->f->err);
}

int flight_watch_take(struct flight_watch *w, const struct spool_entry *e)
{
	int err = record_pipeline_take(&w->p, e);

	if (err < 0) {
		*w->f->err = w->p.err;
		return err;
	}
	if (e->kind != SPOOL_ROUND || e->u.watermark == UINT64_MAX)
		return 0;
	check_open(w, e->u.watermark);
	err = minute_passed(w, e->u.watermark);
	if (err == 0 && monotonic_ns() >= w->next_cost) {
		err = store_cost(w);
		w->next_cost = monotonic_ns() + WATCH_COST_NS;
	}
	if (monotonic_ns() >= w->next_empty) {
		scratch_empty(w);
		w->next_empty = monotonic_ns() + WATCH_SCRATCH_EMPTY_NS;
	}
	return err;
}

int flight_watch_finish(struct flight_watch *w)
{
	const struct clock_anchor *a = &w->f->rs->pipe.clock.last;
	int err = flight_minute_flush(&w->minute, &w->f->rs->loader,
				      clock_anchor_offset(a), UINT64_MAX,
				      w->f->err);

	return err ? err : store_cost(w);
}
