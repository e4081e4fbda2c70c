/*
 * markup: text inside XML or HTML (the SVG picture, the runs page),
 * escaped the one way.
 */
#ifndef FL_MARKUP_H
#define FL_MARKUP_H

#include "strbuf.h"

/*
 * Appends s as XML character data (fit for HTML text and a quoted
 * attribute too), always well-formed: the five specials as entities, and
 * what XML 1.0 has no place for replaced: a control character other than
 * tab and LF by '?', a byte that begins no well-formed UTF-8 sequence (a
 * thread name the kernel cut to 15 bytes mid-character) by U+FFFD each,
 * and U+FFFE, U+FFFF by one U+FFFD.  s NULL appends nothing.
 */
void markup_text(struct strbuf *sb, const char *s);

#endif
