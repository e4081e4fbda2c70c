#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../common/array.h"
#include "env_text.h"

int env_bracket_choice(const char *text, size_t len, char *buf, size_t n)
{
	const char *open = memchr(text, '[', len), *close;

	if (!open)
		return -EINVAL;
	close = memchr(open, ']', len - (size_t)(open - text));
	if (!close || (size_t)(close - open - 1) >= n || close == open + 1)
		return -EINVAL;
	memcpy(buf, open + 1, (size_t)(close - open - 1));
	buf[close - open - 1] = '\0';
	return 0;
}

int env_trim(const char *text, size_t len, char *buf, size_t n)
{
	while (len && isspace((unsigned char)text[0])) {
		text++;
		len--;
	}
	while (len && isspace((unsigned char)text[len - 1]))
		len--;
	if (len == 6 && !memcmp(text, "(null)", 6))
		len = 0;
	if (len >= n)
		return -EINVAL;
	memcpy(buf, text, len);
	buf[len] = '\0';
	return 0;
}

/* proc_pid_limits' names (fs/proc/base.c lnames[]), setrlimit's names. */
static const struct { const char *proc, *key; } limit_names[] = {
	{ "Max cpu time", "cpu" },
	{ "Max file size", "fsize" },
	{ "Max data size", "data" },
	{ "Max stack size", "stack" },
	{ "Max core file size", "core" },
	{ "Max resident set", "rss" },
	{ "Max processes", "nproc" },
	{ "Max open files", "nofile" },
	{ "Max locked memory", "memlock" },
	{ "Max address space", "as" },
	{ "Max file locks", "locks" },
	{ "Max pending signals", "sigpending" },
	{ "Max msgqueue size", "msgqueue" },
	{ "Max nice priority", "nice" },
	{ "Max realtime priority", "rtprio" },
	{ "Max realtime timeout", "rttime" },
};

/* The field of line [p, p + n) from column at for up to w bytes, trimmed,
 * into buf; "" when the line is shorter. */
static void column(const char *p, size_t n, size_t at, size_t w, char *buf,
		   size_t bufn)
{
	if (at >= n) {
		buf[0] = '\0';
		return;
	}
	if (env_trim(p + at, n - at < w ? n - at : w, buf, bufn) < 0)
		buf[0] = '\0';
}

/* One line of /proc/PID/limits. */
static int limit_line(const char *p, size_t n, env_fn fn, void *ctx)
{
	char name[32], soft[32], hard[32], key[48];

	column(p, n, 0, 25, name, sizeof(name));
	column(p, n, 26, 21, soft, sizeof(soft));
	column(p, n, 47, 21, hard, sizeof(hard));
	for (size_t i = 0; i < ARRAY_SIZE(limit_names); i++) {
		int err;

		if (strcmp(name, limit_names[i].proc) || !soft[0] || !hard[0])
			continue;
		snprintf(key, sizeof(key), "limit.%s", limit_names[i].key);
		if ((err = fn(ctx, key, soft)) < 0)
			return err;
		snprintf(key, sizeof(key), "limit.%s.hard", limit_names[i].key);
		return fn(ctx, key, hard);
	}
	return 0;
}

int env_limits_each(const char *text, size_t len, env_fn fn, void *ctx)
{
	const char *p = text, *end = text + len;
	int err = 0, first = 1;

	while (err == 0 && p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t n = (size_t)((nl ? nl : end) - p);

		if (!first)
			err = limit_line(p, n, fn, ctx);
		first = 0;
		p += n + 1;
	}
	return err;
}

int env_name_kept(const char *name, size_t len)
{
	return (len > 3 && !memcmp(name, "LD_", 3)) ||
	       (len > 7 && !memcmp(name, "MALLOC_", 7)) ||
	       (len == 14 && !memcmp(name, "GLIBC_TUNABLES", 14));
}

int env_environ_each(const char *buf, size_t len, env_fn fn, void *ctx)
{
	const char *p = buf, *end = buf + len;
	char key[256];
	int err = 0;

	while (err == 0 && p < end) {
		const char *nul = memchr(p, '\0', (size_t)(end - p));
		size_t n = (size_t)((nul ? nul : end) - p);
		const char *eq = memchr(p, '=', n);
		size_t name_len = eq ? (size_t)(eq - p) : 0;

		if (eq && env_name_kept(p, name_len) && name_len + 5 <= sizeof(key)) {
			char *value = strndup(eq + 1, n - name_len - 1);

			if (!value)
				return -ENOMEM;
			snprintf(key, sizeof(key), "env.%.*s", (int)name_len, p);
			err = fn(ctx, key, value);
			free(value);
		}
		p += n + 1;
	}
	return err;
}
