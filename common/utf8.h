/*
 * utf8: telling well-formed UTF-8 from bytes that are not (RFC 3629: no
 * overlong forms, no surrogates, nothing above U+10FFFF).
 */
#ifndef FL_UTF8_H
#define FL_UTF8_H

#include <stddef.h>

/* The length of the well-formed UTF-8 sequence at s (of which avail
 * bytes may be read, avail >= 1): 1 to 4, or 0 when s[0] does not begin
 * one.  A NUL byte is a sequence of 1. */
size_t utf8_seq_len(const unsigned char *s, size_t avail);

#endif
