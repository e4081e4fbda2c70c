#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../common/array.h"
#include "env_diff.h"

/* ?1, ?2: the sides' session ids as JSON arrays.  A side's value: the one
 * its sessions agree on, else what says they do not. */
static const char diff_sql[] =
	"WITH a AS (SELECT value AS sid FROM json_each(?1)),\n"
	"b AS (SELECT value AS sid FROM json_each(?2)),\n"
	"va AS (SELECT key, count(*) AS n, count(DISTINCT value) AS nd,\n"
	"              min(value) AS lo, max(value) AS hi\n"
	"         FROM session_env WHERE session_id IN (SELECT sid FROM a)\n"
	"        GROUP BY key),\n"
	"vb AS (SELECT key, count(*) AS n, count(DISTINCT value) AS nd,\n"
	"              min(value) AS lo, max(value) AS hi\n"
	"         FROM session_env WHERE session_id IN (SELECT sid FROM b)\n"
	"        GROUP BY key),\n"
	"k AS (SELECT key FROM va UNION SELECT key FROM vb),\n"
	"v AS (\n"
	"  SELECT k.key,\n"
	"         CASE WHEN va.n IS NULL THEN NULL\n"
	"              WHEN va.nd > 1 THEN va.lo || ' .. ' || va.hi || ' (varies)'\n"
	"              WHEN va.n < (SELECT count(*) FROM a) THEN va.lo || ' (in ' ||\n"
	"                   va.n || ' of ' || (SELECT count(*) FROM a) || ' runs)'\n"
	"              ELSE va.lo END AS a,\n"
	"         CASE WHEN vb.n IS NULL THEN NULL\n"
	"              WHEN vb.nd > 1 THEN vb.lo || ' .. ' || vb.hi || ' (varies)'\n"
	"              WHEN vb.n < (SELECT count(*) FROM b) THEN vb.lo || ' (in ' ||\n"
	"                   vb.n || ' of ' || (SELECT count(*) FROM b) || ' runs)'\n"
	"              ELSE vb.lo END AS b\n"
	"    FROM k LEFT JOIN va ON va.key = k.key LEFT JOIN vb ON vb.key = k.key)\n"
	"SELECT key, a, b FROM v WHERE a IS NOT b ORDER BY key";

int env_diff_prepare(sqlite3 *db, const char *a_ids, const char *b_ids,
		     sqlite3_stmt **st, struct errmsg *e)
{
	if (sqlite3_prepare_v2(db, diff_sql, -1, st, NULL) != SQLITE_OK)
		return errmsg_set(e, EIO, "cannot read the environment: %s "
				  "(a database of schema 8 or later holds it; "
				  "faultline upgrade brings an older one there)",
				  sqlite3_errmsg(db));
	sqlite3_bind_text(*st, 1, a_ids, -1, SQLITE_TRANSIENT);
	sqlite3_bind_text(*st, 2, b_ids, -1, SQLITE_TRANSIENT);
	return 0;
}

int env_side_ids(sqlite3 *db, const char *label, const char *value,
		 struct strbuf *sb, size_t *n, struct errmsg *e)
{
	sqlite3_stmt *st = NULL;
	int rc = sqlite3_prepare_v2(db, "SELECT json_group_array(session_id),"
				    " count(*) FROM (SELECT session_id FROM session"
				    " WHERE CAST(CASE WHEN ?1 IS NULL THEN session_id"
				    " ELSE json_extract(labels, '$.\"' || ?1 || '\"') END"
				    " AS TEXT) = ?2 ORDER BY session_id)", -1, &st, NULL);

	if (rc == SQLITE_OK) {
		if (label)
			sqlite3_bind_text(st, 1, label, -1, SQLITE_STATIC);
		sqlite3_bind_text(st, 2, value, -1, SQLITE_STATIC);
		rc = sqlite3_step(st);
	}
	if (rc == SQLITE_ROW) {
		strbuf_adds(sb, (const char *)sqlite3_column_text(st, 0));
		*n = (size_t)sqlite3_column_int64(st, 1);
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_ROW)
		return errmsg_set(e, EIO, "cannot read the sessions: %s",
				  sqlite3_errmsg(db));
	return strbuf_error(sb) ? errmsg_set(e, ENOMEM, "out of memory") : 0;
}

void env_diff_init(struct env_diff *d)
{
	memset(d, 0, sizeof(*d));
}

void env_diff_release(struct env_diff *d)
{
	for (size_t i = 0; i < d->n; i++) {
		free(d->v[i].key);
		free(d->v[i].a);
		free(d->v[i].b);
	}
	free(d->v);
	env_diff_init(d);
}

static char *dup_col(sqlite3_stmt *st, int i, int *oom)
{
	const char *s = (const char *)sqlite3_column_text(st, i);
	char *c = s ? strdup(s) : NULL;

	if (s && !c)
		*oom = 1;
	return c;
}

/* Has session id any session_env row?  1, 0, or -EIO. */
static int recorded(sqlite3 *db, int64_t id)
{
	sqlite3_stmt *st = NULL;
	int rc, has = -EIO;

	if (sqlite3_prepare_v2(db, "SELECT EXISTS (SELECT 1 FROM session_env"
			       " WHERE session_id = ?)", -1, &st, NULL) == SQLITE_OK) {
		sqlite3_bind_int64(st, 1, id);
		rc = sqlite3_step(st);
		if (rc == SQLITE_ROW)
			has = sqlite3_column_int(st, 0);
	}
	sqlite3_finalize(st);
	return has;
}

int env_diff_sessions(sqlite3 *db, int64_t a, int64_t b, struct env_diff *d,
		      struct errmsg *e)
{
	char aj[32], bj[32];
	sqlite3_stmt *st = NULL;
	int rc, err, oom = 0;

	snprintf(aj, sizeof(aj), "[%lld]", (long long)a);
	snprintf(bj, sizeof(bj), "[%lld]", (long long)b);
	d->a_recorded = recorded(db, a);
	d->b_recorded = recorded(db, b);
	if (d->a_recorded < 0 || d->b_recorded < 0)
		return errmsg_set(e, EIO, "cannot read the environment: %s",
				  sqlite3_errmsg(db));
	if ((err = env_diff_prepare(db, aj, bj, &st, e)) < 0)
		return err;
	while (!oom && (rc = sqlite3_step(st)) == SQLITE_ROW) {
		struct env_change *c;

		if (ARRAY_RESERVE(d->v, d->cap, d->n + 1) < 0) {
			oom = 1;
			break;
		}
		c = &d->v[d->n++];
		c->key = dup_col(st, 0, &oom);
		c->a = dup_col(st, 1, &oom);
		c->b = dup_col(st, 2, &oom);
		if (!c->key)
			oom = 1;
	}
	if (!oom && rc != SQLITE_DONE)
		err = errmsg_set(e, EIO, "cannot read the environment: %s",
				 sqlite3_errmsg(db));
	sqlite3_finalize(st);
	if (oom)
		return errmsg_set(e, ENOMEM, "out of memory");
	return err;
}

static const char build_prefix[] = "build_id.";

static int is_build_id(const char *key)
{
	return !strncmp(key, build_prefix, sizeof(build_prefix) - 1);
}

/* env.NAME is NAME; other keys as they are. */
static const char *shown(const char *key)
{
	return strncmp(key, "env.", 4) ? key : key + 4;
}

static void add_change(struct strbuf *sb, const struct env_change *c)
{
	if (!c->a)
		strbuf_addf(sb, "%s=%s set", shown(c->key), c->b);
	else if (!c->b)
		strbuf_addf(sb, "%s unset (was %s)", shown(c->key), c->a);
	else
		strbuf_addf(sb, "%s %s -> %s", shown(c->key), c->a, c->b);
}

/* The build ids that changed, by the file's last name; at most 3 named. */
static void add_build_ids(struct strbuf *sb, const struct env_diff *d)
{
	size_t n = 0;

	for (size_t i = 0; i < d->n; i++) {
		const char *path, *slash;

		if (!is_build_id(d->v[i].key))
			continue;
		if (n++ >= 3)
			continue;
		path = d->v[i].key + sizeof(build_prefix) - 1;
		slash = strrchr(path, '/');
		strbuf_addf(sb, "%s%s", n == 1 ? "build ids changed: " : ", ",
			    slash ? slash + 1 : path);
	}
	if (n == 0)
		strbuf_adds(sb, "build ids unchanged");
	else if (n > 3)
		strbuf_addf(sb, " and %zu more", n - 3);
}

void env_diff_summary(const struct env_diff *d, struct strbuf *sb)
{
	size_t said = 0;

	if (!d->a_recorded || !d->b_recorded) {
		strbuf_adds(sb, "environment not recorded for one of the runs");
		return;
	}
	for (size_t i = 0; i < d->n; i++) {
		if (is_build_id(d->v[i].key))
			continue;
		if (said++)
			strbuf_adds(sb, ", ");
		add_change(sb, &d->v[i]);
	}
	if (!said)
		strbuf_adds(sb, "environment unchanged");
	strbuf_adds(sb, "; ");
	add_build_ids(sb, d);
}
