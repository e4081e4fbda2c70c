/*
 * waking_filter: sched_waking for per-thread targets (-p, -t, a
 * command) on every CPU, filtered in the kernel on the woken thread's
 * pid, so that a wake-up of any other thread on the machine costs a
 * filter test and writes nothing into the rings.
 *
 * sched_waking fires in the waker's context, so a per-task event would
 * see the wake-ups a target makes, not those it receives.  The filter
 * names the target threads that exist at the start and, where new
 * threads are targets, every pid handed out after the start (above
 * ns_last_pid), so a new thread is covered from its first instruction.
 * A thread born with a smaller pid (pids wrapped) is named by a further
 * set of events (one per CPU), opened when the pipeline reads its FORK
 * record: the kernel sets a perf tracepoint event's filter once (a
 * second PERF_EVENT_IOC_SET_FILTER answers EEXIST).  Until then its
 * wake-ups have no waker, and its thread_state rows say none rather than
 * a wrong one.  "Every pid handed out after the start" grows to take
 * every process started since, a load generator started after the
 * recorder or, over days, most of the machine: once a wake-up of such a
 * pid is read, at most every WAKING_REBASE_NS, one set naming
 * every target thread known (from FORK records, and listed in /proc)
 * and the pids handed out from then on replaces the others; the threads
 * that exited since are left out of it, so a process that starts and
 * ends threads for days keeps a short filter.  Past WAKING_SETS_MAX
 * sets, one set naming every live thread so far replaces them; past
 * what one filter can name, one unfiltered set (every wake-up on the
 * machine, as with -a; the decoder keeps the targets').
 *
 * Threads: waking_filter_open runs before recording; waking_filter_start
 * and waking_filter_stop on the drain thread, waking_filter_note and
 * waking_filter_extend on the pipeline's (which owns the pending list
 * and is the only reader and writer of the recorder's idmap by then).
 * The lock keeps the drain thread's start and stop from crossing an
 * extension.
 */
#ifndef FL_WAKING_FILTER_H
#define FL_WAKING_FILTER_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "../common/errmsg.h"

struct event_close;
struct event_set;
struct target_set;
struct tep_event;

/* Sets open at once before they are merged into one. */
#define WAKING_SETS_MAX 8
/* The longest filter written: the kernel copies at most a page. */
#define WAKING_FILTER_MAX 4000

struct waking_filter {
	pthread_mutex_t lock;	/* guards fds, started, stopped */
	struct event_set *set;	/* borrowed: its CPUs, rings and idmap */
	const struct target_set *targets;	/* borrowed */
	struct tep_event *ev;	/* borrowed: sched_waking's format */
	int *fds;		/* owned: every open set's, set by set */
	size_t nfds, capfds;
	int sets;		/* sets open: nfds / set->ncpus */
	int started, stopped;	/* by the drain thread */
	int unfiltered;		/* one set takes every wake-up */
	/* Threads born later are targets (-p, a command): the filter also
	 * takes every pid above the last one handed out at the start, so a
	 * new thread is covered from its first instruction until pids
	 * wrap; 0 for -t alone. */
	pid_t above;
	pid_t *tids;		/* owned: every thread a set names, less
				 * those found exited at a rebase or merge */
	size_t ntids, captids;
	pid_t *pending;		/* owned: new threads, not yet in a set */
	size_t npending, cappending;
	uint64_t extensions;	/* sets opened after the first */
	uint64_t rebases;	/* of them, to move above up */
	uint64_t next_rebase_ns;	/* CLOCK_MONOTONIC */
	int passed_above;	/* a wake-up of a pid above was read */
};

/* How often at most "every pid above" moves up (see above). */
#define WAKING_REBASE_NS (100ull * 1000 * 1000)

/*
 * Opens the first set, disabled, naming the threads of targets that
 * exist now (every thread of each -p process, each -t thread, the
 * command).  0 or -errno with e.
 */
int waking_filter_open(struct waking_filter *wf, struct event_set *set,
		       const struct target_set *targets, struct tep_event *ev,
		       struct errmsg *e);
void waking_filter_release(struct waking_filter *wf);

/* Hands every set's fds to c to close (collector/event_close.h), once
 * the filter is no longer extended or rebased. */
void waking_filter_close_into(struct waking_filter *wf, struct event_close *c);

/* Drain thread: enables the sets (recording begins), or disables them
 * for good (recording ends; no set opens after this). */
int waking_filter_start(struct waking_filter *wf, struct errmsg *e);
void waking_filter_stop(struct waking_filter *wf);

/* Pipeline thread: tid is a new target thread (a FORK record).  0 or
 * -ENOMEM. */
int waking_filter_note(struct waking_filter *wf, pid_t tid);
/* Pipeline thread: opens a set for the noted threads, enabled if
 * recording is on.  0 or -errno with e. */
int waking_filter_extend(struct waking_filter *wf, struct errmsg *e);
/* Pipeline thread: a sched_waking record woke tid.  One above the bound
 * says the filter passes a thread born since, perhaps of no target: a
 * rebase is due.  Wake-ups alone say so, as the threads a filter passes
 * cost only when they wake. */
static inline void waking_filter_seen(struct waking_filter *wf, pid_t tid)
{
	if (wf->above && tid > wf->above)
		wf->passed_above = 1;
}

/* Pipeline thread, after waking_filter_extend: once a wake-up above the
 * bound was seen, WAKING_REBASE_NS after the last time at the soonest
 * (now_ns, CLOCK_MONOTONIC), and pids were handed out since, moves
 * "every pid above" up to the last one handed out, in one set that
 * replaces the others.  0 or -errno with e. */
int waking_filter_rebase(struct waking_filter *wf, uint64_t now_ns,
			 struct errmsg *e);

#endif
