/*
 * strbuf: a growable, NUL-terminated text buffer.  Appends never fail
 * loudly: an allocation failure sets `failed`, later appends do nothing,
 * and the writer checks once, at the end (strbuf_error), so building a
 * text is not an if per piece.
 *
 * Lifecycle: strbuf_init (no allocation), appends, strbuf_release (frees
 * buf); strbuf_reset empties it for reuse and keeps the memory.
 */
#ifndef FL_STRBUF_H
#define FL_STRBUF_H

#include <stddef.h>

struct strbuf {
	char *buf;		/* owned, malloc'd; NULL until the first append */
	size_t len, cap;	/* len excludes the NUL */
	int failed;		/* an append ran out of memory: text is cut */
};

void strbuf_init(struct strbuf *sb);
void strbuf_release(struct strbuf *sb);
/* Empties the text (keeps the memory and clears `failed`). */
void strbuf_reset(struct strbuf *sb);

void strbuf_add(struct strbuf *sb, const void *data, size_t len);
void strbuf_addc(struct strbuf *sb, char c);
void strbuf_adds(struct strbuf *sb, const char *s);
void strbuf_addf(struct strbuf *sb, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* The text ("" when nothing was added); borrowed, valid until the next
 * append or release. */
const char *strbuf_str(const struct strbuf *sb);

/* 0, or -ENOMEM when an append failed. */
int strbuf_error(const struct strbuf *sb);

/* Hands the text over: the caller frees it; sb is left empty.  NULL when
 * an append failed (sb's memory is freed then). */
char *strbuf_detach(struct strbuf *sb);

#endif
