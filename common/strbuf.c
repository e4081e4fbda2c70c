#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "array.h"
#include "strbuf.h"

void strbuf_init(struct strbuf *sb)
{
	memset(sb, 0, sizeof(*sb));
}

void strbuf_release(struct strbuf *sb)
{
	free(sb->buf);
	strbuf_init(sb);
}

void strbuf_reset(struct strbuf *sb)
{
	sb->len = 0;
	sb->failed = 0;
	if (sb->buf)
		sb->buf[0] = '\0';
}

/* Room for len more bytes and the NUL. */
static int room(struct strbuf *sb, size_t len)
{
	if (sb->failed)
		return -1;
	if (len < sb->cap - sb->len)	/* fits: no call (cap > len once allocated) */
		return 0;
	if (len > (size_t)-1 - sb->len - 1 ||
	    ARRAY_RESERVE(sb->buf, sb->cap, sb->len + len + 1) < 0) {
		sb->failed = 1;
		return -1;
	}
	return 0;
}

void strbuf_add(struct strbuf *sb, const void *data, size_t len)
{
	if (room(sb, len) < 0)
		return;
	memcpy(sb->buf + sb->len, data, len);
	sb->len += len;
	sb->buf[sb->len] = '\0';
}

void strbuf_addc(struct strbuf *sb, char c)
{
	strbuf_add(sb, &c, 1);
}

void strbuf_adds(struct strbuf *sb, const char *s)
{
	strbuf_add(sb, s, strlen(s));
}

void strbuf_addf(struct strbuf *sb, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (room(sb, 64) < 0)
		return;
	va_start(ap, fmt);
	n = vsnprintf(sb->buf + sb->len, sb->cap - sb->len, fmt, ap);
	va_end(ap);
	if (n < 0) {
		sb->failed = 1;
		return;
	}
	if ((size_t)n >= sb->cap - sb->len) {
		if (room(sb, (size_t)n) < 0)
			return;
		va_start(ap, fmt);
		vsnprintf(sb->buf + sb->len, sb->cap - sb->len, fmt, ap);
		va_end(ap);
	}
	sb->len += (size_t)n;
}

const char *strbuf_str(const struct strbuf *sb)
{
	return sb->buf && !sb->failed ? sb->buf : "";
}

int strbuf_error(const struct strbuf *sb)
{
	return sb->failed ? -ENOMEM : 0;
}

char *strbuf_detach(struct strbuf *sb)
{
	char *s = sb->buf;

	if (sb->failed) {
		strbuf_release(sb);
		return NULL;
	}
	if (!s)
		s = strdup("");
	strbuf_init(sb);
	return s;
}
