#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "../common/array.h"
#include "../common/strbuf.h"
#include "../schema/db.h"
#include "session_select.h"

/* Binds the labels' keys and values from ?1 on. */
static int bind_labels(sqlite3_stmt *st, const struct labels *l)
{
	int rc = SQLITE_OK;

	for (size_t i = 0; rc == SQLITE_OK && i < l->n; i++) {
		rc = sqlite3_bind_text(st, (int)(2 * i + 1), l->v[i].arg,
				       (int)l->v[i].key_len, SQLITE_STATIC);
		if (rc == SQLITE_OK)
			rc = sqlite3_bind_text(st, (int)(2 * i + 2), l->v[i].value,
					       -1, SQLITE_STATIC);
	}
	return rc;
}

static int named(const int64_t *ids, size_t n, int64_t id)
{
	for (size_t i = 0; i < n; i++)
		if (ids[i] == id)
			return 1;
	return 0;
}

int session_select(sqlite3 *db, const char *path, const int64_t *ids, size_t nids,
		   const struct labels *labels, int64_t **out,
		   size_t *n, size_t *recording, struct errmsg *e)
{
	sqlite3_stmt *st = NULL;
	struct strbuf sb;
	size_t cap = 0, found = 0;
	int rc;

	*out = NULL;
	*n = *recording = 0;
	strbuf_init(&sb);
	/* A session matches the labels when it carries every one; with ids
	 * only, the labels part matches none. */
	strbuf_adds(&sb, "SELECT session_id, status = 'recording', ");
	if (labels->n) {
		strbuf_adds(&sb, "1");
		for (size_t i = 0; i < labels->n; i++)
			strbuf_addf(&sb, " AND EXISTS (SELECT 1 FROM json_each(labels) "
				    "WHERE key = ?%zu AND CAST(value AS TEXT) = ?%zu)",
				    2 * i + 1, 2 * i + 2);
	} else {
		strbuf_adds(&sb, nids ? "0" : "1");
	}
	strbuf_adds(&sb, " FROM session ORDER BY session_id");
	rc = strbuf_error(&sb) ? SQLITE_NOMEM :
		sqlite3_prepare_v2(db, strbuf_str(&sb), -1, &st, NULL);
	strbuf_release(&sb);
	if (rc == SQLITE_OK)
		rc = bind_labels(st, labels);
	while (rc == SQLITE_OK && (rc = sqlite3_step(st)) == SQLITE_ROW) {
		int64_t id = sqlite3_column_int64(st, 0);
		int take = named(ids, nids, id) || sqlite3_column_int(st, 2);

		rc = SQLITE_OK;
		found += named(ids, nids, id);
		if (!take)
			continue;
		if (sqlite3_column_int(st, 1)) {
			(*recording)++;
			continue;
		}
		if (ARRAY_RESERVE(*out, cap, *n + 1) < 0) {
			rc = SQLITE_NOMEM;
			break;
		}
		(*out)[(*n)++] = id;
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE) {
		free(*out);
		*out = NULL;
		return db_fail(db, rc, path, "cannot read the sessions of", e);
	}
	for (size_t i = 0; i < nids; i++)
		if (!named(*out, *n, ids[i]) && found < nids) {
			int64_t missing = ids[i];
			int present = 0;

			/* Named but not taken: absent, or still recording. */
			sqlite3_stmt *q = NULL;

			if (sqlite3_prepare_v2(db, "SELECT 1 FROM session WHERE "
					       "session_id = ?1", -1, &q, NULL) == SQLITE_OK &&
			    sqlite3_bind_int64(q, 1, missing) == SQLITE_OK)
				present = sqlite3_step(q) == SQLITE_ROW;
			sqlite3_finalize(q);
			if (present)
				continue;
			free(*out);
			*out = NULL;
			*n = 0;
			return errmsg_set(e, ENOENT, "no session %" PRId64 " in '%s'; "
					  "faultline query %s sessions lists them",
					  missing, path, path);
		}
	return 0;
}
