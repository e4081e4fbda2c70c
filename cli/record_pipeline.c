#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../common/clock.h"
#include "../collector/procfs.h"
#include "../collector/tracepoints.h"
#include "../decoder/callchain.h"
#include "record_pipeline.h"

/* A stack's rows, and its frames' rows, the first time a row refers to
 * it: a stack sampled at a switch that ends up not kept costs no row. */
static int store_stack(struct record_pipeline *p, uint32_t stack_id)
{
	struct st_stack *s = stack_table_stack(&p->stack_tab, stack_id);
	int err = 0;

	if (!s || s->written)
		return 0;
	for (uint32_t d = 0; d < s->depth && err == 0; d++) {
		struct st_frame *f = stack_table_frame(&p->stack_tab, s->frames[d]);

		if (!f->written)
			err = loader_frame(p->loader, s->frames[d], f, &p->err);
		f->written = 1;
	}
	if (err == 0)
		err = loader_stack(p->loader, stack_id, s, &p->err);
	s->written = 1;
	return err;
}

/* Does --stacks-on keep the stack of the switch out that began iv?  By
 * default only when the thread blocked (or waited, when sched_switch
 * cannot tell blocked from sleeping). */
static int switch_stack_kept(const struct record_pipeline *p,
			     const struct state_interval *iv)
{
	if (p->stacks.on & STACKS_ON_SWITCHES)
		return 1;
	return (p->stacks.on & STACKS_ON_BLOCKED) &&
	       (iv->state == TS_BLOCKED || iv->state == TS_WAITING);
}

static int store_state(void *ctx, const struct state_interval *iv)
{
	struct record_pipeline *p = ctx;
	struct state_interval kept;
	int err = 0;

	if (iv->stack_id && !switch_stack_kept(p, iv)) {
		kept = *iv;
		kept.stack_id = 0;
		iv = &kept;
	}
	if (iv->stack_id)
		err = store_stack(p, iv->stack_id);
	return err ? err : loader_state(p->loader, iv, &p->err);
}

static void thread_resolve(void *ctx, struct thread *t)
{
	(void)ctx;
	if (!t->pid) {
		pid_t tgid = proc_tgid((pid_t)t->tid);

		t->pid = tgid > 0 ? (uint32_t)tgid : t->tid;
	}
	if (proc_read_comm((pid_t)t->pid, (pid_t)t->tid, t->comm) < 0)
		t->comm[0] = '\0';	/* gone already: the name is unknown */
}

static int thread_wanted(void *ctx, const struct thread *t)
{
	struct record_pipeline *p = ctx;

	return target_wanted(p->targets, (pid_t)t->pid, (pid_t)t->tid, t->comm);
}

static int store_fault(void *ctx, const struct fault *f)
{
	struct record_pipeline *p = ctx;
	int err = f->stack_id ? store_stack(p, f->stack_id) : 0;

	return err ? err : loader_fault(p->loader, f, &p->err);
}

static int store_thread(void *ctx, const struct thread *t)
{
	struct record_pipeline *p = ctx;

	return loader_thread(p->loader, t, &p->err);
}

static void refresh_clock_offset(struct record_pipeline *p)
{
	struct clock_anchor a = clock_anchor_now();

	p->mono_to_real_ns = (int64_t)(a.realtime_ns - a.monotonic_ns);
}

void record_pipeline_init(struct record_pipeline *p, const struct recorder *r,
			  const struct target_set *t, struct loader *l,
			  uint64_t min_fault_dur_ns, int live)
{
	struct fault_stream_ops ops = {
		.ctx = p,
		.resolve = thread_resolve,
		.wanted = target_system_wide(t) ? thread_wanted : NULL,
		.store_fault = store_fault,
		.spell_end = store_thread,
		.store_state = store_state,
	};

	memset(p, 0, sizeof(*p));
	p->fmt = &r->fmt;
	p->stack_fmt = &r->stack_fmt;
	p->stacks = r->cfg.stacks;
	stack_table_init(&p->stack_tab);
	unwinder_init(&p->unwinder);
	held_records_init(&p->held);
	p->tp_fmt = r->fmt;
	p->tp_fmt.sample_type = TP_SAMPLE_TYPE;
	p->rec = r;
	p->have_sched = r->sched_switch && r->sched_waking &&
			sched_fields_bind(&p->sched, r->sched_switch,
					  r->sched_waking) == 0;
	p->ids = &r->ids;
	p->targets = t;
	p->system_wide = target_system_wide(t);
	p->loader = l;
	p->live = live;
	p->start_mono = monotonic_ns();
	errmsg_init(&p->err);
	order_queue_init(&p->order);
	fault_stream_init(&p->faults, &ops, min_fault_dur_ns);
	p->faults.cpu_wide_adds_threads = p->system_wide;
	refresh_clock_offset(p);
}

void record_pipeline_release(struct record_pipeline *p)
{
	order_queue_release(&p->order);
	fault_stream_release(&p->faults);
	stack_table_release(&p->stack_tab);
	unwinder_release(&p->unwinder);
	held_records_release(&p->held);
}

static int on_lost(struct record_pipeline *p, int cpu, const struct perf_rec *r)
{
	const char *kind = r->type == PERF_RECORD_LOST ? "records" :
			   r->type == PERF_RECORD_LOST_SAMPLES ? "samples" :
			   "throttled";
	uint64_t count = r->type == PERF_RECORD_THROTTLE ? 1 : r->u.lost.lost;

	fault_stream_lost(&p->faults);
	if (r->type == PERF_RECORD_LOST)
		p->n.lost_records += count;
	else if (r->type == PERF_RECORD_LOST_SAMPLES)
		p->n.lost_samples += count;
	else
		p->n.throttles++;
	return loader_lost(p->loader, r->sid.time, cpu, kind, count, &p->err);
}

/* A record from a tracepoint ring: its times to CLOCK_REALTIME. */
static void to_realtime(const struct record_pipeline *p, struct perf_rec *r)
{
	if (r->sid.time)
		r->sid.time += (uint64_t)p->mono_to_real_ns;
	if (r->type == PERF_RECORD_SAMPLE)
		r->u.sample.sid.time = r->sid.time;
}

/* Is the thread a -e row is about a target?  A thread the stream knows
 * answers for itself.  With -a or --comm an unknown one joins the table
 * (its name read from /proc once, not at every hit); with per-thread
 * targets it is asked of the target set by pid and tid. */
static int tp_thread_wanted(struct record_pipeline *p, uint32_t pid,
			    uint32_t tid, uint64_t ts)
{
	struct thread *t = thread_table_find(&p->faults.threads, tid);

	if (!t && tid && p->system_wide)
		t = fault_stream_thread(&p->faults, pid, tid, ts);
	if (t)
		return t->wanted;
	return tid && target_wanted(p->targets, (pid_t)pid, (pid_t)tid, "");
}

/* A -e tracepoint hit: a row, with its fields as JSON. */
static int on_user_tracepoint(struct record_pipeline *p, uint16_t idx,
			      int cpu, const struct sample *s)
{
	struct tep_event *ev = p->rec->user_events[idx];
	char name[160], json[8192];
	int n;

	if (!tp_thread_wanted(p, s->sid.pid, s->sid.tid, s->sid.time))
		return 0;
	n = tp_fields_json(ev, s->raw, s->raw_size, json, sizeof(json));
	if (n < 0) {
		p->n.malformed++;
		return loader_lost(p->loader, s->sid.time, cpu, "malformed", 1,
				   &p->err);
	}
	snprintf(name, sizeof(name), "%s:%s", ev->system, ev->name);
	p->n.tracepoints++;
	return loader_tracepoint(p->loader, s->sid.time, s->sid.tid, s->sid.pid,
				 (uint32_t)cpu, name, json, &p->err);
}

/* Tracepoint samples have their own format; the id says whose. */
static int on_tracepoint(struct record_pipeline *p, int cpu, const void *bytes,
			 size_t len, enum ev_role role, uint16_t arg)
{
	struct perf_rec r;
	struct ev e;

	if (perf_rec_decode(&p->tp_fmt, bytes, len, &r) < 0) {
		p->n.malformed++;
		return loader_lost(p->loader, 0, cpu, "malformed", 1, &p->err);
	}
	to_realtime(p, &r);
	if (role == ROLE_TP_USER)
		return on_user_tracepoint(p, arg, cpu, &r.u.sample);
	if (!p->have_sched || !sched_ev(&p->sched, role, &r.u.sample,
					(uint32_t)cpu, &e))
		return 0;
	if (order_queue_push(&p->order, &e) < 0)
		return errmsg_set(&p->err, ENOMEM, "out of memory queueing events");
	return 0;
}

static int unwinder_add(void *ctx, const struct rec_mmap *m)
{
	struct record_pipeline *p = ctx;

	return unwinder_map(&p->unwinder, m->pid, m->start, m->len, m->pgoff,
			    m->prot, m->filename);
}

/* The user frames of a dwarf sample.  A process the unwinder has no
 * mapping of (a child forked after recording began inherits its parent's
 * mappings without MMAP2 records) is read from /proc while it lives. */
static int unwind_user(struct record_pipeline *p, const struct sample *s,
		       struct stack_frame_in *fr, size_t *n, char *why,
		       size_t whylen)
{
	struct unwind_sample us = {
		s->sid.pid, s->sid.tid, p->stack_fmt->regs_user_mask,
		s->regs_user, s->stack_user, s->stack_user_size,
		s->stack_user_dyn_size,
	};
	int err = 0;

	if (!unwinder_knows(&p->unwinder, s->sid.pid))
		err = proc_maps_each((pid_t)s->sid.pid, unwinder_add, p);
	if (err == -ENOMEM)
		return err;
	return unwinder_unwind(&p->unwinder, &us, fr, n, STACK_MAX_FRAMES,
			       why, whylen);
}

/* The stack a sample carries, deduplicated into *stack_id: kernel frames
 * from its callchain, user frames from the callchain (fp) or unwound from
 * its stack copy (dwarf).  Unwinding happens here, as the sample is read
 * from the ring, not in the faulting thread. */
static int sample_stack(struct record_pipeline *p, const struct sample *s,
			uint32_t *stack_id)
{
	struct stack_frame_in fr[STACK_MAX_FRAMES];
	char why[128] = "";
	size_t n = 0;
	int dwarf = p->stacks.mode == STACKS_DWARF, err = 0;

	callchain_frames(s->callchain, s->callchain_nr, !dwarf, fr, &n,
			 STACK_MAX_FRAMES);
	if (dwarf)
		err = unwind_user(p, s, fr, &n, why, sizeof(why));
	if (err < 0)
		return errmsg_set(&p->err, -err, "out of memory unwinding stacks");
	p->n.stacks++;
	p->n.stacks_truncated += why[0] != '\0';
	err = stack_table_intern(&p->stack_tab, s->sid.pid,
				 dwarf ? STACK_DWARF : STACK_FP,
				 why[0] ? why : NULL, fr, n, stack_id);
	if (err < 0)
		return errmsg_set(&p->err, -err, "out of memory keeping stacks");
	return 0;
}

static int on_mapping(struct record_pipeline *p, const struct perf_rec *r)
{
	int err = 0;

	p->n.mappings++;
	if (p->stacks.mode == STACKS_DWARF)
		err = unwinder_add(p, &r->u.mmap);
	if (err < 0)
		return errmsg_set(&p->err, -err, "out of memory keeping mappings");
	return loader_mapping(p->loader, r->sid.time, &r->u.mmap, "mmap", &p->err);
}

/* What the unwinder must see in time order (decoder/held_records.h):
 * mappings, execs, and the samples it unwinds. */
static int held_for_unwinder(const struct record_pipeline *p,
			     const struct perf_rec *r, uint16_t stacked)
{
	if (p->stacks.mode != STACKS_DWARF)
		return 0;
	return r->type == PERF_RECORD_MMAP || r->type == PERF_RECORD_MMAP2 ||
	       (r->type == PERF_RECORD_COMM && r->u.comm.exec) ||
	       (r->type == PERF_RECORD_SAMPLE && stacked);
}

/* The role of a sample's event, and its idmap arg; ROLE_NONE (arg 0) for
 * other records. */
static enum ev_role sample_role(const struct record_pipeline *p,
				const void *bytes, size_t len, uint16_t *arg)
{
	uint64_t id;

	*arg = 0;
	if (((const struct perf_event_header *)bytes)->type != PERF_RECORD_SAMPLE ||
	    sample_peek_id(bytes, len, &id) < 0)
		return ROLE_NONE;
	return idmap_lookup(p->ids, id, arg);
}

/* A record that is no tracepoint sample, of role and arg (sample_role).
 * monotonic: from a tracepoint ring (a LOST record, say).  replay: it
 * comes back from p->held. */
static int on_other_rec(struct record_pipeline *p, int cpu, int monotonic,
			const void *bytes, size_t len, enum ev_role role,
			uint16_t arg, int replay)
{
	struct perf_rec r;
	struct ev e;
	int err;

	err = perf_rec_decode(arg ? p->stack_fmt : p->fmt, bytes, len, &r);
	if (monotonic)
		to_realtime(p, &r);
	if (err == -ENOMSG) {
		p->n.unknown++;
		return 0;
	}
	if (err < 0) {
		/* Bad input, not a bug: counted and stored, and the stream
		 * goes on with the next record (the framing was sound). */
		p->n.malformed++;
		return loader_lost(p->loader, 0, cpu, "malformed", 1, &p->err);
	}
	if (r.type == PERF_RECORD_COMM &&
	    idmap_get(p->ids, r.sid.id) == ROLE_RING_OWNER)
		return 0;	/* faultline's own COMM, made to flush LOST */
	if (!replay && !monotonic && held_for_unwinder(p, &r, arg))
		return held_records_push(&p->held, r.sid.time, cpu, bytes, len) < 0 ?
		       errmsg_set(&p->err, ENOMEM, "out of memory holding records") : 0;
	switch (r.type) {
	case PERF_RECORD_MMAP:
	case PERF_RECORD_MMAP2:
		return on_mapping(p, &r);
	case PERF_RECORD_LOST:
	case PERF_RECORD_LOST_SAMPLES:
	case PERF_RECORD_THROTTLE:
		return on_lost(p, cpu, &r);
	case PERF_RECORD_UNTHROTTLE:
		return 0;
	}
	if (r.type == PERF_RECORD_COMM && r.u.comm.exec)
		unwinder_forget(&p->unwinder, r.u.comm.pid);
	if (!ev_from_rec(role, &r, &e)) {
		p->n.unknown++;
		return 0;
	}
	if (arg && r.type == PERF_RECORD_SAMPLE &&
	    (err = sample_stack(p, &r.u.sample, &e.u.fault.stack_id)) < 0)
		return err;
	e.cpu = (uint32_t)cpu;	/* the ring's CPU: samples do not carry it */
	if (order_queue_push(&p->order, &e) < 0)
		return errmsg_set(&p->err, ENOMEM, "out of memory queueing events");
	return 0;
}

static int replay_held(void *ctx, int cpu, const void *bytes, size_t len)
{
	uint16_t arg;
	enum ev_role role = sample_role(ctx, bytes, len, &arg);

	return on_other_rec(ctx, cpu, 0, bytes, len, role, arg, 1);
}

static int on_record(void *ctx, int cpu, int monotonic, const void *bytes,
		     size_t len)
{
	struct record_pipeline *p = ctx;
	uint16_t arg;
	enum ev_role role = sample_role(p, bytes, len, &arg);

	p->n.records++;
	/* Tracepoint samples have their own format. */
	if (role >= ROLE_TP_SCHED_SWITCH)
		return on_tracepoint(p, cpu, bytes, len, role, arg);
	return on_other_rec(p, cpu, monotonic, bytes, len, role, arg, 0);
}

static int on_round(void *ctx, uint64_t watermark)
{
	struct record_pipeline *p = ctx;
	int err = held_records_replay(&p->held, replay_held, p);
	long n;

	if (err < 0)
		return err;	/* p->err says why */
	n = order_queue_flush(&p->order, watermark, fault_stream_event, &p->faults);

	/* For the next round's tracepoint records: a step of the realtime
	 * clock (settimeofday, an NTP step) moves the offset. */
	refresh_clock_offset(p);
	if (n == -ENOMEM)
		return errmsg_set(&p->err, ENOMEM, "out of memory tracking threads");
	if (n >= 0 && p->udp)
		return record_udp_flush(p->udp, &p->err);
	return n < 0 ? (int)n : 0;
}

/* Thread rows of live target threads, so a session cut short by a crash
 * still names its threads up to the last commit. */
static int store_live_threads(struct record_pipeline *p)
{
	struct thread_table *tt = &p->faults.threads;
	int err = 0;

	for (size_t i = 0; i < tt->n && err == 0; i++)
		if (tt->by_order[i]->wanted && !tt->by_order[i]->exited)
			err = loader_thread(p->loader, tt->by_order[i], &p->err);
	return err;
}

static void show_status(struct record_pipeline *p)
{
	const struct fault_stats *st = &p->faults.st;

	fprintf(stderr, "\rfaultline record: %.0f s, %llu records, %llu faults, "
		"%llu stored, %llu lost  ",
		(double)(monotonic_ns() - p->start_mono) / 1e9,
		(unsigned long long)p->n.records,
		(unsigned long long)(st->minor + st->major + st->unfinished),
		(unsigned long long)st->stored,
		(unsigned long long)(p->n.lost_records + p->n.lost_samples));
	fflush(stderr);
}

static int on_tick(void *ctx)
{
	struct record_pipeline *p = ctx;
	int err = store_live_threads(p);

	if (err == 0)
		err = loader_commit(p->loader, &p->err);
	if (p->live)
		show_status(p);
	return err;
}

struct recorder_sink record_pipeline_sink(struct record_pipeline *p)
{
	return (struct recorder_sink){ p, on_record, on_round, on_tick };
}

struct synth_ctx {
	struct record_pipeline *p;
	uint64_t ts;
};

static int synth_mapping(void *ctx, const struct rec_mmap *m)
{
	struct synth_ctx *s = ctx;

	s->p->n.mappings++;
	if (s->p->stacks.mode == STACKS_DWARF &&
	    unwinder_add(s->p, m) < 0)
		return errmsg_set(&s->p->err, ENOMEM, "out of memory keeping "
				  "mappings");
	return loader_mapping(s->p->loader, s->ts, m, "proc", &s->p->err);
}

int record_pipeline_synthesize(struct record_pipeline *p, uint64_t ts)
{
	struct synth_ctx s = { p, ts };
	pid_t *pids = NULL;
	size_t n = 0;
	int err = 0;

	if (p->system_wide) {
		if (proc_list_pids(&pids, &n) < 0)
			return 0;	/* best effort: MMAP2 covers the rest */
		for (size_t i = 0; i < n && err == 0; i++) {
			err = proc_maps_each(pids[i], synth_mapping, &s);
			if (err == -ESRCH)
				err = 0;	/* exited meanwhile */
		}
		free(pids);
		return err;
	}
	for (size_t i = 0; i < p->targets->npids && err == 0; i++) {
		err = proc_maps_each(p->targets->pids[i], synth_mapping, &s);
		if (err == -ESRCH)
			err = 0;
	}
	return err;
}

static int store_histograms(struct record_pipeline *p)
{
	struct thread_table *tt = &p->faults.threads;
	int err = 0;

	for (size_t i = 0; i < tt->n && err == 0; i++)
		if (tt->by_order[i]->wanted)
			err = loader_histograms(p->loader, tt->by_order[i], &p->err);
	return err;
}

int record_pipeline_finish(struct record_pipeline *p)
{
	int err = on_round(p, UINT64_MAX);

	if (p->live)
		fputc('\n', stderr);
	if (err == 0)
		err = fault_stream_finish(&p->faults, realtime_ns());
	if (err == 0)
		err = store_histograms(p);
	if (err == 0)
		err = loader_commit(p->loader, &p->err);
	return err;
}

void record_pipeline_counts(const struct record_pipeline *p,
			    const struct recorder *r, struct session_counts *c)
{
	const struct fault_stats *st = &p->faults.st;

	memset(c, 0, sizeof(*c));
	c->records_seen = p->n.records;
	c->faults_total = st->minor + st->major + st->unfinished;
	c->faults_stored = st->stored;
	c->faults_below_threshold = st->below_threshold;
	c->faults_unfinished = st->unfinished;
	c->faults_unpaired_exit = st->unpaired_exits;
	c->records_lost = p->n.lost_records;
	c->samples_lost = p->n.lost_samples;
	c->records_malformed = p->n.malformed + r->framing_errors;
	c->records_unknown = p->n.unknown;
	c->records_late = p->order.late;
	c->records_throttled = p->n.throttles;
}
