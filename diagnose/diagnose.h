/*
 * diagnose: names the cause of a session's stalls.
 *
 * Each pattern (pattern.h, one file each, registered in patterns.c) is a
 * fingerprint query that finds the stalls it explains: a fault or an
 * interval off the CPU of a target thread.  The engine runs them in the
 * registry's order, counts each stall once (where two patterns claim
 * overlapping stalls of one thread, the one registered first keeps it:
 * the registry lists the specific before the general; but a wait for a
 * CPU inside a fault or a call is the CPU's, not the fault's or the
 * call's), lines each stall
 * up with the events of a metric it preceded (or followed by at most
 * after_ns), groups the stalls of one
 * thread with one culprit into a finding, and ranks the findings by harm:
 * events preceded, then time lost.
 *
 * Everything is read through SQL; nothing here prints.
 */
#ifndef FL_DIAGNOSE_H
#define FL_DIAGNOSE_H

#include <sqlite3.h>
#include <stddef.h>
#include <stdint.h>

#include "../common/errmsg.h"

/* What the caller asks; diag_request_init sets the defaults. */
struct diag_request {
	int64_t session_id;	/* > 0: the session to diagnose */
	const int64_t *tids;	/* borrowed: the threads that matter; NULL
				 * (ntids 0): every target thread */
	size_t ntids;
	const char *event;	/* borrowed: the metric whose events the
				 * stalls are lined up with; NULL: none */
	uint64_t window_ns;	/* an event this long after a stall's end
				 * still counts as preceded by it */
	uint64_t after_ns;	/* and one this long before its start counts
				 * too: a sample stamped when a request began,
				 * with the stall just after (0: none) */
	int has_min_value;	/* only events whose value is min_value or
				 * more count */
	double min_value;
	uint64_t min_dur_ns;	/* shortest interval off the CPU considered */
	uint64_t min_fault_ns;	/* shortest fault considered */
	const char *isolated;	/* borrowed: ",0,3," the CPUs the user
				 * declared isolated (any preemption there
				 * counts), or NULL */
};

void diag_request_init(struct diag_request *r);

/* One stall a pattern explained.  Times: ts CLOCK_REALTIME ns. */
struct diag_stall {
	int64_t tid, ts, dur_ns;
	/* Of dur_ns, the time lost to its pattern: all of it, but for a
	 * fault or a call the time its thread waited for a CPU inside it
	 * (runnable), which is the CPU's (diag_pattern.waits_for_cpu). */
	int64_t lost_ns;
	size_t pattern;		/* index into diag_patterns[] */
	char *culprit;		/* owned: what groups it (a file, a thread) */
	char *evidence;		/* owned: row ids and what they say */
	int64_t stack_id;	/* 0 when none */
	char *file;		/* owned or NULL: a file the evidence names */
	int64_t file_offset;	/* an offset in it, -1 when none */
	size_t ev_lo, ev_hi;	/* the events it preceded: [ev_lo, ev_hi) of
				 * the sorted event times */
};

/* Stalls of one pattern, one thread and one culprit. */
struct diag_finding {
	size_t pattern;		/* index into diag_patterns[] */
	int64_t tid;
	char *comm;		/* owned: the thread's name, "" when unknown */
	char *culprit;		/* owned: copied from its stalls */
	char *detail;		/* owned or NULL: what a pattern's refine
				 * added (the function being bound) */
	size_t nstalls;
	int64_t first_ts, last_end_ts;	/* CLOCK_REALTIME ns */
	int64_t lost_ns;	/* the stalls' durations, summed */
	int64_t near_ns;	/* of those, the stalls that preceded an event */
	size_t longest;		/* index of its longest stall in the result's
				 * stalls[] */
	size_t events;		/* distinct events its stalls preceded */
	char *stack;		/* owned or NULL: the longest stall's stack,
				 * innermost first ("c <- b <- main") */
};

/* A thread's time off the CPU with one reason (thread_state_reason);
 * preemption by faultline's own threads is a reason of its own. */
struct diag_reason {
	char *reason;		/* owned: thread_state_reason.reason */
	int by_recorder;	/* 1: the thread that preempted or woke it was
				 * faultline's */
	int64_t ns;		/* the intervals' durations, summed */
	size_t intervals;
};

/* The time off the CPU of one thread with findings, by reason. */
struct diag_thread {
	int64_t tid;
	char *comm;		/* owned: as its first finding names it */
	int64_t off_cpu_ns;	/* every interval not running, summed */
	struct diag_reason *reasons;	/* owned array, most time first */
	size_t nreasons, reasons_cap;
};

struct diag_result {
	struct diag_stall *stalls;	/* owned array, sorted by (tid, ts) */
	size_t nstalls, stalls_cap;
	struct diag_finding *findings;	/* owned array, ranked, worst first */
	size_t nfindings, findings_cap;
	int64_t *event_ts;		/* owned: the event metric's times, sorted */
	size_t nevents, events_cap;
	int64_t recorder_pid;		/* session.recorder_pid, 0 when unknown */
	/* The CPUs the machine had isolated when it recorded (session_env's
	 * cpu.isolated, as the kernel lists them), taken as the request's
	 * isolated CPUs because it named none; "" when not. */
	char isolated_recorded[128];
	/* The intervals off the CPU that records were lost in (uncertain):
	 * not judged, so said (thread_state_reason leaves them out). */
	int64_t uncertain_intervals, uncertain_ns;
	/* The stalls (the stall view's, over the thresholds) that no
	 * pattern named: time lost that no finding holds. */
	int64_t unnamed_stalls, unnamed_ns;
	/* 1: recorded with --no-wakers, so a wait for a CPU after a wake-up
	 * is part of the sleep before it, and no slow wake-up is seen. */
	int no_wakers;
	/* 1: recorded with --no-wake-stacks, so what issued a wake-up is
	 * unnamed: a sleep woken by a disk completion counts as idle unless
	 * its own stack (--stacks) says disk. */
	int no_wake_stacks;
	/* Fault samples the session stamped in another recorder's clock
	 * (session.samples_mistimed): its faults' times may be wrong. */
	int64_t samples_mistimed;
	struct diag_thread *threads;	/* owned array: each thread with a
					 * finding once, in the order of its
					 * worst finding */
	size_t nthreads, threads_cap;
};

void diag_result_init(struct diag_result *res);
void diag_result_release(struct diag_result *res);

/*
 * Runs every pattern on db for req into res (initialised by the caller).
 * 0; -ENOENT with e set when req->event names no metric; -ENOMEM; another
 * negative errno with e set when a query fails.
 */
int diag_run(sqlite3 *db, const struct diag_request *req,
	     struct diag_result *res, struct errmsg *e);

#endif
