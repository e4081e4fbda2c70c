/*
 * reduce: a lane's rows down to what a plot of a given resolution can
 * show.  Pure: rows in, items out through the sink, no SQL, no I/O.
 *
 * The window is cut into columns of quantum_ns (the writer's pixel, or a
 * fraction of one for a page that can be zoomed).  The rules:
 *
 *   states   an interval at least a column long is kept as recorded;
 *            a run of shorter ones is merged into one block that ends
 *            once it spans a column (or at the next long one), with the
 *            time it spent in each state; a block of one interval is
 *            that interval, kept as recorded.
 *   faults   a fault at least keep_fault_ns long, and a fault that never
 *            completed, is kept as recorded, always; the others merge,
 *            per kind, with the faults that begin within a column of the
 *            first (count, longest, total); a merge of one is kept.
 *   events   (tracepoint hits) merge like short faults, of any name.
 *   points   (metrics) merge like short faults: min, max, first, last.
 *   cpu      (a CPU lane's spans) merge like states, per kind: count,
 *            time busy, the thread of the longest.
 *
 * So a lane yields at most about two items a column per kind, whatever
 * its row count, plus the long faults; nothing long is ever hidden, and
 * every merge says what it holds.
 *
 * Usage, per lane: plot_reduce_state() for each state row in time order,
 * then plot_reduce_flush(); the same for faults (in time order), events,
 * points.  Each call returns 0 or the sink's error.
 */
#ifndef FL_PLOT_REDUCE_H
#define FL_PLOT_REDUCE_H

#include "../common/strbuf.h"
#include "model.h"

struct plot_reduce {
	int64_t quantum_ns;		/* > 0 */
	int64_t keep_fault_ns;
	const struct plot_sink_ops *ops;	/* borrowed */
	void *w;				/* borrowed: the writer */
	struct plot_counts *n;			/* borrowed: counted into */

	struct plot_state st;		/* the open state block */
	int st_open;
	char waker[64], next_comm[64];	/* its strings, copied: the
						 * row they came from is gone */
	struct plot_fault fl[PF_NKINDS];	/* the open fault merges */
	int fl_open[PF_NKINDS];
	struct plot_event ev;		/* the open event merge */
	int ev_open;
	struct strbuf ev_name, ev_fields;	/* owned: its first hit's */
	struct plot_point pt;		/* the open point merge */
	int pt_open;
	struct plot_cpu_span cs[PC_NKINDS];	/* the open CPU span merges */
	int cs_open[PC_NKINDS];
	int64_t cs_longest[PC_NKINDS];		/* their longest span */
	char cs_name[PC_NKINDS][64];		/* its name, copied */
};

/* Sets r up (nothing allocated until an event needs its strings). */
void plot_reduce_init(struct plot_reduce *r, int64_t quantum_ns,
		      int64_t keep_fault_ns, const struct plot_sink_ops *ops,
		      void *w, struct plot_counts *n);

/* Rows: s, f, ev, p as read, n == 1; their strings borrowed for the call. */
int plot_reduce_state(struct plot_reduce *r, const struct plot_state *s);
int plot_reduce_fault(struct plot_reduce *r, const struct plot_fault *f);
int plot_reduce_event(struct plot_reduce *r, const struct plot_event *ev);
int plot_reduce_point(struct plot_reduce *r, const struct plot_point *p);
int plot_reduce_cpu(struct plot_reduce *r, const struct plot_cpu_span *c);

/* Hands over every open merge: at the end of each kind's rows. */
int plot_reduce_flush(struct plot_reduce *r);

void plot_reduce_release(struct plot_reduce *r);

#endif
