#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../common/clock.h"
#include "import_check.h"
#include "usage.h"


void import_print_summary(const char *name, const struct metric_store *s)
{
	char from[64], to[64], outside[96] = "";

	utc_format(from, sizeof(from), s->min_ts);
	utc_format(to, sizeof(to), s->max_ts);
	if (s->outside)
		snprintf(outside, sizeof(outside), "; %llu of them outside every "
			 "recorded session", (unsigned long long)s->outside);
	fprintf(stderr, "faultline import: %s: %zu series, %llu rows, %s to %s%s\n",
		name, s->nseries, (unsigned long long)s->rows, from, to, outside);
}

/* 2000-01-01T00:00:00Z: a point before it came from a clock that was not
 * the wall clock (seconds since the program started, say). */
#define PLAUSIBLE_NS 946684800000000000ll

int import_check_times(const char *name, const struct metric_store *s,
		       int any_time, struct errmsg *e)
{
	char from[64], to[64], lo[64], hi[64];
	int64_t end = INT64_MIN;

	utc_format(from, sizeof(from), s->min_ts);
	utc_format(to, sizeof(to), s->max_ts);
	if (!s->nspans) {
		if (s->max_ts < PLAUSIBLE_NS)
			warning("import", "%s: its points lie before 2000 (%s to %s): "
				"relative times, or a wrong --ts-unit? the database "
				"holds no session to line them up with", name, from, to);
		return 0;
	}
	if (s->outside < s->rows || any_time)
		return 0;
	for (size_t i = 0; i < s->nspans; i++)
		if (s->spans[i].end_ts > end)
			end = s->spans[i].end_ts;
	utc_format(lo, sizeof(lo), s->spans[0].start_ts);
	if (end == INT64_MAX)
		snprintf(hi, sizeof(hi), "now");
	else
		utc_format(hi, sizeof(hi), end);
	return errmsg_set(e, ERANGE, "%s %llu point%s outside every recorded "
			  "session (%s from %s to %s, the sessions from %s to %s): "
			  "relative times, or a wrong --ts-unit? --any-time imports "
			  "%s anyway", s->rows == 1 ? "its" : "all",
			  (unsigned long long)s->rows, s->rows == 1 ? " lies" : "s lie",
			  s->rows == 1 ? "it is" : "they run", from, to, lo, hi,
			  s->rows == 1 ? "it" : "them");
}

int import_seen_before(const char *name, struct metric_store *s,
		       const char *digest, struct errmsg *e)
{
	char *source = NULL, when[64];
	int64_t ts = 0;
	int r = metric_store_seen(s, digest, &source, &ts, e);

	if (r <= 0)
		return r;
	utc_format(when, sizeof(when), ts);
	warning("import", "%s: skipped: the same content was imported on %s, as "
		"'%s'; --again imports it again", name, when,
		strcmp(source, "-") ? source : "stdin");
	free(source);
	return 1;
}
