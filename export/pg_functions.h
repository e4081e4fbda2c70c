/*
 * pg_functions: SQLite's built-ins that the canned queries use
 * (strftime, printf, json_extract, json_each, group_concat, two-value
 * min and max, round of a double, iif, ifnull, the "binary" collation),
 * made as functions in the PostgreSQL schema that faultline export --to
 * fills (export/pg_functions.sql), so one query text reads the same on
 * both engines.
 */
#ifndef FL_PG_FUNCTIONS_H
#define FL_PG_FUNCTIONS_H

#include "pq_lib.h"

#include "../common/errmsg.h"

/*
 * Makes the functions current in the schema c's search_path names (it
 * must exist), outside any transaction of the caller's: nothing is written when the schema
 * already holds this faultline's (a SHA-256 of pg_functions.sql is kept
 * as the comment of one of them), so a reader without CREATE on the
 * schema can query one that an export of this version made.  An older
 * export's schema gets them here, on its first query.  0, or -EIO with e
 * saying what failed and how to fix it.
 */
int pg_functions_current(PGconn *c, struct errmsg *e);

#endif
