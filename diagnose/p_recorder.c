/*
 * recorder: faultline's own threads took the CPU from a target that had
 * work.  The observer's cost must be visible: these stalls are named as
 * the recorder's, not as plain preemption (the registry lists this
 * pattern first, so it keeps them).  A thread is the recorder's when
 * thread_state_reason says so (by_recorder): the session lists it in
 * recorder_thread, or it is session.recorder_pid; in a session recorded
 * before those were stored (schema 4), when its name is the recorder's
 * ("faultline": its threads keep the process name).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pattern.h"

/* The share of f's thread's runnable time that the recorder caused, in
 * f->detail: "12.5% of its 40.312 ms waiting for a CPU". */
static int recorder_share(sqlite3 *db, const struct diag_ctx *c,
			  const struct diag_stall *s, struct diag_finding *f,
			  struct errmsg *e)
{
	static const char sql[] =
		"SELECT sum(dur), sum(CASE WHEN reason = 'preempted' AND"
		" by_recorder = 1 THEN dur END)"
		" FROM thread_state_reason WHERE session_id = ?1 AND tid = ?2"
		" AND state = 'runnable'";
	sqlite3_stmt *st = NULL;
	char buf[160];
	int rc;

	(void)s;
	(void)e;
	rc = sqlite3_prepare_v2(db, sql, -1, &st, NULL);
	if (rc == SQLITE_OK) {
		sqlite3_bind_int64(st, 1, c->session_id);
		sqlite3_bind_int64(st, 2, f->tid);
		rc = sqlite3_step(st);
	}
	if (rc == SQLITE_ROW && sqlite3_column_int64(st, 0) > 0) {
		double all = (double)sqlite3_column_int64(st, 0);
		double mine = (double)sqlite3_column_int64(st, 1);

		snprintf(buf, sizeof(buf), "%.1f%% of its %.3f ms waiting for a CPU",
			 100.0 * mine / all, all / 1e6);
		f->detail = strdup(buf);
		if (!f->detail)
			rc = SQLITE_NOMEM;
	}
	sqlite3_finalize(st);
	return rc == SQLITE_NOMEM ? -ENOMEM : 0;
}

const struct diag_pattern diag_recorder = {
	.name = "recorder",
	.title = "the recorder itself: faultline's own threads took the CPU from "
		 "this thread",
	.needs = "thread states (record's default) and the session's recorder_pid",
	.sql =
		"SELECT r.tid, r.ts, r.dur,\n"
		"       'faultline' || coalesce(' (' || :recorder_pid || ')', ''),\n"
		"       'thread_state row ' || r.state_id || ': runnable for ' ||\n"
		"         printf('%.3f ms', r.dur / 1e6) || ' after faultline''s thread ' ||\n"
		"         r.by_tid || ' took its CPU',\n"
		"       r.stack_id, NULL, NULL\n"
		"  FROM thread_state_reason r\n"
		" WHERE r.session_id = :session AND r.reason = 'preempted'\n"
		"   AND r.by_recorder = 1 AND r.dur >= :min_dur",
	.remedies =
		"pin faultline away from the target: taskset -c CPUS faultline record ...\n"
		"record less: fewer events (-e), no --stacks, a longer --udp-interval\n"
		"lower its priority: nice -n 10 faultline record ...",
	.waits_for_cpu = 1,
	.refine = recorder_share,
};
