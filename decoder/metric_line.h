/*
 * metric_line: one live metric line, as an application sends it to
 * record --flight (--metric-fifo, --metric-udp):
 *
 *   NAME VALUE
 *
 * NAME is 1 to METRIC_NAME_MAX - 1 bytes of printable ASCII other than
 * space (no control bytes, no '>', which --trigger metric:NAME>VALUE
 * could not spell); VALUE a finite decimal number as an imported metric's
 * (metric_parse_value: sign, digits, fraction, exponent).  One or more
 * spaces or tabs between them, and around them; a trailing CR is
 * dropped.  Anything else (a third field, no value, an empty line) is
 * malformed.  Pure: no I/O.
 */
#ifndef FL_METRIC_LINE_H
#define FL_METRIC_LINE_H

#include <stddef.h>

/* The longest name, with its NUL. */
#define METRIC_NAME_MAX 64

/* Is s[0..len) a name as above? */
int metric_name_valid(const char *s, size_t len);

/* The line s[0..len) (no newline) to its name (borrowed from s, *name_len
 * bytes) and value.  0, or -EINVAL for a malformed line. */
int metric_line_parse(const char *s, size_t len, const char **name,
		      size_t *name_len, double *value);

#endif
