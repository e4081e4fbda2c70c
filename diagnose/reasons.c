/*
 * reasons: where each thread with a finding spent its time off the CPU,
 * by reason (the thread_state_reason view): the findings say what hurt,
 * this says what else the thread waited on, and how much of it the
 * recorder itself caused.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "../common/array.h"
#include "engine.h"

/* The thread tid's entry in res->threads, added (with comm) when new;
 * NULL when out of memory. */
static struct diag_thread *thread_of(struct diag_result *res, int64_t tid,
				     const char *comm, int *added)
{
	struct diag_thread *t;

	*added = 0;
	for (size_t i = 0; i < res->nthreads; i++)
		if (res->threads[i].tid == tid)
			return &res->threads[i];
	if (ARRAY_RESERVE(res->threads, res->threads_cap, res->nthreads + 1) < 0)
		return NULL;
	t = &res->threads[res->nthreads];
	memset(t, 0, sizeof(*t));
	if (!(t->comm = strdup(comm)))
		return NULL;
	t->tid = tid;
	res->nthreads++;
	*added = 1;
	return t;
}

/* One row of the query into t's reasons. */
static int add_reason(struct diag_thread *t, sqlite3_stmt *st)
{
	const char *reason = (const char *)sqlite3_column_text(st, 0);
	struct diag_reason *r;

	if (ARRAY_RESERVE(t->reasons, t->reasons_cap, t->nreasons + 1) < 0)
		return -ENOMEM;
	r = &t->reasons[t->nreasons];
	if (!(r->reason = strdup(reason ? reason : "?")))
		return -ENOMEM;
	r->by_recorder = sqlite3_column_int(st, 1);
	r->ns = sqlite3_column_int64(st, 2);
	r->intervals = (size_t)sqlite3_column_int64(st, 3);
	t->off_cpu_ns += r->ns;
	t->nreasons++;
	return 0;
}

/* Fills t's reasons from the view; st prepared, bound to the session. */
static int fill(sqlite3 *db, sqlite3_stmt *st, struct diag_thread *t,
		struct errmsg *e)
{
	int rc, err = 0;

	sqlite3_reset(st);
	sqlite3_bind_int64(st, 2, t->tid);
	while (err == 0 && (rc = sqlite3_step(st)) == SQLITE_ROW)
		err = add_reason(t, st);
	if (err == 0 && rc != SQLITE_DONE)
		err = diag_sql_fail(db, "the reasons off the CPU", e);
	return err;
}

int diag_thread_reasons(sqlite3 *db, int64_t session, struct diag_result *res,
			struct errmsg *e)
{
	/* Preemption by the recorder apart from the rest: the observer's
	 * cost shows on its own line. */
	static const char sql[] =
		"SELECT reason, reason = 'preempted' AND by_recorder = 1,"
		"       sum(dur), count(*)"
		"  FROM thread_state_reason WHERE session_id = ?1 AND tid = ?2"
		" GROUP BY 1, 2 ORDER BY 3 DESC, 1";
	sqlite3_stmt *st = NULL;
	int err = 0;

	if (!res->nfindings)
		return 0;
	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK)
		return diag_sql_fail(db, "the reasons off the CPU", e);
	sqlite3_bind_int64(st, 1, session);
	for (size_t i = 0; err == 0 && i < res->nfindings; i++) {
		const struct diag_finding *f = &res->findings[i];
		int added;
		struct diag_thread *t = thread_of(res, f->tid, f->comm, &added);

		if (!t)
			err = -ENOMEM;
		else if (added)
			err = fill(db, st, t, e);
	}
	sqlite3_finalize(st);
	return err;
}
