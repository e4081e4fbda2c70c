#include <errno.h>
#include <stdlib.h>

#include "cpulist.h"

/* A CPU number at *s, moving *s past it. */
static int number(const char **s, long *out)
{
	char *end;

	if (**s < '0' || **s > '9')
		return -EINVAL;
	errno = 0;
	*out = strtol(*s, &end, 10);
	if (errno || *out >= CPU_SETSIZE)
		return -EINVAL;
	*s = end;
	return 0;
}

int cpulist_parse(const char *s, cpu_set_t *out)
{
	CPU_ZERO(out);
	for (;;) {
		long lo, hi;

		if (number(&s, &lo) < 0)
			return -EINVAL;
		hi = lo;
		if (*s == '-' && (s++, number(&s, &hi) < 0 || hi < lo))
			return -EINVAL;
		for (long c = lo; c <= hi; c++)
			CPU_SET((int)c, out);
		if (*s == ',') {
			s++;
			continue;
		}
		return *s == '\0' || (*s == '\n' && s[1] == '\0') ? 0 : -EINVAL;
	}
}
