/*
 * chrome_trace: a session as the Trace Event Format's JSON object form,
 * which the Perfetto UI (ui.perfetto.dev) and chrome://tracing open:
 *
 *   {"displayTimeUnit":"ns",
 *    "otherData":{ the session, and its wall-clock origin },
 *    "traceEvents":[ ... ]}
 *
 * What each table becomes:
 *   thread          a process (pid) and a thread (tid) per recorded
 *                   thread, named by M events (process_name,
 *                   thread_name: its latest name)
 *   thread_state    complete events (ph X) on the thread's own track,
 *                   named by state (running, sleeping, ...), cat "state";
 *                   a wake-up by a recorded thread is also a flow arrow
 *                   (ph s on the waker, ph f on the woken, cat "wakeup")
 *   fault           complete events on the thread's fault track, named
 *                   "major fault" / "minor fault", cat "fault"; a fault
 *                   that never completed is an instant "unfinished fault"
 *   tracepoint_event  instants (ph i, scope thread) on the thread's track
 *   metric          a counter track (ph C) per series, sampled or
 *                   imported, on the "metrics" process
 *   lost            global instants (scope g) where the kernel reported
 *                   lost records, with the CPU and count
 *
 * Stacks: each distinct stack is written once, as frames of the
 * top-level "stackFrames" tree (stack_frames.h); an event taken in one
 * says so with "sf" (its innermost frame) and args.stack_id (the
 * database's).  A trace of half a million faults that each carried its
 * stack as text was a hundred times the size of its database.
 *
 * Two tracks a thread: the format keeps one stack of nested slices per
 * (pid, tid), and a fault overlaps state intervals without nesting in
 * them (it begins running and ends after a block), so the faults go on a
 * track of their own whose tid is the thread's plus CHROME_TRACE_TID_BASE,
 * named "COMM TID faults".  Linux thread ids stay below 2^22
 * (PID_MAX_LIMIT), so these never meet a real one; the metrics process is
 * CHROME_TRACE_TID_BASE itself.
 *
 * Time: every ts is microseconds since the session's start_ts, written
 * with three decimals (so exact to the ns); dur likewise.  Viewers hold
 * times as doubles, which cannot keep ns since the epoch (1.8e18 > 2^53),
 * so the wall-clock origin is in otherData: origin_realtime_ns (a string,
 * CLOCK_REALTIME ns) and origin_utc.
 */
#ifndef FL_CHROME_TRACE_H
#define FL_CHROME_TRACE_H

#include <sqlite3.h>
#include <stdint.h>

#include "../common/errmsg.h"
#include "session_info.h"

#define CHROME_TRACE_TID_BASE (1u << 30)

/* What was written, for the command's closing line. */
struct chrome_trace_counts {
	uint64_t threads, states, faults, tracepoints;
	uint64_t counter_points, lost;
	uint64_t wake_flows;		/* wake-ups drawn as arrows */
	uint64_t stacked;		/* events with a stack ("sf") */
	uint64_t stacks, frames;	/* distinct stacks; frames of the tree */
	uint64_t lost_untimed;		/* lost rows without a ts: left out */
	uint64_t skipped_values;	/* metric points that are not finite */
};

/*
 * Writes session s of db (path: db_path) to out_path, through a temporary
 * file renamed into place at the end, so a failure leaves no file.
 * Completed faults shorter than min_fault_ns are left out (0: none is),
 * which makes a session of millions of minor faults small enough for a
 * viewer; otherData says the threshold.  0, or a negative errno with e
 * set.  n (may be NULL) gets what was written.
 */
int chrome_trace_write(sqlite3 *db, const char *db_path,
		       const struct session_info *s, uint64_t min_fault_ns,
		       const char *out_path, struct chrome_trace_counts *n,
		       struct errmsg *e);

#endif
