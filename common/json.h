/*
 * json: the one JSON writer.  Every JSON text faultline produces (the
 * session's options, tracepoint fields, metric labels, query output,
 * exports) goes through these, so a string is escaped by one rule:
 *
 *   - '"' and '\' are backslash-escaped; \b \f \n \r \t get their short
 *     escapes; every other byte below 0x20, and 0x7f, is \u00XX;
 *   - well-formed UTF-8 is copied as it is ("é" stays "é");
 *   - a byte that does not begin a well-formed UTF-8 sequence (stray
 *     continuation, overlong form, surrogate, beyond U+10FFFF, cut short)
 *     becomes U+FFFD, written \ufffd, so the text is always valid JSON.
 */
#ifndef FL_JSON_H
#define FL_JSON_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "strbuf.h"

/* s as a quoted JSON string: its first len bytes, or up to a NUL among
 * them (fixed-size kernel strings end at a NUL or at their size). */
void json_string(struct strbuf *sb, const char *s, size_t len);
/* The same for a NUL-terminated string. */
void json_cstring(struct strbuf *sb, const char *s);
/* json_cstring, or null where s is NULL (a field that has no value). */
void json_cstring_or_null(struct strbuf *sb, const char *s);

/* "key": with the comma before it unless first. */
void json_key(struct strbuf *sb, const char *key, int first);

/* Numbers.  An integer as it is; v / 1000 as an exact decimal with
 * three places ("-12.345": microseconds from ns, to the ns); a double by
 * the shortest text that reads back as the same double, or null when it
 * is not finite (JSON has no NaN or Infinity). */
void json_int(struct strbuf *sb, int64_t v);
void json_thousandths(struct strbuf *sb, int64_t v);
void json_real(struct strbuf *sb, double v);

/* Writes s as a quoted JSON string to f.  0, or -ENOMEM. */
int json_fputs(FILE *f, const char *s);

#endif
