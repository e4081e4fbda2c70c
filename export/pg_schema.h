/*
 * pg_schema: faultline's tables in a PostgreSQL schema, made from the
 * SQLite database being exported, so every table it holds is exported and
 * a later schema's new table or column follows without a list to keep in
 * step.  The dialect (faultline-schema(5)):
 *
 *   INTEGER -> bigint (ts and dur stay ns: timestamptz has only us),
 *   REAL -> double precision, TEXT -> text, BLOB -> bytea, and the JSON
 *   text columns (session.options and labels, metric_series.labels,
 *   tracepoint_event.fields) -> jsonb;
 *   session_id and metric_series.series_id are given by PostgreSQL
 *   (sequences session_id_seq, series_id_seq): sessions from many files
 *   and hosts share the tables;
 *   a view <table>_tz per table with a ts-like column: every column, and
 *   beside each such column <column>_time, timestamptz (us);
 *   the SQLite file's indexes, and each WITHOUT ROWID table's key as a
 *   unique index, made once the first load is in (pg_schema_indexes).
 */
#ifndef FL_PG_SCHEMA_H
#define FL_PG_SCHEMA_H

#include "pq_lib.h"
#include <sqlite3.h>
#include <stddef.h>

#include "../common/errmsg.h"

struct pg_column {
	char *name;		/* owned */
	const char *type;	/* static: the PostgreSQL type, as
				 * information_schema.columns.data_type says it */
	int not_null;
	int key;		/* position in the table's key, 0: not in it */
	int int_decl;		/* declared INTEGER: as a lone key, the rowid */
};

struct pg_table {
	char *name;		/* owned */
	struct pg_column *cols;	/* owned array */
	size_t ncols, cols_cap;
	int session_col;	/* index of session_id, -1 when none */
	int series_col;		/* index of series_id, -1 when none */
};

struct pg_tables {
	struct pg_table *t;	/* owned array, in the file's order */
	size_t n, cap;
	char *index_sql;	/* owned: the file's own CREATE INDEX
				 * statements, made IF NOT EXISTS */
};

/*
 * Reads the tables of db (path names it in messages) into out, which the
 * caller releases.  0, or a negative errno with e set.
 */
int pg_tables_read(sqlite3 *db, const char *path, struct pg_tables *out,
		   struct errmsg *e);
void pg_tables_release(struct pg_tables *t);

/* The table named name, or NULL. */
const struct pg_table *pg_tables_find(const struct pg_tables *t, const char *name);

/*
 * Makes schema (created if missing) hold t on c, in one transaction under
 * an advisory lock (two exporters at once do not race): a missing table is
 * created, a missing column added (a database of an older faultline), the
 * views made again.  A table whose column has another type is not
 * faultline's: -EEXIST with e naming it and what to do, nothing changed.
 */
int pg_schema_prepare(PGconn *c, const char *schema, const struct pg_tables *t,
		      struct errmsg *e);

/* The most connections pg_schema_indexes opens. */
#define PG_JOBS_MAX 16

/*
 * Makes the indexes (IF NOT EXISTS: the first export builds them after
 * its load, later ones find them), over jobs connections to target at
 * once, each taking the next index when done with its last: PostgreSQL
 * builds an index on one core (bench/fleet/export_pg.sh).  0 or a
 * negative errno with e set (the first failure).
 */
int pg_schema_indexes(const char *target, const char *schema,
		      const struct pg_tables *t, int jobs, struct errmsg *e);

/* SET search_path to schema (quoted) on c.  0 or -EIO with e set. */
int pg_schema_use(PGconn *c, const char *schema, struct errmsg *e);

/*
 * pg_schema_use, then checks that schema holds faultline's tables (an
 * export made them): 0, -ENOENT with e saying how to load sessions
 * there, or -EIO.
 */
int pg_schema_open(PGconn *c, const char *schema, struct errmsg *e);

#endif
