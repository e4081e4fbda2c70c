/*
 * csv: a session as one CSV file per table, in a directory:
 * DIR/fault.csv, DIR/thread_state.csv, ... (every table the database
 * holds, views left out; a table of a later schema that this build does
 * not know gets the session's rows when it has a session_id column, else
 * all of them).  Each file has a header line with
 * the table's column names, in the schema's order, then the session's
 * rows; the metric tables get the series the session sampled and the
 * imported ones with a point in its span, and those points.
 *
 * RFC 4180: comma-separated, CRLF line ends, a field with a comma, a
 * double quote, CR or LF in double quotes (a quote doubled inside).  An
 * empty field is NULL; an empty text is "".  Integers are written as
 * they are (ts stays ns since the epoch, CLOCK_REALTIME); a REAL by the
 * shortest text that reads back as the same double.
 *
 * The files are written beside their final names and renamed into place
 * only when every one is complete; a directory this made is removed
 * again on failure, so a failure leaves nothing behind.
 */
#ifndef FL_EXPORT_CSV_H
#define FL_EXPORT_CSV_H

#include <sqlite3.h>
#include <stddef.h>
#include <stdint.h>

#include "../common/errmsg.h"
#include "session_info.h"

struct csv_counts {
	size_t files;
	uint64_t rows;
};

/*
 * Writes session s of db (path: db_path) into dir, creating it if it is
 * not there.  0, or a negative errno with e set.  n (may be NULL) gets
 * what was written.
 */
int csv_export(sqlite3 *db, const char *db_path, const struct session_info *s,
	       const char *dir, struct csv_counts *n, struct errmsg *e);

#endif
