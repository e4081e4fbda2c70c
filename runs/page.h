/*
 * page: the chart of runs as one HTML file that needs nothing else (no
 * script or style from anywhere, a Content-Security-Policy that forbids
 * every request, as the timeline plot's page): the runs in time order as
 * blocks coloured by the chosen figure, a change point marked on the run
 * it begins at; the table of runs; the change points in words; and each
 * run's report, which its block links to: its figures, its stall time
 * by cause and thread, diagnose's findings, its environment.
 *
 * The figure is the metric's events when one was chosen, else the
 * run's stall time of every cause.  Colours go from green (the lowest)
 * to red (the highest).
 */
#ifndef FL_RUNS_PAGE_H
#define FL_RUNS_PAGE_H

#include <sqlite3.h>

#include "../common/errmsg.h"
#include "changes.h"
#include "runs.h"

/* Writes the page to out_path (replaced whole, or left as it was on a
 * failure); db at db_path is read for each run's environment.  0, or a
 * negative errno with e set. */
int runs_page_write(sqlite3 *db, const char *db_path, const struct runs *r,
		    const struct run_changes *c, const char *metric,
		    const char *out_path, struct errmsg *e);

#endif
