#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "diagnose_cli.h"

int diag_default_event(sqlite3 *db, const char *asked, const char **out,
		       struct errmsg *e)
{
	static const char sql[] =
		"SELECT min(name), count(DISTINCT name) FROM metric_series"
		" WHERE session_id IS NULL";
	sqlite3_stmt *st = NULL;
	int rc;

	*out = asked;
	if (asked)
		return 0;
	rc = sqlite3_prepare_v2(db, sql, -1, &st, NULL);
	if (rc == SQLITE_OK)
		rc = sqlite3_step(st);
	if (rc == SQLITE_ROW && sqlite3_column_int64(st, 1) == 1) {
		*out = strdup((const char *)sqlite3_column_text(st, 0));
		if (!*out)
			rc = SQLITE_NOMEM;
	}
	if (rc != SQLITE_ROW) {
		errmsg_set(e, rc == SQLITE_NOMEM ? ENOMEM : EIO, "cannot read the "
			   "metrics: %s", sqlite3_errmsg(db));
		sqlite3_finalize(st);
		return rc == SQLITE_NOMEM ? -ENOMEM : -EIO;
	}
	sqlite3_finalize(st);
	return 0;
}
