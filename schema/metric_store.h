/*
 * metric_store: writes imported metric rows.  One store is one file's
 * import and one transaction: metric_store_begin opens it (BEGIN
 * IMMEDIATE), metric_store_commit ends it, and metric_store_release of a
 * store not committed rolls it back, so nothing of a file that failed is
 * kept.  Each distinct (name, labels) of the file gets one metric_series
 * row, written when first seen.
 *
 * Two questions a wrong import raises are answered before the commit:
 * was this content imported before (metric_store_seen: every import
 * stamps its series' source with the SHA-256 of the file's bytes,
 * "PATH sha256:HEX"), and do its points line up with any recorded
 * session (outside counts those that lie in none: relative seconds read
 * as 1970, a wrong --ts-unit).
 */
#ifndef FL_METRIC_STORE_H
#define FL_METRIC_STORE_H

#include <stdint.h>
#include <sqlite3.h>

#include "../common/errmsg.h"
#include "../decoder/metric_parse.h"
#include "row_batch.h"

/* A recorded session's time span, ns since the epoch (CLOCK_REALTIME);
 * a session that never ended runs to INT64_MAX. */
struct session_span {
	int64_t start_ts, end_ts;
};

struct series_slot {
	uint64_t hash;
	char *key;		/* owned: name, '\0', labels JSON; NULL if free */
	size_t key_len;
	int64_t series_id;
};

struct metric_store {
	sqlite3 *db;		/* borrowed: opened and closed by the caller */
	const char *path;	/* borrowed: the database, for messages */
	const char *source;	/* borrowed: metric_series.source */
	const char *unit;	/* borrowed: metric_series.unit, or NULL */
	int64_t imported_ts;	/* CLOCK_REALTIME ns at begin */
	sqlite3_stmt *series;	/* owned */
	/* owned: metric rows, ROW_BATCH_ROWS to a statement.  With 64 to a
	 * statement, faultline import loaded a million rows, index
	 * included, in 1.49 s against 1.83 s one row a statement (best of
	 * 5, alternating, on one busy machine; the file was the first
	 * million lines of bench/schema/import_rate.sh's). */
	struct row_batch rows_held;
	struct series_slot *slots;	/* owned; open addressing */
	size_t nslots;		/* a power of two */
	size_t nseries;
	/* The last row's series: a file's rows mostly repeat it. */
	struct series_slot *last;	/* borrowed from slots, or NULL */
	uint64_t rows;
	int64_t min_ts, max_ts;	/* ns, of the rows so far */
	int in_txn;
	int64_t first_series;	/* the first series_id written; 0: none */
	struct session_span *spans;	/* owned: the database's sessions */
	size_t nspans, spans_cap;
	size_t last_span;	/* the span the last row fell in: rows come in
				 * time order, mostly */
	uint64_t outside;	/* rows in no session's span */
};

/*
 * Starts the import of one file into db (opened with db_open_write):
 * takes the write lock and prepares the statements.  path, source and
 * unit are borrowed until metric_store_release.  0 or -errno with e set;
 * s needs metric_store_release either way.
 */
int metric_store_begin(struct metric_store *s, sqlite3 *db, const char *path,
		       const char *source, const char *unit, struct errmsg *e);

/* One row; its series is written first when new.  Rows are held back
 * and written ROW_BATCH_ROWS at a time, the rest by metric_store_commit,
 * so a failure to write may come a few rows late.  0 or -errno with e. */
int metric_store_add(struct metric_store *s, const struct metric_row *r,
		     struct errmsg *e);

/*
 * Was content with this digest (SHA256_HEX_LEN hex digits) imported
 * into the database before?  1 with *source (owned: free) naming the
 * file as it was given then and *imported_ts (CLOCK_REALTIME ns) when;
 * 0 when not; or -errno with e set.
 */
int metric_store_seen(struct metric_store *s, const char *digest, char **source,
		      int64_t *imported_ts, struct errmsg *e);

/* Stamps the file's series with its digest (metric_series.source becomes
 * "SOURCE sha256:DIGEST") and commits its rows.  0 or -errno with e
 * (then nothing is kept). */
int metric_store_commit(struct metric_store *s, const char *digest,
			struct errmsg *e);

/* Rolls back what was not committed and frees what s holds. */
void metric_store_release(struct metric_store *s);

#endif
