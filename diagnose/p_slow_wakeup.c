/*
 * slow wake-up: a thread was woken (it had work again) but was left
 * waiting for a CPU at least :min_dur before it ran: the runnable
 * interval that follows a sleep without a preemption: thread_state_reason's
 * 'wakeup-latency', with the waker and its CPU and the sleep's stack.
 * The queue's CPU is the CPU of the running interval after.
 */
#include "cpu_holders.h"
#include "pattern.h"

/* What held the CPU while it waited after its wake-ups. */
static int rank_holders(sqlite3 *db, const struct diag_ctx *c,
			const struct diag_stall *s, struct diag_finding *f,
			struct errmsg *e)
{
	(void)s;
	(void)e;
	return diag_cpu_holders(db, c, f, 0);
}

const struct diag_pattern diag_slow_wakeup = {
	.name = "slow-wakeup",
	.title = "slow wake-up: woken with work to do, then left waiting for a CPU",
	.needs = "thread states (record's default), with sched:sched_waking for "
		 "the waker",
	.sql =
		"SELECT r.tid, r.ts, r.dur, 'wake-ups',\n"
		"       'thread_state row ' || r.state_id || ': runnable for ' ||\n"
		"         printf('%.3f ms', r.dur / 1e6) || ' after a wake-up by ' ||\n"
		"         CASE WHEN r.by_tid = 0 THEN coalesce(r.detail, 'an interrupt')\n"
		"              WHEN r.by_tid IS NULL THEN 'an unseen waker'\n"
		"              ELSE coalesce(nullif(r.by_comm, ''), '?') || ' (' ||\n"
		"                   r.by_tid || ')' ||\n"
		"                   coalesce(' (' || r.detail || ')', '') END ||\n"
		"         coalesce(', then ran on CPU ' || n.cpu, ''),\n"
		"       r.stack_id, NULL, NULL\n"
		"  FROM thread_state_reason r\n"
		"  LEFT JOIN thread_state n ON n.session_id = r.session_id\n"
		"   AND n.tid = r.tid AND n.ts = r.ts + r.dur\n"
		" WHERE r.session_id = :session AND r.reason = 'wakeup-latency'\n"
		"   AND r.dur >= :min_dur",
	.remedies =
		"keep the CPUs it wakes on less busy, or give it CPUs of its own "
		"(taskset, cpusets)\n"
		"raise its priority (nice -n -5, chrt) so a wake-up preempts what runs\n"
		"busy-poll instead of sleeping where the latency matters more than the CPU",
	.waits_for_cpu = 1,
	.refine = rank_holders,
};
