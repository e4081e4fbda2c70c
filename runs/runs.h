/*
 * runs: a row per run (session) of a results database, in time order,
 * with the figures a performance engineer lines runs up by: the chosen
 * metric's events in the run's span, stall time by cause, the p99 fault,
 * what was lost.
 *
 * Stall time by cause is diagnose's (diagnose/diagnose.h): the one
 * definition of a stall (schema.sql's stall view) and of each cause (the
 * patterns, each stall counted once, by the first pattern that claims
 * it), run on each session with diagnose's defaults.  The p99 fault is
 * the upper bound of the power-of-two bucket of fault_histogram that
 * holds the 99th percentile of all the target threads' faults, never
 * above the longest one (as the compare query takes it).  A metric's
 * events are the points of the series of that name, imported or the
 * session's own, stamped within [start_ts, end_ts] of the run.
 *
 * Read-only; SQLite.  Nothing here prints.
 */
#ifndef FL_RUNS_H
#define FL_RUNS_H

#include <sqlite3.h>
#include <stddef.h>
#include <stdint.h>

#include "../common/errmsg.h"

struct runs_request {
	const char *labels_json;	/* borrowed: {"K":"V",...}: only runs
					 * with these labels; NULL: every run */
	const char *metric;		/* borrowed: a metric's name, or NULL */
};

/* A run's labels (JSON, the SQL expression json) as "k=v k2=v2", by
 * key, as queries/runs.sql lists them: the same text whatever order of
 * keys the database holds (an older file's, PostgreSQL's jsonb). */
#define RUN_LABELS_TEXT(json) "(SELECT group_concat(kv, ' ') FROM (SELECT" \
	" key || '=' || value AS kv FROM json_each(" json ") ORDER BY key" \
	" COLLATE BINARY))"

/* diagnose's findings a run's report shows. */
#define RUN_FINDINGS 5

/* A thread's stall time with one cause in one run. */
struct run_cause {
	size_t pattern;		/* index into diag_patterns[] */
	char *comm;		/* owned: the thread's name */
	int64_t ns;
};

struct run_row {
	int64_t session_id;
	int64_t start_ts, end_ts;	/* CLOCK_REALTIME ns; end_ts = start_ts
					 * when the session never ended */
	char *labels;		/* owned: the session's labels, JSON */
	char *host;		/* owned */
	char *status;		/* owned */
	int64_t metric_events;	/* -1: no metric asked */
	int64_t *cause_ns;	/* owned: diag_npatterns entries, all threads */
	struct run_cause *causes;	/* owned: per thread name, pattern */
	size_t ncauses, causes_cap;
	char *findings;		/* owned: diagnose's findings as text (the
				 * five worst), for the run's report */
	int64_t p99_fault_ns;	/* -1: no fault */
	int64_t lost;		/* records lost, samples lost, records dropped */
};

struct runs {
	struct run_row *v;	/* owned array, by start_ts then session id */
	size_t n, cap;
};

void runs_init(struct runs *r);
void runs_release(struct runs *r);

/*
 * The runs of db (at path, for messages) that req selects into out
 * (initialised).  0; -ENOENT with e set when req->metric names no series
 * (the message lists those there are); -ENOMEM; -EIO with e set when a
 * query fails.
 */
int runs_read(sqlite3 *db, const char *path, const struct runs_request *req,
	      struct runs *out, struct errmsg *e);

/*
 * The ids of the sessions runs_read would read with labels_json (as
 * runs_request's), in its order: *ids (owned by the caller, free), *n
 * of them.  What a results database stages (cli/reader.h).  0, or
 * -ENOMEM / -EIO with e set.
 */
int runs_session_ids(sqlite3 *db, const char *path, const char *labels_json,
		     int64_t **ids, size_t *n, struct errmsg *e);

/* The stall time of pattern for thread name comm in run r; 0 if none. */
int64_t run_cause_ns(const struct run_row *r, size_t pattern, const char *comm);

#endif
