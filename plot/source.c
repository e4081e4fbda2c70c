#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../common/array.h"
#include "../common/strbuf.h"
#include "../schema/db.h"
#include "source.h"

static int prepare(struct plot_source *src, const char *sql, sqlite3_stmt **st)
{
	int rc = sqlite3_prepare_v2(src->db, sql, -1, st, NULL);

	if (rc != SQLITE_OK)
		return db_fail(src->db, rc, src->path, "cannot read", src->e);
	return 0;
}

static int step_failed(struct plot_source *src, int rc)
{
	return db_fail(src->db, rc, src->path, "cannot read", src->e);
}

static char *dup_text(sqlite3_stmt *st, int col)
{
	const char *t = (const char *)sqlite3_column_text(st, col);

	return t ? strdup(t) : NULL;
}

static int64_t int_or(sqlite3_stmt *st, int col, int64_t none)
{
	return sqlite3_column_type(st, col) == SQLITE_NULL ? none
		: sqlite3_column_int64(st, col);
}

/* Binds ?1 session, ?2 id (tid or series), ?3 from, ?4 to. */
static void bind_window(struct plot_source *src, sqlite3_stmt *st, int64_t id)
{
	sqlite3_bind_int64(st, 1, src->session);
	sqlite3_bind_int64(st, 2, id);
	sqlite3_bind_int64(st, 3, src->from_ts);
	sqlite3_bind_int64(st, 4, src->to_ts);
}

/* ---- threads ------------------------------------------------------------ */

void plot_threads_free(struct plot_thread *t, size_t n)
{
	for (size_t i = 0; t && i < n; i++) {
		free(t[i].comm);
		free(t[i].names);
	}
	free(t);
}

/* Does the thread have a row in the window?  A thread's states do not
 * overlap, nor its faults: only the last one to begin before the window's
 * end can reach into it, so each test reads one index entry. */
static const char has_rows_sql[] =
	"SELECT coalesce((SELECT ts + dur > ?3 FROM thread_state"
	"                  WHERE session_id = ?1 AND tid = ?2 AND ts < ?4"
	"                  ORDER BY ts DESC LIMIT 1), 0)"
	"    OR coalesce((SELECT coalesce(ts + dur > ?3, ts >= ?3) FROM fault"
	"                  WHERE session_id = ?1 AND tid = ?2 AND ts < ?4"
	"                  ORDER BY ts DESC LIMIT 1), 0)"
	"    OR EXISTS (SELECT 1 FROM tracepoint_event WHERE session_id = ?1"
	"                  AND ts BETWEEN ?3 AND ?4 AND tid = ?2)";

/* Each thread of the session: its pid, its name at the window's end (the
 * last spell begun by then, else its first), and all its names; then the
 * threads with faults or states but no name (no thread row), found by
 * stepping through the (session_id, tid, ts) indexes one tid at a time,
 * not by reading every row. */
static const char threads_sql[] =
	"WITH RECURSIVE"
	" f(tid) AS (SELECT (SELECT min(tid) FROM fault WHERE session_id = ?1)"
	"   UNION ALL SELECT (SELECT min(tid) FROM fault WHERE session_id = ?1"
	"   AND tid > f.tid) FROM f WHERE f.tid IS NOT NULL),"
	" s(tid) AS (SELECT (SELECT min(tid) FROM thread_state WHERE session_id = ?1)"
	"   UNION ALL SELECT (SELECT min(tid) FROM thread_state WHERE session_id = ?1"
	"   AND tid > s.tid) FROM s WHERE s.tid IS NOT NULL)"
	" SELECT t.tid, max(t.pid) AS pid,"
	"  coalesce((SELECT comm FROM thread x WHERE x.session_id = ?1"
	"             AND x.tid = t.tid AND x.first_ts <= ?4"
	"             ORDER BY x.first_ts DESC LIMIT 1), min(t.comm)),"
	"  (SELECT group_concat(comm, ', ') FROM (SELECT comm FROM thread y"
	"    WHERE y.session_id = ?1 AND y.tid = t.tid ORDER BY y.first_ts))"
	"  FROM thread t WHERE t.session_id = ?1 GROUP BY t.tid"
	" UNION ALL"
	" SELECT u.tid, coalesce((SELECT pid FROM fault WHERE session_id = ?1"
	"   AND tid = u.tid LIMIT 1), (SELECT pid FROM thread_state WHERE"
	"   session_id = ?1 AND tid = u.tid LIMIT 1)), '', ''"
	"  FROM (SELECT tid FROM f UNION SELECT tid FROM s) u"
	" WHERE u.tid IS NOT NULL AND u.tid NOT IN (SELECT tid FROM thread"
	"   WHERE session_id = ?1)"
	" ORDER BY pid, tid";

/* Is the thread busy in the window: a fault (finished or not, reaching
 * into it: the same one-entry test as has_rows_sql), or an interval off
 * the CPU that is a stall (the stall view: runnable, blocked, waiting,
 * or asleep on a resource) of at least ?5 ns overlapping it?  A thread
 * that only ran and slept idle is not. */
static const char busy_sql[] =
	"SELECT coalesce((SELECT coalesce(ts + dur > ?3, ts >= ?3) FROM fault"
	"                  WHERE session_id = ?1 AND tid = ?2 AND ts < ?4"
	"                  ORDER BY ts DESC LIMIT 1), 0)"
	"    OR EXISTS (SELECT 1 FROM stall WHERE session_id = ?1 AND tid = ?2"
	"                  AND ts < ?4 AND ts + dur > ?3 AND state_id IS NOT NULL"
	"                  AND dur >= ?5)";

static int thread_test(struct plot_source *src, sqlite3_stmt *st, int64_t tid,
		       int *yes)
{
	int rc;

	sqlite3_reset(st);
	bind_window(src, st, tid);
	rc = sqlite3_step(st);
	if (rc != SQLITE_ROW)
		return step_failed(src, rc);
	*yes = sqlite3_column_int(st, 0);
	return 0;
}

static int wanted(const int64_t *tids, size_t n, int64_t tid)
{
	for (size_t i = 0; i < n; i++)
		if (tids[i] == tid)
			return 1;
	return n == 0;
}

/* The tids asked for that the session does not have, and what it has. */
static int unknown_tid(struct plot_source *src, const int64_t *tids, size_t n,
		       const struct plot_thread *have, size_t nhave)
{
	struct strbuf sb;
	int64_t missing = -1;

	for (size_t i = 0; i < n && missing < 0; i++) {
		missing = tids[i];
		for (size_t k = 0; k < nhave; k++)
			if (have[k].tid == tids[i])
				missing = -1;
	}
	if (missing < 0)
		return 0;
	strbuf_init(&sb);
	for (size_t k = 0; k < nhave && k < 12; k++)
		strbuf_addf(&sb, "%s%lld (%s)", k ? ", " : "",
			    (long long)have[k].tid, have[k].comm);
	if (nhave > 12)
		strbuf_addf(&sb, " and %zu more", nhave - 12);
	errmsg_set(src->e, ENOENT, "no thread %lld in session %lld of '%s': "
		   "it recorded %s%s", (long long)missing, (long long)src->session,
		   src->path, nhave ? "" : "no threads", strbuf_str(&sb));
	strbuf_release(&sb);
	return -ENOENT;
}

int plot_source_threads(struct plot_source *src, const int64_t *tids, size_t n,
			struct plot_thread **out, size_t *nout)
{
	struct plot_thread *v = NULL, *all = NULL;
	size_t nv = 0, cap = 0, nall = 0, allcap = 0;
	sqlite3_stmt *st = NULL, *rows = NULL, *busy = NULL;
	int rc, err = prepare(src, threads_sql, &st);

	if (err == 0)
		err = prepare(src, has_rows_sql, &rows);
	if (err == 0)
		err = prepare(src, busy_sql, &busy);
	if (err == 0)
		sqlite3_bind_int64(busy, 5, PLOT_STALL_NS);
	if (err == 0)
		bind_window(src, st, 0);
	while (err == 0 && (rc = sqlite3_step(st)) == SQLITE_ROW) {
		struct plot_thread t = { sqlite3_column_int64(st, 0),
			sqlite3_column_int64(st, 1), dup_text(st, 2), dup_text(st, 3),
			0, 0 };

		if (!t.comm || !t.names ||
		    ARRAY_RESERVE(all, allcap, nall + 1) < 0) {
			free(t.comm);
			free(t.names);
			err = errmsg_set(src->e, ENOMEM, "out of memory");
			break;
		}
		all[nall++] = t;
	}
	if (err == 0 && rc != SQLITE_DONE)
		err = step_failed(src, rc);
	if (err == 0)
		err = unknown_tid(src, tids, n, all, nall);
	for (size_t i = 0; err == 0 && i < nall; i++) {
		if (!wanted(tids, n, all[i].tid))
			continue;
		err = thread_test(src, rows, all[i].tid, &all[i].has_rows);
		if (err == 0 && all[i].has_rows)
			err = thread_test(src, busy, all[i].tid, &all[i].busy);
		if (err == 0 && (n || all[i].has_rows)) {
			if (ARRAY_RESERVE(v, cap, nv + 1) < 0) {
				err = errmsg_set(src->e, ENOMEM, "out of memory");
				break;
			}
			v[nv++] = all[i];
			all[i].comm = all[i].names = NULL;	/* moved to v */
		}
	}
	sqlite3_finalize(st);
	sqlite3_finalize(rows);
	sqlite3_finalize(busy);
	plot_threads_free(all, nall);
	if (err < 0) {
		plot_threads_free(v, nv);
		return err;
	}
	*out = v;
	*nout = nv;
	return 0;
}

/* ---- metric series ------------------------------------------------------ */

void plot_series_free(struct plot_series *s, size_t n)
{
	for (size_t i = 0; s && i < n; i++) {
		free(s[i].name);
		free(s[i].labels);
		free(s[i].unit);
	}
	free(s);
}

/* The series beside the session (its own, and the imported ones with a
 * point in its span, as queries/metrics.sql), with their points in the
 * window. */
static const char series_sql[] =
	"SELECT ms.series_id, ms.name, ms.labels, ms.unit, ms.session_id IS NULL,"
	"       count(m.ts), min(m.value), max(m.value)"
	"  FROM metric_series ms LEFT JOIN metric m"
	"    ON m.series_id = ms.series_id AND m.ts BETWEEN ?3 AND ?4"
	" WHERE ms.session_id = ?1"
	"    OR (ms.session_id IS NULL AND EXISTS (SELECT 1 FROM metric p"
	"        WHERE p.series_id = ms.series_id AND p.ts BETWEEN ?5 AND ?6))"
	" GROUP BY ms.series_id ORDER BY ms.name, ms.labels, ms.series_id";

static struct plot_metric_pick *pick_of(struct plot_metric_pick *picks,
					size_t n, const char *name)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(picks[i].name, name))
			return &picks[i];
	return NULL;
}

static int unknown_metric(struct plot_source *src, const struct plot_metric_pick *p,
			  const struct plot_series *all, size_t nall)
{
	struct strbuf sb;

	strbuf_init(&sb);
	for (size_t i = 0; i < nall; i++)
		if (!i || strcmp(all[i].name, all[i - 1].name))
			strbuf_addf(&sb, "%s%s", sb.len ? ", " : "", all[i].name);
	errmsg_set(src->e, ENOENT, "no metric '%s' beside session %lld of '%s': "
		   "%s%s; import it with 'faultline import %s FILE --metric %s'",
		   p->name, (long long)src->session, src->path,
		   nall ? "it has " : "it has none", strbuf_str(&sb), src->path,
		   p->name);
	strbuf_release(&sb);
	return -ENOENT;
}

static int read_series(struct plot_source *src, struct plot_series **out,
		       size_t *nout)
{
	struct plot_series *v = NULL;
	size_t n = 0, cap = 0;
	sqlite3_stmt *st = NULL;
	int rc, err = prepare(src, series_sql, &st);

	if (err == 0) {
		bind_window(src, st, 0);
		sqlite3_bind_int64(st, 5, src->start_ts);
		sqlite3_bind_int64(st, 6, src->end_ts);
	}
	while (err == 0 && (rc = sqlite3_step(st)) == SQLITE_ROW) {
		struct plot_series s = { sqlite3_column_int64(st, 0), dup_text(st, 1),
			dup_text(st, 2), dup_text(st, 3), sqlite3_column_int(st, 4),
			STYLE_AUTO, sqlite3_column_int64(st, 5),
			sqlite3_column_double(st, 6), sqlite3_column_double(st, 7) };

		if (!s.name || !s.labels || ARRAY_RESERVE(v, cap, n + 1) < 0) {
			free(s.name);
			free(s.labels);
			free(s.unit);
			err = errmsg_set(src->e, ENOMEM, "out of memory");
			break;
		}
		s.style = s.imported ? STYLE_TICKS : STYLE_LINE;
		v[n++] = s;
	}
	if (err == 0 && rc != SQLITE_DONE)
		err = step_failed(src, rc);
	sqlite3_finalize(st);
	if (err < 0) {
		plot_series_free(v, n);
		return err;
	}
	*out = v;
	*nout = n;
	return 0;
}

int plot_source_series(struct plot_source *src, struct plot_metric_pick *picks,
		       size_t npicks, struct plot_series **out, size_t *nout)
{
	struct plot_series *all = NULL;
	size_t nall = 0, n = 0;
	int err = read_series(src, &all, &nall);

	for (size_t i = 0; err == 0 && i < nall; i++) {
		struct plot_metric_pick *p = pick_of(picks, npicks, all[i].name);

		if (p)
			p->matched = 1;
		if (p && p->style != STYLE_AUTO)
			all[i].style = p->style;
	}
	for (size_t i = 0; err == 0 && i < npicks; i++)
		if (!picks[i].matched)
			err = unknown_metric(src, &picks[i], all, nall);
	if (err < 0) {
		plot_series_free(all, nall);
		return err;
	}
	/* Keep the picked series, or those with points in the window, in
	 * their order; free the others' strings. */
	for (size_t i = 0; i < nall; i++) {
		int keep = npicks ? pick_of(picks, npicks, all[i].name) != NULL
				  : all[i].points > 0;

		if (keep) {
			all[n++] = all[i];
			continue;
		}
		free(all[i].name);
		free(all[i].labels);
		free(all[i].unit);
	}
	*out = all;
	*nout = n;
	return 0;
}

/* ---- rows --------------------------------------------------------------- */

/* Runs st (bound by the caller) and hands each row to row(); then
 * flushes r. */
static int each_row(struct plot_source *src, sqlite3_stmt *st,
		    struct plot_reduce *r,
		    int (*row)(struct plot_reduce *r, sqlite3_stmt *st))
{
	int rc, err = 0;

	while (err == 0 && (rc = sqlite3_step(st)) == SQLITE_ROW)
		err = row(r, st);
	if (err == 0 && rc != SQLITE_DONE)
		err = step_failed(src, rc);
	if (err == 0)
		err = plot_reduce_flush(r);
	sqlite3_finalize(st);
	return err;
}

/* A thread's intervals that reach into the window: from the last one to
 * begin at or before its start (intervals do not overlap), through the
 * index on (session_id, tid, ts). */
static const char states_sql[] =
	"SELECT ts, dur, state, cpu, waker_tid, preempted, uncertain, stack_id,"
	"       next_tid, next_comm, waker_cpu,"
	"       (SELECT w.waker FROM thread_state_waker w"
	"         WHERE w.session_id = ?1 AND w.state_id = x.rowid)"
	"  FROM thread_state x"
	" WHERE session_id = ?1 AND tid = ?2 AND ts < ?4 AND ts + dur > ?3"
	"   AND ts >= coalesce((SELECT ts FROM thread_state WHERE session_id = ?1"
	"                        AND tid = ?2 AND ts <= ?3 ORDER BY ts DESC LIMIT 1), ?3)"
	" ORDER BY ts";

static int state_row(struct plot_reduce *r, sqlite3_stmt *st)
{
	struct plot_state s;

	memset(&s, 0, sizeof(s));
	s.ts = sqlite3_column_int64(st, 0);
	s.dur_ns = sqlite3_column_int64(st, 1);
	s.state = plot_state_parse((const char *)sqlite3_column_text(st, 2));
	s.n = 1;
	s.cpu = int_or(st, 3, -1);
	s.waker_tid = int_or(st, 4, -1);
	s.flags = (sqlite3_column_int(st, 5) ? PLOT_PREEMPTED : 0) |
		  (sqlite3_column_int(st, 6) ? PLOT_UNCERTAIN : 0);
	s.stack_id = int_or(st, 7, -1);
	s.next_tid = int_or(st, 8, -1);
	s.next_comm = (const char *)sqlite3_column_text(st, 9);
	s.waker_cpu = int_or(st, 10, -1);
	s.waker = (const char *)sqlite3_column_text(st, 11);
	return plot_reduce_state(r, &s);
}

int plot_source_states(struct plot_source *src, int64_t tid, struct plot_reduce *r)
{
	sqlite3_stmt *st = NULL;
	int err = prepare(src, states_sql, &st);

	if (err < 0)
		return err;
	bind_window(src, st, tid);
	return each_row(src, st, r, state_row);
}

/* Faults likewise; one that never completed (dur NULL) reaches as far
 * as its start. */
static const char faults_sql[] =
	"SELECT ts, dur, kind, addr, ip, cpu, exit_cpu, stack_id"
	"  FROM fault"
	" WHERE session_id = ?1 AND tid = ?2 AND ts < ?4"
	"   AND coalesce(ts + dur > ?3, ts >= ?3)"
	"   AND ts >= coalesce((SELECT ts FROM fault WHERE session_id = ?1"
	"                        AND tid = ?2 AND ts <= ?3 ORDER BY ts DESC LIMIT 1), ?3)"
	" ORDER BY ts";

static int fault_row(struct plot_reduce *r, sqlite3_stmt *st)
{
	const char *kind = (const char *)sqlite3_column_text(st, 2);
	struct plot_fault f;

	memset(&f, 0, sizeof(f));
	f.ts = sqlite3_column_int64(st, 0);
	f.n = 1;
	if (sqlite3_column_type(st, 1) == SQLITE_NULL)
		f.kind = PF_UNFINISHED;
	else
		f.kind = kind && !strcmp(kind, "major") ? PF_MAJOR : PF_MINOR;
	f.dur_ns = int_or(st, 1, 0);
	f.max_ns = f.total_ns = f.dur_ns;
	f.addr = int_or(st, 3, -1);
	f.ip = int_or(st, 4, -1);
	f.cpu = int_or(st, 5, -1);
	f.exit_cpu = int_or(st, 6, -1);
	f.stack_id = int_or(st, 7, -1);
	return plot_reduce_fault(r, &f);
}

int plot_source_faults(struct plot_source *src, int64_t tid, struct plot_reduce *r)
{
	sqlite3_stmt *st = NULL;
	int err = prepare(src, faults_sql, &st);

	if (err < 0)
		return err;
	bind_window(src, st, tid);
	return each_row(src, st, r, fault_row);
}

static const char events_sql[] =
	"SELECT ts, name, fields FROM tracepoint_event"
	" WHERE session_id = ?1 AND ts BETWEEN ?3 AND ?4 AND tid = ?2 ORDER BY ts";

static int event_row(struct plot_reduce *r, sqlite3_stmt *st)
{
	struct plot_event ev;

	memset(&ev, 0, sizeof(ev));
	ev.ts = sqlite3_column_int64(st, 0);
	ev.n = 1;
	ev.name = (const char *)sqlite3_column_text(st, 1);
	ev.fields = (const char *)sqlite3_column_text(st, 2);
	return plot_reduce_event(r, &ev);
}

int plot_source_events(struct plot_source *src, int64_t tid, struct plot_reduce *r)
{
	sqlite3_stmt *st = NULL;
	int err = prepare(src, events_sql, &st);

	if (err < 0)
		return err;
	bind_window(src, st, tid);
	return each_row(src, st, r, event_row);
}

/* ?1 is unused here: every query binds the same four. */
static const char points_sql[] =
	"SELECT ts, value FROM metric WHERE ?1 IS NOT NULL AND series_id = ?2"
	"   AND ts BETWEEN ?3 AND ?4 ORDER BY ts";

static int point_row(struct plot_reduce *r, sqlite3_stmt *st)
{
	struct plot_point p;
	double v = sqlite3_column_double(st, 1);

	if (!isfinite(v))	/* no place on an axis */
		return 0;
	memset(&p, 0, sizeof(p));
	p.ts = sqlite3_column_int64(st, 0);
	p.n = 1;
	p.min = p.max = p.first = p.last = v;
	return plot_reduce_point(r, &p);
}

int plot_source_points(struct plot_source *src, int64_t series_id,
		       struct plot_reduce *r)
{
	sqlite3_stmt *st = NULL;
	int err = prepare(src, points_sql, &st);

	if (err < 0)
		return err;
	bind_window(src, st, series_id);
	return each_row(src, st, r, point_row);
}
