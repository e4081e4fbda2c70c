#include <stdlib.h>
#include <string.h>

#include "../common/strbuf.h"
#include "row_batch.h"

/* "INSERT OR FAIL INTO t (a, b) VALUES (?,?),(?,?)": rows of ncols
 * parameters each. */
static int prepare_rows(sqlite3 *db, const char *table, int ncols,
			int rows, sqlite3_stmt **st)
{
	struct strbuf sql;
	int rc;

	strbuf_init(&sql);
	strbuf_addf(&sql, "INSERT OR FAIL INTO %s VALUES ", table);
	for (int r = 0; r < rows; r++) {
		strbuf_adds(&sql, r ? ",(" : "(");
		for (int c = 0; c < ncols; c++)
			strbuf_adds(&sql, c ? ",?" : "?");
		strbuf_addc(&sql, ')');
	}
	rc = strbuf_error(&sql) ? SQLITE_NOMEM :
	     sqlite3_prepare_v3(db, strbuf_str(&sql), -1,
				SQLITE_PREPARE_PERSISTENT, st, NULL);
	strbuf_release(&sql);
	return rc;
}

int row_batch_prepare(struct row_batch *b, sqlite3 *db, const char *table,
		      int ncols)
{
	int rc;

	memset(b, 0, sizeof(*b));
	b->ncols = ncols;
	b->v = calloc((size_t)ROW_BATCH_ROWS * (size_t)ncols, sizeof(*b->v));
	if (!b->v)
		return SQLITE_NOMEM;
	rc = prepare_rows(db, table, ncols, 1, &b->one);
	if (rc == SQLITE_OK)
		rc = prepare_rows(db, table, ncols, ROW_BATCH_ROWS, &b->all);
	return rc;
}

void row_batch_release(struct row_batch *b)
{
	sqlite3_finalize(b->one);
	sqlite3_finalize(b->all);
	free(b->v);
	memset(b, 0, sizeof(*b));
}

struct row_value *row_batch_next(struct row_batch *b)
{
	struct row_value *v = b->v + b->n++ * (size_t)b->ncols;

	for (int c = 0; c < b->ncols; c++)
		v[c].type = ROW_NULL;
	return v;
}

void row_text(struct row_batch *b, struct row_value *v, const char *s)
{
	size_t n;

	if (!s)
		return;
	n = strlen(s);
	if (n >= ROW_BATCH_TEXT) {
		b->too_long = 1;
		return;
	}
	memcpy(v->s, s, n + 1);
	v->type = ROW_TEXT;
}

/* Binds rows of v to st's parameters, ncols a row, from the first. */
static void bind_rows(sqlite3_stmt *st, const struct row_value *v, int ncols,
		      size_t rows)
{
	int k = 1;

	for (size_t i = 0; i < rows * (size_t)ncols; i++, k++)
		switch (v[i].type) {
		case ROW_INT:
			sqlite3_bind_int64(st, k, v[i].u.i);
			break;
		case ROW_REAL:
			sqlite3_bind_double(st, k, v[i].u.d);
			break;
		case ROW_TEXT:
			sqlite3_bind_text(st, k, v[i].s, -1, SQLITE_STATIC);
			break;
		default:
			sqlite3_bind_null(st, k);
		}
}

int row_batch_flush(struct row_batch *b, uint64_t *written)
{
	/* A full batch in one statement; fewer (a commit came first) a row
	 * at a time. */
	size_t per = b->n == ROW_BATCH_ROWS ? ROW_BATCH_ROWS : 1;
	sqlite3_stmt *st = per == 1 ? b->one : b->all;
	sqlite3 *db = sqlite3_db_handle(st);
	int rc = b->too_long ? SQLITE_TOOBIG : SQLITE_DONE;

	for (size_t r = 0; r < b->n && rc == SQLITE_DONE; r += per) {
		/* The statement's rows in: all of them, or with FAIL those
		 * before the one refused. */
		int64_t before = sqlite3_total_changes64(db);

		bind_rows(st, b->v + r * (size_t)b->ncols, b->ncols, per);
		rc = sqlite3_step(st);
		sqlite3_reset(st);
		*written += (uint64_t)(sqlite3_total_changes64(db) - before);
	}
	row_batch_drop(b);
	return rc;
}
