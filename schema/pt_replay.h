/*
 * pt_replay: decodes a session's stored Intel PT traces into pt_call and
 * pt_gap rows, from what the database holds: the raw trace (pt_trace),
 * the clock (pt_clock, pt_calibration, the anchors), each process's
 * mappings (mapping: MMAP2 sideband and /proc/PID/maps at the start),
 * the vDSO image (pt_vdso), and the files those mappings name, read
 * from this machine now.  Record runs it when the recording ends;
 * faultline pt --decode runs it again later (after a library was
 * found, say): the rows of the earlier decode are replaced.
 *
 * A trace is decoded over its process's image as of the trace's time:
 * the mappings stored up to then, in time order.
 */
#ifndef FL_PT_REPLAY_H
#define FL_PT_REPLAY_H

#include <stdint.h>
#include <sqlite3.h>

#include "../common/errmsg.h"
#include "../decoder/pt_flow.h"

struct pt_replay_stats {
	uint64_t traces;	/* decoded */
	uint64_t bytes;		/* of trace */
	uint64_t rows, gaps;	/* stored */
	uint64_t bytes_unsynced;	/* before a first PSB: not decodable */
};

/*
 * Decodes every stored trace of session_id.  debuginfo_path: libdwfl's
 * (NULL: the default) for naming functions.  0, or -ENOENT when the
 * session has no Intel PT (e says so), or -errno with e.  Everything is
 * written in one transaction: a failure leaves the earlier rows.
 */
int pt_replay_session(sqlite3 *db, const char *path, int64_t session_id,
		      const char *debuginfo_path, struct pt_replay_stats *st,
		      struct errmsg *e);

#endif
