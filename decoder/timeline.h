/*
 * timeline: a thread's gap-free sequence of states, from its own context
 * switch records (PERF_RECORD_SWITCH: every switch in and out, the PREEMPT
 * flag marking involuntary ones), refined by sched:sched_switch's
 * prev_state (S or D) and sched:sched_waking (who woke it, when).
 *
 * The rules, for one thread, in time order:
 *   switch in at t on cpu c    the open off-CPU interval ends at t; a
 *                              running interval on c opens
 *   switch out at t            the running interval ends at t; an off-CPU
 *                              interval opens: runnable if preempted, else
 *                              sleeping / blocked / other from the
 *                              sched_switch prev_state that came just
 *                              before, or `waiting` (S or D unknown)
 *   waking at t by w on cpu c  a sleeping/blocked/waiting interval ends at
 *                              t, naming its waker; a runnable one opens
 *   exit at t, end of record   the open interval ends there
 *
 * A switch in while running, or a switch out while off the CPU, means a
 * record went missing: the interval between is stored as `unknown`.  A
 * LOST record marks every open interval `uncertain`: its boundaries may
 * hide a change nobody saw.
 */
#ifndef FL_TIMELINE_H
#define FL_TIMELINE_H

#include <stdint.h>

enum thread_state_kind {
	TS_NONE,		/* no interval open (before the first event) */
	TS_RUNNING,
	TS_RUNNABLE,		/* preempted, or woken and not yet running */
	TS_SLEEPING,		/* S (or I: an idle kernel thread) */
	TS_BLOCKED,		/* D: uninterruptible (I/O, a major fault, reclaim) */
	TS_WAITING,		/* off the CPU voluntarily, S or D not known */
	TS_OTHER,		/* stopped, traced, dead, parked */
	TS_UNKNOWN,		/* records were missing: not known */
};

/* One finished interval, ready to store.  -1 means absent. */
struct state_interval {
	uint32_t tid, pid;
	uint64_t ts;		/* start, CLOCK_REALTIME ns */
	uint64_t dur_ns;
	enum thread_state_kind state;
	int32_t cpu;		/* while running */
	int64_t waker_tid;	/* the wake-up that ended a sleep */
	int32_t waker_cpu;
	int uncertain;		/* a LOST record fell inside it */
	int preempted;		/* the switch out that began it was involuntary */
	uint32_t stack_id;	/* the stack at the switch out that began it
				 * (stack_table id), 0: none */
};

struct timeline {
	enum thread_state_kind state;	/* of the open interval */
	uint64_t since;			/* its start, CLOCK_REALTIME ns */
	int32_t cpu;
	int uncertain;
	int preempted;
	uint64_t tp_ts;			/* latest sched_switch prev_state seen */
	uint32_t tp_state;
	int tp_valid;
	uint64_t switches_out;		/* every switch out seen */
	uint64_t preempted_out;		/* those with the PREEMPT flag */
	uint64_t running_ns;		/* time in running intervals */
	uint32_t stack_id;		/* of the open interval, 0: none */
	uint32_t switch_stack;		/* the latest switch-out sample's stack */
	uint64_t switch_stack_ts;
};

/* What the timeline calls to store a finished interval: 0 or -errno. */
typedef int (*interval_fn)(void *ctx, const struct state_interval *iv);

/* The state a sched_switch prev_state value reports. */
enum thread_state_kind state_from_prev_state(uint32_t prev_state);
const char *thread_state_name(enum thread_state_kind s);

int timeline_switch_in(struct timeline *tl, uint32_t tid, uint32_t pid,
		       uint64_t ts, uint32_t cpu, interval_fn fn, void *ctx);
int timeline_switch_out(struct timeline *tl, uint32_t tid, uint32_t pid,
			uint64_t ts, int preempt, interval_fn fn, void *ctx);
/* The thread did something on cpu at ts (a fault, a rename): it was
 * running, which opens its first interval when no switch has yet. */
void timeline_seen_running(struct timeline *tl, uint64_t ts, uint32_t cpu);
/* A new thread exists from ts and waits for its first switch in. */
void timeline_created(struct timeline *tl, uint64_t ts);
void timeline_prev_state(struct timeline *tl, uint64_t ts, uint32_t prev_state);
/* The thread's stack as it leaves the CPU at ts (a context-switches
 * sample, just before its switch out): the next switch out's interval
 * takes it. */
void timeline_switch_stack(struct timeline *tl, uint64_t ts, uint32_t stack_id);
int timeline_waking(struct timeline *tl, uint32_t tid, uint32_t pid,
		    uint64_t ts, uint32_t waker_tid, uint32_t waker_cpu,
		    interval_fn fn, void *ctx);
/* Ends the open interval at ts (exit, or end of recording). */
int timeline_end(struct timeline *tl, uint32_t tid, uint32_t pid, uint64_t ts,
		 interval_fn fn, void *ctx);
void timeline_lost(struct timeline *tl);

#endif
