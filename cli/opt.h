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
	OPT_DURATION,		/* uint64_t *: ns, from "10ms", "2s", "0" */
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
int opt_parse_duration(const char *s, const char *opt_name, uint64_t *ns,
		       struct errmsg *e);
int opt_parse_size(const char *s, const char *opt_name, uint64_t *bytes,
		   struct errmsg *e);

#endif
