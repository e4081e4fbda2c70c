/*
 * clock: the record engine's clock anchors.  The session's first anchor
 * is taken when it starts; the drain thread takes one every
 * CLOCK_ANCHOR_INTERVAL_NS while it records, and a last one when the
 * events are off, and hands each over in the spool, in order with the
 * records (collector/drain.h), so each is added to the session's
 * clock_map before any record stamped after it is converted.  Each is
 * stored; a step the map sees between two of them is stored and counted
 * (decoder/clock_map.h has the rules).
 */
#ifndef FL_RECORD_CLOCK_H
#define FL_RECORD_CLOCK_H

#include "../common/clock.h"
#include "../common/errmsg.h"
#include "../decoder/clock_map.h"
#include "../schema/loader.h"

struct record_clock {
	struct clock_map map;		/* owned: every anchor so far */
	struct clock_anchor last;	/* the latest anchor */
};

void record_clock_init(struct record_clock *c);
void record_clock_release(struct record_clock *c);

/* The first anchor, into the map and *first (for the session row, which
 * stores it).  0 or -ENOMEM. */
int record_clock_start(struct record_clock *c, struct clock_anchor *first);

/* An anchor the drain thread took: into the map, and stored through l
 * with the step before it, if any.  0 or -errno with e. */
int record_clock_add(struct record_clock *c, struct loader *l,
		     const struct clock_anchor *a, struct errmsg *e);

#endif
