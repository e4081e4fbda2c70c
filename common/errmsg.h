/*
 * errmsg: the error record that collector/, decoder/ and schema/ fill
 * instead of printing.  They return a negative errno (or -1) and, when
 * there is more to say than errno can, set a message here naming the
 * cause and the fix.  Command files print it; nothing below cli/ prints.
 */
#ifndef FL_ERRMSG_H
#define FL_ERRMSG_H

#include <stddef.h>

struct errmsg {
	char text[1024];	/* "" when unset; always NUL-terminated */
};

void errmsg_init(struct errmsg *e);

/* Sets the message (printf style) and returns -err so that callers can
 * write "return errmsg_set(e, EINVAL, ...)".  err is a positive errno. */
int errmsg_set(struct errmsg *e, int err, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

#endif
