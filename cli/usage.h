/*
 * usage: how command files report.  Messages go to stderr as
 * "faultline <cmd>: <message>".  Exit codes, the same for every command
 * and in every man page: 0 success, 1 failure, 2 usage error.
 */
#ifndef FL_USAGE_H
#define FL_USAGE_H

#define EXIT_USAGE 2

/* Prints the message and returns -1, so "return error(...)" reads well. */
int error(const char *cmd, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* A warning: same shape, "warning: " before the message. */
void warning(const char *cmd, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* A state that cannot happen: prints and aborts. */
#define BUG(msg) bug_at(__FILE__, __LINE__, (msg))
void bug_at(const char *file, int line, const char *msg)
	__attribute__((noreturn));

#endif
