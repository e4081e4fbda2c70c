#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

#include "json.h"
#include "utf8.h"

void json_string(struct strbuf *sb, const char *s, size_t len)
{
	const unsigned char *u = (const unsigned char *)s;
	size_t i = 0, run = 0;

	strbuf_addc(sb, '"');
	while (i < len && u[i]) {
		unsigned char c = u[i];
		size_t n = 1;
		const char *esc = NULL;
		char hex[8];

		if (c == '"')
			esc = "\\\"";
		else if (c == '\\')
			esc = "\\\\";
		else if (c == '\n')
			esc = "\\n";
		else if (c == '\t')
			esc = "\\t";
		else if (c == '\r')
			esc = "\\r";
		else if (c == '\b')
			esc = "\\b";
		else if (c == '\f')
			esc = "\\f";
		else if (c < 0x20 || c == 0x7f)
			snprintf(hex, sizeof(hex), "\\u%04x", c), esc = hex;
		else if (c >= 0x80 &&
			 (n = utf8_seq_len(u + i, strnlen(s + i, len - i))) == 0)
			esc = "\\ufffd", n = 1;
		if (!esc) {
			run += n;	/* copied as it is, in one piece below */
			i += n;
			continue;
		}
		strbuf_add(sb, s + i - run, run);
		run = 0;
		strbuf_adds(sb, esc);
		i += n;
	}
	strbuf_add(sb, s + i - run, run);
	strbuf_addc(sb, '"');
}

void json_cstring(struct strbuf *sb, const char *s)
{
	json_string(sb, s, strlen(s));
}

void json_cstring_or_null(struct strbuf *sb, const char *s)
{
	if (s)
		json_cstring(sb, s);
	else
		strbuf_adds(sb, "null");
}

void json_key(struct strbuf *sb, const char *key, int first)
{
	if (!first)
		strbuf_addc(sb, ',');
	json_cstring(sb, key);
	strbuf_addc(sb, ':');
}

/* Digits of v, written backwards from end; returns the first. */
static char *digits(uint64_t v, char *end)
{
	do {
		*--end = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	return end;
}

/* By hand, not printf: a trace export writes tens of millions of them. */
void json_int(struct strbuf *sb, int64_t v)
{
	char buf[24], *end = buf + sizeof(buf), *p;
	uint64_t u = v < 0 ? 0 - (uint64_t)v : (uint64_t)v;

	p = digits(u, end);
	if (v < 0)
		*--p = '-';
	strbuf_add(sb, p, (size_t)(end - p));
}

void json_thousandths(struct strbuf *sb, int64_t v)
{
	char buf[32], *end = buf + sizeof(buf), *p;
	uint64_t u = v < 0 ? 0 - (uint64_t)v : (uint64_t)v;

	p = digits(u % 1000 + 1000, end);	/* "1xyz": keeps the zeros */
	*p = '.';
	p = digits(u / 1000, p);
	if (v < 0)
		*--p = '-';
	strbuf_add(sb, p, (size_t)(end - p));
}

void json_real(struct strbuf *sb, double v)
{
	char buf[32];

	if (!isfinite(v)) {
		strbuf_adds(sb, "null");
		return;
	}
	/* A negative zero (round(b - a, 3) of a tiny negative difference on
	 * SQLite) is written as zero: SQLite's own text and PostgreSQL's
	 * numeric round have no sign on it, and "-0" means nothing to a
	 * reader. */
	if (v == 0)
		v = 0;
	for (int prec = 15; prec <= 17; prec++) {
		snprintf(buf, sizeof(buf), "%.*g", prec, v);
		if (strtod(buf, NULL) == v)
			break;
	}
	strbuf_adds(sb, buf);
}

int json_fputs(FILE *f, const char *s)
{
	struct strbuf sb;
	int err;

	strbuf_init(&sb);
	json_cstring(&sb, s);
	err = strbuf_error(&sb);
	if (err == 0)
		fwrite(sb.buf, 1, sb.len, f);
	strbuf_release(&sb);
	return err;
}
