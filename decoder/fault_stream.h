/*
 * fault_stream: the time-ordered event stream to stored faults.
 *
 * Keeps the thread table current (names from COMM, new threads from FORK,
 * ends from EXIT), pairs each target thread's fault entry and completion
 * (fault_pair.h), counts every fault in its thread's log2 histogram, and
 * hands on to the sink the faults at or over the threshold, plus every
 * fault without a duration (those are anomalies worth a row each).
 *
 * I/O happens only through the ops the caller supplies, so the stream is
 * driven by unit tests with synthetic events and no kernel.
 */
#ifndef FL_FAULT_STREAM_H
#define FL_FAULT_STREAM_H

#include <stdint.h>

#include "comm_cache.h"
#include "cpu_runs.h"
#include "event.h"
#include "fault_pair.h"
#include "thread_table.h"

struct fault_stream_ops {
	void *ctx;
	/* Fill t->pid (if 0) and t->comm for a thread first seen in a sample
	 * or a FORK; may leave comm "" when it cannot be known.  Optional. */
	void (*resolve)(void *ctx, struct thread *t);
	/* Is t a target?  Called when t appears and when it is renamed.
	 * NULL: every thread is a target. */
	int (*wanted)(void *ctx, const struct thread *t);
	/* A fault to store.  Returns 0 or a negative errno, which stops the
	 * stream and is passed on. */
	int (*store_fault)(void *ctx, const struct fault *f);
	/* A target thread's name spell ended (renamed or exited): its final
	 * first_mono_ts/last_mono_ts/comm.  Returns 0 or a negative errno. */
	int (*spell_end)(void *ctx, const struct thread *t);
	/* A finished thread-state interval of a target thread.  Optional. */
	int (*store_state)(void *ctx, const struct state_interval *iv);
	/* A -e tracepoint hit (EV_TRACEPOINT) by a target thread; e and its
	 * fields are borrowed for the call.  Optional. */
	int (*store_tracepoint)(void *ctx, const struct ev *e);
	/* The name of a thread that is no target and that no sched_switch
	 * named (with per-thread targets only their own switches are
	 * recorded): fills comm[16], or leaves it "".  Optional. */
	void (*name_other)(void *ctx, uint32_t tid, char *comm);
	/* record --syscalls: is call nr one the user asked for (timed,
	 * counted in its thread's histogram, stored at or over
	 * min_sys_ns), or only traced for what it says of descriptors?
	 * NULL: every call is asked for.  Optional. */
	int (*syscall_wanted)(void *ctx, int32_t nr);
	/* A finished call of a target thread, in the order of its exit (an
	 * unfinished one's at the thread's exit or the end): store is 1 for
	 * a call asked for at or over the threshold, or that blocked (state
	 * D) however briefly, or unfinished; else 0 (a shorter one, or one
	 * only traced: not to store).  Optional. */
	int (*syscall_done)(void *ctx, const struct syscall_call *c, int store);
	/* record --latency: a START or END (EV_LAT_*) of a target thread,
	 * or of any thread for a pair keyed by a field (u.tp.keyed: an END
	 * may run in an interrupt, in no target).  e is borrowed for the
	 * call.  Optional. */
	int (*latency_hit)(void *ctx, const struct ev *e);
	/* Per-thread targets: the events opened at the start on thread
	 * tid of process pid, THREAD_EVENTS_OWN (-t), _INHERITED (-p) or
	 * _UNKNOWN (none: a thread no target, or one whose own records
	 * show it first, as a command's do).  Optional: without it, every
	 * thread's events are taken to be inherited. */
	int (*opened_on)(void *ctx, uint32_t pid, uint32_t tid);
	/* record --block-io: a block request's step (EV_BLOCK), of any
	 * thread; t: the target thread it ran in, or NULL (another
	 * process's, a kworker's, an interrupt's).  e and t are borrowed for
	 * the call.  Optional. */
	int (*block_rq)(void *ctx, const struct ev *e, const struct thread *t);
};

struct fault_stats {
	uint64_t entries;		/* fault entries of target threads */
	uint64_t minor, major;		/* completions of target threads */
	uint64_t paired;		/* faults with a duration */
	uint64_t unfinished;		/* entries that never completed */
	uint64_t unpaired_exits;	/* completions without an entry */
	uint64_t stored;		/* rows handed to store_fault */
	uint64_t below_threshold;	/* paired, counted, not stored */
	uint64_t other_threads;		/* fault events of non-target threads */
	uint64_t intervals;		/* thread-state intervals stored */
	uint64_t ran_waits;		/* of those, runnable waits stored with
					 * what ran instead */
	uint64_t tracepoints;		/* -e hits of target threads stored */
	uint64_t tracepoints_other;	/* -e hits in no target thread (an
					 * interrupt's, another process's) */
	uint64_t sys_timed;		/* calls asked for, entry and exit paired */
	uint64_t sys_stored;		/* of those, at or over the threshold */
	uint64_t sys_unfinished;	/* calls asked for, still in progress */
	uint64_t sys_unpaired;		/* an exit without its entry, an entry
					 * without its exit */
};

struct fault_stream {
	struct thread_table threads;	/* owned */
	struct comm_cache names;	/* owned: every thread sched_switch named */
	struct fault_stream_ops ops;	/* borrowed ctx */
	uint64_t min_dur_ns;		/* store paired faults >= this */
	uint64_t min_sys_ns;		/* store calls >= this (--syscalls) */
	/* Events from CPU-wide tracepoints (ev.cpu_wide) can be about any
	 * thread.  When the targets' own events are per thread (-p, -t, a
	 * command), only threads those events showed are targets, and such
	 * events never add a thread; with -a or --comm they do. */
	int cpu_wide_adds_threads;
	/* Per-thread targets whose own events write no switch records
	 * (collector/cpu_switches.h): the CPU-wide switch records are their
	 * timelines too, those of a thread with events of its own
	 * (thread.events, ops.opened_on). */
	int cpu_wide_switches;
	/* Who held each CPU lately, from the CPU-wide switch records
	 * (ev.cpu_wide): what ran while a target waited for a CPU. */
	struct cpu_runs cpus;		/* owned */
	/* The shares of the runnable wait a switch in is ending, for the
	 * interval it stores (of ran_tid on ran_cpu); nran 0: none. */
	struct cpu_share ran[CPU_SHARES_MAX + 1];
	size_t nran;
	uint32_t ran_tid, ran_cpu;
	struct fault_stats st;
};

/* Runnable waits this long or longer say what ran instead (ns). */
#define RAN_INSTEAD_MIN_NS 100000ull

void fault_stream_init(struct fault_stream *s, const struct fault_stream_ops *ops,
		       uint64_t min_dur_ns);
void fault_stream_release(struct fault_stream *s);

/* One event, in time order.  An ev_fn (order.h): ctx is the stream. */
int fault_stream_event(void *stream, const struct ev *e);

/* Records were lost up to until_ts (an EV_LOST, in time order): every
 * target thread's open state interval is uncertain, and those that open
 * before until_ts. */
void fault_stream_lost(struct fault_stream *s, uint64_t until_ts);

/* End of recording at end_ts (CLOCK_REALTIME ns, when the events were
 * disabled): pending entries become unfinished faults, every open state
 * interval ends at end_ts, and every live target thread's spell ends
 * (last_mono_ts stays its last event).  Returns 0 or the sink's negative errno. */
int fault_stream_finish(struct fault_stream *s, uint64_t end_ts);

#endif
