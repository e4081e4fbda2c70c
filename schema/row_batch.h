/*
 * row_batch: rows of one table held until there are ROW_BATCH_ROWS of
 * them, then written by one INSERT of them all.  SQLite pays for a
 * statement's start, halt and reset once for the lot instead of once a
 * row: fault rows went in at 1.77M a second against 0.86M a row a
 * statement (bench/schema/loader_rate.c, one run, best of 3).
 *
 * The INSERT is OR FAIL, not SQLite's default ABORT: a statement that
 * may abort part-way through many rows needs a statement journal to
 * undo them, and with the recorder's 64 KiB pages that journal spilled
 * to a temporary file, a page written for each statement (ten times the
 * writes of the whole recording).  With FAIL the rows before a refused
 * one stay, and are counted as written.
 *
 * Values are copied in, so a row held is the row as it was when taken;
 * the caller converts times before (the clock map may gain anchors
 * meanwhile).  Held rows are not in the database: the caller flushes
 * before it commits.
 */
#ifndef FL_ROW_BATCH_H
#define FL_ROW_BATCH_H

#include <stddef.h>
#include <stdint.h>
#include <sqlite3.h>

#define ROW_BATCH_ROWS 32

/* A text value's room, its NUL included: the longest text a batched
 * table takes is a thread's name (16 with its NUL) or a state's. */
#define ROW_BATCH_TEXT 24

enum row_value_type { ROW_NULL, ROW_INT, ROW_REAL, ROW_TEXT };

struct row_value {
	union {
		int64_t i;
		double d;
	} u;
	char s[ROW_BATCH_TEXT];
	uint8_t type;		/* enum row_value_type */
};

struct row_batch {
	sqlite3_stmt *one;	/* owned: INSERT of one row */
	sqlite3_stmt *all;	/* owned: INSERT of ROW_BATCH_ROWS rows */
	struct row_value *v;	/* owned: ROW_BATCH_ROWS rows of ncols */
	int ncols;
	size_t n;		/* rows held */
	int too_long;		/* a held text did not fit ROW_BATCH_TEXT */
};

/* Prepares both statements of INSERT OR FAIL INTO table, "t (a, b)",
 * for ncols columns.
 * SQLITE_OK or SQLite's error code (sqlite3_errmsg(db) says more);
 * SQLITE_NOMEM when the values cannot be allocated. */
int row_batch_prepare(struct row_batch *b, sqlite3 *db, const char *table,
		      int ncols);
void row_batch_release(struct row_batch *b);

/* The next row's values, all NULL; the caller sets them with the
 * setters below and, when row_batch_full(), flushes: b is never full
 * here, as its values hold ROW_BATCH_ROWS rows and no more. */
struct row_value *row_batch_next(struct row_batch *b);

static inline int row_batch_full(const struct row_batch *b)
{
	return b->n == ROW_BATCH_ROWS;
}

static inline void row_int(struct row_value *v, int64_t i)
{
	v->type = ROW_INT;
	v->u.i = i;
}

static inline void row_real(struct row_value *v, double d)
{
	v->type = ROW_REAL;
	v->u.d = d;
}

/* NULL for the -1 that marks an absent value. */
static inline void row_opt(struct row_value *v, int64_t i)
{
	if (i >= 0)
		row_int(v, i);
}

/* s copied; NULL stays NULL. */
void row_text(struct row_batch *b, struct row_value *v, const char *s);

/* s copied; NULL or "" is NULL. */
static inline void row_text_or_null(struct row_batch *b, struct row_value *v,
				    const char *s)
{
	if (s && *s)
		row_text(b, v, s);
}

/* The held rows forgotten (the caller counts them lost). */
static inline void row_batch_drop(struct row_batch *b)
{
	b->n = 0;
	b->too_long = 0;
}

/* Writes the held rows, in the order taken, and holds none after.
 * *written (added to) says how many went in before a failure: the rest
 * are lost.  SQLITE_DONE or SQLite's error code; SQLITE_TOOBIG when a
 * text did not fit, and then no row of the batch goes in. */
int row_batch_flush(struct row_batch *b, uint64_t *written);

#endif
