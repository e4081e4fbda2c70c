#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../common/array.h"
#include "../common/clock.h"
#include "../common/fmt_dur.h"
#include "../common/strbuf.h"
#include "../diagnose/pattern.h"
#include "changes.h"
#include "edivisive.h"
#include "env_diff.h"

/* The causes whose series are tested, by diagnose's pattern names. */
static const char *const series_causes[] = {
	"lazy-binding", "file-evicted", "preemption", "cpu-quota",
};

void run_changes_init(struct run_changes *c)
{
	memset(c, 0, sizeof(*c));
}

void run_changes_release(struct run_changes *c)
{
	for (size_t i = 0; i < c->n; i++) {
		free(c->v[i].comm);
		free(c->v[i].group);
		free(c->v[i].environment);
	}
	free(c->v);
	run_changes_init(c);
}

const char *run_change_series(const struct run_change *c, const char *metric,
			      char *buf, size_t n)
{
	switch (c->kind) {
	case SERIES_CAUSE:
		snprintf(buf, n, "%s stall time of %s",
			 diag_patterns[c->pattern]->name, c->comm);
		break;
	case SERIES_METRIC:
		snprintf(buf, n, "%s events", metric ? metric : "metric");
		break;
	case SERIES_P99:
		snprintf(buf, n, "p99 fault");
		break;
	}
	return buf;
}

static int fail(sqlite3 *db, struct errmsg *e)
{
	return errmsg_set(e, EIO, "cannot group the runs: %s", sqlite3_errmsg(db));
}

/* Each run's labels less the run-id keys (a key every run has, with a
 * value no two share), as canonical JSON, into group[i] (owned). */
static int groups_of(sqlite3 *db, const struct runs *runs, char **group,
		     struct errmsg *e)
{
	static const char ids_sql[] =
		"SELECT json_group_array(key) FROM (SELECT j.key FROM"
		" json_each(?1) r, json_each(r.value) j GROUP BY j.key"
		" HAVING count(*) = json_array_length(?1) AND count(*) > 1"
		" AND count(DISTINCT j.value) = count(*))";
	static const char less_sql[] =
		"SELECT json_group_object(key, value) FROM (SELECT key, value"
		" FROM json_each(?1) WHERE key NOT IN (SELECT value FROM"
		" json_each(?2)) ORDER BY key)";
	sqlite3_stmt *st = NULL;
	struct strbuf all;
	char *ids = NULL;
	int err = 0;

	strbuf_init(&all);
	strbuf_addc(&all, '[');
	for (size_t i = 0; i < runs->n; i++)
		strbuf_addf(&all, "%s%s", i ? "," : "", runs->v[i].labels);
	strbuf_addc(&all, ']');
	if (strbuf_error(&all))
		err = errmsg_set(e, ENOMEM, "out of memory");
	if (err == 0 && sqlite3_prepare_v2(db, ids_sql, -1, &st, NULL) != SQLITE_OK)
		err = fail(db, e);
	if (err == 0) {
		sqlite3_bind_text(st, 1, strbuf_str(&all), -1, SQLITE_STATIC);
		if (sqlite3_step(st) != SQLITE_ROW)
			err = fail(db, e);
		else if (!(ids = strdup((const char *)sqlite3_column_text(st, 0))))
			err = errmsg_set(e, ENOMEM, "out of memory");
	}
	sqlite3_finalize(st);
	st = NULL;
	if (err == 0 && sqlite3_prepare_v2(db, less_sql, -1, &st, NULL) != SQLITE_OK)
		err = fail(db, e);
	for (size_t i = 0; err == 0 && i < runs->n; i++) {
		sqlite3_bind_text(st, 1, runs->v[i].labels, -1, SQLITE_STATIC);
		sqlite3_bind_text(st, 2, ids, -1, SQLITE_STATIC);
		if (sqlite3_step(st) != SQLITE_ROW)
			err = fail(db, e);
		else if (!(group[i] = strdup((const char *)sqlite3_column_text(st, 0))))
			err = errmsg_set(e, ENOMEM, "out of memory");
		sqlite3_reset(st);
	}
	sqlite3_finalize(st);
	free(ids);
	strbuf_release(&all);
	return err;
}

/* One series under test: its values over the group's runs. */
struct series {
	enum series_kind kind;
	size_t pattern;
	const char *comm;	/* borrowed from a run's causes */
};

static double value_of(const struct series *s, const struct run_row *r)
{
	switch (s->kind) {
	case SERIES_CAUSE:
		return (double)run_cause_ns(r, s->pattern, s->comm);
	case SERIES_METRIC:
		return r->metric_events < 0 ? 0 : (double)r->metric_events;
	case SERIES_P99:
		return r->p99_fault_ns < 0 ? 0 : (double)r->p99_fault_ns;
	}
	return 0;
}

static double mean(const double *x, size_t lo, size_t hi)
{
	double s = 0;

	for (size_t i = lo; i < hi; i++)
		s += x[i];
	return hi > lo ? s / (double)(hi - lo) : 0;
}

/* The change points of one series over the runs idx[0, n), added to out. */
static int test_series(sqlite3 *db, const struct runs *runs, const size_t *idx,
		       size_t n, const struct series *s, const char *group,
		       struct run_changes *out, struct errmsg *e)
{
	struct edm_params p;
	struct edm_change *cp = NULL;
	double *x = malloc(n * sizeof(*x));
	size_t k = 0;
	int err;

	cp = malloc(n * sizeof(*cp));
	if (!x || !cp) {
		err = -ENOMEM;
		goto out;
	}
	for (size_t i = 0; i < n; i++)
		x[i] = value_of(s, &runs->v[idx[i]]);
	edm_params_init(&p);
	out->nseries++;
	err = edm_find(x, n, &p, cp, n, &k);
	for (size_t i = 0; err == 0 && i < k; i++) {
		size_t lo = i ? cp[i - 1].index : 0, at = cp[i].index;
		size_t hi = i + 1 < k ? cp[i + 1].index : n;
		struct env_diff d;
		struct strbuf sb;
		struct run_change *c;

		if (ARRAY_RESERVE(out->v, out->cap, out->n + 1) < 0) {
			err = -ENOMEM;
			break;
		}
		c = &out->v[out->n];
		memset(c, 0, sizeof(*c));
		c->kind = s->kind;
		c->pattern = s->pattern;
		c->run = idx[at];
		c->before_run = idx[at - 1];
		c->before = mean(x, lo, at);
		c->after = mean(x, at, hi);
		c->p = cp[i].p;
		env_diff_init(&d);
		strbuf_init(&sb);
		err = env_diff_sessions(db, runs->v[idx[at - 1]].session_id,
					runs->v[idx[at]].session_id, &d, e);
		if (err == 0)
			env_diff_summary(&d, &sb);
		c->environment = strbuf_detach(&sb);
		c->group = strdup(group);
		c->comm = s->comm ? strdup(s->comm) : NULL;
		out->n++;
		if (err == 0 && (!c->environment || !c->group || (s->comm && !c->comm)))
			err = -ENOMEM;
		env_diff_release(&d);
		strbuf_release(&sb);
	}
out:
	free(x);
	free(cp);
	return err == -ENOMEM ? errmsg_set(e, ENOMEM, "out of memory") : err;
}

static size_t pattern_index(const char *name)
{
	for (size_t i = 0; i < diag_npatterns; i++)
		if (!strcmp(diag_patterns[i]->name, name))
			return i;
	return diag_npatterns;
}

/* Every series of the group idx[0, n). */
static int test_group(sqlite3 *db, const struct runs *runs, const size_t *idx,
		      size_t n, const char *metric, const char *group,
		      struct run_changes *out, struct errmsg *e)
{
	int err = 0;

	for (size_t c = 0; err == 0 && c < ARRAY_SIZE(series_causes); c++) {
		size_t pat = pattern_index(series_causes[c]);

		/* Each thread name with this cause in any run, once. */
		for (size_t i = 0; err == 0 && i < n && pat < diag_npatterns; i++) {
			const struct run_row *r = &runs->v[idx[i]];

			for (size_t k = 0; err == 0 && k < r->ncauses; k++) {
				struct series s = { SERIES_CAUSE, pat, r->causes[k].comm };
				int seen = 0;

				if (r->causes[k].pattern != pat)
					continue;
				for (size_t j = 0; j < i && !seen; j++)
					for (size_t m = 0; m < runs->v[idx[j]].ncauses; m++)
						if (runs->v[idx[j]].causes[m].pattern == pat &&
						    !strcmp(runs->v[idx[j]].causes[m].comm, s.comm))
							seen = 1;
				if (!seen)
					err = test_series(db, runs, idx, n, &s, group, out, e);
			}
		}
	}
	if (err == 0 && metric) {
		struct series s = { SERIES_METRIC, 0, NULL };

		err = test_series(db, runs, idx, n, &s, group, out, e);
	}
	if (err == 0) {
		struct series s = { SERIES_P99, 0, NULL };

		err = test_series(db, runs, idx, n, &s, group, out, e);
	}
	return err;
}

/* By run, then series: kind, cause, thread name. */
static int by_run(const void *a, const void *b)
{
	const struct run_change *x = a, *y = b;

	if (x->run != y->run)
		return (x->run > y->run) - (x->run < y->run);
	if (x->kind != y->kind)
		return (x->kind > y->kind) - (x->kind < y->kind);
	if (x->pattern != y->pattern)
		return (x->pattern > y->pattern) - (x->pattern < y->pattern);
	return strcmp(x->comm ? x->comm : "", y->comm ? y->comm : "");
}

int run_changes_find(sqlite3 *db, const struct runs *runs, const char *metric,
		     struct run_changes *out, struct errmsg *e)
{
	char **group = calloc(runs->n ? runs->n : 1, sizeof(*group));
	size_t *idx = malloc((runs->n ? runs->n : 1) * sizeof(*idx));
	char *done = calloc(runs->n ? runs->n : 1, 1);
	int err = 0;

	if (!group || !idx || !done)
		err = errmsg_set(e, ENOMEM, "out of memory");
	if (err == 0)
		err = groups_of(db, runs, group, e);
	for (size_t i = 0; err == 0 && i < runs->n; i++) {
		size_t n = 0;

		if (done[i])
			continue;
		for (size_t j = i; j < runs->n; j++)
			if (!done[j] && !strcmp(group[j], group[i])) {
				done[j] = 1;
				idx[n++] = j;
			}
		out->ngroups++;
		err = test_group(db, runs, idx, n, metric, group[i], out, e);
	}
	if (err == 0 && out->n > 1)
		qsort(out->v, out->n, sizeof(*out->v), by_run);
	for (size_t i = 0; group && i < runs->n; i++)
		free(group[i]);
	free(group);
	free(idx);
	free(done);
	return err;
}

/* A figure of the series: a duration for a stall time or the p99, a
 * count of events for the metric. */
static const char *figure(const struct run_change *c, double v, char *buf,
			  size_t n)
{
	if (c->kind == SERIES_METRIC)
		snprintf(buf, n, "%.1f", v);
	else
		fmt_dur(buf, n, v < 0 ? 0 : (uint64_t)(v + 0.5));
	return buf;
}

void run_change_text(const struct runs *runs, const struct run_change *c,
		     const char *metric, struct strbuf *sb)
{
	const struct run_row *w = &runs->v[c->run];
	char t[UTC_LEN], name[256], a[32], b[32], *dot;

	utc_format(t, sizeof(t), w->start_ts);
	if ((dot = strchr(t, '.')) && strlen(dot) > 4)
		strcpy(dot + 4, "Z");	/* to the millisecond */
	strbuf_addf(sb, "run %zu (session %lld), %s: %s %s from %s to %s (p %s %.3f); "
		    "environment: %s", c->run + 1, (long long)w->session_id, t,
		    run_change_series(c, metric, name, sizeof(name)),
		    c->after < c->before ? "fell" : "rose",
		    figure(c, c->before, a, sizeof(a)), figure(c, c->after, b, sizeof(b)),
		    /* 999 permutations: 0.001 is the least p they can give */
		    c->p <= 0.001 + 1e-12 ? "<=" : "=", c->p, c->environment);
}
