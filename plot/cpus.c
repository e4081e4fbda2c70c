/*
 * The CPU lanes' rows (source.h): what ran on each CPU the targets ran
 * on, read through SQL only, like the thread lanes' rows.
 *
 * Only the targets' switches are stored per interval (thread_state), and
 * for the others only each runnable wait's totals (ran_instead), so a
 * CPU lane shows the targets' running intervals, and in each wait of a
 * target for that CPU the threads that held it, as shares of the wait.
 *
 * Both queries walk the (session_id, tid, ts) indexes one target at a
 * time from the window's start, as the thread lanes' do (the targets
 * found by stepping through the index, as threads_sql does), and sort
 * only the window's rows by CPU.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "../common/array.h"
#include "../schema/db.h"
#include "source.h"

/* Each target (a thread with intervals), from its last interval begun by
 * the window's start, and its name at the window's end as its lane has
 * it.  ?1 session, ?3 from, ?4 to. */
#define TARGETS_CTE \
	"WITH RECURSIVE" \
	" s(tid) AS (SELECT (SELECT min(tid) FROM thread_state WHERE session_id = ?1)" \
	"   UNION ALL SELECT (SELECT min(tid) FROM thread_state WHERE session_id = ?1" \
	"   AND tid > s.tid) FROM s WHERE s.tid IS NOT NULL)," \
	" w(tid, lo, name) AS (SELECT s.tid, coalesce((SELECT ts FROM thread_state" \
	"   WHERE session_id = ?1 AND tid = s.tid AND ts <= ?3 ORDER BY ts DESC" \
	"   LIMIT 1), ?3), coalesce((SELECT nullif(comm, '') FROM thread t" \
	"   WHERE t.session_id = ?1 AND t.tid = s.tid AND t.first_ts <= ?4" \
	"   ORDER BY t.first_ts DESC LIMIT 1), '?') || ' (' || s.tid || ')'" \
	"   FROM s WHERE s.tid IS NOT NULL) "

/* The targets' running intervals reaching into the window. */
#define RAN_FROM \
	" FROM w CROSS JOIN thread_state x" \
	" WHERE x.session_id = ?1 AND x.tid = w.tid AND x.ts >= w.lo" \
	"   AND x.ts < ?4 AND x.ts + x.dur > ?3 AND x.state = 'running'" \
	"   AND x.cpu IS NOT NULL"

/* The holders of the targets' runnable waits reaching into it. */
#define HELD_FROM \
	" FROM w CROSS JOIN ran_instead_named r CROSS JOIN thread_state x" \
	" WHERE r.session_id = ?1 AND r.tid = w.tid AND r.ts >= w.lo AND r.ts < ?4" \
	"   AND x.session_id = ?1 AND x.tid = r.tid AND x.ts = r.ts" \
	"   AND x.state = 'runnable' AND x.ts + x.dur > ?3"

static const char cpus_sql[] = TARGETS_CTE
	"SELECT x.cpu" RAN_FROM " UNION SELECT r.cpu" HELD_FROM " ORDER BY 1";

static const char ran_sql[] = TARGETS_CTE
	"SELECT x.cpu, x.ts, x.dur, x.tid, w.name" RAN_FROM " ORDER BY x.cpu, x.ts";

/* A wait's holders, longest first, laid end to end so the last ends
 * with the wait: start = wait's end - the wait's total + the holders'
 * total up to and with this one - its own. */
static const char held_sql[] = TARGETS_CTE
	"SELECT r.cpu, x.ts + x.dur - sum(r.dur) OVER wait"
	"        + sum(r.dur) OVER (wait ORDER BY r.dur DESC, r.ran_tid"
	"                           ROWS UNBOUNDED PRECEDING) - r.dur AS start,"
	"       r.dur, r.ran_tid, r.holder, r.tid, r.ts, x.dur"
	HELD_FROM
	" WINDOW wait AS (PARTITION BY r.tid, r.ts)"
	" ORDER BY r.cpu, start";

static int prepare(struct plot_source *src, const char *sql, sqlite3_stmt **st)
{
	int rc = sqlite3_prepare_v2(src->db, sql, -1, st, NULL);

	if (rc != SQLITE_OK)
		return db_fail(src->db, rc, src->path, "cannot read", src->e);
	sqlite3_bind_int64(*st, 1, src->session);
	sqlite3_bind_int64(*st, 3, src->from_ts);
	sqlite3_bind_int64(*st, 4, src->to_ts);
	return 0;
}

int plot_source_cpus(struct plot_source *src, int64_t **out, size_t *nout)
{
	int64_t *v = NULL;
	size_t n = 0, cap = 0;
	sqlite3_stmt *st = NULL;
	int rc, err = prepare(src, cpus_sql, &st);

	while (err == 0 && (rc = sqlite3_step(st)) == SQLITE_ROW) {
		if (ARRAY_RESERVE(v, cap, n + 1) < 0) {
			err = errmsg_set(src->e, ENOMEM, "out of memory");
			break;
		}
		v[n++] = sqlite3_column_int64(st, 0);
	}
	if (err == 0 && rc != SQLITE_DONE)
		err = db_fail(src->db, rc, src->path, "cannot read", src->e);
	sqlite3_finalize(st);
	if (err < 0) {
		free(v);
		return err;
	}
	*out = v;
	*nout = n;
	return 0;
}

/* A statement read one CPU at a time: row holds its next row unread. */
struct cursor {
	sqlite3_stmt *st;
	int row;		/* SQLITE_ROW, SQLITE_DONE or the error */
};

static void cursor_next(struct cursor *c)
{
	c->row = sqlite3_step(c->st);
}

static struct plot_cpu_span span_of(sqlite3_stmt *st, enum plot_cpu_kind k)
{
	struct plot_cpu_span c;

	memset(&c, 0, sizeof(c));
	c.kind = k;
	c.n = 1;
	c.ts = sqlite3_column_int64(st, 1);
	c.dur_ns = c.busy_ns = sqlite3_column_int64(st, 2);
	c.tid = sqlite3_column_int64(st, 3);
	c.name = (const char *)sqlite3_column_text(st, 4);
	c.wait_tid = c.wait_ts = c.wait_dur_ns = -1;
	if (k == PC_HELD) {
		c.wait_tid = sqlite3_column_int64(st, 5);
		c.wait_ts = sqlite3_column_int64(st, 6);
		c.wait_dur_ns = sqlite3_column_int64(st, 7);
	}
	return c;
}

/* c's rows of CPU cpu into r, then flushed. */
static int cpu_rows(struct plot_source *src, struct cursor *c, int64_t cpu,
		    enum plot_cpu_kind k, struct plot_reduce *r)
{
	int err = 0;

	while (err == 0 && c->row == SQLITE_ROW &&
	       sqlite3_column_int64(c->st, 0) <= cpu) {
		struct plot_cpu_span span = span_of(c->st, k);

		if (sqlite3_column_int64(c->st, 0) == cpu)
			err = plot_reduce_cpu(r, &span);
		if (err == 0)
			cursor_next(c);
	}
	if (err == 0 && c->row != SQLITE_ROW && c->row != SQLITE_DONE)
		err = db_fail(src->db, c->row, src->path, "cannot read", src->e);
	return err < 0 ? err : plot_reduce_flush(r);
}

int plot_source_cpu_lanes(struct plot_source *src, const int64_t *cpus, size_t n,
			  int (*lane)(void *ctx, int64_t cpu), void *ctx,
			  struct plot_reduce *r)
{
	struct cursor ran = { NULL, SQLITE_DONE }, held = { NULL, SQLITE_DONE };
	int err = prepare(src, ran_sql, &ran.st);

	if (err == 0)
		err = prepare(src, held_sql, &held.st);
	if (err == 0) {
		cursor_next(&ran);
		cursor_next(&held);
	}
	for (size_t i = 0; err == 0 && i < n; i++) {
		err = lane(ctx, cpus[i]);
		if (err == 0)
			err = cpu_rows(src, &ran, cpus[i], PC_RAN, r);
		if (err == 0)
			err = cpu_rows(src, &held, cpus[i], PC_HELD, r);
	}
	sqlite3_finalize(ran.st);
	sqlite3_finalize(held.st);
	return err;
}
