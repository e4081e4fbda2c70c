/* plot_finding: faultline plot --finding N (cli/plot_finding.c). */
#ifndef FL_PLOT_FINDING_H
#define FL_PLOT_FINDING_H

#include <sqlite3.h>
#include <stdint.h>

#include "../common/errmsg.h"

struct plot_finding {
	int64_t from_ts, to_ts;	/* the window, CLOCK_REALTIME ns */
	int64_t tid;		/* the finding's thread */
};

/* Runs faultline diagnose's engine on session of db and gives the window
 * and thread of its nth finding (1: the worst).  0, -ENOENT with e set
 * when there is no such finding, or another negative errno with e set. */
int plot_finding_window(sqlite3 *db, const char *path, int64_t session,
			uint64_t n, struct plot_finding *out, struct errmsg *e);

#endif
