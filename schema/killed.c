#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../common/array.h"
#include "../common/proc_ident.h"
#include "db.h"
#include "killed.h"
#include "loader.h"

void killed_list_init(struct killed_list *k)
{
	memset(k, 0, sizeof(*k));
}

void killed_list_release(struct killed_list *k)
{
	free(k->v);
	killed_list_init(k);
}

/* A session's recorder from its row's columns (NULL ones unknown). */
static void row_ident(sqlite3_stmt *st, struct proc_ident *id)
{
	const char *boot = (const char *)sqlite3_column_text(st, 3);

	memset(id, 0, sizeof(*id));
	id->pid = (pid_t)sqlite3_column_int(st, 1);
	id->start_ticks = (uint64_t)sqlite3_column_int64(st, 2);
	if (boot)
		snprintf(id->boot_id, sizeof(id->boot_id), "%s", boot);
}

int killed_find(sqlite3 *db, const char *path, int locked,
		struct killed_list *k, struct errmsg *e)
{
	sqlite3_stmt *st = NULL;
	int rc = sqlite3_prepare_v2(db, "SELECT session_id, recorder_pid,"
		" recorder_start, recorder_boot_id, alive_ts, stored_until_ts,"
		" start_ts FROM session WHERE status = 'recording'"
		" ORDER BY session_id", -1, &st, NULL);

	while (rc == SQLITE_OK && (rc = sqlite3_step(st)) == SQLITE_ROW) {
		struct killed_session s;
		struct proc_ident id;

		row_ident(st, &id);
		/* A recorder whose start time cannot be told (an older
		 * faultline's session) is taken as running while its pid
		 * does: a reader must not call a live recording killed. */
		if (locked ? proc_ident_alive(&id) == 1 && id.pid != getpid()
			   : proc_ident_alive(&id) != 0) {
			rc = SQLITE_OK;
			continue;
		}
		memset(&s, 0, sizeof(s));
		s.id = sqlite3_column_int64(st, 0);
		s.pid = id.pid;
		s.pid_runs = id.pid > 0 && proc_start_ticks(id.pid, &id.start_ticks) == 0;
		s.missing_s = -1;
		s.alive_ts = sqlite3_column_int64(st, 6);
		if (sqlite3_column_type(st, 4) != SQLITE_NULL &&
		    sqlite3_column_type(st, 5) != SQLITE_NULL) {
			s.alive_ts = sqlite3_column_int64(st, 4);
			s.missing_s = (double)(s.alive_ts - sqlite3_column_int64(st, 5)
					       + (int64_t)LOADER_COMMIT_NS) / 1e9;
		}
		if (ARRAY_RESERVE(k->v, k->cap, k->n + 1) < 0) {
			sqlite3_finalize(st);
			return errmsg_set(e, ENOMEM, "out of memory");
		}
		k->v[k->n++] = s;
		rc = SQLITE_OK;
	}
	sqlite3_finalize(st);
	return rc == SQLITE_DONE || rc == SQLITE_OK ? 0 :
	       db_fail(db, rc, path, "cannot read", e);
}

void killed_text(const struct killed_session *s, char *buf, size_t n)
{
	int k;

	if (s->pid <= 0)
		k = snprintf(buf, n, "killed while recording (its recorder is gone)");
	else
		k = snprintf(buf, n, "killed while recording (recorder pid %d %s)",
			     s->pid, s->pid_runs ? "gone; the pid is another "
			     "process's now" : "gone");
	if (k < 0 || (size_t)k >= n)
		return;
	if (s->missing_s >= 0)
		snprintf(buf + k, n - (size_t)k, "; its last %.1f s may be missing",
			 s->missing_s);
	else
		snprintf(buf + k, n - (size_t)k, "; its end may be missing");
}

int killed_mark(sqlite3 *db, const char *path, const struct killed_list *k,
		struct errmsg *e)
{
	sqlite3_stmt *st = NULL;
	char text[256];
	int rc;

	if (!k->n)
		return 0;
	rc = sqlite3_exec(db, "BEGIN IMMEDIATE", NULL, NULL, NULL);
	if (rc != SQLITE_OK)
		return db_fail(db, rc, path, "cannot write", e);
	/* The indexes its end would have made (indexes.sql; those of
	 * load_indexes.sql it made at its start). */
	if (db_build_indexes(db, path, e) < 0) {
		sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL);
		return -EIO;
	}
	rc = sqlite3_prepare_v2(db, "UPDATE session SET status = 'killed',"
				" end_ts = ?, end_reason = 'killed', error = ?"
				" WHERE session_id = ? AND status = 'recording'",
				-1, &st, NULL);
	for (size_t i = 0; i < k->n && rc == SQLITE_OK; i++) {
		killed_text(&k->v[i], text, sizeof(text));
		sqlite3_bind_int64(st, 1, k->v[i].alive_ts);
		sqlite3_bind_text(st, 2, text, -1, SQLITE_TRANSIENT);
		sqlite3_bind_int64(st, 3, k->v[i].id);
		rc = sqlite3_step(st);
		sqlite3_reset(st);
		rc = rc == SQLITE_DONE ? SQLITE_OK : rc;
	}
	sqlite3_finalize(st);
	if (rc == SQLITE_OK)
		rc = sqlite3_exec(db, "COMMIT", NULL, NULL, NULL);
	if (rc != SQLITE_OK) {
		int err = db_fail(db, rc, path, "cannot write", e);

		sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL);
		return err;
	}
	return 0;
}

int killed_mark_file(const char *path, struct errmsg *e)
{
	sqlite3 *db = NULL;
	int err = db_open_write(path, &db, e);

	if (err == 0)
		err = db_end_write(db, path, e);
	db_close(db);
	return err;
}
