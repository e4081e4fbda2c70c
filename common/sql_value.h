/*
 * sql_value: one SQLite value as a CSV field or a JSON value, the one set
 * of rules every reader that writes rows follows (query and report -f
 * csv|json through cli/table_out.c, export --format csv), so one value
 * reads the same wherever it is written:
 *
 *   type      CSV (common/csv.h)                JSON (common/json.h)
 *   NULL      empty                             null
 *   INTEGER   decimal                           number
 *   REAL      shortest text that reads back     number, the same text;
 *             as the same double, ".0" after    null when not finite
 *             a whole one ("5.0"); inf, -inf,   (JSON has no infinity)
 *             nan when not finite
 *   TEXT      the bytes, quoted when they must  string
 *             be, a formula neutralised
 *   BLOB      x'0a1b...' (SQL's literal)        the same, as a string
 */
#ifndef FL_SQL_VALUE_H
#define FL_SQL_VALUE_H

#include <sqlite3.h>

#include "strbuf.h"

/* Column col of st's current row, appended to sb as a CSV field. */
void sql_value_csv(struct strbuf *sb, sqlite3_stmt *st, int col);

/* Column col of st's current row, appended to sb as a JSON value. */
void sql_value_json(struct strbuf *sb, sqlite3_stmt *st, int col);

#endif
