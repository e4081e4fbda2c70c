#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../common/array.h"
#include "../common/clock.h"
#include "../common/sha256.h"
#include "db.h"
#include "metric_store.h"

static int fail(struct metric_store *s, int rc, struct errmsg *e)
{
	return db_fail(s->db, rc, s->path, "cannot write", e);
}

/* The database's sessions' spans, to count the rows outside them. */
static int load_spans(struct metric_store *s, struct errmsg *e)
{
	sqlite3_stmt *st = NULL;
	int rc = sqlite3_prepare_v2(s->db, "SELECT start_ts, coalesce(end_ts, ?)"
				    " FROM session ORDER BY start_ts", -1, &st, NULL);

	if (rc == SQLITE_OK)
		rc = sqlite3_bind_int64(st, 1, INT64_MAX);
	while (rc == SQLITE_OK && (rc = sqlite3_step(st)) == SQLITE_ROW) {
		if (ARRAY_RESERVE(s->spans, s->spans_cap, s->nspans + 1) < 0) {
			sqlite3_finalize(st);
			return errmsg_set(e, ENOMEM, "out of memory");
		}
		s->spans[s->nspans++] = (struct session_span){
			sqlite3_column_int64(st, 0), sqlite3_column_int64(st, 1) };
		rc = SQLITE_OK;
	}
	sqlite3_finalize(st);
	return rc == SQLITE_DONE ? 0 : fail(s, rc, e);
}

int metric_store_begin(struct metric_store *s, sqlite3 *db, const char *path,
		       const char *source, const char *unit, struct errmsg *e)
{
	int rc, err;

	memset(s, 0, sizeof(*s));
	s->db = db;
	s->path = path;
	s->source = source;
	s->unit = unit;
	s->imported_ts = (int64_t)realtime_ns();
	s->min_ts = INT64_MAX;
	s->max_ts = INT64_MIN;
	s->nslots = 64;
	s->slots = calloc(s->nslots, sizeof(*s->slots));
	if (!s->slots)
		return errmsg_set(e, ENOMEM, "out of memory");
	/* IMMEDIATE: a locked database fails here, before any parsing. */
	rc = sqlite3_exec(db, "BEGIN IMMEDIATE", NULL, NULL, NULL);
	if (rc != SQLITE_OK)
		return fail(s, rc, e);
	s->in_txn = 1;
	err = load_spans(s, e);
	if (err < 0)
		return err;
	rc = sqlite3_prepare_v3(db, "INSERT INTO metric_series (session_id, name, "
				"labels, unit, source, imported_ts) "
				"VALUES (NULL, ?, ?, ?, ?, ?)", -1,
				SQLITE_PREPARE_PERSISTENT, &s->series, NULL);
	if (rc == SQLITE_OK)
		rc = row_batch_prepare(&s->rows_held, db,
				       "metric (series_id, ts, value)", 3);
	return rc == SQLITE_OK ? 0 : fail(s, rc, e);
}

static uint64_t hash_key(const char *name, size_t name_len, const char *labels,
			 size_t labels_len)
{
	uint64_t h = 0xcbf29ce484222325ull;	/* FNV-1a */

	for (size_t i = 0; i < name_len; i++)
		h = (h ^ (unsigned char)name[i]) * 0x100000001b3ull;
	h = (h ^ 0) * 0x100000001b3ull;
	for (size_t i = 0; i < labels_len; i++)
		h = (h ^ (unsigned char)labels[i]) * 0x100000001b3ull;
	return h;
}

static int slot_is(const struct series_slot *sl, const struct metric_row *r)
{
	return sl->key_len == r->name_len + 1 + r->labels_len &&
	       !memcmp(sl->key, r->name, r->name_len) && sl->key[r->name_len] == '\0' &&
	       !memcmp(sl->key + r->name_len + 1, r->labels, r->labels_len);
}

/* The slot of r's series, or the free slot where it goes. */
static struct series_slot *find_slot(struct metric_store *s, uint64_t h,
				     const struct metric_row *r)
{
	size_t i = h & (s->nslots - 1);

	while (s->slots[i].key && !(s->slots[i].hash == h && slot_is(&s->slots[i], r)))
		i = (i + 1) & (s->nslots - 1);
	return &s->slots[i];
}

/* Doubles the table (kept at most half full). */
static int rehash(struct metric_store *s)
{
	struct series_slot *old = s->slots;
	size_t n = s->nslots;

	s->slots = calloc(n * 2, sizeof(*s->slots));
	if (!s->slots) {
		s->slots = old;
		return -ENOMEM;
	}
	s->nslots = n * 2;
	for (size_t i = 0; i < n; i++) {
		size_t k = old[i].hash & (s->nslots - 1);

		if (!old[i].key)
			continue;
		while (s->slots[k].key)
			k = (k + 1) & (s->nslots - 1);
		s->slots[k] = old[i];
	}
	free(old);
	s->last = NULL;
	return 0;
}

/* Writes the metric_series row of r's series into sl (free). */
static int new_series(struct metric_store *s, struct series_slot *sl, uint64_t h,
		      const struct metric_row *r, struct errmsg *e)
{
	size_t len = r->name_len + 1 + r->labels_len;
	sqlite3_stmt *st = s->series;
	int rc;

	sl->key = malloc(len);
	if (!sl->key)
		return errmsg_set(e, ENOMEM, "out of memory");
	memcpy(sl->key, r->name, r->name_len);
	sl->key[r->name_len] = '\0';
	memcpy(sl->key + r->name_len + 1, r->labels, r->labels_len);
	sl->key_len = len;
	sl->hash = h;
	sqlite3_bind_text(st, 1, r->name, (int)r->name_len, SQLITE_STATIC);
	sqlite3_bind_text(st, 2, r->labels, (int)r->labels_len, SQLITE_STATIC);
	if (s->unit)
		sqlite3_bind_text(st, 3, s->unit, -1, SQLITE_STATIC);
	else
		sqlite3_bind_null(st, 3);
	sqlite3_bind_text(st, 4, s->source, -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 5, s->imported_ts);
	rc = sqlite3_step(st);
	sqlite3_reset(st);
	if (rc != SQLITE_DONE)
		return fail(s, rc, e);
	sl->series_id = sqlite3_last_insert_rowid(s->db);
	if (!s->first_series)
		s->first_series = sl->series_id;
	s->nseries++;
	return 0;
}

/* r's series, from the last row's, the table, or a new row. */
static int series_of(struct metric_store *s, const struct metric_row *r,
		     int64_t *id, struct errmsg *e)
{
	struct series_slot *sl;
	uint64_t h;
	int err;

	if (s->last && slot_is(s->last, r)) {
		*id = s->last->series_id;
		return 0;
	}
	if (r->name_len > INT32_MAX / 2 || r->labels_len > INT32_MAX / 2)
		return errmsg_set(e, E2BIG, "a metric name or its labels are "
				  "longer than SQLite takes");
	if ((s->nseries + 1) * 2 > s->nslots && rehash(s) < 0)
		return errmsg_set(e, ENOMEM, "out of memory");
	h = hash_key(r->name, r->name_len, r->labels, r->labels_len);
	sl = find_slot(s, h, r);
	if (!sl->key) {
		err = new_series(s, sl, h, r, e);
		if (err < 0)
			return err;
	}
	s->last = sl;
	*id = sl->series_id;
	return 0;
}

/* Writes the rows held back (all of them at the end of a file). */
static int flush(struct metric_store *s, struct errmsg *e)
{
	uint64_t written = 0;
	int rc = row_batch_flush(&s->rows_held, &written);

	return rc == SQLITE_DONE ? 0 : fail(s, rc, e);
}

/* Does ts fall in a session's span?  The span of the last row is tried
 * first: a file's rows mostly come in time order. */
static int in_a_session(struct metric_store *s, int64_t ts)
{
	const struct session_span *sp = &s->spans[s->last_span];

	if (ts >= sp->start_ts && ts <= sp->end_ts)
		return 1;
	for (size_t i = 0; i < s->nspans; i++)
		if (ts >= s->spans[i].start_ts && ts <= s->spans[i].end_ts) {
			s->last_span = i;
			return 1;
		}
	return 0;
}

int metric_store_add(struct metric_store *s, const struct metric_row *r,
		     struct errmsg *e)
{
	struct row_value *v;
	int64_t id = 0;
	int err = series_of(s, r, &id, e);

	if (err < 0)
		return err;
	v = row_batch_next(&s->rows_held);
	row_int(&v[0], id);
	row_int(&v[1], r->ts);
	row_real(&v[2], r->value);
	if (row_batch_full(&s->rows_held) && (err = flush(s, e)) < 0)
		return err;
	s->rows++;
	s->outside += s->nspans && !in_a_session(s, r->ts);
	if (r->ts < s->min_ts)
		s->min_ts = r->ts;
	if (r->ts > s->max_ts)
		s->max_ts = r->ts;
	return 0;
}

int metric_store_seen(struct metric_store *s, const char *digest, char **source,
		      int64_t *imported_ts, struct errmsg *e)
{
	sqlite3_stmt *st = NULL;
	char pattern[16 + SHA256_HEX_LEN];
	const char *text;
	int rc;

	*source = NULL;
	/* Only earlier imports: this one's series are not stamped yet. */
	snprintf(pattern, sizeof(pattern), "%% sha256:%s", digest);
	rc = sqlite3_prepare_v2(s->db, "SELECT source, imported_ts FROM metric_series"
				" WHERE session_id IS NULL AND source LIKE ?"
				" ORDER BY series_id LIMIT 1", -1, &st, NULL);
	if (rc == SQLITE_OK)
		rc = sqlite3_bind_text(st, 1, pattern, -1, SQLITE_STATIC);
	if (rc == SQLITE_OK)
		rc = sqlite3_step(st);
	if (rc == SQLITE_ROW) {
		text = (const char *)sqlite3_column_text(st, 0);
		/* The name as given: without " sha256:HEX". */
		*source = text ? strndup(text, strlen(text) - strlen(pattern) + 1) : NULL;
		*imported_ts = sqlite3_column_int64(st, 1);
	}
	sqlite3_finalize(st);
	if (rc == SQLITE_ROW && !*source)
		return errmsg_set(e, ENOMEM, "out of memory");
	if (rc != SQLITE_ROW && rc != SQLITE_DONE)
		return fail(s, rc, e);
	return rc == SQLITE_ROW;
}

/* metric_series.source of the file's series gets " sha256:DIGEST".  The
 * store holds the write lock, so its series_ids run from first_series
 * up without a gap. */
static int stamp(struct metric_store *s, const char *digest, struct errmsg *e)
{
	sqlite3_stmt *st = NULL;
	int rc;

	if (!s->first_series)
		return 0;
	rc = sqlite3_prepare_v2(s->db, "UPDATE metric_series SET source = source"
				" || ' sha256:' || ? WHERE series_id >= ?", -1, &st, NULL);
	if (rc == SQLITE_OK)
		rc = sqlite3_bind_text(st, 1, digest, -1, SQLITE_STATIC);
	if (rc == SQLITE_OK)
		rc = sqlite3_bind_int64(st, 2, s->first_series);
	if (rc == SQLITE_OK)
		rc = sqlite3_step(st);
	sqlite3_finalize(st);
	return rc == SQLITE_DONE ? 0 : fail(s, rc, e);
}

int metric_store_commit(struct metric_store *s, const char *digest,
			struct errmsg *e)
{
	int rc, err = flush(s, e);

	if (err == 0)
		err = stamp(s, digest, e);
	if (err < 0)
		return err;
	rc = sqlite3_exec(s->db, "COMMIT", NULL, NULL, NULL);
	if (rc != SQLITE_OK)
		return fail(s, rc, e);	/* release rolls back */
	s->in_txn = 0;
	return 0;
}

void metric_store_release(struct metric_store *s)
{
	sqlite3_finalize(s->series);
	row_batch_release(&s->rows_held);
	if (s->in_txn)
		sqlite3_exec(s->db, "ROLLBACK", NULL, NULL, NULL);
	for (size_t i = 0; s->slots && i < s->nslots; i++)
		free(s->slots[i].key);
	free(s->slots);
	free(s->spans);
	memset(s, 0, sizeof(*s));
}
