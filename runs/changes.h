/*
 * changes: where a series changed across comparable runs, and what else
 * changed there.
 *
 * Comparable runs have the same labels apart from the run's own id: a
 * label key that every run listed has, with a value no two runs share
 * (run=1, run=2, ...), is the run id and is left out; the runs whose
 * other labels are equal form a group, in time order.
 *
 * The series of a group: the stall time of each thread name with each of
 * the causes lazy binding, evicted-file faults, preemption and quota
 * throttling (diagnose's patterns lazy-binding, file-evicted, preemption,
 * cpu-quota); the chosen metric's events; the p99 fault.  Each is cut by
 * E-Divisive means (edivisive.h, its defaults); a change is said with the
 * means of the segments before and after it, and the environment diff of
 * the runs on either side of it (env_diff.h).
 */
#ifndef FL_RUNS_CHANGES_H
#define FL_RUNS_CHANGES_H

#include <sqlite3.h>
#include <stddef.h>
#include <stdint.h>

#include "../common/errmsg.h"
#include "../common/strbuf.h"
#include "runs.h"

enum series_kind { SERIES_CAUSE, SERIES_METRIC, SERIES_P99 };

struct run_change {
	enum series_kind kind;
	size_t pattern;		/* SERIES_CAUSE: index into diag_patterns[] */
	char *comm;		/* owned: SERIES_CAUSE's thread name, else NULL */
	char *group;		/* owned: the group's labels, JSON ("{}") */
	size_t run;		/* index into the runs: the first run after it */
	size_t before_run;	/* index of the run just before it */
	double before, after;	/* the means of the segments either side:
				 * ns for a cause and the p99, events for
				 * the metric */
	double p;		/* the permutation test's */
	char *environment;	/* owned: env_diff_summary of the two runs */
};

struct run_changes {
	struct run_change *v;	/* owned array, by run then series */
	size_t n, cap;
	size_t nseries;		/* series tested */
	size_t ngroups;
};

void run_changes_init(struct run_changes *c);
void run_changes_release(struct run_changes *c);

/*
 * The change points of runs (runs_read's, on db) into out (initialised);
 * metric: the series runs' metric_events hold, or NULL.  0, -ENOMEM, or
 * -EIO with e set.
 */
int run_changes_find(sqlite3 *db, const struct runs *runs, const char *metric,
		     struct run_changes *out, struct errmsg *e);

/* The series' name in words: "lazy-binding stall time of lbm-rx",
 * "nak events", "p99 fault".  Borrowed (static or c's) until the next
 * call; metric NULL when none was asked. */
const char *run_change_series(const struct run_change *c, const char *metric,
			      char *buf, size_t n);

/*
 * c in words, appended to sb: "run 18 (session 18), 2026-11-20T09:14:03.250Z:
 * lazy-binding stall time of lbm-rx fell from 148.0 ms to 0 ns
 * (p = 0.001); environment: LD_BIND_NOW=1 set; build ids unchanged".
 * runs: what c's indexes point into; metric as for run_change_series.
 */
void run_change_text(const struct runs *runs, const struct run_change *c,
		     const char *metric, struct strbuf *sb);

#endif
