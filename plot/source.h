/*
 * source: what a plot reads from a finished database, through SQL only,
 * for one session and one window [from, to) (CLOCK_REALTIME ns): its
 * lanes (threads, metric series), each lane's rows in time order fed to
 * a reduction, and the spans where records were lost.
 *
 * Every row query walks an index by (session_id, tid, ts) or (series_id,
 * ts) from the window's start, so a small window of a long session reads
 * only its own rows.
 */
#ifndef FL_PLOT_SOURCE_H
#define FL_PLOT_SOURCE_H

#include <sqlite3.h>
#include <stddef.h>
#include <stdint.h>

#include "../common/errmsg.h"
#include "model.h"
#include "reduce.h"

struct plot_source {
	sqlite3 *db;		/* borrowed */
	const char *path;	/* borrowed: names db in messages */
	int64_t session;
	int64_t from_ts, to_ts;	/* the window, CLOCK_REALTIME ns */
	int64_t start_ts, end_ts;	/* the session's span: which imported
					 * series are beside it */
	struct errmsg *e;	/* borrowed: the caller's */
};

struct plot_thread {
	int64_t tid, pid;
	char *comm;		/* owned: its name at the window's end */
	char *names;		/* owned: every name it had, ", " between */
	int has_rows;		/* a state, fault or hit in the window */
	int busy;		/* a fault in the window, or a stall (the
				 * stall view) of PLOT_STALL_NS or more
				 * reaching into it; 0: idle */
};

/* The shortest stall off the CPU that makes a thread worth a lane. */
#define PLOT_STALL_NS 1000000

/* A metric as asked for: --metric NAME[=line|ticks]. */
struct plot_metric_pick {
	const char *name;		/* borrowed */
	enum plot_metric_style style;	/* AUTO: by where it came from */
	int matched;			/* a series of that name was found */
};

struct plot_series {
	int64_t series_id;
	char *name, *labels, *unit;	/* owned; unit NULL when none */
	int imported;			/* by faultline import, not sampled */
	enum plot_metric_style style;	/* LINE or TICKS */
	int64_t points;			/* in the window */
	double vmin, vmax;		/* of those points */
};

/*
 * The lanes.  Threads: those of tids (n of them; an id the session never
 * recorded is -ENOENT, e listing the ones it did), or, when n is 0, every
 * thread with a row in the window, by pid then tid; each says whether it
 * was busy there.  Series: those named
 * by picks (a name no series of the session has is -ENOENT, e listing the
 * names there are), or, when npicks is 0, every series with a point in
 * the window: the session's own (record --udp-port) drawn as a line, the
 * imported ones (faultline import) as ticks, unless a pick says which.
 * *out is owned by the caller: plot_threads_free, plot_series_free.
 */
int plot_source_threads(struct plot_source *src, const int64_t *tids, size_t n,
			struct plot_thread **out, size_t *nout);
int plot_source_series(struct plot_source *src, struct plot_metric_pick *picks,
		       size_t npicks, struct plot_series **out, size_t *nout);
void plot_threads_free(struct plot_thread *t, size_t n);
void plot_series_free(struct plot_series *s, size_t n);

/* One lane's rows of each kind into r, in time order, then flushed.
 * 0, or a negative errno (e set, or the sink's). */
int plot_source_states(struct plot_source *src, int64_t tid, struct plot_reduce *r);
int plot_source_faults(struct plot_source *src, int64_t tid, struct plot_reduce *r);
int plot_source_events(struct plot_source *src, int64_t tid, struct plot_reduce *r);
int plot_source_points(struct plot_source *src, int64_t series_id,
		       struct plot_reduce *r);

/*
 * The CPU lanes (plot/cpus.c): the CPUs a target ran on in the window,
 * or waited for there (ran_instead), ascending, in *out (the caller's:
 * free); then for each of cpus, lane(ctx, cpu) and that CPU's spans into
 * r in time order per kind (the targets' running intervals, then the
 * holders' shares of the waits, model.h), flushed.
 */
int plot_source_cpus(struct plot_source *src, int64_t **out, size_t *nout);
int plot_source_cpu_lanes(struct plot_source *src, const int64_t *cpus, size_t n,
			  int (*lane)(void *ctx, int64_t cpu), void *ctx,
			  struct plot_reduce *r);

/*
 * The spans losses cover, to ops->lost.  A loss report (lost row) comes
 * after the loss, from the ring of its CPU: what that ring held between
 * its last record that was stored (a fault entry, a tracepoint hit on
 * that CPU) and the report is incomplete, so that is the span; for
 * 'throttled' the kernel stopped sampling at the report, up to the next
 * stored record.  A report without a CPU spans from the last record of
 * any CPU.  Rows without a ts are counted in n->lost_untimed.
 */
int plot_source_lost(struct plot_source *src, const struct plot_sink_ops *ops,
		     void *w, struct plot_counts *n);

#endif
