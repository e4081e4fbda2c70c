#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../schema/db.h"
#include "session_info.h"

void session_info_init(struct session_info *s)
{
	memset(s, 0, sizeof(*s));
}

void session_info_release(struct session_info *s)
{
	free(s->host);
	free(s->command_line);
	session_info_init(s);
}

int session_info_empty(const struct session_info *s)
{
	return !s->has_faults && !s->has_states && !s->has_events &&
	       !s->has_metric_points;
}


static char *dup_col(sqlite3_stmt *st, int col)
{
	const char *t = (const char *)sqlite3_column_text(st, col);

	return strdup(t ? t : "");
}

/* EXISTS, not count(*): a count walks ten million index entries, and
 * only emptiness is asked. */
static const char info_sql[] =
	"SELECT s.start_ts,"
	" coalesce(s.end_ts, (SELECT max(last_ts) FROM thread t"
	"                     WHERE t.session_id = s.session_id), s.start_ts),"
	" s.end_ts IS NOT NULL, s.status, s.host, s.command_line,"
	" EXISTS (SELECT 1 FROM fault f WHERE f.session_id = s.session_id),"
	" EXISTS (SELECT 1 FROM thread_state x WHERE x.session_id = s.session_id),"
	" EXISTS (SELECT 1 FROM tracepoint_event p WHERE p.session_id = s.session_id)"
	" FROM session s WHERE s.session_id = ?1";

/* Any point of a series sampled by the session, or imported, inside
 * [?2, ?3]. */
static const char metric_sql[] =
	"SELECT EXISTS (SELECT 1 FROM metric_series ms JOIN metric m USING (series_id)"
	" WHERE (ms.session_id IS NULL OR ms.session_id = ?1)"
	"   AND m.ts BETWEEN ?2 AND ?3)";

static int read_metric_points(sqlite3 *db, const char *path,
			      struct session_info *s, struct errmsg *e)
{
	sqlite3_stmt *st = NULL;
	int rc = sqlite3_prepare_v2(db, metric_sql, -1, &st, NULL);

	if (rc == SQLITE_OK) {
		sqlite3_bind_int64(st, 1, s->id);
		sqlite3_bind_int64(st, 2, s->start_ts);
		sqlite3_bind_int64(st, 3, s->end_ts);
		rc = sqlite3_step(st);
	}
	if (rc == SQLITE_ROW)
		s->has_metric_points = sqlite3_column_int(st, 0);
	sqlite3_finalize(st);
	return rc == SQLITE_ROW ? 0 : db_fail(db, rc, path, "cannot read", e);
}

int session_info_read(sqlite3 *db, const char *path, int64_t id,
		      struct session_info *s, struct errmsg *e)
{
	sqlite3_stmt *st = NULL;
	int rc = sqlite3_prepare_v2(db, info_sql, -1, &st, NULL);

	session_info_init(s);
	s->id = id;
	if (rc == SQLITE_OK) {
		sqlite3_bind_int64(st, 1, id);
		rc = sqlite3_step(st);
	}
	if (rc == SQLITE_DONE) {
		sqlite3_finalize(st);
		return errmsg_set(e, ENOENT, "no session %lld in '%s'",
				  (long long)id, path);
	}
	if (rc != SQLITE_ROW) {
		sqlite3_finalize(st);
		return db_fail(db, rc, path, "cannot read", e);
	}
	s->start_ts = sqlite3_column_int64(st, 0);
	s->end_ts = sqlite3_column_int64(st, 1);
	if (s->end_ts < s->start_ts)
		s->end_ts = s->start_ts;
	s->ended = sqlite3_column_int(st, 2);
	snprintf(s->status, sizeof(s->status), "%s",
		 sqlite3_column_text(st, 3) ? (const char *)sqlite3_column_text(st, 3) : "");
	s->host = dup_col(st, 4);
	s->command_line = dup_col(st, 5);
	s->has_faults = sqlite3_column_int(st, 6);
	s->has_states = sqlite3_column_int(st, 7);
	s->has_events = sqlite3_column_int(st, 8);
	sqlite3_finalize(st);
	if (!s->host || !s->command_line) {
		session_info_release(s);
		return errmsg_set(e, ENOMEM, "out of memory");
	}
	return read_metric_points(db, path, s, e);
}

int session_scan_pays(sqlite3 *db, const char *table, int64_t id)
{
	char sql[256];
	sqlite3_stmt *st = NULL;
	int pays = 0;

	snprintf(sql, sizeof(sql), "SELECT (SELECT count(*) FROM \"%s\" WHERE "
		 "session_id = ?1) * 2 >= (SELECT coalesce(max(rowid), 0) FROM \"%s\")",
		 table, table);
	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) == SQLITE_OK) {
		sqlite3_bind_int64(st, 1, id);
		pays = sqlite3_step(st) == SQLITE_ROW && sqlite3_column_int(st, 0) == 1;
	}
	sqlite3_finalize(st);
	return pays;
}
