#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "../common/clock.h"
#include "when.h"

#define NS_PER_S 1000000000ll
#define NS_PER_DAY (86400 * NS_PER_S)

/* n digits at *p into *v; advances *p.  0, or -1 when they are not there. */
static int fixed_digits(const char **p, int n, int *v)
{
	*v = 0;
	for (int i = 0; i < n; i++, (*p)++) {
		if (**p < '0' || **p > '9')
			return -1;
		*v = *v * 10 + (**p - '0');
	}
	return 0;
}

/* "HH:MM:SS[.frac]" at *p: ns since midnight.  0 or -1. */
static int time_of_day(const char **p, int64_t *ns)
{
	int h, m, sec, digits = 0;
	int64_t frac = 0;

	if (fixed_digits(p, 2, &h) < 0 || *(*p)++ != ':' ||
	    fixed_digits(p, 2, &m) < 0 || *(*p)++ != ':' ||
	    fixed_digits(p, 2, &sec) < 0 || h > 23 || m > 59 || sec > 60)
		return -1;
	if (**p == '.') {
		for ((*p)++; **p >= '0' && **p <= '9'; (*p)++, digits++) {
			if (digits == 9)
				return -1;
			frac = frac * 10 + (**p - '0');
		}
		if (!digits)
			return -1;
		for (; digits < 9; digits++)
			frac *= 10;
	}
	*ns = ((int64_t)h * 3600 + m * 60 + sec) * NS_PER_S + frac;
	return 0;
}

static int all_digits(const char *s, int64_t *v)
{
	uint64_t u = 0;

	if (!*s)
		return -1;
	for (; *s; s++) {
		if (*s < '0' || *s > '9' || u > (uint64_t)(INT64_MAX - 9) / 10)
			return -1;
		u = u * 10 + (uint64_t)(*s - '0');
	}
	*v = (int64_t)u;
	return 0;
}

int plot_when_parse(const char *s, const char *opt, int64_t start_ts,
		    int64_t end_ts, int64_t *ts, struct errmsg *e)
{
	const char *p = s;
	int64_t tod;

	if (all_digits(s, ts) == 0 ||
	    utc_parse(s, strlen(s), UTC_ZONE_OPTIONAL, ts) == 0)
		return 0;
	if (time_of_day(&p, &tod) == 0 && !*p) {
		int64_t day = start_ts - start_ts % NS_PER_DAY;

		*ts = day + tod;
		if (*ts < start_ts && *ts + NS_PER_DAY <= end_ts)
			*ts += NS_PER_DAY;
		return 0;
	}
	return errmsg_set(e, EINVAL, "invalid %s '%s': expected a UTC time of "
			  "day (22:52:31.237), a UTC date and time "
			  "(2026-11-23T22:52:31.237Z), ns since the epoch, or "
			  "+DURATION from the session's start (+1500ms)", opt, s);
}
