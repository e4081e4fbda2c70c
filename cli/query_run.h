/*
 * query_run: a query_def made ready to run on a database: prepared, its
 * parameters bound from NAME=VALUE arguments (converted by the type the
 * header declares: durations take units) and the header's defaults.
 * Values are only ever bound, never pasted into SQL.  Used by query and
 * report.
 */
#ifndef FL_QUERY_RUN_H
#define FL_QUERY_RUN_H

#include <sqlite3.h>

#include "../common/errmsg.h"
#include "../schema/query_def.h"
#include "opt.h"

/* Positional arguments a command takes at most: DB, NAME, NAME=VALUE... */
#define ARGS_MAX 64

/*
 * opt_parse for commands whose options may come before, between or after
 * their positional arguments (faultline query DB NAME x=1 -f csv):
 * parses the options with u's table and puts the other arguments, in
 * order, into pos (ARGS_MAX entries, borrowed from argv) and their count
 * into *npos; after "--" every argument is positional.  Returns 0,
 * OPT_HELP or OPT_USAGE (the message printed).
 */
int opt_parse_mixed(const struct cmd_usage *u, int argc, char **argv,
		    char **pos, int *npos);

/*
 * Prepares q on db (read-only) into *out, which the caller finalizes,
 * and binds args (nargs strings "NAME=VALUE", borrowed).  Returns 0;
 * -EINVAL when the arguments are wrong (not NAME=VALUE, a name the query
 * does not declare, given twice, a value of the wrong type, a required
 * parameter missing: a usage error); another negative errno when the
 * query itself is at fault (does not compile, more than one statement,
 * writes, uses a parameter its header does not declare, a bad default).
 * e says which and how to fix it.
 */
int query_prepare(sqlite3 *db, const struct query_def *q, char *const *args,
		  int nargs, sqlite3_stmt **out, struct errmsg *e);

/*
 * Checks that every argument (nargs strings, "NAME=VALUE") names a
 * parameter q declares, once.  0, or -EINVAL with e set (a usage error).
 */
int query_check_args(const struct query_def *q, char *const *args, int nargs,
		     struct errmsg *e);

/* The value of NAME among args ("NAME=VALUE", borrowed), or NULL. */
const char *query_arg_value(char *const *args, int nargs, const char *name);

/*
 * value, given for p, checked by p's type as query_prepare checks it and
 * written into buf (n bytes) as a server takes it: an INTEGER's digits,
 * a DURATION in ns, a REAL, TEXT as it is.  0, or -EINVAL with e set.
 */
int query_value_text(const struct query_param *p, const char *value,
		     char *buf, size_t n, struct errmsg *e);

/*
 * When q has a parameter "session" (or "session_id") given in args, checks
 * that db (at path) holds that session.  0, -ENOENT with e set when it
 * does not, or another negative errno.
 */
int query_check_session(sqlite3 *db, const char *path, const struct query_def *q,
			char *const *args, int nargs, struct errmsg *e);

/*
 * When q has a parameter "metric" and args give it, checks that db (at
 * path) holds a series of that name, so a misspelt name is an error
 * naming the metrics there, not an empty answer.  A default is not
 * checked: its absence is an answer (no socket was sampled).  0,
 * -ENOENT with e set when it holds none, or another negative errno.
 */
int query_check_metric(sqlite3 *db, const char *path, const struct query_def *q,
		       char *const *args, int nargs, struct errmsg *e);

#endif
