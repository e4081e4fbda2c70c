/*
 * query_pg: a canned query or a .sql file run in PostgreSQL, on the
 * tables faultline export --to made there, with the functions that
 * mirror SQLite's built-ins (export/pg_functions.h): the same text as on
 * a file.
 */
#ifndef FL_QUERY_PG_H
#define FL_QUERY_PG_H

#include "../common/errmsg.h"
#include "../schema/query_def.h"
#include "table_out.h"

/*
 * Runs q on the server target names (a postgresql:// URL; libpq's
 * environment and files apply), in schema, with args (nargs
 * "NAME=VALUE", borrowed), read-only, and writes the rows to stdout as
 * style (borrowed) says.  Returns the exit status: 0, 1 (the server or the query
 * failed; the message printed), or EXIT_USAGE (the arguments are wrong).
 */
/* The same, for a command of its own (compare): 0, -EINVAL when the
 * arguments are wrong, or another negative errno, with e set; nothing
 * printed but the rows. */
int query_pg_write(const char *target, const char *schema, const struct query_def *q,
		   char *const *args, int nargs, const struct table_style *style,
		   struct errmsg *e);

int query_pg_run(const char *target, const char *schema, const struct query_def *q,
		 char *const *args, int nargs, const struct table_style *style);

#endif
