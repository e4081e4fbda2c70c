/*
 * metric_parse_field: one field of a metric line to a number: timestamps
 * (epoch numbers and RFC 3339, see metric_parse.h) and values.  Fields
 * are not NUL-terminated: every read stays within len.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../common/clock.h"
#include "metric_parse.h"

#define NS_PER_S 1000000000ll

static int is_digit(char c)
{
	return c >= '0' && c <= '9';
}

/* Drops spaces around a field: "12, 13" is a common CSV spelling. */
static void trim(const char **s, size_t *len)
{
	while (*len && (**s == ' ' || **s == '\t')) {
		(*s)++;
		(*len)--;
	}
	while (*len && ((*s)[*len - 1] == ' ' || (*s)[*len - 1] == '\t'))
		(*len)--;
}

/* Epoch number: digits[.digits] in unit (TS_AUTO: by magnitude). */
static int parse_epoch(const char *s, size_t len, enum ts_kind unit,
		       int64_t *ns, enum ts_kind *kind)
{
	static const int64_t per_unit[] = { 0, NS_PER_S, 1000000, 1000, 1 };
	uint64_t whole = 0;
	int64_t frac = 0, mult, part;
	size_t i = 0;
	int overflow = 0;

	if (len && s[0] == '-' && len > 1 && is_digit(s[1]))
		return -ERANGE;		/* before 1970 */
	if (!len || !is_digit(s[0]))
		return -EINVAL;
	for (; i < len && is_digit(s[i]); i++) {
		if (whole > (UINT64_MAX - 9) / 10)
			overflow = 1;
		else
			whole = whole * 10 + (uint64_t)(s[i] - '0');
	}
	if (i < len && s[i] == '.') {
		size_t n = fraction_ns(s + i + 1, len - i - 1, &frac);

		i += 1 + n;
	}
	if (i != len)
		return -EINVAL;
	if (overflow)
		return -ERANGE;
	if (unit == TS_AUTO)
		unit = whole < 100000000000ull ? TS_S :
		       whole < 100000000000000ull ? TS_MS :
		       whole < 100000000000000000ull ? TS_US : TS_NS;
	*kind = unit;
	mult = per_unit[unit];
	/* frac is the fraction in units of 1e-9 of the unit. */
	part = frac / (NS_PER_S / mult);
	if (whole > (uint64_t)INT64_MAX / (uint64_t)mult ||
	    (int64_t)whole * mult > INT64_MAX - part)
		return -ERANGE;
	*ns = (int64_t)whole * mult + part;
	return 0;
}

int metric_parse_ts(const char *s, size_t len, enum ts_kind unit,
		    int64_t *ns, enum ts_kind *kind)
{
	trim(&s, &len);
	if (len >= 5 && is_digit(s[0]) && s[4] == '-') {
		*kind = TS_RFC3339;
		return utc_parse(s, len, 0, ns);
	}
	return parse_epoch(s, len, unit, ns, kind);
}

/* Longest value text read: more digits than a double holds, and more. */
#define VALUE_MAX 128

int metric_parse_value(const char *s, size_t len, double *out)
{
	char buf[VALUE_MAX];
	size_t i = 0, int_digits = 0, frac_digits = 0;
	int neg = 0;
	char *end;

	trim(&s, &len);
	if (i < len && (s[i] == '-' || s[i] == '+'))
		neg = s[i++] == '-';
	for (; i < len && is_digit(s[i]); i++)
		int_digits++;
	/* The common case, an integer that a double holds exactly (up to 15
	 * digits), without the copy and strtod. */
	if (i == len && int_digits && int_digits <= 15) {
		int64_t v = 0;

		for (size_t k = len - int_digits; k < len; k++)
			v = v * 10 + (s[k] - '0');
		*out = neg ? -(double)v : (double)v;
		return 0;
	}
	if (i < len && s[i] == '.')
		for (i++; i < len && is_digit(s[i]); i++)
			frac_digits++;
	if (!int_digits && !frac_digits)
		return -EINVAL;
	if (i < len && (s[i] == 'e' || s[i] == 'E')) {
		size_t exp_digits = 0;

		i++;
		if (i < len && (s[i] == '-' || s[i] == '+'))
			i++;
		for (; i < len && is_digit(s[i]); i++)
			exp_digits++;
		if (!exp_digits)
			return -EINVAL;
	}
	if (i != len)
		return -EINVAL;
	if (len >= VALUE_MAX)
		return -ERANGE;
	memcpy(buf, s, len);
	buf[len] = '\0';
	*out = strtod(buf, &end);
	if (!isfinite(*out))
		return -ERANGE;
	return 0;
}
