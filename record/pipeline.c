#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../common/clock.h"
#include "../collector/procfs.h"
#include "../collector/syscall_table.h"
#include "../collector/tracepoints.h"
#include "../decoder/sample_owner.h"
#include "pipeline.h"

static int store_state(void *ctx, const struct state_interval *iv)
{
	struct record_pipeline *p = ctx;
	struct state_interval kept;
	int err = 0;

	if (iv->stack_id && !record_stacks_switch_kept(&p->stacks, iv)) {
		kept = *iv;
		kept.stack_id = 0;
		iv = &kept;
	}
	if (iv->stack_id)
		err = record_stacks_store(&p->stacks, p->loader, iv->stack_id,
					  &p->err);
	if (err == 0 && iv->waker_stack_id)
		err = record_stacks_store(&p->stacks, p->loader,
					  iv->waker_stack_id, &p->err);
	return err ? err : loader_state(p->loader, iv, &p->err);
}

/* A thread met for the first time: named as it was when recording
 * began if it lived then (thread_names.h), else as /proc names it now. */
static void thread_resolve(void *ctx, struct thread *t)
{
	struct record_pipeline *p = ctx;
	const struct thread_name *n = thread_names_find(&p->names, t->tid);

	if (n && (!t->pid || t->pid == n->pid)) {
		t->pid = n->pid;
		memcpy(t->comm, n->comm, COMM_LEN);
		return;
	}
	if (!t->pid) {
		pid_t tgid = proc_tgid((pid_t)t->tid);

		t->pid = tgid > 0 ? (uint32_t)tgid : t->tid;
	}
	if (proc_read_comm((pid_t)t->pid, (pid_t)t->tid, t->comm) < 0)
		t->comm[0] = '\0';	/* gone already: the name is unknown */
}

/* A waker that is no target, with per-thread targets (whose sched_switch
 * names only the threads that ran after them): its name now, while it
 * most likely still runs. */
static void name_other(void *ctx, uint32_t tid, char *comm)
{
	(void)ctx;
	if (proc_read_comm((pid_t)tid, (pid_t)tid, comm) < 0)
		comm[0] = '\0';
}

static int thread_wanted(void *ctx, const struct thread *t)
{
	struct record_pipeline *p = ctx;

	return target_wanted(p->targets, (pid_t)t->pid, (pid_t)t->tid, t->comm);
}

/* The events the recorder opened on a thread at the start
 * (collector/recorder.c): -p's inherited, -t's its own. */
static int opened_on(void *ctx, uint32_t pid, uint32_t tid)
{
	const struct target_set *t = ((struct record_pipeline *)ctx)->targets;

	for (size_t i = 0; i < t->npids; i++)
		if ((uint32_t)t->pids[i] == pid)
			return THREAD_EVENTS_INHERITED;
	for (size_t i = 0; i < t->ntids; i++)
		if ((uint32_t)t->tids[i] == tid)
			return THREAD_EVENTS_OWN;
	return THREAD_EVENTS_UNKNOWN;
}

static int store_fault(void *ctx, const struct fault *f)
{
	struct record_pipeline *p = ctx;
	int err = record_stacks_store(&p->stacks, p->loader, f->stack_id, &p->err);

	/* --pt=stall: a fault longer than --pt-trigger that never left the
	 * CPU has no off-CPU span to trigger on; it snapshots here (the
	 * buffer may have moved on by the time the fault is read). */
	if (err == 0 && p->pt && f->dur_ns != FAULT_NO_DUR)
		err = pt_record_stall(p->pt, f->pid, f->tid, f->mono_ts, f->dur_ns,
				      &p->err);
	return err ? err : loader_fault(p->loader, f, &p->err);
}

static int store_tracepoint(void *ctx, const struct ev *e)
{
	struct record_pipeline *p = ctx;

	p->n.tracepoints++;
	/* -e's index: the spec's "SUBSYS:NAME", made once when parsed. */
	return loader_tracepoint(p->loader, e->mono_ts, e->tid, e->pid, e->cpu,
				 p->rec->cfg.tracepoints->v[e->u.tp.idx].full,
				 e->u.tp.fields, &p->err);
}

static int syscall_wanted(void *ctx, int32_t nr)
{
	struct record_pipeline *p = ctx;

	return record_syscalls_wanted(&p->sys, nr);
}

static int syscall_done(void *ctx, const struct syscall_call *c, int store)
{
	struct record_pipeline *p = ctx;
	int err = 0;

	/* An unfinished call keeps the stack it waits in, whatever
	 * --stacks-on keeps for the intervals. */
	if (store && c->stack_id)
		err = record_stacks_store(&p->stacks, p->loader, c->stack_id,
					  &p->err);
	return err ? err : record_syscalls_done(&p->sys, p->loader, c, store,
						&p->err);
}

static int latency_hit(void *ctx, const struct ev *e)
{
	struct record_pipeline *p = ctx;

	return record_latency_hit(&p->lat, p->loader, e, &p->err);
}

static int block_rq(void *ctx, const struct ev *e, const struct thread *t)
{
	struct record_pipeline *p = ctx;

	return record_block_io_step(&p->blk, p->loader, e, t, &p->err);
}

static int store_thread(void *ctx, const struct thread *t)
{
	struct record_pipeline *p = ctx;

	return loader_thread(p->loader, t, &p->err);
}

/* FAULTLINE_TEST_PIPELINE_BYTES_PER_S, for tests that need the engine
 * to fall behind the drain thread; 0 when unset. */
static uint64_t test_bytes_per_s(void)
{
	const char *v = getenv("FAULTLINE_TEST_PIPELINE_BYTES_PER_S");

	return v ? strtoull(v, NULL, 10) : 0;
}

static void sleep_ns(uint64_t ns)
{
	struct timespec t = { (time_t)(ns / 1000000000ull),
			      (long)(ns % 1000000000ull) };

	while (nanosleep(&t, &t) < 0 && errno == EINTR)
		;
}

int record_pipeline_init(struct record_pipeline *p, struct recorder *r,
			 const struct target_set *t, uint64_t min_fault_dur_ns,
			 uint64_t min_syscall_dur_ns)
{
	struct fault_stream_ops ops = {
		.ctx = p,
		.resolve = thread_resolve,
		.wanted = target_system_wide(t) ? thread_wanted : NULL,
		.store_fault = store_fault,
		.spell_end = store_thread,
		.store_state = r->cfg.thread_states ? store_state : NULL,
		.store_tracepoint = store_tracepoint,
		.name_other = target_system_wide(t) ? NULL : name_other,
		.syscall_wanted = r->cfg.syscalls ? syscall_wanted : NULL,
		.syscall_done = r->cfg.syscalls ? syscall_done : NULL,
		.latency_hit = latency_hit,
		.opened_on = opened_on,
		.block_rq = block_rq,
	};
	int err;

	memset(p, 0, sizeof(*p));
	p->fmt = &r->ev.fmt;
	sample_layout_of(p->fmt, &p->fault_layout);
	record_stacks_init(&p->stacks, &r->cfg.stacks, &r->ev.stack_fmt);
	held_records_init(&p->held);
	p->tp_fmt = r->ev.fmt;
	p->tp_fmt.sample_type = TP_SAMPLE_TYPE;
	p->waking_fmt = p->tp_fmt;
	if (!r->cfg.no_wake_stacks)
		p->waking_fmt.sample_type = WAKING_SAMPLE_TYPE;
	sample_layout_of(&p->tp_fmt, &p->tp_layout);
	sample_layout_of(&p->waking_fmt, &p->waking_layout);
	p->rec = r;
	p->have_sched = r->ev.sched_switch && r->ev.sched_waking &&
			sched_fields_bind(&p->sched, r->ev.sched_switch,
					  r->ev.sched_waking) == 0;
	p->have_sys = r->ev.sys_enter && r->ev.sys_exit &&
		      syscall_fields_bind(&p->sys_fields, r->ev.sys_enter,
					  r->ev.sys_exit) == 0;
	p->ids = &r->ev.ids;
	p->waking = &r->waking;
	p->targets = t;
	thread_names_init(&p->names);
	if (thread_names_read(&p->names, t) < 0)
		return -ENOMEM;
	p->system_wide = target_system_wide(t);
	errmsg_init(&p->err);
	order_queue_init(&p->order);
	fault_stream_init(&p->faults, &ops, min_fault_dur_ns);
	p->faults.cpu_wide_adds_threads = p->system_wide;
	p->faults.cpu_wide_switches = r->ev.switches_cpu_wide;
	p->faults.min_sys_ns = min_syscall_dur_ns;
	record_clock_init(&p->clock);
	strbuf_init(&p->tp_json);
	p->test_bytes_per_s = test_bytes_per_s();
	err = record_syscalls_init(&p->sys, r->cfg.syscalls, r->ev.tep);
	if (err == 0)
		err = record_latency_init(&p->lat, r->cfg.latencies, r->ev.lat_events);
	return err ? err : record_block_io_init(&p->blk, r->cfg.block_io ?
						r->ev.blk_events : NULL);
}

void record_pipeline_release(struct record_pipeline *p)
{
	thread_names_release(&p->names);
	order_queue_release(&p->order);
	fault_stream_release(&p->faults);
	record_stacks_release(&p->stacks);
	held_records_release(&p->held);
	record_clock_release(&p->clock);
	strbuf_release(&p->tp_json);
	record_syscalls_release(&p->sys);
	record_latency_release(&p->lat);
	record_block_io_release(&p->blk);
}

int record_pipeline_clock_start(struct record_pipeline *p,
				struct clock_anchor *first)
{
	return record_clock_start(&p->clock, first);
}

static int queue(struct record_pipeline *p, const struct ev *e)
{
	if (order_queue_push(&p->order, e) < 0)
		return errmsg_set(&p->err, ENOMEM, "out of memory queueing events");
	return 0;
}

/* A loss goes into the ordered stream at its time: applied at once, it
 * marked whatever interval the stream had reached, which, with the
 * round's events still queued, was an earlier one than the loss's, and
 * the interval the loss truly fell in was stored as certain. */
static int queue_lost(struct record_pipeline *p, int cpu, uint64_t from_ts,
		      uint64_t until_ts)
{
	struct ev e;

	memset(&e, 0, sizeof(e));
	e.kind = EV_LOST;
	e.cpu = (uint32_t)cpu;
	e.mono_ts = from_ts;
	e.u.lost.until_ts = until_ts > from_ts ? until_ts : from_ts;
	return queue(p, &e);
}

static int on_lost(struct record_pipeline *p, int cpu, const struct perf_rec *r)
{
	const char *kind = r->type == PERF_RECORD_LOST ? "records" :
			   r->type == PERF_RECORD_LOST_SAMPLES ? "samples" :
			   "throttled";
	uint64_t count = r->type == PERF_RECORD_THROTTLE ? 1 : r->u.lost.lost;
	int err = queue_lost(p, cpu, r->sid.time, r->sid.time);

	if (err < 0)
		return err;
	if (r->type == PERF_RECORD_LOST)
		p->n.lost_records += count;
	else if (r->type == PERF_RECORD_LOST_SAMPLES)
		p->n.lost_samples += count;
	else
		p->n.throttles++;
	return loader_lost(p->loader, r->sid.time, cpu, kind, count, &p->err);
}

/* Bad input, not a bug: counted and stored, and the stream goes on with
 * the next record (the ring's framing was sound). */
static int on_malformed(struct record_pipeline *p, int cpu)
{
	p->n.malformed++;
	return loader_lost(p->loader, 0, cpu, "malformed", 1, &p->err);
}

/* A -e tracepoint hit: its fields as JSON, into the ordered stream, so
 * whether its thread is a target is asked once the thread's fork, exec
 * or rename before it is known (decoder/fault_stream.h). */
static int on_user_tracepoint(struct record_pipeline *p, uint16_t idx,
			      int cpu, const struct sample *s)
{
	struct ev e;
	int err = tp_fields_json(p->rec->ev.user_events[idx], s->raw, s->raw_size,
				 &p->tp_json);

	if (err == -ENOMEM)
		return errmsg_set(&p->err, ENOMEM, "out of memory");
	if (err < 0)
		return on_malformed(p, cpu);
	memset(&e, 0, sizeof(e));
	e.kind = EV_TRACEPOINT;
	e.mono_ts = s->sid.time;
	e.pid = s->sid.pid;
	e.tid = s->sid.tid;
	e.cpu = (uint32_t)cpu;
	e.cpu_wide = 1;
	e.u.tp.idx = idx;
	e.u.tp.fields = strdup(strbuf_str(&p->tp_json));
	if (!e.u.tp.fields || order_queue_push(&p->order, &e) < 0) {
		free(e.u.tp.fields);
		return errmsg_set(&p->err, ENOMEM, "out of memory queueing events");
	}
	return 0;
}

/* Tracepoint samples have their own format; the id says whose.  Most
 * are read in place (sample_decode_tail); the rest, malformed ones
 * included, by the full decode. */
static int on_tracepoint(struct record_pipeline *p, int cpu, const void *bytes,
			 size_t len, enum ev_role role, uint16_t arg)
{
	int waking = role == ROLE_TP_SCHED_WAKING;
	struct perf_rec r;
	struct ev e;
	int err;

	if (sample_decode_tail(waking ? &p->waking_layout : &p->tp_layout,
			       bytes, len, &r.u.sample) < 0 &&
	    perf_rec_decode(waking ? &p->waking_fmt : &p->tp_fmt, bytes, len,
			    &r) < 0)
		return on_malformed(p, cpu);
	if (role == ROLE_TP_USER)
		return on_user_tracepoint(p, arg, cpu, &r.u.sample);
	if (role == ROLE_TP_LAT_START || role == ROLE_TP_LAT_END) {
		err = record_latency_ev(&p->lat, role == ROLE_TP_LAT_END, arg, cpu,
					&r.u.sample, &e);
		if (err < 0)
			return errmsg_set(&p->err, ENOMEM, "out of memory");
		if (err == 0)
			return on_malformed(p, cpu);
		if (order_queue_push(&p->order, &e) < 0) {
			free(e.u.tp.fields);
			return errmsg_set(&p->err, ENOMEM, "out of memory queueing events");
		}
		return 0;
	}
	if (role == ROLE_TP_SYS_ENTER || role == ROLE_TP_SYS_EXIT)
		return p->have_sys && syscall_ev(&p->sys_fields,
						 role == ROLE_TP_SYS_ENTER,
						 &r.u.sample, (uint32_t)cpu, &e) ?
		       queue(p, &e) : 0;
	if (!p->have_sched || !sched_ev(&p->sched, role, &r.u.sample,
					(uint32_t)cpu, &e))
		return 0;
	if (e.kind == EV_WAKING)
		waking_filter_seen(p->waking, (pid_t)e.tid);
	if (e.kind == EV_WAKING && !p->checks_only &&
	    (err = record_stacks_kernel_chain(&p->stacks, &r.u.sample,
					      &e.u.sched.waker_stack_id, &p->err)) < 0)
		return err;
	return queue(p, &e);
}

static int on_mapping(struct record_pipeline *p, const struct perf_rec *r)
{
	p->n.mappings++;
	if (record_stacks_mapping(&p->stacks, &r->u.mmap) < 0)
		return errmsg_set(&p->err, ENOMEM, "out of memory keeping mappings");
	return loader_mapping(p->loader, r->sid.time, &r->u.mmap, "mmap", &p->err);
}

/* What the unwinder must see in time order (decoder/held_records.h):
 * mappings, execs, and the samples it unwinds. */
static int held_for_unwinder(const struct record_pipeline *p,
			     const struct perf_rec *r, uint16_t stacked)
{
	if (!record_stacks_dwarf(&p->stacks))
		return 0;
	return r->type == PERF_RECORD_MMAP || r->type == PERF_RECORD_MMAP2 ||
	       (r->type == PERF_RECORD_COMM && r->u.comm.exec) ||
	       (r->type == PERF_RECORD_SAMPLE && stacked);
}

/* The role of a sample's event, and its idmap arg; ROLE_NONE (arg 0) for
 * other records.  *by_read: named by its READ id (decoder/sample_owner.h). */
static enum ev_role sample_role(const struct record_pipeline *p,
				const void *bytes, size_t len, uint16_t *arg,
				int *by_read)
{
	struct sample_owner o;

	sample_owner_of(p->ids, p->fmt, bytes, len, &o);
	*arg = o.arg;
	if (by_read)
		*by_read = o.by_read;
	return o.role;
}

/* A decoded record that becomes an event of the ordered stream, with
 * its stack when its event carries one. */
static int on_event_rec(struct record_pipeline *p, int cpu,
			const struct perf_rec *r, enum ev_role role,
			uint16_t stacked)
{
	struct ev e;
	int err;

	if (r->type == PERF_RECORD_COMM && r->u.comm.exec) {
		record_stacks_exec(&p->stacks, r->u.comm.pid);
		record_syscalls_exec(&p->sys, r->u.comm.pid, r->sid.time);
	}
	/* A target's new thread: its wake-ups from the next round on. */
	if (r->type == PERF_RECORD_FORK &&
	    waking_filter_note(p->waking, (pid_t)r->u.task.tid) < 0)
		return errmsg_set(&p->err, ENOMEM, "out of memory");
	if (!ev_from_rec(role, r, &e)) {
		p->n.unknown++;
		return 0;
	}
	if (stacked && r->type == PERF_RECORD_SAMPLE &&
	    (err = record_stacks_sample(&p->stacks, &r->u.sample,
					&e.u.fault.stack_id, &p->err)) < 0)
		return err;
	e.cpu = (uint32_t)cpu;	/* the ring's CPU: samples do not carry it */
	return queue(p, &e);
}

/* A record that is no tracepoint sample, of role and stacked (its idmap
 * arg: sample_role).  replay: it comes back from p->held. */
static int on_other_rec(struct record_pipeline *p, int cpu, const void *bytes,
			size_t len, enum ev_role role, uint16_t stacked,
			int replay)
{
	struct perf_rec r;
	int err;

	err = perf_rec_decode(stacked ? p->stacks.fmt : p->fmt, bytes, len, &r);
	if (err == -ENOMSG) {
		p->n.unknown++;
		return 0;
	}
	if (err < 0)
		return on_malformed(p, cpu);
	if (r.type == PERF_RECORD_COMM &&
	    idmap_get(p->ids, r.sid.id) == ROLE_RING_OWNER)
		return 0;	/* faultline's own COMM, made to flush LOST */
	if (!replay && held_for_unwinder(p, &r, stacked))
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
	return on_event_rec(p, cpu, &r, role, stacked);
}

static int replay_held(void *ctx, int cpu, const void *bytes, size_t len)
{
	uint16_t stacked;
	enum ev_role role = sample_role(ctx, bytes, len, &stacked, NULL);

	return on_other_rec(ctx, cpu, bytes, len, role, stacked, 1);
}

/*
 * A ring's fault samples are written in time order (one CPU, interrupts
 * off).  One that goes back in time was stamped with another session's
 * clock: the kernel fills the time of samples that fire together once,
 * as it does the id (decoder/sample_owner.h), in the clock of the first
 * event, and perf record's default clock is not CLOCK_MONOTONIC (8.8 ms
 * behind it on the machine this was seen on).  Counted, so the summary
 * can say the faults around it are mistimed.
 */
#define RING_TIME_SLACK_NS 10000

static void note_ring_time(struct record_pipeline *p, int cpu, uint64_t t)
{
	if (cpu < 0 || cpu >= RING_TIME_CPUS)
		return;
	if (t + RING_TIME_SLACK_NS < p->ring_sample_ts[cpu])
		p->n.time_reversed++;
	p->ring_sample_ts[cpu] = t;
}

static void check_ring_time(struct record_pipeline *p, int cpu,
			    const void *bytes, size_t len, enum ev_role role)
{
	uint64_t t;

	if (role < ROLE_FAULT_ENTRY || role > ROLE_SWITCH_SAMPLE ||
	    sample_peek_time(p->fmt, bytes, len, &t) < 0)
		return;
	note_ring_time(p, cpu, t);
}

/*
 * The records of every fault and switch, read in place
 * (decoder/event.h): a fault event's sample without a stack, or a
 * PERF_RECORD_SWITCH(_CPU_WIDE).  1 when taken (*err: the queue's), 0
 * when the record is none of them or not of their fixed size: the full
 * decode takes it, or counts it malformed.
 */
static int on_fixed_rec(struct record_pipeline *p, int cpu, const void *bytes,
			size_t len, enum ev_role role, uint16_t stacked,
			int from_ring, int *err)
{
	struct ev e;

	if (role == ROLE_NONE) {
		if (!ev_from_switch_rec(p->fmt, bytes, len, &e))
			return 0;
	} else if (stacked ||
		   !ev_from_fault_sample(role, &p->fault_layout, bytes, len, &e)) {
		return 0;
	} else if (from_ring && (p->fault_layout.present & PERF_SAMPLE_TIME)) {
		note_ring_time(p, cpu, e.mono_ts);
	}
	e.cpu = (uint32_t)cpu;	/* the ring's CPU: samples do not carry it */
	*err = queue(p, &e);
	return 1;
}

/* A record of a ring (from_ring) or a PT carrier's sample. */
static int on_record(struct record_pipeline *p, int cpu, const void *bytes,
		     size_t len, int from_ring)
{
	uint32_t type = ((const struct perf_event_header *)bytes)->type;
	uint16_t arg;
	int by_read, err;
	enum ev_role role = sample_role(p, bytes, len, &arg, &by_read);

	p->n.records++;
	p->n.by_read_id += (uint64_t)by_read;
	p->n.foreign += role == ROLE_NONE && type == PERF_RECORD_SAMPLE;
	if (p->checks_only && !p->system_wide && !p->faults.cpu_wide_switches &&
	    type == PERF_RECORD_SWITCH_CPU_WIDE)
		return 0;	/* they only say what ran instead */
	if (on_fixed_rec(p, cpu, bytes, len, role, arg, from_ring, &err))
		return err;
	if (from_ring)
		check_ring_time(p, cpu, bytes, len, role);
	/* Tracepoint samples have their own format. */
	if (role >= ROLE_TP_SCHED_SWITCH)
		return on_tracepoint(p, cpu, bytes, len, role, arg);
	return on_other_rec(p, cpu, bytes, len, role, arg, 0);
}

/* A fault-mode carrier's sample from the PT buffers (record/pt.h): on
 * CLOCK_MONOTONIC already, ordered with the rest. */
static int on_pt_sample(void *ctx, int cpu, const void *rec, size_t len)
{
	return on_record(ctx, cpu, rec, len, 0);
}

/* The PT buffers, before the round's records are ordered: a carrier's
 * sample stamped before the watermark is in its buffer by now.  final:
 * the last of them, after the events were disabled. */
static int pt_round(struct record_pipeline *p, int final)
{
	struct pt_sink sink = { p, on_pt_sample };
	int err;

	if (!p->pt || p->pt_finished)
		return 0;
	p->pt_finished = final;
	err = final ? pt_record_finish(p->pt, p->rec, &sink, &p->err) :
		      pt_record_round(p->pt, p->rec, &sink, &p->err);
	if (err < 0 && !p->err.text[0])
		errmsg_set(&p->err, -err, "cannot read the Intel PT buffers: %s",
			   strerror(-err));
	return err;
}

static int on_round(struct record_pipeline *p, uint64_t watermark)
{
	int err = waking_filter_extend(p->waking, &p->err);
	long n;

	if (err == 0)
		err = waking_filter_rebase(p->waking, monotonic_ns(), &p->err);
	if (err == 0)
		err = pt_round(p, watermark == UINT64_MAX);
	if (err == 0)
		err = held_records_replay(&p->held, replay_held, p);
	/* --block-io: its events in, and none let out past what its reader
	 * has read (record/block_io.h). */
	if (err == 0)
		err = record_block_io_take(&p->blk, &p->order, &p->err);
	if (err < 0)
		return err;	/* p->err says why */
	watermark = record_block_io_until(&p->blk, watermark);
	n = order_queue_flush(&p->order, watermark, fault_stream_event, &p->faults);
	if (n == -ENOMEM)
		return errmsg_set(&p->err, ENOMEM, "out of memory tracking threads");
	if (n >= 0 && watermark != UINT64_MAX &&
	    (err = record_syscalls_flush(&p->sys, p->loader, watermark, &p->err)) < 0)
		return err;
	/* Readings up to the latest anchor only: the rest wait for the next
	 * one, and those after the last anchor are after the session. */
	if (n < 0)
		return (int)n;
	if (watermark > p->clock.last.mono_ns)
		watermark = p->clock.last.mono_ns;
	p->stored_until = watermark;
	if (p->udp && (err = record_udp_flush(p->udp, watermark, &p->err)) < 0)
		return err;
	if (p->cgroup)
		return record_cgroup_flush(p->cgroup, watermark, &p->err);
	return 0;
}

/* Records the spool had no room for: a loss like the kernel's. */
static int on_spool_lost(struct record_pipeline *p, const struct spool_entry *e)
{
	int err = queue_lost(p, (int)e->u.lost.cpu, e->u.lost.first_mono_ns,
			     e->u.lost.mono_ns);

	if (err < 0)
		return err;
	p->n.dropped += e->u.lost.records;
	return loader_lost(p->loader, e->u.lost.mono_ns, (int)e->u.lost.cpu,
			   "spool", e->u.lost.records, &p->err);
}

static int on_spooled_record(void *ctx, const void *rec, size_t len)
{
	struct record_pipeline *p = ctx;
	uint32_t type = ((const struct perf_event_header *)rec)->type;

	p->last_data.records++;
	if (type < 64)
		p->last_data.types |= 1ull << type;
	return on_record(p, (int)p->cpu_of_entry, rec, len, 1);
}

static int on_entry(struct record_pipeline *p, const struct spool_entry *e)
{
	switch (e->kind) {
	case SPOOL_DATA:
		if (p->test_bytes_per_s)
			sleep_ns(e->len * 1000000000ull / p->test_bytes_per_s);
		p->cpu_of_entry = e->cpu;
		memset(&p->last_data, 0, sizeof(p->last_data));
		return perf_records_walk(spool_data(e), e->len, on_spooled_record,
					 p, &p->n.framing_errors);
	case SPOOL_ROUND:
		return on_round(p, e->u.watermark);
	case SPOOL_ANCHOR:
		return record_clock_add(&p->clock, p->loader, &e->u.anchor, &p->err);
	case SPOOL_LOST:
		return on_spool_lost(p, e);
	}
	return 0;
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

static int on_tick(struct record_pipeline *p)
{
	int err = store_live_threads(p);

	if (err == 0)
		err = loader_commit(p->loader, &p->err);
	if (p->status)
		p->status(p->status_ctx, p);
	return err;
}

/* After a round: what it let out of the order queue committed, with
 * the session row saying so, once LOADER_COMMIT_NS has passed since the
 * last commit.  Cheap when idle (a round every CLOCK_ANCHOR_INTERVAL_NS,
 * a page or two a commit); under a storm it bounds what a SIGKILL loses
 * to the engine's backlog plus LOADER_COMMIT_NS. */
static int commit_round(struct record_pipeline *p)
{
	uint64_t now = monotonic_ns();
	int err;

	if (now < p->next_commit)
		return 0;
	p->next_commit = now + LOADER_COMMIT_NS;
	err = loader_alive(p->loader, p->stored_until, &p->err);
	return err ? err : loader_commit(p->loader, &p->err);
}

int record_pipeline_take(struct record_pipeline *p, const struct spool_entry *e)
{
	int err = on_entry(p, e);

	if (err == 0 && e->kind == SPOOL_ROUND)
		err = commit_round(p);
	return err;
}

static int count_record(void *ctx, const void *rec, size_t len)
{
	(void)rec;
	(void)len;
	((struct record_pipeline *)ctx)->n.unstored++;
	return 0;
}

/* An entry taken after a failure: its records are counted, not used. */
static void skip_entry(struct record_pipeline *p, const struct spool_entry *e)
{
	uint64_t bad = 0;

	if (e->kind == SPOOL_DATA)
		perf_records_walk(spool_data(e), e->len, count_record, p, &bad);
}

int record_pipeline_consume(struct record_pipeline *p, struct spool *sp,
			    int *abort)
{
	const struct spool_entry *e;
	int err = 0;

	p->next_tick = monotonic_ns() + RECORD_TICK_NS;
	p->next_commit = monotonic_ns() + LOADER_COMMIT_NS;
	p->spool = sp;
	while ((e = spool_next(sp, 1))->kind != SPOOL_END) {
		if (err == 0)
			err = on_entry(p, e);
		else
			skip_entry(p, e);
		if (err == 0 && e->kind == SPOOL_ROUND)
			err = commit_round(p);
		spool_done(sp);
		if (err == 0 && monotonic_ns() >= p->next_tick) {
			p->next_tick += RECORD_TICK_NS;
			err = on_tick(p);
		}
		if (err < 0)
			__atomic_store_n(abort, 1, __ATOMIC_RELEASE);
	}
	spool_done(sp);
	p->spool = NULL;
	return err;
}

struct synth_ctx {
	struct record_pipeline *p;
	uint64_t mono_ts;
};

static int synth_mapping(void *ctx, const struct rec_mmap *m)
{
	struct synth_ctx *s = ctx;

	s->p->n.mappings++;
	if (record_stacks_mapping(&s->p->stacks, m) < 0)
		return errmsg_set(&s->p->err, ENOMEM, "out of memory keeping "
				  "mappings");
	return loader_mapping(s->p->loader, s->mono_ts, m, "proc", &s->p->err);
}

/* The mappings of pid from /proc; one that exited meanwhile has none. */
static int synth_process(struct synth_ctx *s, pid_t pid)
{
	int err = proc_maps_each(pid, synth_mapping, s);

	return err == -ESRCH ? 0 : err;
}

int record_pipeline_begin(struct record_pipeline *p, struct loader *l)
{
	struct synth_ctx s = { p, p->clock.last.mono_ns };
	pid_t *pids = NULL;
	size_t n = 0;
	int err = 0;

	p->loader = l;
	if (!p->system_wide) {
		for (size_t i = 0; i < p->targets->npids && err == 0; i++)
			err = synth_process(&s, p->targets->pids[i]);
		return err;
	}
	if (proc_list_pids(&pids, &n) < 0)
		return 0;	/* best effort: MMAP2 covers the rest */
	for (size_t i = 0; i < n && err == 0; i++)
		err = synth_process(&s, pids[i]);
	free(pids);
	return err;
}

static int store_histograms(struct record_pipeline *p)
{
	struct thread_table *tt = &p->faults.threads;
	int err = 0;

	for (size_t i = 0; i < tt->n && err == 0; i++) {
		if (!tt->by_order[i]->wanted)
			continue;
		err = loader_histograms(p->loader, tt->by_order[i], &p->err);
		if (err == 0)
			err = loader_syscall_histograms(p->loader, tt->by_order[i],
							syscall_name, &p->err);
	}
	return err;
}

int record_pipeline_finish(struct record_pipeline *p, struct clock_anchor *end)
{
	int err = on_round(p, UINT64_MAX);

	/* The drain thread's last anchor: every event is stamped before it. */
	*end = p->clock.last;
	if (err == 0)
		err = fault_stream_finish(&p->faults, end->mono_ns);
	/* The calls unfinished at the end too: every event is in. */
	if (err == 0)
		err = record_syscalls_flush(&p->sys, p->loader, UINT64_MAX, &p->err);
	if (err == 0)
		err = record_syscalls_store_files(&p->sys, p->loader, &p->err);
	if (err == 0)
		err = record_latency_finish(&p->lat, p->loader, &p->err);
	if (err == 0)
		err = record_block_io_finish(&p->blk, p->loader, end->mono_ns,
					     &p->err);
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
	c->records_malformed += p->n.framing_errors;
	c->records_dropped = p->n.dropped;
	/* After a failure: the records never decoded, and the events
	 * decoded but still waiting to be ordered. */
	c->records_unstored = p->n.unstored;
	if (p->err.text[0])
		c->records_unstored += order_queue_count(&p->order);
	c->clock_steps = p->clock.map.steps;
	c->samples_mistimed = p->n.time_reversed;
}
