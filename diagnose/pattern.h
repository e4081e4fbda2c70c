/*
 * pattern: one mechanism that stalls threads, as the engine (diagnose.h)
 * runs it.  Each lives in its own file (diagnose/p_NAME.c) and is listed
 * once in diag_patterns[] (patterns.c): a new pattern is a new file and
 * one line there.
 *
 * The fingerprint is one SELECT.  It may use these parameters, bound by
 * the engine when it names them:
 *
 *   :session       INTEGER  the session
 *   :min_dur       INTEGER  ns, shortest interval off the CPU to consider
 *   :min_fault     INTEGER  ns, shortest fault to consider
 *   :recorder_pid  INTEGER  the recorder's process (NULL when unknown)
 *   :isolated      TEXT     ",0,3,": CPUs declared isolated, or NULL
 *
 * and returns one row per stall, in these columns, in this order:
 *
 *   tid       INTEGER  the thread that stalled
 *   ts        INTEGER  when the stall began, ns, CLOCK_REALTIME
 *   dur       INTEGER  how long, ns
 *   culprit   TEXT     what the stalls of one finding share (the file, the
 *                      preempting thread); one finding per thread and culprit
 *   evidence  TEXT     the rows that show it, in words ("fault row 64, ...")
 *   stack_id  INTEGER  a stack of the stall, or NULL
 *   file      TEXT     a file the evidence names, or NULL
 *   offset    INTEGER  an offset in that file, or NULL
 */
#ifndef FL_DIAG_PATTERN_H
#define FL_DIAG_PATTERN_H

#include <sqlite3.h>
#include <stdint.h>

#include "../common/errmsg.h"
#include "diagnose.h"

/* What a refine step may need besides the finding. */
struct diag_ctx {
	int64_t session_id;
	int64_t recorder_pid;	/* 0 when unknown */
	uint64_t min_dur_ns;	/* :min_dur, as the fingerprints had it */
	/* Every stall counted, sorted by (tid, ts): a finding's are those of
	 * its pattern, thread and culprit (diag_finding_stalls). */
	const struct diag_result *res;
};

struct diag_pattern {
	const char *name;	/* "lazy-binding": --format json, the man page */
	const char *title;	/* the mechanism in plain words */
	const char *needs;	/* what must be recorded for it to be seen */
	const char *sql;	/* the fingerprint */
	const char *remedies;	/* options, one per line, '\n'-separated;
				 * "%s" stands for the finding's detail when
				 * it has one */
	/* 1: its stalls are waits for a CPU (runnable intervals).  They
	 * and the others (faults, calls, blocked intervals) do not take
	 * each other's place: a fault or a call that waited for a CPU
	 * inside it keeps its stall, less that time (group.c), and the
	 * wait is a stall of this pattern's. */
	int waits_for_cpu;
	/*
	 * Optional: adds to finding f, whose longest stall is s, what SQL
	 * cannot say (lazy binding names the function being bound from the
	 * caller's file).  0, or a negative errno; a finding it cannot refine
	 * is shown without it (f->detail stays NULL), never dropped.
	 */
	int (*refine)(sqlite3 *db, const struct diag_ctx *c,
		      const struct diag_stall *s, struct diag_finding *f,
		      struct errmsg *e);
};

/* The registry, specific before general (a stall two patterns claim goes
 * to the first). */
extern const struct diag_pattern *const diag_patterns[];
extern const size_t diag_npatterns;

extern const struct diag_pattern diag_lazy_binding;
extern const struct diag_pattern diag_reclaim;
extern const struct diag_pattern diag_numa_balancing;
extern const struct diag_pattern diag_file_evicted;
extern const struct diag_pattern diag_file_in_flight;
extern const struct diag_pattern diag_file_io;
extern const struct diag_pattern diag_fsync;
extern const struct diag_pattern diag_futex;
extern const struct diag_pattern diag_anon_swapped;
extern const struct diag_pattern diag_recorder;
extern const struct diag_pattern diag_cpu_quota;
extern const struct diag_pattern diag_preemption;
extern const struct diag_pattern diag_slow_wakeup;
extern const struct diag_pattern diag_blocked;

#endif
