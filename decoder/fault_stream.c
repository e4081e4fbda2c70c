#include <errno.h>
#include <string.h>

#include "../common/array.h"
#include "block_rq.h"
#include "fault_stream.h"

void fault_stream_init(struct fault_stream *s, const struct fault_stream_ops *ops,
		       uint64_t min_dur_ns)
{
	memset(s, 0, sizeof(*s));
	thread_table_init(&s->threads);
	comm_cache_init(&s->names);
	cpu_runs_init(&s->cpus);
	s->ops = *ops;
	s->min_dur_ns = min_dur_ns;
}

void fault_stream_release(struct fault_stream *s)
{
	thread_table_release(&s->threads);
	comm_cache_release(&s->names);
	cpu_runs_release(&s->cpus);
}

static int is_wanted(struct fault_stream *s, const struct thread *t)
{
	if (t->events == THREAD_EVENTS_NONE)
		return 0;	/* a -t thread's child: the kernel tells nothing of it */
	return s->ops.wanted ? s->ops.wanted(s->ops.ctx, t) : 1;
}

/* Starts a new name spell for t at mono_ts (t->comm already set). */
static void spell_begin(struct fault_stream *s, struct thread *t,
			uint64_t mono_ts)
{
	t->first_mono_ts = mono_ts;
	t->last_mono_ts = mono_ts;
	t->exited = 0;
	t->wanted = is_wanted(s, t);
}

static int spell_end(struct fault_stream *s, struct thread *t)
{
	if (!t->wanted || !s->ops.spell_end)
		return 0;
	return s->ops.spell_end(s->ops.ctx, t);
}

/* The thread an event is about, created (and resolved) on first sight. */
static struct thread *thread_of(struct fault_stream *s, const struct ev *e)
{
	int created;
	struct thread *t = thread_table_get(&s->threads, e->tid, &created);

	if (!t)
		return NULL;
	if (created) {
		t->pid = e->pid;
		if (s->ops.resolve)
			s->ops.resolve(s->ops.ctx, t);
		spell_begin(s, t, e->mono_ts);
	}
	return t;
}

/* A blocked interval of a thread inside its system call: the call
 * waited (for the disk, a page, a kernel lock) that long. */
static void blocked_in_call(struct fault_stream *s, const struct state_interval *iv)
{
	struct thread *t = thread_table_find(&s->threads, iv->tid);

	if (t && t->sys.active && t->sys.mono_ts <= iv->mono_ts)
		t->sys.blocked_ns += iv->dur_ns;
}

static int store_state(void *ctx, const struct state_interval *iv)
{
	struct fault_stream *s = ctx;
	struct state_interval with_ran;

	if (!s->ops.store_state)
		return 0;
	s->st.intervals++;
	if (iv->state == TS_BLOCKED)
		blocked_in_call(s, iv);
	if (s->nran && iv->state == TS_RUNNABLE && iv->tid == s->ran_tid) {
		with_ran = *iv;
		with_ran.ran = s->ran;
		with_ran.nran = s->nran;
		with_ran.ran_cpu = (int32_t)s->ran_cpu;
		iv = &with_ran;
		s->st.ran_waits++;
	}
	return s->ops.store_state(s->ops.ctx, iv);
}

static int store(struct fault_stream *s, const struct fault *f)
{
	s->st.stored++;
	return s->ops.store_fault ? s->ops.store_fault(s->ops.ctx, f) : 0;
}

static int store_orphan(struct fault_stream *s, const struct fault *orphan)
{
	s->st.unfinished++;
	return store(s, orphan);
}

static int syscall_wanted(struct fault_stream *s, int32_t nr)
{
	return s->ops.syscall_wanted ? s->ops.syscall_wanted(s->ops.ctx, nr) : 1;
}

/* Counts c in its thread's histogram of that call. */
static int syscall_count(struct thread *t, const struct syscall_call *c)
{
	size_t i;

	for (i = 0; i < t->nsys_hist && t->sys_hist[i].nr != c->nr; i++)
		;
	if (i == t->nsys_hist) {
		if (ARRAY_RESERVE(t->sys_hist, t->capsys_hist, i + 1) < 0)
			return -ENOMEM;
		memset(&t->sys_hist[i], 0, sizeof(t->sys_hist[i]));
		t->sys_hist[i].nr = c->nr;
		t->nsys_hist++;
	}
	hist_add(&t->sys_hist[i].h, c->dur_ns);
	return 0;
}

/* A finished call: counted when asked for, and handed on. */
static int syscall_done(struct fault_stream *s, struct thread *t,
			const struct syscall_call *c)
{
	int wanted = syscall_wanted(s, c->nr), store = 0;

	if (wanted && c->dur_ns == SYSCALL_NO_DUR) {
		s->st.sys_unfinished++;
		store = 1;
	} else if (wanted) {
		s->st.sys_timed++;
		if (syscall_count(t, c) < 0)
			return -ENOMEM;
		/* A call that waited in state D is stored however short:
		 * disk reads are rarely a millisecond each, and add up. */
		store = c->dur_ns >= s->min_sys_ns || c->blocked_ns > 0;
	}
	s->st.sys_stored += store;
	return s->ops.syscall_done ? s->ops.syscall_done(s->ops.ctx, c, store) : 0;
}

/* The thread's call in progress, if any, as unfinished.  Off the CPU
 * since a switch out inside the call, it waits where that switch out's
 * stack says; called before the timeline's open interval ends. */
static int drain_syscall(struct fault_stream *s, struct thread *t)
{
	struct syscall_call c;

	if (!syscall_pair_drain(&t->sys, t->tid, &c))
		return 0;
	if (t->tl.state != TS_RUNNING && t->tl.state != TS_NONE &&
	    t->tl.since >= c.mono_ts)
		c.stack_id = t->tl.stack_id;
	return syscall_done(s, t, &c);
}

static int on_syscall(struct fault_stream *s, struct thread *t,
		      const struct ev *e)
{
	struct syscall_call c;
	int res;

	if (!t->wanted)
		return 0;
	if (e->kind == EV_SYS_ENTER) {
		s->st.sys_unpaired += syscall_pair_enter(&t->sys, e) == SP_UNPAIRED;
		return 0;
	}
	res = syscall_pair_exit(&t->sys, e, &c);
	if (res == SP_UNPAIRED) {
		s->st.sys_unpaired++;
		return 0;
	}
	return syscall_done(s, t, &c);
}

/* The thread's pending entry, if any, as an unfinished fault. */
static int drain_pending(struct fault_stream *s, struct thread *t)
{
	struct fault orphan;

	if (!fault_pair_drain(&t->pending, t->tid, &orphan))
		return 0;
	return store_orphan(s, &orphan);
}

static int fault_done(struct fault_stream *s, struct thread *t,
		      const struct fault *f)
{
	if (f->dur_ns == FAULT_NO_DUR) {
		s->st.unpaired_exits++;
		return store(s, f);
	}
	s->st.paired++;
	hist_add(&t->hist[f->kind], f->dur_ns);
	if (f->dur_ns < s->min_dur_ns) {
		s->st.below_threshold++;
		return 0;
	}
	return store(s, f);
}

static int on_fault(struct fault_stream *s, struct thread *t, const struct ev *e)
{
	struct fault done, orphan;
	int res, err = 0;

	if (!t->wanted) {
		s->st.other_threads++;
		return 0;
	}
	if (e->kind == EV_FAULT_ENTRY) {
		s->st.entries++;
		res = fault_pair_entry(&t->pending, e, &orphan);
	} else {
		if (e->kind == EV_FAULT_MAJOR)
			s->st.major++;
		else
			s->st.minor++;
		res = fault_pair_complete(&t->pending, e, &done, &orphan);
	}
	if (res & FP_ORPHAN)
		err = store_orphan(s, &orphan);
	if (!err && (res & FP_DONE))
		err = fault_done(s, t, &done);
	return err;
}

static int on_comm(struct fault_stream *s, struct thread *t, const struct ev *e)
{
	int err = 0;

	if (!strncmp(t->comm, e->u.comm.comm, COMM_LEN) && !e->u.comm.exec)
		return 0;
	if (t->first_mono_ts != e->mono_ts)	/* a spell of at least one event */
		err = spell_end(s, t);
	t->pid = e->pid;
	memcpy(t->comm, e->u.comm.comm, COMM_LEN);
	t->comm[COMM_LEN - 1] = '\0';
	spell_begin(s, t, e->mono_ts);
	return err;
}

/* Whether a forked thread has events of its own, with per-thread
 * targets: inherited from a parent whose events pass on, none from a -t
 * thread (whose FORK records its own events write). */
static int fork_events(struct fault_stream *s, const struct ev *e,
		       const struct thread *parent)
{
	int k = parent ? parent->events : THREAD_EVENTS_UNKNOWN;

	if (k == THREAD_EVENTS_UNKNOWN && s->ops.opened_on)
		k = s->ops.opened_on(s->ops.ctx, e->u.task.ppid, e->u.task.ptid);
	/* A FORK record comes from the parent's own events: unknown ones
	 * were inherited (a command's, a -p process's later threads). */
	return k == THREAD_EVENTS_OWN || k == THREAD_EVENTS_NONE ?
	       THREAD_EVENTS_NONE : THREAD_EVENTS_INHERITED;
}

/* A new thread takes its creator's name; a reused tid starts afresh. */
static int on_fork(struct fault_stream *s, const struct ev *e)
{
	int created, err = 0;
	struct thread *parent = thread_table_find(&s->threads, e->u.task.ptid);
	struct thread *t = thread_table_get(&s->threads, e->tid, &created);

	if (!t)
		return -ENOMEM;
	if (!created && !t->exited)
		return 0;	/* already seen (e.g. a sample raced the fork) */
	if (!created && t->wanted && ((err = drain_pending(s, t)) < 0 ||
				      (err = drain_syscall(s, t)) < 0))
		return err;	/* a reused tid: the old thread's fault ends */
	t->pid = e->pid;
	if (!s->cpu_wide_adds_threads)
		t->events = fork_events(s, e, parent);
	if (parent && parent->comm[0])
		memcpy(t->comm, parent->comm, COMM_LEN);
	else if (s->ops.resolve)
		s->ops.resolve(s->ops.ctx, t);
	spell_begin(s, t, e->mono_ts);
	memset(&t->tl, 0, sizeof(t->tl));
	if (t->wanted)
		timeline_created(&t->tl, e->mono_ts);
	return err;
}

static int on_exit_ev(struct fault_stream *s, struct thread *t,
		      uint64_t mono_ts)
{
	int err = 0;

	if (t->exited)
		return 0;
	if (t->wanted)
		err = drain_pending(s, t);
	if (!err && t->wanted)
		err = drain_syscall(s, t);
	if (!err && t->wanted)
		err = timeline_end(&t->tl, t->tid, t->pid, mono_ts, store_state, s);
	t->exited = 1;
	if (!err)
		err = spell_end(s, t);
	return err;
}

static const char *thread_name(struct fault_stream *s, uint32_t tid);

/* A runnable wait of t ending as it takes e->cpu: who held that CPU
 * meanwhile, named, for the interval store_state is about to store. */
static void ran_instead(struct fault_stream *s, const struct thread *t,
			const struct ev *e)
{
	s->nran = 0;
	if (t->tl.state != TS_RUNNABLE || e->mono_ts < t->tl.since + RAN_INSTEAD_MIN_NS)
		return;
	s->nran = cpu_runs_shares(&s->cpus, e->cpu, t->tl.since, e->mono_ts,
				  t->tid, s->ran);
	s->ran_tid = t->tid;
	s->ran_cpu = e->cpu;
	for (size_t i = 0; i < s->nran; i++)
		if (s->ran[i].tid > 0)
			strncpy(s->ran[i].comm, thread_name(s, (uint32_t)s->ran[i].tid),
				sizeof(s->ran[i].comm) - 1);
}

static int on_switch(struct fault_stream *s, struct thread *t,
		     const struct ev *e)
{
	int err;

	/* tid 0: a CPU's idle task.  An exited thread: with -a, its last
	 * switch-out (the CPU-wide record names it still) comes after its
	 * EXIT record, which ended its timeline; opened again, a dead thread
	 * would wait off the CPU until the recording's end. */
	if (!t->wanted || e->tid == 0 || t->exited)
		return 0;
	if (e->kind == EV_SWITCH_IN) {
		ran_instead(s, t, e);
		err = timeline_switch_in(&t->tl, t->tid, t->pid, e->mono_ts,
					 e->cpu, store_state, s);
		s->nran = 0;
		return err;
	}
	return timeline_switch_out(&t->tl, t->tid, t->pid, e->mono_ts, e->cpu,
				   e->u.sw.preempt, store_state, s);
}

void fault_stream_lost(struct fault_stream *s, uint64_t until_ts)
{
	for (size_t i = 0; i < s->threads.n; i++)
		timeline_lost(&s->threads.by_order[i]->tl, until_ts);
}

/* The name of a thread that may be no target: the table's, else the
 * latest sched_switch gave, else name_other's (kept, so it is asked once
 * per thread); "" when none knows it. */
static const char *thread_name(struct fault_stream *s, uint32_t tid)
{
	const struct thread *t = thread_table_find(&s->threads, tid);
	const char *c;
	char comm[COMM_CACHE_LEN] = "";

	if (t && t->comm[0])
		return t->comm;
	c = comm_cache_get(&s->names, tid);
	if (c || !s->ops.name_other)
		return c ? c : "";
	s->ops.name_other(s->ops.ctx, tid, comm);
	if (!comm[0] || comm_cache_put(&s->names, tid, comm) < 0)
		return "";
	return comm_cache_get(&s->names, tid);
}

/* Every sched_switch names the two threads it is about, targets or not:
 * kept for naming wakers and preempting threads. */
static int learn_names(struct fault_stream *s, const struct ev *e)
{
	int err = 0;

	if (e->u.sched.prev_comm[0])
		err = comm_cache_put(&s->names, e->tid, e->u.sched.prev_comm);
	if (!err && e->u.sched.next_comm[0])
		err = comm_cache_put(&s->names, e->u.sched.next_tid,
				     e->u.sched.next_comm);
	return err;
}

/* sched_switch's prev_state and next task, sched_waking's wake-ups. */
static int on_sched(struct fault_stream *s, struct thread *t,
		    const struct ev *e)
{
	struct switch_detail d;
	struct waker w;

	if (!t->wanted || e->tid == 0)
		return 0;
	if (e->kind == EV_SCHED_SWITCH) {
		memset(&d, 0, sizeof(d));
		d.cpu = e->cpu;
		d.prev_state = e->u.sched.prev_state;
		d.next_tid = e->u.sched.next_tid;
		memcpy(d.next_comm, e->u.sched.next_comm, TL_COMM_LEN);
		d.next_comm[TL_COMM_LEN - 1] = '\0';
		timeline_switch_detail(&t->tl, &d);
		return 0;
	}
	w.ctx = (enum wake_ctx)e->u.sched.waker_ctx;
	/* In an interrupt the sample's thread is whichever one the interrupt
	 * hit, never the waker: the interrupt is.  tid 0 is a CPU's idle
	 * task. */
	w.tid = w.ctx == WAKE_THREAD ? e->u.sched.waker_tid : 0;
	w.cpu = e->cpu;
	w.comm = w.tid ? thread_name(s, w.tid) : "";
	w.stack_id = e->u.sched.waker_stack_id;
	return timeline_waking(&t->tl, t->tid, t->pid, e->mono_ts, &w,
			       store_state, s);
}

/* A block request's step, whoever's (record --block-io): the target
 * thread it ran in, if any.  A completion runs in an interrupt, in no
 * thread of its own, and a requeue is no issue: no thread is looked up
 * for them.  With -a or --comm a
 * thread not seen yet is resolved now, to ask whether it is a target. */
static int on_block(struct fault_stream *s, const struct ev *e)
{
	const struct thread *t = NULL;

	if (!s->ops.block_rq)
		return 0;
	if ((e->u.blk.step == BLK_INSERT || e->u.blk.step == BLK_ISSUE) &&
	    e->tid != 0) {
		t = s->cpu_wide_adds_threads ? thread_of(s, e) :
		    thread_table_find(&s->threads, e->tid);
		if (s->cpu_wide_adds_threads && !t)
			return -ENOMEM;
		if (t && (!t->wanted || t->exited))
			t = NULL;
	}
	return s->ops.block_rq(s->ops.ctx, e, t);
}

/* A thread met in a record of its own events, with per-thread targets:
 * it has them, and ones not opened on it at the start were inherited. */
static void own_events_seen(struct fault_stream *s, struct thread *t)
{
	int k = s->ops.opened_on ?
		s->ops.opened_on(s->ops.ctx, t->pid, t->tid) :
		THREAD_EVENTS_UNKNOWN;

	t->events = k == THREAD_EVENTS_OWN ? k : THREAD_EVENTS_INHERITED;
}

/*
 * A CPU-wide switch record with per-thread targets: with
 * cpu_wide_switches, the switch of a target thread (one with events of
 * its own, met already or opened on at the start), else nothing more
 * than who held the CPU.
 */
static int on_target_switch(struct fault_stream *s, const struct ev *e)
{
	struct thread *t;

	/* tid 0: a CPU's idle task; -1: a task the kernel has released
	 * already, an exiting thread's last switch-out (its timeline ended
	 * at its EXIT record). */
	if (!s->cpu_wide_switches || e->tid == 0 || e->tid == UINT32_MAX)
		return 0;
	t = thread_table_find(&s->threads, e->tid);
	if (!t) {
		if (!s->ops.opened_on ||
		    s->ops.opened_on(s->ops.ctx, e->pid, e->tid) ==
		    THREAD_EVENTS_UNKNOWN)
			return 0;
		if (!(t = thread_of(s, e)))
			return -ENOMEM;
		own_events_seen(s, t);
	}
	if (t->exited || (t->events != THREAD_EVENTS_OWN &&
			  t->events != THREAD_EVENTS_INHERITED))
		return 0;
	if (e->mono_ts > t->last_mono_ts)
		t->last_mono_ts = e->mono_ts;
	return on_switch(s, t, e);
}

int fault_stream_event(void *stream, const struct ev *e)
{
	struct fault_stream *s = stream;
	struct thread *t;

	if (e->kind == EV_FORK)
		return on_fork(s, e);
	if (e->kind == EV_LOST) {
		fault_stream_lost(s, e->u.lost.until_ts);
		return 0;
	}
	if ((e->kind == EV_LAT_START || e->kind == EV_LAT_END) && e->u.tp.keyed)
		return s->ops.latency_hit ? s->ops.latency_hit(s->ops.ctx, e) : 0;
	if (e->kind == EV_BLOCK)
		return on_block(s, e);
	if (e->kind == EV_SCHED_SWITCH && learn_names(s, e) < 0)
		return -ENOMEM;
	/* Every thread's switches on a CPU: who held it.  With per-thread
	 * targets they say that, and the targets' own switches where their
	 * own events write none; with -a they are the timelines too. */
	if (e->cpu_wide && (e->kind == EV_SWITCH_IN || e->kind == EV_SWITCH_OUT)) {
		if (e->kind == EV_SWITCH_IN &&
		    cpu_runs_switch_in(&s->cpus, e->cpu, e->tid, e->mono_ts) < 0)
			return -ENOMEM;
		if (!s->cpu_wide_adds_threads)
			return on_target_switch(s, e);
	}
	if (e->cpu_wide && !s->cpu_wide_adds_threads) {
		t = thread_table_find(&s->threads, e->tid);
		if (!t || t->exited) {
			s->st.tracepoints_other += e->kind == EV_TRACEPOINT;
			return 0;
		}
	} else if (!(t = thread_of(s, e))) {
		return -ENOMEM;
	} else if (!s->cpu_wide_adds_threads &&
		   t->events == THREAD_EVENTS_UNKNOWN) {
		own_events_seen(s, t);
	}
	if (e->mono_ts > t->last_mono_ts)
		t->last_mono_ts = e->mono_ts;
	switch (e->kind) {
	case EV_FAULT_ENTRY:
	case EV_FAULT_MINOR:
	case EV_FAULT_MAJOR:
		if (t->wanted)
			timeline_seen_running(&t->tl, e->mono_ts, e->cpu);
		return on_fault(s, t, e);
	case EV_COMM:
		if (t->wanted)
			timeline_seen_running(&t->tl, e->mono_ts, e->cpu);
		return on_comm(s, t, e);
	case EV_EXIT:
		return on_exit_ev(s, t, e->mono_ts);
	case EV_SWITCH_IN:
	case EV_SWITCH_OUT:
		return on_switch(s, t, e);
	case EV_SCHED_SWITCH:
	case EV_WAKING:
		return on_sched(s, t, e);
	case EV_SWITCH_STACK:
		if (t->wanted)
			timeline_switch_stack(&t->tl, e->cpu, e->u.fault.stack_id);
		return 0;
	case EV_SYS_ENTER:
	case EV_SYS_EXIT:
		return on_syscall(s, t, e);
	case EV_LAT_START:
	case EV_LAT_END:
		if (!t->wanted || !s->ops.latency_hit)
			return 0;
		return s->ops.latency_hit(s->ops.ctx, e);
	case EV_TRACEPOINT:
		s->st.tracepoints_other += !t->wanted;
		if (!t->wanted || !s->ops.store_tracepoint)
			return 0;
		s->st.tracepoints++;
		return s->ops.store_tracepoint(s->ops.ctx, e);
	}
	return 0;
}

int fault_stream_finish(struct fault_stream *s, uint64_t end_mono_ts)
{
	int err = 0;

	for (size_t i = 0; i < s->threads.n && !err; i++) {
		struct thread *t = s->threads.by_order[i];

		/* An exited thread can still hold an entry that arrived late
		 * (after its EXIT): it ends here too. */
		if (t->wanted)
			err = drain_pending(s, t);
		if (!err && t->wanted)
			err = drain_syscall(s, t);
		if (!err && t->wanted)
			err = timeline_end(&t->tl, t->tid, t->pid, end_mono_ts,
					   store_state, s);
		if (!err && !t->exited)
			err = spell_end(s, t);
		t->exited = 1;
	}
	return err;
}
