/*
 * opt: each command declares its options once, as a table; that table
 * drives getopt_long and prints -h/--help (USAGE, OPTIONS, EXAMPLES),
 * and tests/man_vs_help.sh holds the man pages against that output.
 *
 * Numbers, durations and sizes go through the checked parsers below:
 * they reject garbage, negatives and overflow, take units, and name the
 * option in their message.
 */
#ifndef FL_OPT_H
#define FL_OPT_H

#include <stdint.h>
#include <stdio.h>

#include "../common/errmsg.h"

enum opt_kind {
	OPT_FLAG,		/* int *: set to 1 */
	OPT_STRING,		/* const char **: borrowed from argv */
	OPT_DURATION,		/* uint64_t *: ns, from "10ms", "1.5s", "0" */
	OPT_SIZE,		/* uint64_t *: bytes, from "64K", "8M", "4096" */
	OPT_CALLBACK,		/* cb(value, arg, e) */
};

struct opt {
	int short_name;		/* 0 if none */
	const char *long_name;
	const char *arg_name;	/* NULL for a flag */
	const char *help;
	enum opt_kind kind;
	void *value;
	int (*cb)(void *value, const char *arg, const char *opt_name,
		  struct errmsg *e);
	/* The argument may be left out (--pt or --pt=fault; never
	 * "--pt fault"): cb then gets arg NULL.  OPT_CALLBACK only. */
	int arg_optional;
};

struct cmd_usage {
	const char *name;	/* "record" */
	const char *usage;	/* lines after "usage: " */
	const char *summary;	/* one line */
	const char *examples;	/* lines, or NULL */
	const struct opt *opts;	/* ends with an all-zero entry */
};

enum opt_result {
	OPT_OK = 0,
	OPT_HELP = -2,		/* -h was given and help printed */
	OPT_USAGE = -3,		/* an error was printed: exit 2 */
};

/*
 * Parses argv[1..] with the table; stops at the first non-option or "--"
 * (what follows is the command's).  On success returns the index of the
 * first argument left; else OPT_HELP or OPT_USAGE.
 */
int opt_parse(const struct cmd_usage *u, int argc, char **argv);

/* Prints the help text built from the table. */
void opt_print_help(const struct cmd_usage *u, FILE *out);

/* Checked parsers; each returns 0 or -EINVAL with e naming opt_name. */
int opt_parse_u64(const char *s, const char *opt_name, uint64_t *out,
		  struct errmsg *e);
/* A finite number, decimal or with an exponent ("20", "-1.5", "2e3"). */
int opt_parse_double(const char *s, const char *opt_name, double *out,
		     struct errmsg *e);
/* An integer from min to max; a refusal says "invalid OPT 'S': expected
 * EXPECTED" (EXPECTED says what the option takes, e.g. "a socket's inode
 * number"). */
int opt_parse_u64_in(const char *s, const char *opt_name, uint64_t min,
		     uint64_t max, const char *expected, uint64_t *out,
		     struct errmsg *e);
/* Integers from min to max separated by commas ("9000,9001"), each handed
 * to add(ctx, v) in order once the whole list checked out, so a refused
 * list adds nothing.  0, -EINVAL with e as opt_parse_u64_in's, or add's
 * negative return (e left to the caller). */
int opt_parse_u64_list(const char *s, const char *opt_name, uint64_t min,
		       uint64_t max, const char *expected,
		       int (*add)(void *ctx, uint64_t v), void *ctx,
		       struct errmsg *e);
/* An OPT_CALLBACK: a thread id (1 to INT32_MAX) into the int64_t at
 * value. */
int opt_parse_tid(void *value, const char *arg, const char *opt_name,
		  struct errmsg *e);
/* The one parser of durations, options and query parameters alike: a
 * number, whole or decimal ("1.5s", "0.25ms"), then one of the units ns,
 * us, ms, s, m, h; or "0" alone.  Exact: integers throughout, so 0.1s is
 * 100000000 ns; a value that is not whole nanoseconds (1.5ns) is refused,
 * as are ".5s" and "5.s".  -EINVAL, or -ERANGE past 64 bits. */
int opt_parse_duration(const char *s, const char *opt_name, uint64_t *ns,
		       struct errmsg *e);
/* Bytes, a whole number with K, M, G, KiB, MiB or GiB, or none. */
int opt_parse_size(const char *s, const char *opt_name, uint64_t *bytes,
		   struct errmsg *e);

#endif
