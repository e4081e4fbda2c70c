/*
 * session_pick: what the commands that read a recording (symbolize,
 * stacks) share: one database argument with options before or after it,
 * and --session N, a session id or the latest one.
 */
#ifndef FL_SESSION_PICK_H
#define FL_SESSION_PICK_H

#include <sqlite3.h>
#include <stdint.h>

#include "../common/errmsg.h"
#include "opt.h"

/*
 * Parses "[OPTIONS] DB [OPTIONS]" with u's table: *db is borrowed from
 * argv.  0, OPT_HELP (help printed), or OPT_USAGE (error printed).
 */
int parse_db_args(const struct cmd_usage *u, int argc, char **argv,
		  const char **db);

/* An OPT_CALLBACK for --session N: value is an int64_t *, set to N. */
int session_pick_parse(void *value, const char *arg, const char *opt,
		       struct errmsg *e);

/*
 * *id: the session asked for (> 0), checked to be in db, or the latest
 * session when *id is 0.  0, or -ENOENT with e naming what the database
 * holds; another -errno for a failed query.
 */
int session_pick(sqlite3 *db, const char *path, int64_t *id, struct errmsg *e);

#endif
