/*
 * The spans of a plot that losses cover (plot_source_lost in source.h):
 * where a lost row says records went missing, and how far back.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "../common/array.h"
#include "../schema/db.h"
#include "source.h"

/* The latest (dir < 0) or earliest (dir > 0) record stored from a CPU's
 * rings strictly between ?2 and ?3: a fault entry or a tracepoint hit on
 * ?4, any CPU when ?4 is NULL.  Walks the (session_id, ts) indexes from
 * the report outwards, so it reads little when the CPU was busy. */
static const char before_sql[] =
	"SELECT max(coalesce((SELECT ts FROM fault WHERE session_id = ?1"
	"   AND ts > ?2 AND ts < ?3 AND (?4 IS NULL OR cpu = ?4)"
	"   ORDER BY ts DESC LIMIT 1), ?2),"
	" coalesce((SELECT ts FROM tracepoint_event WHERE session_id = ?1"
	"   AND ts > ?2 AND ts < ?3 AND (?4 IS NULL OR cpu = ?4)"
	"   ORDER BY ts DESC LIMIT 1), ?2))";
static const char after_sql[] =
	"SELECT min(coalesce((SELECT ts FROM fault WHERE session_id = ?1"
	"   AND ts > ?2 AND ts < ?3 AND (?4 IS NULL OR cpu = ?4)"
	"   ORDER BY ts LIMIT 1), ?3),"
	" coalesce((SELECT ts FROM tracepoint_event WHERE session_id = ?1"
	"   AND ts > ?2 AND ts < ?3 AND (?4 IS NULL OR cpu = ?4)"
	"   ORDER BY ts LIMIT 1), ?3))";

/* The previous report's ts per CPU, so a span never reaches back past
 * the report before it: what was before that, that report covers. */
struct prev_report {
	int64_t *ts;		/* owned: [cpu + 1]; [0] for an unknown CPU */
	size_t n, cap;
};

static int64_t *prev_slot(struct prev_report *p, int64_t cpu, int64_t start_ts)
{
	size_t i = cpu < 0 ? 0 : (size_t)cpu + 1;

	if (cpu > 65535)	/* not a CPU number: kept with the unknown */
		i = 0;
	if (i >= p->n) {
		if (ARRAY_RESERVE(p->ts, p->cap, i + 1) < 0)
			return NULL;
		while (p->n <= i)
			p->ts[p->n++] = start_ts;
	}
	return &p->ts[i];
}

static int bound(struct plot_source *src, sqlite3_stmt *st, int64_t lo,
		 int64_t hi, int64_t cpu, int64_t *out)
{
	int rc;

	sqlite3_reset(st);
	sqlite3_bind_int64(st, 1, src->session);
	sqlite3_bind_int64(st, 2, lo);
	sqlite3_bind_int64(st, 3, hi);
	if (cpu >= 0)
		sqlite3_bind_int64(st, 4, cpu);
	else
		sqlite3_bind_null(st, 4);
	rc = sqlite3_step(st);
	if (rc != SQLITE_ROW)
		return db_fail(src->db, rc, src->path, "cannot read", src->e);
	*out = sqlite3_column_int64(st, 0);
	return 0;
}

struct lost_q {
	sqlite3_stmt *rows;	/* owned: the reports, in time order */
	sqlite3_stmt *before;	/* owned: before_sql */
	sqlite3_stmt *after;	/* owned: after_sql */
	struct prev_report prev;
};

/* One report: its span, clipped to nothing when it misses the window. */
static int report(struct plot_source *src, struct lost_q *q,
		  const struct plot_sink_ops *ops, void *w, struct plot_counts *n)
{
	struct plot_lost l;
	int64_t *prev;
	int err = 0;

	l.to_ts = l.from_ts = sqlite3_column_int64(q->rows, 0);
	l.cpu = sqlite3_column_type(q->rows, 1) == SQLITE_NULL ? -1
		: sqlite3_column_int64(q->rows, 1);
	l.kind = (const char *)sqlite3_column_text(q->rows, 2);
	l.count = sqlite3_column_int64(q->rows, 3);
	if (!l.kind)
		l.kind = "?";
	prev = prev_slot(&q->prev, l.cpu, src->start_ts);
	if (!prev)
		return errmsg_set(src->e, ENOMEM, "out of memory");
	if (!strcmp(l.kind, "throttled"))
		err = bound(src, q->after, l.from_ts, src->end_ts, l.cpu, &l.to_ts);
	else if (strcmp(l.kind, "malformed"))
		err = bound(src, q->before, *prev, l.to_ts, l.cpu, &l.from_ts);
	*prev = sqlite3_column_int64(q->rows, 0);
	if (err < 0 || l.to_ts < src->from_ts || l.from_ts > src->to_ts)
		return err;
	n->lost_spans++;
	return ops->lost(w, &l);
}

static int prepare(struct plot_source *src, const char *sql, sqlite3_stmt **st)
{
	int rc = sqlite3_prepare_v2(src->db, sql, -1, st, NULL);

	return rc == SQLITE_OK ? 0 : db_fail(src->db, rc, src->path, "cannot read",
					      src->e);
}

/* Every timed report from the window's start on (a report after the
 * window can cover a span inside it), in time order; then the untimed. */
static const char rows_sql[] =
	"SELECT ts, cpu, kind, count FROM lost"
	" WHERE session_id = ?1 AND ts >= ?2 ORDER BY ts";
static const char untimed_sql[] =
	"SELECT count(*) FROM lost WHERE session_id = ?1 AND ts IS NULL";

int plot_source_lost(struct plot_source *src, const struct plot_sink_ops *ops,
		     void *w, struct plot_counts *n)
{
	struct lost_q q;
	sqlite3_stmt *untimed = NULL;
	int rc = SQLITE_OK, err;

	memset(&q, 0, sizeof(q));
	err = prepare(src, rows_sql, &q.rows);
	if (err == 0)
		err = prepare(src, before_sql, &q.before);
	if (err == 0)
		err = prepare(src, after_sql, &q.after);
	if (err == 0)
		err = prepare(src, untimed_sql, &untimed);
	if (err == 0) {
		sqlite3_bind_int64(q.rows, 1, src->session);
		/* From the session's start: each report bounds the next. */
		sqlite3_bind_int64(q.rows, 2, src->start_ts);
		sqlite3_bind_int64(untimed, 1, src->session);
	}
	while (err == 0 && (rc = sqlite3_step(q.rows)) == SQLITE_ROW)
		err = report(src, &q, ops, w, n);
	if (err == 0 && rc != SQLITE_DONE)
		err = db_fail(src->db, rc, src->path, "cannot read", src->e);
	if (err == 0 && (rc = sqlite3_step(untimed)) == SQLITE_ROW)
		n->lost_untimed = (uint64_t)sqlite3_column_int64(untimed, 0);
	else if (err == 0)
		err = db_fail(src->db, rc, src->path, "cannot read", src->e);
	sqlite3_finalize(q.rows);
	sqlite3_finalize(q.before);
	sqlite3_finalize(q.after);
	sqlite3_finalize(untimed);
	free(q.prev.ts);
	return err;
}
