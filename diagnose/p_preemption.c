/*
 * preemption: a thread that had work was switched out for another
 * thread (an involuntary switch: thread_state.preempted) and waited for
 * the CPU at least :min_dur; on a CPU the user declared isolated, any
 * wait.  The preempting thread is sched_switch's next_pid: by_tid of
 * the interval's 'preempted' row in thread_state_reason.
 *
 * One finding per victim, whoever preempted it: the remedies are about
 * the victim's CPU, and a busy machine has many preemptors (a compiler's
 * every process, the JIT's threads).  The refine step ranks the threads
 * that held the CPU meanwhile (ran_instead), which may be others than
 * the one that took it at the switch.
 */
#include "cpu_holders.h"
#include "pattern.h"

/* The threads that held its CPU while it waited (cpu_holders.h). */
static int rank_preemptors(sqlite3 *db, const struct diag_ctx *c,
			   const struct diag_stall *s, struct diag_finding *f,
			   struct errmsg *e)
{
	(void)s;
	(void)e;
	return diag_cpu_holders(db, c, f, 1);
}

const struct diag_pattern diag_preemption = {
	.name = "preemption",
	.title = "preemption: other threads took the CPU while this one had work",
	.needs = "thread states (record's default); next_tid comes from "
		 "sched:sched_switch, which record opens with them",
	.sql =
		"SELECT r.tid, r.ts, r.dur, 'other threads on its CPU',\n"
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
		"lower the other threads'\n"
		"move the preempting threads elsewhere, or make them yield more often",
	.waits_for_cpu = 1,
	.refine = rank_preemptors,
};
