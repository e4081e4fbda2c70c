/*
 * stack_match: SQL shared by the patterns that recognise a stall by the
 * functions on its stack (record --stacks, symbolized).  STACK_STALLS(X)
 * is a SELECT of the faults of at least :min_fault and the intervals off
 * the CPU of at least :min_dur whose stack is in the CTE named X (a
 * column stack_id), as (tid, ts, dur, stack_id, what): what names the
 * row.  Faults are found through fault_by_stack, intervals through
 * thread_state_off_cpu_by_dur.
 */
#ifndef FL_DIAG_STACK_MATCH_H
#define FL_DIAG_STACK_MATCH_H

/* The stacks of :session holding a frame whose function satisfies cond
 * (on symbol y), with the outermost such frame's depth. */
#define STACKS_WITH(cond) \
	"SELECT sf.stack_id, max(sf.depth) AS depth\n" \
	"  FROM symbol y JOIN stack_frame sf ON sf.session_id = y.session_id\n" \
	"   AND sf.frame_id = y.frame_id\n" \
	" WHERE y.session_id = :session AND (" cond ")\n" \
	" GROUP BY sf.stack_id"

#define STACK_STALLS(x) \
	"SELECT f.tid, f.ts, f.dur, f.stack_id,\n" \
	"       'fault row ' || f.rowid || ': ' || f.kind || ', ' ||\n" \
	"         printf('%.3f ms', f.dur / 1e6) AS what\n" \
	"  FROM " x " k JOIN fault f ON f.session_id = :session\n" \
	"   AND f.stack_id = k.stack_id\n" \
	" WHERE f.dur >= :min_fault\n" \
	"UNION ALL\n" \
	"SELECT x.tid, x.ts, x.dur, x.stack_id,\n" \
	"       'thread_state row ' || x.rowid || ': ' || x.state || ', ' ||\n" \
	"         printf('%.3f ms', x.dur / 1e6)\n" \
	"  FROM thread_state x\n" \
	" WHERE x.session_id = :session AND x.state != 'running'\n" \
	"   AND x.dur >= :min_dur\n" \
	"   AND x.stack_id IN (SELECT stack_id FROM " x ")"

#endif
