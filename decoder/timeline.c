#include <string.h>

#include "timeline.h"

/* The kernel stamps the sched_switch tracepoint and the switch record of
 * one context switch microseconds apart; a prev_state further than this
 * from the switch out belongs to another switch. */
#define PREV_STATE_WINDOW_NS 1000000ull

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

/* Stores the open interval as ending at ts, with the waker if any. */
static int close_open(struct timeline *tl, uint32_t tid, uint32_t pid,
		      uint64_t ts, enum thread_state_kind as, int64_t waker_tid,
		      int32_t waker_cpu, interval_fn fn, void *ctx)
{
	struct state_interval iv;

	if (tl->state == TS_NONE)
		return 0;
	memset(&iv, 0, sizeof(iv));
	iv.tid = tid;
	iv.pid = pid;
	iv.ts = tl->since;
	iv.dur_ns = ts > tl->since ? ts - tl->since : 0;
	iv.state = as;
	iv.cpu = as == TS_RUNNING ? tl->cpu : -1;
	iv.waker_tid = waker_tid;
	iv.waker_cpu = waker_cpu;
	iv.uncertain = tl->uncertain;
	iv.preempted = tl->preempted;
	iv.stack_id = tl->stack_id;
	if (as == TS_RUNNING)
		tl->running_ns += iv.dur_ns;
	tl->state = TS_NONE;
	return fn(ctx, &iv);
}

static void open_interval(struct timeline *tl, enum thread_state_kind s,
			  uint64_t ts, int32_t cpu, int preempted)
{
	tl->state = s;
	tl->since = ts;
	tl->cpu = cpu;
	tl->uncertain = 0;
	tl->preempted = preempted;
	tl->stack_id = 0;
}

int timeline_switch_in(struct timeline *tl, uint32_t tid, uint32_t pid,
		       uint64_t ts, uint32_t cpu, interval_fn fn, void *ctx)
{
	/* Switched in while running: the switch out went missing, and
	 * what happened in between is not known. */
	enum thread_state_kind as = tl->state == TS_RUNNING ? TS_UNKNOWN :
				    tl->state;
	int err = close_open(tl, tid, pid, ts, as, -1, -1, fn, ctx);

	open_interval(tl, TS_RUNNING, ts, (int32_t)cpu, 0);
	return err;
}

int timeline_switch_out(struct timeline *tl, uint32_t tid, uint32_t pid,
			uint64_t ts, int preempt, interval_fn fn, void *ctx)
{
	enum thread_state_kind next = TS_WAITING;
	int err;

	tl->switches_out++;
	tl->preempted_out += preempt != 0;
	/* Switched out while off the CPU: the switch in went missing. */
	err = close_open(tl, tid, pid, ts,
			 tl->state == TS_RUNNING ? TS_RUNNING : TS_UNKNOWN,
			 -1, -1, fn, ctx);
	if (preempt)
		next = TS_RUNNABLE;
	else if (tl->tp_valid && tl->tp_ts <= ts &&
		 ts - tl->tp_ts <= PREV_STATE_WINDOW_NS)
		next = state_from_prev_state(tl->tp_state);
	tl->tp_valid = 0;
	open_interval(tl, next, ts, -1, preempt != 0);
	/* Sampled in the same switch, stamped microseconds before it. */
	if (tl->switch_stack && tl->switch_stack_ts <= ts &&
	    ts - tl->switch_stack_ts <= PREV_STATE_WINDOW_NS)
		tl->stack_id = tl->switch_stack;
	tl->switch_stack = 0;
	return err;
}

void timeline_seen_running(struct timeline *tl, uint64_t ts, uint32_t cpu)
{
	if (tl->state == TS_NONE)
		open_interval(tl, TS_RUNNING, ts, (int32_t)cpu, 0);
}

void timeline_created(struct timeline *tl, uint64_t ts)
{
	if (tl->state == TS_NONE)
		open_interval(tl, TS_RUNNABLE, ts, -1, 0);
}

void timeline_prev_state(struct timeline *tl, uint64_t ts, uint32_t prev_state)
{
	/* Usually it comes first and waits for the switch out; stamped
	 * alike, it can come just after, and refines the open interval. */
	if (tl->state == TS_WAITING && ts >= tl->since &&
	    ts - tl->since <= PREV_STATE_WINDOW_NS) {
		tl->state = state_from_prev_state(prev_state);
		return;
	}
	tl->tp_ts = ts;
	tl->tp_state = prev_state;
	tl->tp_valid = 1;
}

void timeline_switch_stack(struct timeline *tl, uint64_t ts, uint32_t stack_id)
{
	tl->switch_stack = stack_id;
	tl->switch_stack_ts = ts;
}

int timeline_waking(struct timeline *tl, uint32_t tid, uint32_t pid,
		    uint64_t ts, uint32_t waker_tid, uint32_t waker_cpu,
		    interval_fn fn, void *ctx)
{
	int err;

	switch (tl->state) {
	case TS_SLEEPING:
	case TS_BLOCKED:
	case TS_WAITING:
	case TS_OTHER:
		break;
	default:
		return 0;	/* awake already: nothing ends */
	}
	err = close_open(tl, tid, pid, ts, tl->state, waker_tid,
			 (int32_t)waker_cpu, fn, ctx);
	open_interval(tl, TS_RUNNABLE, ts, -1, 0);
	return err;
}

int timeline_end(struct timeline *tl, uint32_t tid, uint32_t pid, uint64_t ts,
		 interval_fn fn, void *ctx)
{
	return close_open(tl, tid, pid, ts, tl->state, -1, -1, fn, ctx);
}

void timeline_lost(struct timeline *tl)
{
	if (tl->state != TS_NONE)
		tl->uncertain = 1;
}
