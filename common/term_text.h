/*
 * term_text: text from outside faultline (thread names, function and
 * file names, anything a user of the machine could choose) made safe to
 * show on a terminal, the one way.  A thread can name itself
 * "\e]0;...\a" or "\e[2J"; written raw, the terminal of whoever reads
 * the report acts on it: retitles, clears, hides lines, or worse.
 *
 * Shown as \xHH, one per byte:
 *   - C0 controls (0x00-0x1f: ESC, BEL, CR, LF, TAB...) and DEL (0x7f);
 *   - C1 controls (U+0080-U+009F; 0x9b is a CSI to many terminals);
 *   - every byte that does not begin a well-formed UTF-8 sequence
 *     (common/utf8.h), such as a name the kernel cut mid-character.
 * Everything else, printable UTF-8 of any script, is kept as it is.  A
 * backslash is kept too: a name that holds the four characters "\x1b"
 * reads the same as an escaped ESC, which is harmless to a terminal.
 *
 * For a terminal only: CSV and JSON have their own quoting (cli/
 * table_out.c, common/json.h) and keep the bytes.
 */
#ifndef FL_TERM_TEXT_H
#define FL_TERM_TEXT_H

#include <stdio.h>

#include "strbuf.h"

/* Appends s (NUL-terminated; NULL appends nothing) to sb, escaped. */
void term_text_add(struct strbuf *sb, const char *s);

/* s escaped, in a new string (owned by the caller, free()); NULL for a
 * NULL s or when out of memory. */
char *term_text_dup(const char *s);

/* Writes s escaped to out; NULL writes nothing. */
void term_text_fputs(const char *s, FILE *out);

#endif
