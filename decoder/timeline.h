/*
 * timeline: a thread's gap-free sequence of states, from its own context
 * switch records (PERF_RECORD_SWITCH: every switch in and out, the PREEMPT
 * flag marking involuntary ones), refined by sched:sched_switch's
 * prev_state (S or D) and next task, and sched:sched_waking (who woke it,
 * when).
 *
 * The rules, for one thread, in time order (every time CLOCK_MONOTONIC):
 *   switch in at t on cpu c    the open off-CPU interval ends at t; a
 *                              running interval on c opens
 *   switch out at t            the running interval ends at t; an off-CPU
 *                              interval opens: runnable if preempted, else
 *                              sleeping / blocked / other from the
 *                              thread's sched_switch, or `waiting` (S or D
 *                              unknown) without one
 *   waking at t by w on cpu c  a sleeping/blocked/waiting interval ends at
 *                              t, naming its waker; a runnable one opens.
 *                              While running: kept for the sleep the next
 *                              switch out begins (below)
 *   exit at t, end of record   the open interval ends there
 *
 * Matching is by sequence, not by a time window.  In __schedule() the
 * kernel fires sched_switch, then samples context-switches, then writes
 * the outgoing thread's SWITCH record, on one CPU, into one ring, in one
 * clock: so a thread's sched_switch (and its switch-out stack sample)
 * arrive after its switch in and before the switch out they describe.
 * Each is kept from its arrival to the next switch out or switch in of
 * the thread, and used only by a switch out on the same CPU; one left
 * over (its switch out lost) is dropped at the next switch in.
 *
 * A wake-up can race the switch out it ends.  The kernel traces
 * sched_waking only for a thread that has set itself to sleep (a
 * running one fails ttwu_state_match), and one that is still leaving its
 * CPU is then enqueued again once it has left: its waking comes a few us
 * before its switch out.  On redis-server under redis-benchmark that was
 * half of its main thread's sleeps.  So a waking while running is kept
 * until the next switch in; a sleep that no waking ends from inside is
 * ended by it, at once: 0 ns long, then runnable.  A sleep that does get
 * its own waking (the thread ran on after the first, its sleep not yet
 * begun) takes that one.
 *
 * A switch in while running, or a switch out while off the CPU, means a
 * record went missing: the interval between is stored as `unknown`.  A
 * LOST record marks every open interval `uncertain`: its boundaries may
 * hide a change nobody saw.
 */
#ifndef FL_TIMELINE_H
#define FL_TIMELINE_H

#include <stdint.h>

#include "cpu_runs.h"
#include "event.h"

#define TL_COMM_LEN 16		/* TASK_COMM_LEN, including the NUL */

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
	uint64_t mono_ts;	/* start, CLOCK_MONOTONIC ns */
	uint64_t dur_ns;
	enum thread_state_kind state;
	int32_t cpu;		/* while running */
	int64_t waker_tid;	/* the wake-up that ended a sleep; 0 for an
				 * interrupt or a CPU's idle task */
	int32_t waker_cpu;
	int waker_ctx;		/* enum wake_ctx; -1 with no wake-up */
	char waker_comm[TL_COMM_LEN];	/* "" when not known */
	int64_t next_tid;	/* took the CPU at the switch out that began it */
	char next_comm[TL_COMM_LEN];	/* its name then; "" when not known */
	int uncertain;		/* a LOST record fell inside it */
	int preempted;		/* the switch out that began it was involuntary */
	uint32_t stack_id;	/* the stack at the switch out that began it
				 * (stack_table id), 0: none */
	uint32_t waker_stack_id;	/* the kernel stack of the wake-up that
					 * ended it (stack_table id), 0: none */
	/* A runnable wait: the threads that held ran_cpu (where it ran
	 * next) meanwhile, the longest first; nran 0 when not known. */
	const struct cpu_share *ran;	/* borrowed for the store call */
	size_t nran;
	int32_t ran_cpu;
};

/* What a thread's sched_switch said about its coming switch out. */
struct switch_detail {
	int valid;
	uint32_t cpu;
	uint32_t prev_state;
	uint32_t next_tid;
	char next_comm[TL_COMM_LEN];
};

/* Who woke a thread, as the stream knows it. */
struct waker {
	uint32_t tid;		/* 0: an interrupt, or a CPU's idle task */
	uint32_t cpu;
	enum wake_ctx ctx;
	const char *comm;	/* borrowed for the call; "" when not known */
	uint32_t stack_id;	/* the wake-up's kernel stack, 0: none */
};

struct timeline {
	enum thread_state_kind state;	/* of the open interval */
	uint64_t since;			/* its start, CLOCK_MONOTONIC ns */
	int32_t cpu;
	int uncertain;
	/* Records may be missing up to here (CLOCK_MONOTONIC ns): an
	 * interval that opens before it is uncertain too. */
	uint64_t uncertain_until;
	int preempted;
	int64_t next_tid;		/* of the open interval, -1: unknown */
	char next_comm[TL_COMM_LEN];
	struct switch_detail detail;	/* since the last switch in */
	uint32_t switch_stack;		/* since the last switch in, 0: none */
	uint32_t switch_stack_cpu;
	uint64_t switches_out;		/* every switch out seen */
	uint64_t preempted_out;		/* those with the PREEMPT flag */
	uint64_t running_ns;		/* time in running intervals */
	uint32_t stack_id;		/* of the open interval, 0: none */
	/* The last waking while running, since the last switch in, for the
	 * sleep the next switch out begins (see above); early.comm points
	 * to early_comm. */
	int early_valid;
	struct waker early;
	char early_comm[TL_COMM_LEN];
};

/* What the timeline calls to store a finished interval: 0 or -errno. */
typedef int (*interval_fn)(void *ctx, const struct state_interval *iv);

/* The state a sched_switch prev_state value reports. */
enum thread_state_kind state_from_prev_state(uint32_t prev_state);
const char *thread_state_name(enum thread_state_kind s);
/* thread_state.waker_context: thread, hardirq, softirq or nmi. */
const char *wake_ctx_name(enum wake_ctx c);

int timeline_switch_in(struct timeline *tl, uint32_t tid, uint32_t pid,
		       uint64_t mono_ts, uint32_t cpu, interval_fn fn, void *ctx);
int timeline_switch_out(struct timeline *tl, uint32_t tid, uint32_t pid,
			uint64_t mono_ts, uint32_t cpu, int preempt,
			interval_fn fn, void *ctx);
/* The thread did something on cpu at mono_ts (a fault, a rename): it was
 * running, which opens its first interval when no switch has yet. */
void timeline_seen_running(struct timeline *tl, uint64_t mono_ts, uint32_t cpu);
/* A new thread exists from mono_ts and waits for its first switch in. */
void timeline_created(struct timeline *tl, uint64_t mono_ts);
/* The thread's sched_switch on cpu: it leaves in prev_state for next. */
void timeline_switch_detail(struct timeline *tl, const struct switch_detail *d);
/* The thread's stack as it leaves cpu (a context-switches sample, just
 * before its switch out): the switch out's interval takes it. */
void timeline_switch_stack(struct timeline *tl, uint32_t cpu, uint32_t stack_id);
int timeline_waking(struct timeline *tl, uint32_t tid, uint32_t pid,
		    uint64_t mono_ts, const struct waker *w,
		    interval_fn fn, void *ctx);
/* Ends the open interval at mono_ts (exit, or end of recording). */
int timeline_end(struct timeline *tl, uint32_t tid, uint32_t pid,
		 uint64_t mono_ts, interval_fn fn, void *ctx);
/* Records were lost, the last of them at or before until_ts: the open
 * interval, and any that opens before until_ts, is uncertain. */
void timeline_lost(struct timeline *tl, uint64_t until_ts);
/* An empty timeline: no interval open. */
void timeline_init(struct timeline *tl);

#endif
