/*
 * drain: the recorder's loop, on the thread that faces the kernel.  It
 * enables the events, then until a stop condition: waits for a ring to
 * pass its watermark (or for a signal, the targets' exit, --duration, or
 * the next clock anchor), takes a clock anchor when one is due, moves
 * what every ring holds into the spool, and says how far the stream is
 * complete.  It decodes nothing and touches no database, so nothing the
 * engine does can hold the rings up (see spool.h for what happens when
 * the engine falls behind).
 *
 * Per round, into the spool, in this order:
 *   SPOOL_ANCHOR  when one is due (every CLOCK_ANCHOR_INTERVAL_NS); taken
 *                 before any ring is read, so a record stamped after it
 *                 comes after it in the spool
 *   SPOOL_DATA    each CPU's records (or SPOOL_LOST for what did not fit)
 *   SPOOL_ROUND   the watermark: CLOCK_MONOTONIC read before the first
 *                 ring, less RECORDER_ORDER_SLACK_NS
 * and at the end a last anchor (every record is stamped before it), a
 * round with watermark UINT64_MAX, and SPOOL_END.
 */
#ifndef FL_DRAIN_H
#define FL_DRAIN_H

#include "../common/errmsg.h"
#include "recorder.h"
#include "spool.h"

/*
 * Records until a stop condition (r->stop says which) or until *abort
 * becomes non-zero (the engine failed: r->stop is STOP_ERROR), then
 * drains what is left and ends the spool's stream; returns once the
 * engine has taken SPOOL_END in.  0 or -errno with e.  abort is read
 * with acquire ordering; it may be NULL.
 */
int drain_run(struct recorder *r, struct spool *sp, const int *abort,
	      struct errmsg *e);

#endif
