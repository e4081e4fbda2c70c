/*
 * latency_events: record --latency's tracepoints.  Each pair's START and
 * END are opened on every CPU for every thread, as -e's are: an END
 * keyed by a field may fire in an interrupt, in whatever thread it hit
 * (block_rq_complete), so only the stream, in time order, can say whose
 * it is (decoder/fault_stream.h).
 */
#ifndef FL_LATENCY_EVENTS_H
#define FL_LATENCY_EVENTS_H

#include "../common/errmsg.h"
#include "../decoder/latency_pair.h"

struct event_set;

/* Loads and opens every pair of l (NULL or none: 0), its events in
 * set->lat_events (START at 2i, END at 2i + 1) and in set->ids as
 * ROLE_TP_LAT_START / _END with arg i.  A key field either event lacks
 * is refused, naming the fields it has.  0 or -errno with e. */
int latency_events_open(struct event_set *set, const struct lat_spec_list *l,
			struct errmsg *e);

#endif
