/*
 * csv: one field of a CSV file (RFC 4180), the one writer query -f csv
 * and export --format csv share.
 *
 * A field with a comma, a double quote, CR or LF, and an empty one, is
 * put in double quotes, a quote inside doubled; an empty field with no
 * quotes is NULL.
 *
 * A spreadsheet evaluates a cell that begins with =, +, - or @ as a
 * formula (and one that begins with a tab or CR after trimming), so a
 * thread name or an imported label such as "=HYPERLINK(...)" would run
 * in the program of whoever opens the file.  A TEXT value that begins
 * so is written with a single quote before it, as OWASP recommends
 * ("CSV Injection"): the quote shows, the formula does not run.  Numbers
 * (INTEGER and REAL values, such as -5) are never changed.
 */
#ifndef FL_CSV_H
#define FL_CSV_H

#include <stddef.h>

#include "strbuf.h"

/* Appends s[0..len) to sb as a field, quoted when it must be; for column
 * names and numbers' text. */
void csv_add_field(struct strbuf *sb, const char *s, size_t len);

/* Appends the TEXT value s[0..len) to sb as a field: as csv_add_field,
 * with a single quote first when it begins like a formula. */
void csv_add_text(struct strbuf *sb, const char *s, size_t len);

#endif
