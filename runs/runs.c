#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "../common/array.h"
#include "../common/strbuf.h"
#include "../diagnose/diagnose.h"
#include "../diagnose/pattern.h"
#include "../diagnose/render.h"
#include "runs.h"

void runs_init(struct runs *r)
{
	memset(r, 0, sizeof(*r));
}

static void row_release(struct run_row *w)
{
	free(w->labels);
	free(w->host);
	free(w->status);
	free(w->findings);
	free(w->cause_ns);
	for (size_t i = 0; i < w->ncauses; i++)
		free(w->causes[i].comm);
	free(w->causes);
}

void runs_release(struct runs *r)
{
	for (size_t i = 0; i < r->n; i++)
		row_release(&r->v[i]);
	free(r->v);
	runs_init(r);
}

static int fail(sqlite3 *db, const char *path, struct errmsg *e)
{
	return errmsg_set(e, EIO, "cannot read the runs of '%s': %s", path,
			  sqlite3_errmsg(db));
}

/* ?1: the label filter, a JSON object, or NULL for every session.  A
 * label whose value is not a string never matches. */
static const char sessions_sql[] =
	"SELECT session_id, start_ts, coalesce(end_ts, start_ts), labels, host,"
	" status, coalesce(records_lost, 0) + coalesce(samples_lost, 0) +"
	" coalesce(records_dropped, 0)"
	"  FROM session s"
	" WHERE NOT EXISTS (SELECT 1 FROM json_each(?1) f WHERE"
	"   json_extract(s.labels, '$.\"' || f.key || '\"') IS NOT f.value)"
	" ORDER BY start_ts, session_id";

static char *text_dup(sqlite3_stmt *st, int i)
{
	const char *s = (const char *)sqlite3_column_text(st, i);

	return strdup(s ? s : "");
}

static int read_sessions(sqlite3 *db, const char *path, const char *filter,
			 struct runs *out, struct errmsg *e)
{
	sqlite3_stmt *st = NULL;
	int rc, err = 0;

	if (sqlite3_prepare_v2(db, sessions_sql, -1, &st, NULL) != SQLITE_OK)
		return fail(db, path, e);
	if (filter)
		sqlite3_bind_text(st, 1, filter, -1, SQLITE_STATIC);
	while (err == 0 && (rc = sqlite3_step(st)) == SQLITE_ROW) {
		struct run_row *w;

		if (ARRAY_RESERVE(out->v, out->cap, out->n + 1) < 0) {
			err = -ENOMEM;
			break;
		}
		w = &out->v[out->n++];
		memset(w, 0, sizeof(*w));
		w->session_id = sqlite3_column_int64(st, 0);
		w->start_ts = sqlite3_column_int64(st, 1);
		w->end_ts = sqlite3_column_int64(st, 2);
		w->labels = text_dup(st, 3);
		w->host = text_dup(st, 4);
		w->status = text_dup(st, 5);
		w->lost = sqlite3_column_int64(st, 6);
		w->metric_events = -1;
		w->p99_fault_ns = -1;
		w->cause_ns = calloc(diag_npatterns, sizeof(*w->cause_ns));
		if (!w->labels || !w->host || !w->status || !w->cause_ns)
			err = -ENOMEM;
	}
	if (err == 0 && rc != SQLITE_DONE)
		err = fail(db, path, e);
	sqlite3_finalize(st);
	return err == -ENOMEM ? errmsg_set(e, ENOMEM, "out of memory") : err;
}

int runs_session_ids(sqlite3 *db, const char *path, const char *labels_json,
		     int64_t **ids, size_t *n, struct errmsg *e)
{
	struct runs r;
	int err;

	runs_init(&r);
	*ids = NULL;
	*n = 0;
	err = read_sessions(db, path, labels_json, &r, e);
	if (err == 0 && r.n && !(*ids = calloc(r.n, sizeof(**ids))))
		err = errmsg_set(e, ENOMEM, "out of memory");
	for (size_t i = 0; err == 0 && i < r.n; i++)
		(*ids)[(*n)++] = r.v[i].session_id;
	runs_release(&r);
	return err;
}

/* Is there a series named metric?  If not, -ENOENT naming those there are. */
static int check_metric(sqlite3 *db, const char *path, const char *metric,
			struct errmsg *e)
{
	sqlite3_stmt *st = NULL;
	int rc, found = 0;
	struct strbuf names;

	strbuf_init(&names);
	rc = sqlite3_prepare_v2(db, "SELECT DISTINCT name FROM metric_series"
				" ORDER BY name", -1, &st, NULL);
	while (rc == SQLITE_OK && sqlite3_step(st) == SQLITE_ROW) {
		const char *n = (const char *)sqlite3_column_text(st, 0);

		found |= !strcmp(n, metric);
		strbuf_addf(&names, "%s%s", names.len ? ", " : "", n);
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_OK)
		rc = fail(db, path, e);
	else if (!found)
		rc = errmsg_set(e, ENOENT, "no metric '%s' in '%s' (%s%s); "
				"'faultline import' loads one", metric, path,
				names.len ? "it has: " : "it has none",
				strbuf_str(&names));
	strbuf_release(&names);
	return rc;
}

static const char metric_sql[] =
	"SELECT count(*) FROM metric m JOIN metric_series ms"
	"  ON ms.series_id = m.series_id"
	" WHERE ms.name = ?1 AND (ms.session_id IS NULL OR ms.session_id = ?2)"
	"   AND m.ts BETWEEN ?3 AND ?4";

/* The 99th percentile's bucket bound, capped by the longest fault. */
static const char p99_sql[] =
	"WITH h AS (SELECT hi_ns, sum(count) AS n, max(max_ns) AS mx"
	"             FROM fault_histogram WHERE session_id = ?1 GROUP BY hi_ns),"
	" c AS (SELECT hi_ns, mx, sum(n) OVER (ORDER BY hi_ns) AS cum,"
	"              sum(n) OVER () AS total FROM h)"
	" SELECT min(p, coalesce(mx, p)) FROM (SELECT min(CASE WHEN cum * 100"
	"   >= total * 99 THEN hi_ns END) AS p, max(mx) AS mx FROM c)";

/* The one integer a bound statement gives, or -1 for NULL; reset. */
static int one_int(sqlite3_stmt *st, int64_t *v)
{
	int rc = sqlite3_step(st);

	*v = -1;
	if (rc == SQLITE_ROW && sqlite3_column_type(st, 0) != SQLITE_NULL)
		*v = sqlite3_column_int64(st, 0);
	sqlite3_reset(st);
	return rc == SQLITE_ROW || rc == SQLITE_DONE ? 0 : -EIO;
}

static int add_cause(struct run_row *w, size_t pattern, const char *comm,
		     int64_t ns)
{
	struct run_cause *c;

	w->cause_ns[pattern] += ns;
	for (size_t i = 0; i < w->ncauses; i++)
		if (w->causes[i].pattern == pattern && !strcmp(w->causes[i].comm, comm)) {
			w->causes[i].ns += ns;
			return 0;
		}
	if (ARRAY_RESERVE(w->causes, w->causes_cap, w->ncauses + 1) < 0)
		return -ENOMEM;
	c = &w->causes[w->ncauses];
	if (!(c->comm = strdup(comm)))
		return -ENOMEM;
	c->pattern = pattern;
	c->ns = ns;
	w->ncauses++;
	return 0;
}

/* diagnose's findings of the run, summed by cause and by thread. */
static int causes_of(sqlite3 *db, struct run_row *w, struct errmsg *e)
{
	struct diag_request req;
	struct diag_result res;
	struct strbuf sb;
	int err;

	strbuf_init(&sb);
	diag_request_init(&req);
	req.session_id = w->session_id;
	diag_result_init(&res);
	err = diag_run(db, &req, &res, e);
	for (size_t i = 0; err == 0 && i < res.nfindings; i++) {
		const struct diag_finding *f = &res.findings[i];

		err = add_cause(w, f->pattern, f->comm ? f->comm : "", f->lost_ns);
	}
	if (err == 0) {
		diag_render_text(&req, &res, RUN_FINDINGS, &sb);
		if (!(w->findings = strbuf_detach(&sb)))
			err = -ENOMEM;
	}
	strbuf_release(&sb);
	diag_result_release(&res);
	return err == -ENOMEM ? errmsg_set(e, ENOMEM, "out of memory") : err;
}

int64_t run_cause_ns(const struct run_row *r, size_t pattern, const char *comm)
{
	for (size_t i = 0; i < r->ncauses; i++)
		if (r->causes[i].pattern == pattern && !strcmp(r->causes[i].comm, comm))
			return r->causes[i].ns;
	return 0;
}

int runs_read(sqlite3 *db, const char *path, const struct runs_request *req,
	      struct runs *out, struct errmsg *e)
{
	sqlite3_stmt *met = NULL, *p99 = NULL;
	int err = 0;

	if (req->metric && (err = check_metric(db, path, req->metric, e)) < 0)
		return err;
	if ((err = read_sessions(db, path, req->labels_json, out, e)) < 0)
		return err;
	if ((req->metric && sqlite3_prepare_v2(db, metric_sql, -1, &met, NULL) != SQLITE_OK) ||
	    sqlite3_prepare_v2(db, p99_sql, -1, &p99, NULL) != SQLITE_OK)
		err = fail(db, path, e);
	for (size_t i = 0; err == 0 && i < out->n; i++) {
		struct run_row *w = &out->v[i];

		if (met) {
			sqlite3_bind_text(met, 1, req->metric, -1, SQLITE_STATIC);
			sqlite3_bind_int64(met, 2, w->session_id);
			sqlite3_bind_int64(met, 3, w->start_ts);
			sqlite3_bind_int64(met, 4, w->end_ts);
			if (one_int(met, &w->metric_events) < 0)
				err = fail(db, path, e);
		}
		sqlite3_bind_int64(p99, 1, w->session_id);
		if (err == 0 && one_int(p99, &w->p99_fault_ns) < 0)
			err = fail(db, path, e);
		if (err == 0)
			err = causes_of(db, w, e);
	}
	sqlite3_finalize(met);
	sqlite3_finalize(p99);
	return err;
}
