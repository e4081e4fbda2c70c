#include <string.h>

#include "markup.h"
#include "utf8.h"

/* The contract is in markup.h. */
void markup_text(struct strbuf *sb, const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t left = s ? strlen(s) : 0;

	while (left) {
		size_t n = utf8_seq_len(p, left);

		if (n == 0 || (n == 3 && p[0] == 0xef && p[1] == 0xbf && p[2] >= 0xbe)) {
			strbuf_adds(sb, "\xef\xbf\xbd");	/* U+FFFD */
			n = n ? n : 1;
		} else if (n > 1) {
			strbuf_add(sb, p, n);
		} else {
			switch (*p) {
			case '<': strbuf_adds(sb, "&lt;"); break;
			case '>': strbuf_adds(sb, "&gt;"); break;
			case '&': strbuf_adds(sb, "&amp;"); break;
			case '"': strbuf_adds(sb, "&quot;"); break;
			default:
				if (*p < 0x20 && *p != '\t' && *p != '\n')
					strbuf_addc(sb, '?');
				else
					strbuf_addc(sb, (char)*p);
			}
		}
		p += n;
		left -= n;
	}
}
