#include <errno.h>
#include <string.h>

#include "../common/json.h"
#include "../common/strbuf.h"
#include "cpu_holders.h"

/* How many holders the detail names before summing the rest. */
#define HOLDERS_NAMED 3

/* Every thread that ran on the CPU during the finding's waits
 * (ran_instead: a wait's rows carry its start). */
static const char ran_instead_sql[] =
	"SELECT r.holder, sum(r.dur) AS ns"
	"  FROM ran_instead_named r"
	" WHERE r.session_id = :session AND r.tid = :tid"
	"   AND r.ts IN (SELECT value FROM json_each(:waits))"
	"   AND r.ran_tid NOT IN (SELECT t.tid FROM recorder_thread t"
	"                          WHERE t.session_id = :session)"
	" GROUP BY r.ran_tid ORDER BY ns DESC, r.ran_tid";

/* The thread that took the CPU at each preempting switch: all a session
 * without ran_instead rows knows. */
static const char next_tid_sql[] =
	"SELECT coalesce(nullif(by_comm, ''), '?') || ' (' || by_tid || ')',"
	"       sum(dur) AS ns"
	"  FROM thread_state_reason"
	" WHERE session_id = :session AND tid = :tid AND reason = 'preempted'"
	"   AND by_tid IS NOT NULL AND by_tid NOT IN (0, :tid) AND by_recorder = 0"
	"   AND ts IN (SELECT value FROM json_each(:waits))"
	" GROUP BY by_tid ORDER BY ns DESC, by_tid";

/* The start times of f's stalls, its runnable waits, as a JSON array
 * into sb.  c->res's stalls are sorted by (tid, ts). */
static void wait_starts(const struct diag_ctx *c, const struct diag_finding *f,
			struct strbuf *sb)
{
	const struct diag_result *res = c->res;
	size_t lo = 0, hi = res->nstalls;
	int first = 1;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (res->stalls[mid].tid < f->tid)
			lo = mid + 1;
		else
			hi = mid;
	}
	strbuf_addc(sb, '[');
	for (size_t i = lo; i < res->nstalls && res->stalls[i].tid == f->tid; i++) {
		const struct diag_stall *s = &res->stalls[i];

		if (s->pattern != f->pattern || strcmp(s->culprit, f->culprit))
			continue;
		if (!first)
			strbuf_addc(sb, ',');
		json_int(sb, s->ts);
		first = 0;
	}
	strbuf_addc(sb, ']');
}

/* Runs sql for f's waits (the JSON array waits) and words its
 * (who, ns) rows into sb; the row count, or -ENOMEM. */
static int word_holders(sqlite3 *db, const char *sql, const struct diag_ctx *c,
			const struct diag_finding *f, const char *waits,
			struct strbuf *sb)
{
	sqlite3_stmt *st = NULL;
	int64_t rest_ns = 0;
	int rc, n = 0, rest = 0;

	rc = sqlite3_prepare_v2(db, sql, -1, &st, NULL);
	if (rc != SQLITE_OK)
		return rc == SQLITE_NOMEM ? -ENOMEM : 0;	/* an older file */
	sqlite3_bind_int64(st, sqlite3_bind_parameter_index(st, ":session"),
			   c->session_id);
	sqlite3_bind_int64(st, sqlite3_bind_parameter_index(st, ":tid"), f->tid);
	sqlite3_bind_text(st, sqlite3_bind_parameter_index(st, ":waits"), waits,
			  -1, SQLITE_STATIC);
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
	struct strbuf sb, waits;
	int n = -ENOMEM;

	strbuf_init(&sb);
	strbuf_init(&waits);
	wait_starts(c, f, &waits);
	if (strbuf_error(&waits))
		goto out;
	n = word_holders(db, ran_instead_sql, c, f, strbuf_str(&waits), &sb);
	if (n == 0 && preempted)
		n = word_holders(db, next_tid_sql, c, f, strbuf_str(&waits), &sb);
	if (n > 0)
		f->detail = strbuf_detach(&sb);
out:
	strbuf_release(&waits);
	strbuf_release(&sb);
	return n < 0 ? n : 0;
}
