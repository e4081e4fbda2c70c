/*
 * table_out: the rows of a prepared statement, written as a table with
 * aligned columns, as CSV (RFC 4180) or as JSON (an array of objects).
 * Used by query and report.
 */
#ifndef FL_TABLE_OUT_H
#define FL_TABLE_OUT_H

#include <stdio.h>
#include <sqlite3.h>

#include "../common/errmsg.h"

/* OUT_VERTICAL: a "column  value" line each, a blank line between rows;
 * for one wide row (report's session), not offered by --format. */
enum out_format { OUT_TABLE, OUT_CSV, OUT_JSON, OUT_VERTICAL };

/* "table", "csv", "json" into *f; -1 for anything else. */
int out_format_parse(const char *s, enum out_format *f);

/* The -f/--format option's callback (opt.h): value is an enum
 * out_format *. */
int out_format_opt(void *value, const char *arg, const char *opt,
		   struct errmsg *e);

/* How table_out writes a statement's rows. */
struct table_style {
	enum out_format format;
	size_t max_rows;	/* a table shows at most this many; 0: all */
	const char *empty;	/* borrowed: a table with no rows is this line,
				 * in parentheses, alone (report's sections);
				 * NULL: the header, then "(no rows)" */
	size_t max_cell;	/* a table's cell longer than this many
				 * characters is cut, ending in "..."; 0:
				 * never (CSV and JSON never are) */
};

/* The cut a table makes by default, so a row fits a terminal: a stack
 * keeps its innermost frames, a list of values its first. */
#define TABLE_MAX_CELL 72

/* The -f/--format and -w/--wide entries of an option table that writes
 * rows (query, compare, runs); where: an enum out_format *, an int *. */
#define TABLE_FORMAT_OPT(where) \
	{ 'f', "format", "FORMAT", "table (default), csv or json", \
	  OPT_CALLBACK, (where), out_format_opt }
#define TABLE_WIDE_OPT(where) \
	{ 'w', "wide", NULL, "a table's long cells whole (by default cut at " \
	  FL_STR(TABLE_MAX_CELL) " characters, ending in ...)", OPT_FLAG, \
	  (where), NULL }

/*
 * Steps st (borrowed; the caller finalizes it) to its end and writes its
 * rows to out as style says.  A table is written once every row is in,
 * to align it; *nrows counts every row, shown or not.  With no rows, a
 * table is its header and "(no rows)" (or style->empty), CSV its header
 * line and JSON "[]", so an empty answer never looks like no answer.  A
 * table (and the vertical form) shows text escaped for a terminal
 * (common/term_text.h: a thread's name may hold ESC); CSV and JSON keep
 * the bytes, in their own quoting.  In a table and in CSV a NULL is empty; in JSON it is null, INTEGER and
 * REAL values are numbers and text is a string.  Returns 0, -ENOMEM, or
 * a negative errno with e set when a step fails (what names the query in
 * the message).
 */
int table_out(sqlite3_stmt *st, const struct table_style *style, FILE *out,
	      size_t *nrows, const char *what, struct errmsg *e);

#endif
