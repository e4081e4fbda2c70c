#include <errno.h>

#include "metric_line.h"
#include "metric_parse.h"

static int blank(char c)
{
	return c == ' ' || c == '\t';
}

int metric_name_valid(const char *s, size_t len)
{
	if (len == 0 || len >= METRIC_NAME_MAX)
		return 0;
	for (size_t i = 0; i < len; i++)
		if (s[i] <= ' ' || s[i] > '~' || s[i] == '>')
			return 0;
	return 1;
}

int metric_line_parse(const char *s, size_t len, const char **name,
		      size_t *name_len, double *value)
{
	size_t i = 0, n;

	if (len && s[len - 1] == '\r')
		len--;
	while (i < len && blank(s[i]))
		i++;
	for (n = 0; i + n < len && !blank(s[i + n]); n++)
		;
	if (!metric_name_valid(s + i, n) || i + n == len)
		return -EINVAL;
	*name = s + i;
	*name_len = n;
	/* metric_parse_value trims the blanks around the value, and refuses
	 * a second field inside it. */
	return metric_parse_value(s + i + n, len - i - n, value);
}
