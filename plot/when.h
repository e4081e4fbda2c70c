/*
 * when: a wall-clock time as a user writes it, to CLOCK_REALTIME ns.
 *
 *   1795474351237460456             ns since the Unix epoch
 *   2026-11-23T22:52:31.23746Z      a UTC date and time (the Z, or a
 *   2026-11-23 22:52:31.23746       space for the T, may be left out;
 *                                   common/clock.h's utc_parse)
 *   22:52:31.23746                  a UTC time of day, on the session's
 *                                   day: the day it began, or the next
 *                                   one when only that falls inside it
 *
 * Seconds take up to 9 decimals.  (A time relative to the session's start,
 * "+1.5s", is the command's to resolve: it parses durations.)
 */
#ifndef FL_PLOT_WHEN_H
#define FL_PLOT_WHEN_H

#include <stdint.h>

#include "../common/errmsg.h"

/*
 * s to *ts; start_ts and end_ts (CLOCK_REALTIME ns) are the session's,
 * for a time of day.  0, or -EINVAL with e naming opt and what was
 * expected.
 */
int plot_when_parse(const char *s, const char *opt, int64_t start_ts,
		    int64_t end_ts, int64_t *ts, struct errmsg *e);

#endif
