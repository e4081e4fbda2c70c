/*
 * preemption: a thread that had work was switched out for another
 * thread (an involuntary switch: thread_state.preempted) and waited for
 * the CPU at least :min_dur; on a CPU the user declared isolated, any
 * wait.  The preempting thread is sched_switch's next_pid: by_tid of
 * the interval's 'preempted' row in thread_state_reason.
 */
#include "pattern.h"

const struct diag_pattern diag_preemption = {
	.name = "preemption",
	.title = "preemption: another thread took the CPU while this one had work",
	.needs = "thread states (record's default); next_tid comes from "
		 "sched:sched_switch, which record opens with them",
	.sql =
		"SELECT r.tid, r.ts, r.dur,\n"
		"       coalesce(nullif(r.by_comm, ''), '?') || ' (' || r.by_tid || ')',\n"
		"       'thread_state row ' || r.state_id || ': runnable for ' ||\n"
		"         printf('%.3f ms', r.dur / 1e6) || ' after ' ||\n"
		"         coalesce(nullif(r.by_comm, ''), '?') || ' (' || r.by_tid ||\n"
		"         ') took its CPU',\n"
		"       r.stack_id, NULL, NULL\n"
		"  FROM thread_state_reason r\n"
		" WHERE r.session_id = :session AND r.reason = 'preempted'\n"
		"   AND r.by_tid IS NOT NULL AND r.by_tid NOT IN (0, r.tid)\n"
		"   AND (r.dur >= :min_dur OR (:isolated IS NOT NULL AND instr(:isolated,\n"
		"        ',' || (SELECT p.cpu FROM thread_state p\n"
		"                 WHERE p.session_id = r.session_id AND p.tid = r.tid\n"
		"                   AND p.ts < r.ts ORDER BY p.ts DESC LIMIT 1) || ',') > 0))",
	.remedies =
		"give the thread a CPU of its own (taskset, cpusets, isolcpus=) and keep "
		"other work off it\n"
		"raise its priority (nice -n -5, or chrt -f for a real-time policy) or "
		"lower the other thread's\n"
		"move the preempting thread elsewhere, or make it yield more often",
};
