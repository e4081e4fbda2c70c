/* engine: what engine.c and group.c share; not for callers (diagnose.h). */
#ifndef FL_DIAG_ENGINE_H
#define FL_DIAG_ENGINE_H

#include "diagnose.h"

/* A failed SQLite call as -ENOMEM, or -EIO with e naming what. */
int diag_sql_fail(sqlite3 *db, const char *what, struct errmsg *e);

/*
 * Counts each of res's stalls once, lines them up with res's events,
 * groups them into res->findings, refines and ranks them.  0, -ENOMEM,
 * or a negative errno with e set.
 */
int diag_group(sqlite3 *db, const struct diag_request *req,
	       struct diag_result *res, struct errmsg *e);

/* Is tid one of the threads req asks about (all when it names none)? */
int diag_wanted(const struct diag_request *req, int64_t tid);

/* Counts into res->unnamed_* the stalls of the stall view that overlap
 * none of res's counted stalls (res->stalls as diag_group left them).
 * 0, -ENOMEM, or a negative errno with e set. */
int diag_unnamed(sqlite3 *db, const struct diag_request *req,
		 struct diag_result *res, struct errmsg *e);

/* Fills f's comm and stack (of its longest stall s).  0 or negative
 * errno with e set. */
int diag_describe(sqlite3 *db, int64_t session, const struct diag_stall *s,
		  struct diag_finding *f, struct errmsg *e);

/* Fills res->threads: the time off the CPU by reason of each thread
 * with a finding (res->findings ranked).  0, -ENOMEM, or a negative
 * errno with e set. */
int diag_thread_reasons(sqlite3 *db, int64_t session, struct diag_result *res,
			struct errmsg *e);

#endif
