/*
 * The stalls no pattern named: each row of the stall view (schema.sql:
 * the one definition of a stall every reader uses) of a wanted thread,
 * over the request's thresholds, that overlaps none of the stalls the
 * patterns counted.  Said with the findings, so that "3 findings" is
 * never read as "the only time lost" (a long minor fault, a runnable wait
 * after a new thread's start, a sleep on a resource without --syscalls).
 */
#include <errno.h>

#include "engine.h"

static const char stalls_sql[] =
	"SELECT tid, ts, dur FROM stall\n"
	" WHERE session_id = ?1\n"
	"   AND dur >= CASE WHEN fault_id IS NULL THEN ?2 ELSE ?3 END";

/* Does [ts, ts + dur) of tid overlap a counted stall?  res->stalls is
 * sorted by (tid, ts); longest is the longest counted stall, so none
 * that began before ts - longest reaches ts. */
static int overlaps_counted(const struct diag_result *res, int64_t longest,
			    int64_t tid, int64_t ts, int64_t dur)
{
	size_t lo = 0, hi = res->nstalls;

	/* The first counted stall at or after (tid, ts + dur). */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const struct diag_stall *s = &res->stalls[mid];

		if (s->tid < tid || (s->tid == tid && s->ts < ts + dur))
			lo = mid + 1;
		else
			hi = mid;
	}
	while (lo-- > 0) {
		const struct diag_stall *s = &res->stalls[lo];

		if (s->tid != tid || s->ts + longest <= ts)
			return 0;
		if (s->ts + s->dur_ns > ts)
			return 1;
	}
	return 0;
}

int diag_unnamed(sqlite3 *db, const struct diag_request *req,
		 struct diag_result *res, struct errmsg *e)
{
	sqlite3_stmt *st = NULL;
	int64_t longest = 0;
	int rc;

	for (size_t i = 0; i < res->nstalls; i++)
		if (res->stalls[i].dur_ns > longest)
			longest = res->stalls[i].dur_ns;
	if (sqlite3_prepare_v2(db, stalls_sql, -1, &st, NULL) != SQLITE_OK)
		return diag_sql_fail(db, "the stalls no pattern named", e);
	sqlite3_bind_int64(st, 1, req->session_id);
	sqlite3_bind_int64(st, 2, (int64_t)req->min_dur_ns);
	sqlite3_bind_int64(st, 3, (int64_t)req->min_fault_ns);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		int64_t tid = sqlite3_column_int64(st, 0);
		int64_t ts = sqlite3_column_int64(st, 1);
		int64_t dur = sqlite3_column_int64(st, 2);

		if (!diag_wanted(req, tid) || overlaps_counted(res, longest, tid, ts, dur))
			continue;
		res->unnamed_stalls++;
		res->unnamed_ns += dur;
	}
	sqlite3_finalize(st);
	return rc == SQLITE_DONE ? 0 : diag_sql_fail(db, "the stalls no pattern named", e);
}
