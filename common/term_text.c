#include <stdlib.h>
#include <string.h>

#include "term_text.h"
#include "utf8.h"

void term_text_add(struct strbuf *sb, const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t left = s ? strlen(s) : 0;

	while (left) {
		size_t run = 0, n;

		/* The longest run kept as it is, added at once. */
		while (run < left) {
			const unsigned char *q = p + run;

			n = utf8_seq_len(q, left - run);
			if (n == 0 || (n == 1 && (*q < 0x20 || *q == 0x7f)) ||
			    (n == 2 && q[0] == 0xc2 && q[1] < 0xa0))
				break;
			run += n;
		}
		strbuf_add(sb, p, run);
		p += run;
		left -= run;
		if (!left)
			break;
		/* One sequence shown byte by byte: a C1 control is two bytes,
		 * anything else one. */
		n = utf8_seq_len(p, left) == 2 ? 2 : 1;
		for (size_t i = 0; i < n; i++)
			strbuf_addf(sb, "\\x%02x", p[i]);
		p += n;
		left -= n;
	}
}

char *term_text_dup(const char *s)
{
	struct strbuf sb;

	if (!s)
		return NULL;
	strbuf_init(&sb);
	term_text_add(&sb, s);
	return strbuf_detach(&sb);
}

void term_text_fputs(const char *s, FILE *out)
{
	char *t = term_text_dup(s);

	/* Out of memory: nothing rather than the raw text. */
	if (t)
		fputs(t, out);
	free(t);
}
