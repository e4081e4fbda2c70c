#include <errno.h>

#include "../common/strbuf.h"
#include "cpu_holders.h"

/* How many holders the detail names before summing the rest. */
#define HOLDERS_NAMED 3

/* Every thread that ran on the CPU during the waits (ran_instead). */
static const char ran_instead_sql[] =
	"SELECT r.holder, sum(r.dur) AS ns"
	"  FROM ran_instead_named r"
	"  JOIN thread_state x ON x.session_id = r.session_id AND x.tid = r.tid"
	"   AND x.ts = r.ts AND x.state = 'runnable'"
	" WHERE r.session_id = ?1 AND r.tid = ?2 AND r.ts >= ?3 AND r.ts < ?4"
	"   AND x.preempted = ?5"
	"   AND r.ran_tid NOT IN (SELECT t.tid FROM recorder_thread t"
	"                          WHERE t.session_id = ?1)"
	" GROUP BY r.ran_tid ORDER BY ns DESC, r.ran_tid";

/* The thread that took the CPU at each preempting switch: all a session
 * without ran_instead rows knows. */
static const char next_tid_sql[] =
	"SELECT coalesce(nullif(by_comm, ''), '?') || ' (' || by_tid || ')',"
	"       sum(dur) AS ns"
	"  FROM thread_state_reason"
	" WHERE session_id = ?1 AND tid = ?2 AND reason = 'preempted'"
	"   AND by_tid IS NOT NULL AND by_tid NOT IN (0, ?2) AND by_recorder = 0"
	"   AND ts >= ?3 AND ts < ?4 AND ?5 = 1"
	" GROUP BY by_tid ORDER BY ns DESC, by_tid";

/* Runs sql for f and words its (who, ns) rows into sb; the row count,
 * or -ENOMEM. */
static int word_holders(sqlite3 *db, const char *sql, const struct diag_ctx *c,
			const struct diag_finding *f, int preempted,
			struct strbuf *sb)
{
	sqlite3_stmt *st = NULL;
	int64_t rest_ns = 0;
	int rc, n = 0, rest = 0;

	rc = sqlite3_prepare_v2(db, sql, -1, &st, NULL);
	if (rc != SQLITE_OK)
		return rc == SQLITE_NOMEM ? -ENOMEM : 0;	/* an older file */
	sqlite3_bind_int64(st, 1, c->session_id);
	sqlite3_bind_int64(st, 2, f->tid);
	sqlite3_bind_int64(st, 3, f->first_ts);
	sqlite3_bind_int64(st, 4, f->last_end_ts);
	sqlite3_bind_int(st, 5, preempted);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		int64_t ns = sqlite3_column_int64(st, 1);

		if (n++ < HOLDERS_NAMED) {
			strbuf_addf(sb, "%s%s %.3f ms", n > 1 ? ", " : "",
				    (const char *)sqlite3_column_text(st, 0),
				    (double)ns / 1e6);
		} else {
			rest++;
			rest_ns += ns;
		}
	}
	if (rest)
		strbuf_addf(sb, ", %d other%s %.3f ms", rest, rest == 1 ? "" : "s",
			    (double)rest_ns / 1e6);
	sqlite3_finalize(st);
	return rc == SQLITE_NOMEM || strbuf_error(sb) ? -ENOMEM : n;
}

int diag_cpu_holders(sqlite3 *db, const struct diag_ctx *c,
		     struct diag_finding *f, int preempted)
{
	struct strbuf sb;
	int n;

	strbuf_init(&sb);
	n = word_holders(db, ran_instead_sql, c, f, preempted, &sb);
	if (n == 0)
		n = word_holders(db, next_tid_sql, c, f, preempted, &sb);
	if (n > 0)
		f->detail = strbuf_detach(&sb);
	strbuf_release(&sb);
	return n < 0 ? n : 0;
}
