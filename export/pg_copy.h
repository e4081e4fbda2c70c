/*
 * pg_copy: rows of a SQLite statement sent to a PostgreSQL table with
 * COPY FROM STDIN in text format, built in C: a tab between values, \N
 * for NULL, backslash escapes, bytea as \\x hex.  The id columns that
 * PostgreSQL gives (session_id, series_id) are replaced on the way.
 */
#ifndef FL_PG_COPY_H
#define FL_PG_COPY_H

#include "pq_lib.h"
#include <sqlite3.h>
#include <stddef.h>
#include <stdint.h>

#include "../common/errmsg.h"
#include "pg_schema.h"

/* A series id of the file and the one PostgreSQL gave it. */
struct pg_id_pair {
	int64_t from, to;
};

/* What replaces the ids while copying one session. */
struct pg_remap {
	int64_t session_id;		/* PostgreSQL's id of the session */
	const struct pg_id_pair *series;	/* borrowed, sorted by from */
	size_t nseries;
};

/* Rows copied so far, and who shows them. */
struct pg_progress {
	/* Called at most 4 times a second while rows are copied, with the
	 * counts so far; NULL: nothing is shown. */
	void (*show)(const struct pg_progress *p);
	uint64_t rows;		/* every row copied, all sessions */
	uint64_t bytes;		/* COPY text sent */
	double start_s;		/* CLOCK_MONOTONIC s: when the export began */
	double shown_s;		/* CLOCK_MONOTONIC s: the line's last update */
	int64_t session;	/* the file's id of the session being copied */
	const char *table;	/* borrowed: the table being copied */
};

/* CLOCK_MONOTONIC, in seconds. */
double pg_now_s(void);

/* Calls p->show when it is due (4 times a second at most). */
void pg_progress_tick(struct pg_progress *p);

/*
 * Steps st (borrowed, its columns those of t, in order) to its end and
 * copies each row into t on c, inside the caller's transaction.  0, or a
 * negative errno with e set: the COPY is aborted (a failed SQLite read)
 * or failed (PostgreSQL refused a row, the connection was lost), and the
 * caller's transaction cannot commit.
 */
int pg_copy_table(PGconn *c, const struct pg_table *t, sqlite3_stmt *st,
		  const struct pg_remap *m, struct pg_progress *p,
		  struct errmsg *e);

#endif
