#include <errno.h>
#include <string.h>

#include "cgroup_cpu.h"

/* The line starting at p (up to a '\n' or end), its length in *n. */
static const char *next_line(const char *p, const char *end, size_t *n)
{
	const char *nl = memchr(p, '\n', (size_t)(end - p));

	*n = (size_t)((nl ? nl : end) - p);
	return p;
}

/* A decimal number filling [p, end), optionally negative; 0 or -EINVAL. */
static int parse_i64(const char *p, const char *end, int64_t *out)
{
	int neg = p < end && *p == '-';
	uint64_t v = 0;

	p += neg;
	if (p == end)
		return -EINVAL;
	for (; p < end; p++) {
		if (*p < '0' || *p > '9' || v > (UINT64_MAX - 9) / 10)
			return -EINVAL;
		v = v * 10 + (uint64_t)(*p - '0');
	}
	if (v > (uint64_t)INT64_MAX)
		return -EINVAL;
	*out = neg ? -(int64_t)v : (int64_t)v;
	return 0;
}

/* [p, end) less one trailing newline. */
static const char *trim_nl(const char *p, const char *end)
{
	return end > p && end[-1] == '\n' ? end - 1 : end;
}

int cgroup_parse_us(const char *p, size_t len, int64_t *us)
{
	int64_t v;

	if (parse_i64(p, trim_nl(p, p + len), &v) < 0 || v < CGROUP_NO_QUOTA)
		return -EINVAL;
	*us = v;
	return 0;
}

int cgroup_parse_cpu_max(const char *p, size_t len, int64_t *quota_us,
			 int64_t *period_us)
{
	const char *end = trim_nl(p, p + len);
	const char *sp = memchr(p, ' ', (size_t)(end - p));
	int64_t q = CGROUP_NO_QUOTA, per;

	if (!sp)
		return -EINVAL;
	if (!((size_t)(sp - p) == 3 && !memcmp(p, "max", 3)) &&
	    (parse_i64(p, sp, &q) < 0 || q < 0))
		return -EINVAL;
	if (parse_i64(sp + 1, end, &per) < 0 || per <= 0)
		return -EINVAL;
	*quota_us = q;
	*period_us = per;
	return 0;
}

int cgroup_parse_cpu_stat(const char *p, size_t len, int v2,
			  struct cgroup_cpu_stat *out)
{
	const char *end = p + len, *time_key = v2 ? "throttled_usec" : "throttled_time";
	struct cgroup_cpu_stat s = { 0 };
	unsigned seen = 0;

	while (p < end) {
		size_t n, klen;
		const char *line = next_line(p, end, &n), *sp;
		uint64_t *dst = NULL;
		unsigned bit = 0;
		int64_t v;

		p += n + 1;
		sp = memchr(line, ' ', n);
		if (!sp)
			continue;
		klen = (size_t)(sp - line);
		if (klen == 10 && !memcmp(line, "nr_periods", 10))
			dst = &s.nr_periods, bit = 1;
		else if (klen == 12 && !memcmp(line, "nr_throttled", 12))
			dst = &s.nr_throttled, bit = 2;
		else if (klen == strlen(time_key) && !memcmp(line, time_key, klen))
			dst = &s.throttled_ns, bit = 4;
		if (!dst)
			continue;
		if (parse_i64(sp + 1, line + n, &v) < 0 || v < 0)
			return -EINVAL;
		*dst = (uint64_t)v;
		seen |= bit;
	}
	if (seen != 7)
		return -EINVAL;
	if (v2)
		s.throttled_ns *= 1000;
	*out = s;
	return 0;
}

/* Does the comma-separated list [p, end) name "cpu"? */
static int names_cpu(const char *p, const char *end)
{
	while (p < end) {
		const char *c = memchr(p, ',', (size_t)(end - p));
		const char *e = c ? c : end;

		if (e - p == 3 && !memcmp(p, "cpu", 3))
			return 1;
		p = e + 1;
	}
	return 0;
}

int cgroup_parse_proc_cgroup(const char *p, size_t len, char *path, size_t n,
			     int *v2)
{
	const char *end = p + len, *v2_path = NULL, *found = NULL;
	size_t v2_len = 0, found_len = 0;

	while (p < end && !found) {
		size_t ln;
		const char *line = next_line(p, end, &ln), *c1, *c2;

		p += ln + 1;
		c1 = memchr(line, ':', ln);
		c2 = c1 ? memchr(c1 + 1, ':', (size_t)(line + ln - c1 - 1)) : NULL;
		if (!c2 || c2 + 1 >= line + ln || c2[1] != '/')
			continue;
		if (c2 == c1 + 1 && c1 - line == 1 && line[0] == '0') {
			v2_path = c2 + 1;
			v2_len = (size_t)(line + ln - v2_path);
		} else if (names_cpu(c1 + 1, c2)) {
			found = c2 + 1;
			found_len = (size_t)(line + ln - found);
		}
	}
	*v2 = !found;
	if (!found) {
		found = v2_path;
		found_len = v2_len;
	}
	if (!found || found_len >= n)
		return -EINVAL;
	memcpy(path, found, found_len);
	path[found_len] = '\0';
	return 0;
}
