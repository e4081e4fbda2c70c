#include <stdint.h>

#include "utf8.h"

size_t utf8_seq_len(const unsigned char *s, size_t avail)
{
	unsigned c = s[0], need;
	uint32_t cp, min;

	if (c < 0x80)
		return 1;
	if (c >= 0xc2 && c <= 0xdf)
		need = 1, min = 0x80, cp = c & 0x1f;
	else if (c >= 0xe0 && c <= 0xef)
		need = 2, min = 0x800, cp = c & 0x0f;
	else if (c >= 0xf0 && c <= 0xf4)
		need = 3, min = 0x10000, cp = c & 0x07;
	else
		return 0;	/* a continuation byte, or C0, C1, F5..FF */
	if (avail < need + 1)
		return 0;
	for (unsigned i = 1; i <= need; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (s[i] & 0x3f);
	}
	if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
		return 0;
	return need + 1;
}
