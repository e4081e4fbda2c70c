#include <string.h>

#include "csv.h"

void csv_add_field(struct strbuf *sb, const char *s, size_t len)
{
	if (len && !memchr(s, ',', len) && !memchr(s, '"', len) &&
	    !memchr(s, '\r', len) && !memchr(s, '\n', len)) {
		strbuf_add(sb, s, len);
		return;
	}
	strbuf_addc(sb, '"');
	for (size_t i = 0; i < len; i++) {
		if (s[i] == '"')
			strbuf_addc(sb, '"');
		strbuf_addc(sb, s[i]);
	}
	strbuf_addc(sb, '"');
}

void csv_add_text(struct strbuf *sb, const char *s, size_t len)
{
	struct strbuf t;

	static const char formula[] = "=+-@\t\r";

	if (!len || !memchr(formula, s[0], sizeof(formula) - 1)) {
		csv_add_field(sb, s, len);
		return;
	}
	strbuf_init(&t);
	strbuf_addc(&t, '\'');
	strbuf_add(&t, s, len);
	if (strbuf_error(&t))
		sb->failed = 1;	/* cut, as any append that fails */
	else
		csv_add_field(sb, t.buf, t.len);
	strbuf_release(&t);
}
