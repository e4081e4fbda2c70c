/*
 * preemption: a thread that had work was switched out for another
 * thread (an involuntary switch: thread_state.preempted) and waited for
 * the CPU at least :min_dur; on a CPU the user declared isolated, any
 * wait.  The preempting thread is sched_switch's next_pid: by_tid of
 * the interval's 'preempted' row in thread_state_reason.
 *
 * One finding per victim, whoever preempted it: the remedies are about
 * the victim's CPU, and a busy machine has many preemptors (a compiler's
 * every process, the JIT's threads).  The refine step ranks them.
 */
#include <errno.h>
#include <string.h>

#include "../common/strbuf.h"
#include "pattern.h"

/* How many preemptors the detail names before summing the rest. */
#define PREEMPTORS_NAMED 3

/*
 * The threads that preempted f's thread over the finding's span, most
 * time first, in f->detail: "cc1 (22745) 4.100 ms, as (22750) 1.200 ms,
 * 3 others 0.400 ms".  Every preemption of the span counts, short ones
 * too: they share the same CPU.  faultline's own are the recorder
 * finding's, not counted again here.  Each wait is the thread's that took
 * the CPU at the switch (sched_switch's next_pid), though others may run
 * before the victim does.
 */
static int rank_preemptors(sqlite3 *db, const struct diag_ctx *c,
			   const struct diag_stall *s, struct diag_finding *f,
			   struct errmsg *e)
{
	static const char sql[] =
		"SELECT coalesce(nullif(by_comm, ''), '?') || ' (' || by_tid || ')',"
		"       sum(dur) AS ns"
		"  FROM thread_state_reason"
		" WHERE session_id = ?1 AND tid = ?2 AND reason = 'preempted'"
		"   AND by_tid IS NOT NULL AND by_tid NOT IN (0, ?2) AND by_recorder = 0"
		"   AND ts >= ?3 AND ts < ?4"
		" GROUP BY by_tid ORDER BY ns DESC, by_tid";
	sqlite3_stmt *st = NULL;
	struct strbuf sb;
	int64_t rest_ns = 0;
	int rc, n = 0, rest = 0;

	(void)s;
	(void)e;
	strbuf_init(&sb);
	rc = sqlite3_prepare_v2(db, sql, -1, &st, NULL);
	if (rc == SQLITE_OK) {
		sqlite3_bind_int64(st, 1, c->session_id);
		sqlite3_bind_int64(st, 2, f->tid);
		sqlite3_bind_int64(st, 3, f->first_ts);
		sqlite3_bind_int64(st, 4, f->last_end_ts);
	}
	while (st && (rc = sqlite3_step(st)) == SQLITE_ROW) {
		int64_t ns = sqlite3_column_int64(st, 1);

		if (n++ < PREEMPTORS_NAMED) {
			strbuf_addf(&sb, "%s%s %.3f ms", n > 1 ? ", " : "",
				    (const char *)sqlite3_column_text(st, 0),
				    (double)ns / 1e6);
		} else {
			rest++;
			rest_ns += ns;
		}
	}
	if (rest)
		strbuf_addf(&sb, ", %d other%s %.3f ms", rest, rest == 1 ? "" : "s",
			    (double)rest_ns / 1e6);
	sqlite3_finalize(st);
	if (strbuf_error(&sb) || rc == SQLITE_NOMEM) {
		strbuf_release(&sb);
		return -ENOMEM;
	}
	if (n)
		f->detail = strbuf_detach(&sb);
	strbuf_release(&sb);
	return 0;
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
	.refine = rank_preemptors,
};
