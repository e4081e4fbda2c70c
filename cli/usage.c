#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "usage.h"

static void report(const char *cmd, const char *prefix, const char *fmt,
		   va_list ap)
{
	fprintf(stderr, "faultline%s%s: %s", cmd ? " " : "", cmd ? cmd : "",
		prefix);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
}

int error(const char *cmd, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	report(cmd, "", fmt, ap);
	va_end(ap);
	return -1;
}

void warning(const char *cmd, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	report(cmd, "warning: ", fmt, ap);
	va_end(ap);
}

void bug_at(const char *file, int line, const char *msg)
{
	fprintf(stderr, "faultline: BUG at %s:%d: %s\n", file, line, msg);
	abort();
}
