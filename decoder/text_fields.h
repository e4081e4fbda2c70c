/*
 * text_fields: cutting a line of a text table (kallsyms, perf maps) into
 * fields in place.  Fields are separated by spaces or tabs.
 */
#ifndef FL_TEXT_FIELDS_H
#define FL_TEXT_FIELDS_H

#include <stdint.h>

/* Ends the line at its '\n' (a '\r' before it goes too); returns the next
 * line, or NULL at the end of the text. */
char *text_cut_line(char *line);

/* The next field as a NUL-terminated word, *p moved past it; NULL when
 * the line has no more. */
char *text_word(char **p);

/* The rest of the line from the next field on, trailing blanks cut;
 * NULL when empty. */
char *text_rest(char **p);

/* The next field as hex (an optional 0x): 0, or -EINVAL when it is not
 * one or overflows 64 bits. */
int text_hex(char **p, uint64_t *out);

#endif
