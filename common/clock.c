#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "clock.h"

#define NS_PER_S 1000000000ll

void clock_anchor_take(struct clock_anchor *a)
{
	uint64_t best = UINT64_MAX;

	for (int i = 0; i < CLOCK_ANCHOR_TRIES; i++) {
		uint64_t m1 = monotonic_ns();
		uint64_t r = realtime_ns();
		uint64_t m2 = monotonic_ns();
		uint64_t width = m2 - m1;

		if (width >= best)
			continue;
		best = width;
		a->mono_ns = m1 + width / 2;
		a->realtime_ns = r;
		a->uncertainty_ns = (width + 1) / 2;
	}
}

/* ---- UTC text ----------------------------------------------------------- */

/* Days from 1970-01-01 to y-m-d (proleptic Gregorian; H. Hinnant's
 * days_from_civil). */
static int64_t days_from_civil(int64_t y, int m, int d)
{
	int64_t era, yoe, doy, doe;

	y -= m <= 2;
	era = (y >= 0 ? y : y - 399) / 400;
	yoe = y - era * 400;
	doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
	doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
	return era * 146097 + doe - 719468;
}

/* The inverse: y-m-d of a day count from 1970-01-01 (civil_from_days). */
static void civil_from_days(int64_t z, int64_t *y, int *m, int *d)
{
	int64_t era, doe, yoe, doy, mp;

	z += 719468;
	era = (z >= 0 ? z : z - 146096) / 146097;
	doe = z - era * 146097;
	yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
	doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
	mp = (5 * doy + 2) / 153;
	*d = (int)(doy - (153 * mp + 2) / 5 + 1);
	*m = (int)(mp < 10 ? mp + 3 : mp - 9);
	*y = yoe + era * 400 + (*m <= 2);
}

/* By arithmetic, not gmtime_r and strftime: exact for every int64, and
 * no time zone state is read. */
const char *utc_format(char *buf, size_t n, int64_t ts)
{
	/* Floor division, so a time before 1970 still reads right. */
	int64_t sec = ts / NS_PER_S - (ts % NS_PER_S < 0);
	int64_t frac = ts - sec * NS_PER_S;
	int64_t day = sec / 86400 - (sec % 86400 < 0), tod = sec - day * 86400;
	int64_t y;
	int m, d;

	civil_from_days(day, &y, &m, &d);
	snprintf(buf, n, "%04lld-%02d-%02dT%02d:%02d:%02d.%09lldZ", (long long)y, m,
		 d, (int)(tod / 3600), (int)(tod / 60 % 60), (int)(tod % 60),
		 (long long)frac);
	return buf;
}

static int is_digit(char c)
{
	return c >= '0' && c <= '9';
}

/* n digits at s as a number; the caller has checked they are digits. */
static int digits_at(const char *s, size_t n)
{
	int v = 0;

	for (size_t i = 0; i < n; i++)
		v = v * 10 + (s[i] - '0');
	return v;
}

static int days_in_month(int y, int m)
{
	static const int days[] = { 31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31 };
	int leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;

	return m == 2 && leap ? 29 : days[m - 1];
}

/* Does s hold digits at each position of pattern's '9's and pattern's
 * other characters elsewhere? */
static int matches(const char *s, size_t len, const char *pattern)
{
	size_t n = strlen(pattern);

	if (len < n)
		return 0;
	for (size_t i = 0; i < n; i++)
		if (pattern[i] == '9' ? !is_digit(s[i]) : s[i] != pattern[i])
			return 0;
	return 1;
}

size_t fraction_ns(const char *s, size_t len, int64_t *ns)
{
	size_t i = 0;
	int64_t v = 0, scale = NS_PER_S;

	for (; i < len && is_digit(s[i]); i++)
		if (scale > 1) {
			scale /= 10;
			v += (s[i] - '0') * scale;
		}
	*ns = v;
	return i;
}

/* The zone at s[0..len), all of what is left: its offset east of UTC in
 * seconds.  0 or -EINVAL. */
static int zone(const char *s, size_t len, unsigned flags, int *off)
{
	*off = 0;
	if (len == 0)
		return flags & UTC_ZONE_OPTIONAL ? 0 : -EINVAL;
	if (len == 1 && (s[0] == 'Z' || s[0] == 'z'))
		return 0;
	if (len == 6 && (s[0] == '+' || s[0] == '-') && matches(s + 1, 5, "99:99")) {
		int oh = digits_at(s + 1, 2), om = digits_at(s + 4, 2);

		if (oh > 23 || om > 59)
			return -EINVAL;
		*off = (oh * 60 + om) * 60 * (s[0] == '-' ? -1 : 1);
		return 0;
	}
	return -EINVAL;
}

int utc_parse(const char *s, size_t len, unsigned flags, int64_t *ns)
{
	int y, mo, d, h, mi, sec, off;
	int64_t frac = 0, secs;
	size_t i = 19;

	if (!matches(s, len, "9999-99-99T99:99:99") &&
	    !matches(s, len, "9999-99-99t99:99:99") &&
	    !matches(s, len, "9999-99-99 99:99:99"))
		return -EINVAL;
	y = digits_at(s, 4);
	mo = digits_at(s + 5, 2);
	d = digits_at(s + 8, 2);
	h = digits_at(s + 11, 2);
	mi = digits_at(s + 14, 2);
	sec = digits_at(s + 17, 2);
	if (mo < 1 || mo > 12 || d < 1 || d > days_in_month(y, mo) || h > 23 ||
	    mi > 59 || sec > 60)
		return -EINVAL;
	if (i < len && s[i] == '.') {
		size_t n = fraction_ns(s + i + 1, len - i - 1, &frac);

		if (!n)
			return -EINVAL;
		i += 1 + n;
	}
	if (zone(s + i, len - i, flags, &off) < 0)
		return -EINVAL;
	secs = days_from_civil(y, mo, d) * 86400 + h * 3600 + mi * 60 + sec - off;
	if (secs < 0)
		return -ERANGE;
	if (secs > (INT64_MAX - frac) / NS_PER_S)
		return -ERANGE;
	*ns = secs * NS_PER_S + frac;
	return 0;
}
