#include <stdio.h>
#include <string.h>

#include "timeline.h"

/* prev_state as the sched_switch tracepoint reports it on 6.x kernels:
 * 0 R, 0x1 S, 0x2 D, 0x4 T, 0x8 t, 0x10 X, 0x20 Z, 0x40 P, 0x80 I, and
 * TASK_REPORT_MAX (0x100 here, "R+") for a preempted task. */
enum thread_state_kind state_from_prev_state(uint32_t prev_state)
{
	switch (prev_state) {
	case 0:
	case 0x100:
		return TS_RUNNABLE;
	case 0x1:
	case 0x80:
		return TS_SLEEPING;
	case 0x2:
		return TS_BLOCKED;
	default:
		return TS_OTHER;
	}
}

const char *thread_state_name(enum thread_state_kind s)
{
	static const char *const names[] = {
		[TS_NONE] = "none", [TS_RUNNING] = "running",
		[TS_RUNNABLE] = "runnable", [TS_SLEEPING] = "sleeping",
		[TS_BLOCKED] = "blocked", [TS_WAITING] = "waiting",
		[TS_OTHER] = "other", [TS_UNKNOWN] = "unknown",
	};

	return s <= TS_UNKNOWN ? names[s] : "unknown";
}

const char *wake_ctx_name(enum wake_ctx c)
{
	static const char *const names[] = {
		[WAKE_THREAD] = "thread", [WAKE_HARDIRQ] = "hardirq",
		[WAKE_SOFTIRQ] = "softirq", [WAKE_NMI] = "nmi",
	};

	return c <= WAKE_NMI ? names[c] : "thread";
}

void timeline_init(struct timeline *tl)
{
	memset(tl, 0, sizeof(*tl));
	tl->next_tid = -1;
}

/* Stores the open interval as ending at mono_ts, as state `as`, with the
 * waker if any. */
static int close_open(struct timeline *tl, uint32_t tid, uint32_t pid,
		      uint64_t mono_ts, enum thread_state_kind as,
		      const struct waker *w, interval_fn fn, void *ctx)
{
	struct state_interval iv;

	if (tl->state == TS_NONE)
		return 0;
	memset(&iv, 0, sizeof(iv));
	iv.tid = tid;
	iv.pid = pid;
	iv.mono_ts = tl->since;
	iv.dur_ns = mono_ts > tl->since ? mono_ts - tl->since : 0;
	iv.state = as;
	iv.cpu = as == TS_RUNNING ? tl->cpu : -1;
	iv.waker_tid = w ? (int64_t)w->tid : -1;
	iv.waker_cpu = w ? (int32_t)w->cpu : -1;
	iv.waker_ctx = w ? (int)w->ctx : -1;
	iv.waker_stack_id = w ? w->stack_id : 0;
	if (w && w->comm)
		strncpy(iv.waker_comm, w->comm, TL_COMM_LEN - 1);
	iv.next_tid = tl->next_tid;
	memcpy(iv.next_comm, tl->next_comm, TL_COMM_LEN);
	iv.uncertain = tl->uncertain;
	iv.preempted = tl->preempted;
	iv.stack_id = tl->stack_id;
	if (as == TS_RUNNING)
		tl->running_ns += iv.dur_ns;
	tl->state = TS_NONE;
	return fn(ctx, &iv);
}

static void open_interval(struct timeline *tl, enum thread_state_kind s,
			  uint64_t mono_ts, int32_t cpu, int preempted)
{
	tl->state = s;
	tl->since = mono_ts;
	tl->cpu = cpu;
	tl->uncertain = mono_ts < tl->uncertain_until;
	tl->preempted = preempted;
	tl->stack_id = 0;
	tl->next_tid = -1;
	tl->next_comm[0] = '\0';
}

static int asleep(enum thread_state_kind s)
{
	return s == TS_SLEEPING || s == TS_BLOCKED || s == TS_WAITING ||
	       s == TS_OTHER;
}

/* A sleep no waking ended from inside, at its switch in: the waking
 * that raced its switch out ends it at its start (timeline.h), and the
 * thread waited runnable from there. */
static int end_raced_sleep(struct timeline *tl, uint32_t tid, uint32_t pid,
			   interval_fn fn, void *ctx)
{
	uint64_t out = tl->since;
	int uncertain = tl->uncertain;
	int err = close_open(tl, tid, pid, out, tl->state, &tl->early, fn, ctx);

	open_interval(tl, TS_RUNNABLE, out, -1, 0);
	tl->uncertain |= uncertain;
	return err;
}

int timeline_switch_in(struct timeline *tl, uint32_t tid, uint32_t pid,
		       uint64_t mono_ts, uint32_t cpu, interval_fn fn, void *ctx)
{
	enum thread_state_kind as;
	int raced = 0, err;

	if (tl->early_valid && asleep(tl->state))
		raced = end_raced_sleep(tl, tid, pid, fn, ctx);
	tl->early_valid = 0;
	/* Switched in while running: the switch out went missing, and
	 * what happened in between is not known. */
	as = tl->state == TS_RUNNING ? TS_UNKNOWN : tl->state;
	err = close_open(tl, tid, pid, mono_ts, as, NULL, fn, ctx);
	open_interval(tl, TS_RUNNING, mono_ts, (int32_t)cpu, 0);
	/* What arrived for a switch out that never came is stale now. */
	tl->detail.valid = 0;
	tl->switch_stack = 0;
	return raced < 0 ? raced : err;
}

int timeline_switch_out(struct timeline *tl, uint32_t tid, uint32_t pid,
			uint64_t mono_ts, uint32_t cpu, int preempt,
			interval_fn fn, void *ctx)
{
	const struct switch_detail *d = &tl->detail;
	int have = d->valid && d->cpu == cpu;
	enum thread_state_kind next = TS_WAITING;
	int err;

	tl->switches_out++;
	tl->preempted_out += preempt != 0;
	/* Switched out while off the CPU: the switch in went missing. */
	err = close_open(tl, tid, pid, mono_ts,
			 tl->state == TS_RUNNING ? TS_RUNNING : TS_UNKNOWN,
			 NULL, fn, ctx);
	if (preempt)
		next = TS_RUNNABLE;
	else if (have)
		next = state_from_prev_state(d->prev_state);
	/* Runnable: no sleep began for an early waking to end. */
	if (!asleep(next))
		tl->early_valid = 0;
	open_interval(tl, next, mono_ts, -1, preempt != 0);
	if (have) {
		tl->next_tid = d->next_tid;
		memcpy(tl->next_comm, d->next_comm, TL_COMM_LEN);
	}
	if (tl->switch_stack && tl->switch_stack_cpu == cpu)
		tl->stack_id = tl->switch_stack;
	tl->detail.valid = 0;
	tl->switch_stack = 0;
	return err;
}

void timeline_seen_running(struct timeline *tl, uint64_t mono_ts, uint32_t cpu)
{
	if (tl->state == TS_NONE)
		open_interval(tl, TS_RUNNING, mono_ts, (int32_t)cpu, 0);
}

void timeline_created(struct timeline *tl, uint64_t mono_ts)
{
	if (tl->state == TS_NONE)
		open_interval(tl, TS_RUNNABLE, mono_ts, -1, 0);
}

void timeline_switch_detail(struct timeline *tl, const struct switch_detail *d)
{
	tl->detail = *d;
	tl->detail.valid = 1;
}

void timeline_switch_stack(struct timeline *tl, uint32_t cpu, uint32_t stack_id)
{
	tl->switch_stack = stack_id;
	tl->switch_stack_cpu = cpu;
}

int timeline_waking(struct timeline *tl, uint32_t tid, uint32_t pid,
		    uint64_t mono_ts, const struct waker *w,
		    interval_fn fn, void *ctx)
{
	int err;

	if (tl->state == TS_RUNNING) {
		/* Its sleep has not begun: kept for it (timeline.h). */
		tl->early = *w;
		snprintf(tl->early_comm, sizeof(tl->early_comm), "%s",
			 w->comm ? w->comm : "");
		tl->early.comm = tl->early_comm;
		tl->early_valid = 1;
		return 0;
	}
	if (!asleep(tl->state))
		return 0;	/* awake already: nothing ends */
	tl->early_valid = 0;
	err = close_open(tl, tid, pid, mono_ts, tl->state, w, fn, ctx);
	open_interval(tl, TS_RUNNABLE, mono_ts, -1, 0);
	return err;
}

int timeline_end(struct timeline *tl, uint32_t tid, uint32_t pid,
		 uint64_t mono_ts, interval_fn fn, void *ctx)
{
	return close_open(tl, tid, pid, mono_ts, tl->state, NULL, fn, ctx);
}

void timeline_lost(struct timeline *tl, uint64_t until_ts)
{
	if (tl->state != TS_NONE)
		tl->uncertain = 1;
	if (until_ts > tl->uncertain_until)
		tl->uncertain_until = until_ts;
}
