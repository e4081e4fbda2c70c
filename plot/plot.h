/*
 * plot: a session's timeline on one wall-clock axis, written as a page a
 * browser opens offline (HTML) or as a static picture (SVG): a lane per
 * thread (its states, its faults, its tracepoint hits), a lane per metric
 * series, the spans records were lost in shaded across them.
 *
 * plot_write reads (plot/source.c), reduces to the plot's resolution
 * (plot/reduce.c) and writes (plot/html.c, plot/svg.c) in one pass over
 * each lane, so memory stays small whatever the session's size; the file
 * takes its name only once it is whole.
 */
#ifndef FL_PLOT_H
#define FL_PLOT_H

#include <sqlite3.h>
#include <stddef.h>
#include <stdint.h>

#include "../common/errmsg.h"
#include "../export/session_info.h"
#include "model.h"
#include "source.h"

enum plot_format { PLOT_HTML, PLOT_SVG };

struct plot_spec {
	enum plot_format format;
	int64_t from_ts, to_ts;		/* the window, CLOCK_REALTIME ns; from < to */
	const int64_t *tids;		/* borrowed: the threads; none: every
					 * one with rows in the window */
	size_t ntids;
	struct plot_metric_pick *metrics;	/* borrowed: none: every series
						 * with points in the window */
	size_t nmetrics;
	unsigned width_px;		/* the plot area's width */
	unsigned zoom;			/* HTML: the data keeps detail for this
					 * much zooming in (columns = width *
					 * zoom); SVG: 1 */
	int64_t keep_fault_ns;		/* faults this long are always drawn */
	int all_threads;		/* without tids: a lane for every thread
					 * with rows, idle ones too (default:
					 * only those busy, source.h) */
};

/* Stack lines in the page name at most this many functions. */
#define PLOT_STACK_NAMES 8

/*
 * Writes the plot of session s of db (path: db_path) to out_path.  0, or
 * a negative errno with e set: -ENODATA when the window holds no row of
 * any lane (e says when the session ran), -ENOENT for a tid or metric the
 * session does not have.  n (may be NULL) gets what was read and drawn.
 */
int plot_write(sqlite3 *db, const char *db_path, const struct session_info *s,
	       const struct plot_spec *spec, const char *out_path,
	       struct plot_counts *n, struct errmsg *e);

#endif
