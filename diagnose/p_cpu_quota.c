/*
 * cpu-quota: the thread had work (runnable) while its cgroup ran out of
 * CPU quota: between the cgroup_cpu sample before the interval began and
 * the one after it ended, the cgroup's nr_throttled rose.  A throttled
 * cgroup's threads are taken off the CPU with work left (sched_switch
 * shows them runnable, mostly for the idle task) and stay runnable until
 * the next period refills the quota, so the interval is as long as the
 * rest of the period.  The samples (record --cgroup, or the first
 * target's cgroup) are taken to be of the thread's cgroup.
 *
 * Listed before preemption and slow wake-up: a wait that lines up with
 * throttling is the quota's, whoever ran meanwhile.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pattern.h"

/* The cgroup's throttling over the whole session, in f->detail: "in 41
 * of 52 periods, 3312.457 ms held back while recording". */
static int throttled_total(sqlite3 *db, const struct diag_ctx *c,
			   const struct diag_stall *s, struct diag_finding *f,
			   struct errmsg *e)
{
	static const char sql[] =
		"SELECT max(nr_throttled) - min(nr_throttled),"
		" max(nr_periods) - min(nr_periods),"
		" max(throttled_ns) - min(throttled_ns)"
		" FROM cgroup_cpu WHERE session_id = ?1"
		" AND path = (SELECT c.path FROM cgroup_cpu c WHERE"
		" c.session_id = ?1 AND c.ts <= ?2 ORDER BY c.ts DESC LIMIT 1)";
	sqlite3_stmt *st = NULL;
	char buf[160];
	int rc;

	(void)e;
	rc = sqlite3_prepare_v2(db, sql, -1, &st, NULL);
	if (rc == SQLITE_OK) {
		sqlite3_bind_int64(st, 1, c->session_id);
		sqlite3_bind_int64(st, 2, s->ts);
		rc = sqlite3_step(st);
	}
	if (rc == SQLITE_ROW && sqlite3_column_type(st, 0) != SQLITE_NULL) {
		snprintf(buf, sizeof(buf), "in %lld of %lld periods, %.3f ms held "
			 "back while recording",
			 (long long)sqlite3_column_int64(st, 0),
			 (long long)sqlite3_column_int64(st, 1),
			 (double)sqlite3_column_int64(st, 2) / 1e6);
		f->detail = strdup(buf);
		if (!f->detail)
			rc = SQLITE_NOMEM;
	}
	sqlite3_finalize(st);
	return rc == SQLITE_NOMEM ? -ENOMEM : 0;
}

/* The sample at or before x began (b) and the first at or after it
 * ended (a): x lies between them. */
#define SAMPLE_BEFORE \
	"(SELECT c.rowid FROM cgroup_cpu c WHERE c.session_id = x.session_id" \
	" AND c.ts <= x.ts ORDER BY c.ts DESC LIMIT 1)"
#define SAMPLE_AFTER \
	"(SELECT c.rowid FROM cgroup_cpu c WHERE c.session_id = x.session_id" \
	" AND c.ts >= x.ts + x.dur ORDER BY c.ts LIMIT 1)"

const struct diag_pattern diag_cpu_quota = {
	.name = "cpu-quota",
	.title = "CPU quota throttling: the thread's cgroup used up its CPU "
		 "quota and was held off the CPU until the next period",
	.needs = "thread states (record's default) and cgroup_cpu samples "
		 "(record --cgroup, or the first target's cgroup)",
	.sql =
		"SELECT x.tid, x.ts, x.dur,\n"
		"       'cgroup ' || a.path || ' (quota ' ||\n"
		"         printf('%.3f', a.quota_us / 1e3) || ' ms per ' ||\n"
		"         printf('%.3f', a.period_us / 1e3) || ' ms period)',\n"
		"       'thread_state row ' || x.rowid || ': runnable for ' ||\n"
		"         printf('%.3f ms', x.dur / 1e6) || ' while cgroup_cpu rows ' ||\n"
		"         b.rowid || ' to ' || a.rowid || ' show nr_throttled ' ||\n"
		"         b.nr_throttled || ' -> ' || a.nr_throttled || ', ' ||\n"
		"         printf('%.3f ms', (a.throttled_ns - b.throttled_ns) / 1e6) ||\n"
		"         ' throttled',\n"
		"       x.stack_id, NULL, NULL\n"
		"  FROM thread_state x\n"
		"  JOIN cgroup_cpu b ON b.rowid = " SAMPLE_BEFORE "\n"
		"  JOIN cgroup_cpu a ON a.rowid = " SAMPLE_AFTER "\n"
		" WHERE x.session_id = :session AND x.state != 'running'\n"
		"   AND x.state = 'runnable' AND x.dur >= :min_dur\n"
		"   AND a.path = b.path AND a.nr_throttled > b.nr_throttled\n"
		"   AND a.quota_us IS NOT NULL",
	.remedies =
		"raise the cgroup's quota (cpu.max on cgroup v2, cpu.cfs_quota_us on "
		"v1; docker --cpus, Kubernetes CPU limits): it is CPU time per period, "
		"summed over CPUs\n"
		"run fewer threads in the cgroup: N busy threads use up the quota N "
		"times as fast, then all wait for the next period\n"
		"allow bursts: cpu.max.burst (v2) or cpu.cfs_burst_us (v1) lets "
		"unused quota of earlier periods cover a short peak",
	.waits_for_cpu = 1,
	.refine = throttled_total,
};
