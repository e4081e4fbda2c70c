#include <errno.h>
#include <string.h>

#include "text_fields.h"

static int is_blank(char c)
{
	return c == ' ' || c == '\t';
}

char *text_cut_line(char *line)
{
	char *nl = strchr(line, '\n');

	if (nl && nl > line && nl[-1] == '\r')
		nl[-1] = '\0';
	if (!nl)
		return NULL;
	*nl = '\0';
	return nl + 1;
}

char *text_word(char **p)
{
	char *s = *p, *w;

	while (is_blank(*s))
		s++;
	if (!*s) {
		*p = s;
		return NULL;
	}
	w = s;
	while (*s && !is_blank(*s))
		s++;
	if (*s)
		*s++ = '\0';
	*p = s;
	return w;
}

char *text_rest(char **p)
{
	char *s = *p, *end;

	while (is_blank(*s))
		s++;
	if (!*s)
		return NULL;
	end = s + strlen(s);
	while (end > s && is_blank(end[-1]))
		*--end = '\0';
	*p = end;
	return s;
}

int text_hex(char **p, uint64_t *out)
{
	char *w = text_word(p);
	uint64_t v = 0;

	if (!w)
		return -EINVAL;
	if (w[0] == '0' && (w[1] == 'x' || w[1] == 'X'))
		w += 2;
	if (!*w)
		return -EINVAL;
	for (; *w; w++) {
		int d;

		if (*w >= '0' && *w <= '9')
			d = *w - '0';
		else if (*w >= 'a' && *w <= 'f')
			d = *w - 'a' + 10;
		else if (*w >= 'A' && *w <= 'F')
			d = *w - 'A' + 10;
		else
			return -EINVAL;
		if (v >> 60)
			return -EINVAL;
		v = v << 4 | (uint64_t)d;
	}
	*out = v;
	return 0;
}
