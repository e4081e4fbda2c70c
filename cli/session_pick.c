#include <errno.h>
#include <string.h>

#include "../schema/db.h"
#include "../schema/recorded.h"
#include "session_pick.h"
#include "usage.h"

int parse_db_args(const struct cmd_usage *u, int argc, char **argv,
		  const char **db)
{
	int first = opt_parse(u, argc, argv), rest;

	if (first < 0)
		return first;
	if (first == argc) {
		error(u->name, "no database given; see 'faultline %s -h'", u->name);
		return OPT_USAGE;
	}
	*db = argv[first];
	/* The options after DB: argv[first] stands in for the name. */
	rest = opt_parse(u, argc - first, argv + first);
	if (rest < 0)
		return rest;
	if (rest != argc - first) {
		error(u->name, "unexpected argument '%s': one database at a time; "
		      "see 'faultline %s -h'", argv[first + rest], u->name);
		return OPT_USAGE;
	}
	return 0;
}

int session_pick_parse(void *value, const char *arg, const char *opt,
		       struct errmsg *e)
{
	uint64_t v;
	int err = opt_parse_u64(arg, opt, &v, e);

	if (err == 0 && (v == 0 || v > INT64_MAX))
		return errmsg_set(e, EINVAL, "invalid %s '%s': sessions are "
				  "numbered from 1", opt, arg);
	if (err == 0)
		*(int64_t *)value = (int64_t)v;
	return err;
}

int session_pick(sqlite3 *db, const char *path, int64_t *id, struct errmsg *e)
{
	sqlite3_stmt *st = NULL;
	int64_t lo = 0, hi = 0, n = 0, found = 0;
	int rc;

	rc = sqlite3_prepare_v2(db, "SELECT min(session_id), max(session_id),"
				" count(*), sum(session_id = ?) FROM session",
				-1, &st, NULL);
	if (rc == SQLITE_OK) {
		sqlite3_bind_int64(st, 1, *id);
		rc = sqlite3_step(st);
	}
	if (rc == SQLITE_ROW) {
		lo = sqlite3_column_int64(st, 0);
		hi = sqlite3_column_int64(st, 1);
		n = sqlite3_column_int64(st, 2);
		found = sqlite3_column_int64(st, 3);
		rc = SQLITE_OK;
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_OK)
		return db_fail(db, rc, path, "cannot read", e);
	if (n == 0)
		return errmsg_set(e, ENOENT, "'%s' holds no session; record one "
				  "with 'faultline record -o %s'", path, path);
	if (*id == 0) {
		*id = hi;
		return 0;
	}
	if (!found)
		return errmsg_set(e, ENOENT, "no session %lld in '%s': it holds "
				  "sessions %lld to %lld", (long long)*id, path,
				  (long long)lo, (long long)hi);
	return 0;
}

int session_pick_recorded(sqlite3 *db, const char *path, int64_t id,
			  struct session_choice *c, struct errmsg *e)
{
	static const char sql[] =
		"WITH r AS (SELECT max(session_id) AS id FROM session s"
		"           WHERE " SESSION_RECORDED("s.session_id") ")"
		"SELECT coalesce(nullif(?1, 0), r.id, (SELECT max(session_id) FROM session)),"
		"       (SELECT count(*) FROM session), (SELECT min(session_id) FROM session),"
		"       (SELECT max(session_id) FROM session)"
		"  FROM r";
	sqlite3_stmt *st = NULL;
	int64_t check = id;
	int rc, err;

	memset(c, 0, sizeof(*c));
	/* That it is there, or that any is: session_pick says what is not. */
	err = session_pick(db, path, &check, e);
	if (err < 0)
		return err;
	rc = sqlite3_prepare_v2(db, sql, -1, &st, NULL);
	if (rc == SQLITE_OK)
		rc = sqlite3_bind_int64(st, 1, id);
	if (rc == SQLITE_OK)
		rc = sqlite3_step(st);
	if (rc == SQLITE_ROW) {
		c->id = sqlite3_column_int64(st, 0);
		c->count = sqlite3_column_int64(st, 1);
		c->lo = sqlite3_column_int64(st, 2);
		c->hi = sqlite3_column_int64(st, 3);
		rc = SQLITE_OK;
	}
	sqlite3_finalize(st);
	if (rc == SQLITE_OK)
		rc = sqlite3_prepare_v2(db, "SELECT " SESSION_RECORDED("?1") ", (SELECT count(*)"
					" FROM session WHERE session_id > ?1)", -1, &st, NULL);
	if (rc == SQLITE_OK)
		rc = sqlite3_bind_int64(st, 1, c->id);
	if (rc == SQLITE_OK)
		rc = sqlite3_step(st);
	if (rc == SQLITE_ROW) {
		c->recorded = sqlite3_column_int(st, 0);
		c->later = sqlite3_column_int64(st, 1);
		rc = SQLITE_OK;
	}
	sqlite3_finalize(st);
	return rc == SQLITE_OK ? 0 : db_fail(db, rc, path, "cannot read", e);
}
