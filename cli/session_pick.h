/*
 * session_pick: what the commands that read a recording (symbolize,
 * stacks, report) share: one database argument with options before or after it,
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

/* What session_pick_recorded chose, for saying so. */
struct session_choice {
	int64_t id;		/* the session picked */
	int64_t count;		/* sessions in the database */
	int64_t lo, hi;		/* the lowest and highest session id */
	int64_t later;		/* sessions after it (by default: none of
				 * them recorded anything) */
	int recorded;		/* the one picked recorded something */
};

/*
 * Like session_pick, but when *id is 0 takes the latest session that
 * recorded something (a fault, a histogram, a thread state or a
 * tracepoint hit), so a failed last attempt does not hide the run before
 * it; the latest of all when none did.  c says what was picked and what
 * else is there.  0, -ENOENT with e set, or another negative errno.
 */
int session_pick_recorded(sqlite3 *db, const char *path, int64_t id,
			  struct session_choice *c, struct errmsg *e);

#endif
