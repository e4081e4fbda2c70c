#include <stdarg.h>
#include <stdio.h>

#include "errmsg.h"

void errmsg_init(struct errmsg *e)
{
	e->text[0] = '\0';
}

int errmsg_set(struct errmsg *e, int err, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(e->text, sizeof(e->text), fmt, ap);
	va_end(ap);
	return -err;
}
