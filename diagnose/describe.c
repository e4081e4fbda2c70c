/*
 * describe: what a finding shows besides its numbers: the thread's name
 * and the stack of its longest stall, innermost first.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "../common/demangle.h"
#include "../common/strbuf.h"
#include "engine.h"

/* The thread's name at ts (thread table), "" when unknown. */
static int thread_comm(sqlite3 *db, int64_t session, int64_t tid, int64_t ts,
		       char **out, struct errmsg *e)
{
	static const char sql[] =
		"SELECT comm FROM thread WHERE session_id = ?1 AND tid = ?2"
		" ORDER BY first_ts <= ?3 DESC, first_ts DESC LIMIT 1";
	sqlite3_stmt *st = NULL;
	const char *s = NULL;
	int rc;

	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK)
		return diag_sql_fail(db, "the thread's name", e);
	sqlite3_bind_int64(st, 1, session);
	sqlite3_bind_int64(st, 2, tid);
	sqlite3_bind_int64(st, 3, ts);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW)
		s = (const char *)sqlite3_column_text(st, 0);
	*out = strdup(s ? s : "");
	sqlite3_finalize(st);
	if (rc != SQLITE_ROW && rc != SQLITE_DONE)
		return diag_sql_fail(db, "the thread's name", e);
	return *out ? 0 : -ENOMEM;
}

/* The stack's frames by name, innermost first ("c <- b <- main"), as
 * stalls-near writes them (demangled); NULL in *out when it has none. */
static int stack_text(sqlite3 *db, int64_t session, int64_t stack_id,
		      char **out, struct errmsg *e)
{
	static const char sql[] =
		"SELECT name FROM stack_frame_name"
		" WHERE session_id = ?1 AND stack_id = ?2 ORDER BY depth, idx";
	sqlite3_stmt *st = NULL;
	struct strbuf sb;
	int rc, n = 0;

	*out = NULL;
	if (!stack_id)
		return 0;
	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK)
		return diag_sql_fail(db, "the stack", e);
	strbuf_init(&sb);
	sqlite3_bind_int64(st, 1, session);
	sqlite3_bind_int64(st, 2, stack_id);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		const char *name = (const char *)sqlite3_column_text(st, 0);
		char *owned = NULL;

		if (n++)
			strbuf_adds(&sb, " <- ");
		strbuf_adds(&sb, demangle_shown(name ? name : "?", &owned));
		free(owned);
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE) {
		strbuf_release(&sb);
		return diag_sql_fail(db, "the stack", e);
	}
	if (n && !(*out = strbuf_detach(&sb)))
		return -ENOMEM;
	strbuf_release(&sb);
	return 0;
}

int diag_describe(sqlite3 *db, int64_t session, const struct diag_stall *s,
		  struct diag_finding *f, struct errmsg *e)
{
	int err = thread_comm(db, session, f->tid, s->ts, &f->comm, e);

	if (err == 0)
		err = stack_text(db, session, s->stack_id, &f->stack, e);
	return err;
}
