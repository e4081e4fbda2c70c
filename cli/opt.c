#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../common/array.h"
#include "../common/edit_distance.h"
#include "opt.h"
#include "usage.h"

/* Digits only, no sign, no overflow; *end set to the first non-digit. */
static int parse_digits(const char *s, uint64_t *out, const char **end)
{
	uint64_t v = 0;
	const char *p = s;

	if (*p < '0' || *p > '9')
		return -1;
	for (; *p >= '0' && *p <= '9'; p++) {
		if (v > (UINT64_MAX - (uint64_t)(*p - '0')) / 10)
			return -1;
		v = v * 10 + (uint64_t)(*p - '0');
	}
	*out = v;
	*end = p;
	return 0;
}

int opt_parse_u64(const char *s, const char *opt_name, uint64_t *out,
		  struct errmsg *e)
{
	const char *end;

	if (parse_digits(s, out, &end) < 0 || *end)
		return errmsg_set(e, EINVAL, "invalid %s '%s': expected a "
				  "non-negative integer", opt_name, s);
	return 0;
}

int opt_parse_double(const char *s, const char *opt_name, double *out,
		     struct errmsg *e)
{
	char *end;
	double d;

	errno = 0;
	d = strtod(s, &end);
	/* strtod skips leading blanks and takes "inf" and "nan": neither
	 * is a number a user means. */
	if (!*s || *s == ' ' || *s == '\t' || *end || errno || !isfinite(d))
		return errmsg_set(e, EINVAL, "invalid %s '%s': expected a number",
				  opt_name, s);
	*out = d;
	return 0;
}

/* Digits from min to max; *end set to the first non-digit. */
static int parse_digits_in(const char *s, uint64_t min, uint64_t max,
			   uint64_t *out, const char **end)
{
	uint64_t v;

	if (parse_digits(s, &v, end) < 0 || v < min || v > max)
		return -1;
	*out = v;
	return 0;
}

int opt_parse_u64_in(const char *s, const char *opt_name, uint64_t min,
		     uint64_t max, const char *expected, uint64_t *out,
		     struct errmsg *e)
{
	const char *end;
	uint64_t v;

	if (parse_digits_in(s, min, max, &v, &end) < 0 || *end)
		return errmsg_set(e, EINVAL, "invalid %s '%s': expected %s",
				  opt_name, s, expected);
	*out = v;
	return 0;
}

int opt_parse_tid(void *value, const char *arg, const char *opt_name,
		  struct errmsg *e)
{
	uint64_t v = 0;
	int err = opt_parse_u64_in(arg, opt_name, 1, INT32_MAX, "a thread id",
				   &v, e);

	if (err == 0)
		*(int64_t *)value = (int64_t)v;
	return err;
}

int opt_parse_u64_list(const char *s, const char *opt_name, uint64_t min,
		       uint64_t max, const char *expected,
		       int (*add)(void *ctx, uint64_t v), void *ctx,
		       struct errmsg *e)
{
	const char *p = s, *end;
	uint64_t v;

	/* The whole list first: a refused list adds nothing. */
	for (;; p = end + 1) {
		if (parse_digits_in(p, min, max, &v, &end) < 0 ||
		    (*end && *end != ','))
			return errmsg_set(e, EINVAL, "invalid %s '%s': expected %s",
					  opt_name, s, expected);
		if (!*end)
			break;
	}
	for (p = s;; p = end + 1) {
		int err;

		(void)parse_digits_in(p, min, max, &v, &end);	/* checked above */
		err = add(ctx, v);
		if (err < 0)
			return err;
		if (!*end)
			return 0;
	}
}

struct unit {
	const char *suffix;
	uint64_t mult;		/* how many of the base (ns, bytes) one is */
};

/* A decimal number as written: whole, then the fraction frac / 10^digits
 * with its trailing zeros dropped ("1.250" is 1, 25, 2). */
struct decimal {
	uint64_t whole;
	uint64_t frac;
	unsigned digits;
};

/*
 * Reads "DIGITS" or "DIGITS.DIGITS" at s into d and sets *end past it.
 * A point needs a digit on each side: ".5" and "5." are refused, so that
 * a number reads one way only.  -EINVAL: not that shape (*end unset);
 * -ERANGE: the whole part past 64 bits; -EDOM: more than 19 significant
 * fraction digits, past what 10^digits holds in 64 bits.  *end is set for
 * -ERANGE and -EDOM too, so that the caller checks the unit first: garbage
 * is called garbage before a number is called too large.
 */
static int parse_decimal(const char *s, struct decimal *d, const char **end)
{
	const char *p = s, *f, *last;
	int err = 0;

	*d = (struct decimal){ 0, 0, 0 };
	if (*p < '0' || *p > '9')
		return -EINVAL;
	if (parse_digits(s, &d->whole, &p) < 0) {
		err = -ERANGE;
		while (*p >= '0' && *p <= '9')
			p++;
	}
	if (*p == '.') {
		f = last = ++p;
		if (*f < '0' || *f > '9')
			return -EINVAL;
		for (; *p >= '0' && *p <= '9'; p++)
			if (*p != '0')
				last = p + 1;
		if (last - f > 19 && !err)
			err = -EDOM;
		for (; !err && f < last; f++, d->digits++)
			d->frac = d->frac * 10 + (uint64_t)(*f - '0');
	}
	*end = p;
	return err;
}

/* The unit whose suffix is all of s, or NULL. */
static const struct unit *find_unit(const char *s, const struct unit *units,
				    size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(s, units[i].suffix))
			return &units[i];
	return NULL;
}

static uint64_t gcd(uint64_t a, uint64_t b)
{
	while (b) {
		uint64_t t = a % b;

		a = b;
		b = t;
	}
	return a;
}

/*
 * d times mult into *out, in integers so that 0.1s is 100000000 ns and not
 * one off.  The fraction's share is frac * mult / 10^digits, whole exactly
 * when 10^digits / g divides frac (g the gcd of mult and 10^digits); it is
 * then below mult, so only the whole part can overflow.  -ERANGE past 64
 * bits, -EDOM when the result is not whole (1.5ns).
 */
static int scale_exact(const struct decimal *d, uint64_t mult, uint64_t *out)
{
	uint64_t den = 1, g, part;

	for (unsigned i = 0; i < d->digits; i++)
		den *= 10;
	g = gcd(mult, den);
	if (d->frac % (den / g))
		return -EDOM;
	part = d->frac / (den / g) * (mult / g);
	if (d->whole > (UINT64_MAX - part) / mult)
		return -ERANGE;
	*out = d->whole * mult + part;
	return 0;
}

/* A number (decimal, as parse_decimal reads it) followed by exactly one of
 * the units, as an exact count of their base; "" matches a unit whose
 * suffix is "" only.  -EINVAL, -ERANGE or -EDOM as parse_decimal and
 * scale_exact say; *out is untouched unless 0 is returned. */
static int parse_with_unit(const char *s, const struct unit *units, size_t n,
			   uint64_t *out)
{
	const struct unit *u;
	struct decimal d;
	const char *end;
	int err = parse_decimal(s, &d, &end);

	if (err == -EINVAL || !(u = find_unit(end, units, n)))
		return -EINVAL;
	return err ? err : scale_exact(&d, u->mult, out);
}

int opt_parse_duration(const char *s, const char *opt_name, uint64_t *ns,
		       struct errmsg *e)
{
	static const struct unit units[] = {
		{ "ns", 1 }, { "us", 1000 }, { "ms", 1000000 },
		{ "s", 1000000000ull }, { "m", 60000000000ull },
		{ "h", 3600000000000ull },
	};
	int err;

	if (!strcmp(s, "0")) {
		*ns = 0;
		return 0;
	}
	err = parse_with_unit(s, units, ARRAY_SIZE(units), ns);
	if (err == -ERANGE)
		return errmsg_set(e, ERANGE, "invalid %s '%s': too large",
				  opt_name, s);
	/* parse_decimal's -EDOM, a fraction of 20 or more significant
	 * digits, is never whole nanoseconds either: its last digit is not 0,
	 * so 10^digits divides frac * mult only if 2^digits or 5^digits
	 * divides mult, and no unit here holds more than 2^13 or 5^11. */
	if (err == -EDOM)
		return errmsg_set(e, EINVAL, "invalid %s '%s': not a whole number "
				  "of nanoseconds, the finest a duration can be",
				  opt_name, s);
	if (err < 0)
		return errmsg_set(e, EINVAL, "invalid %s '%s': expected a number "
				  "with a unit (ns, us, ms, s, m, h), e.g. 10ms "
				  "or 1.5s", opt_name, s);
	return 0;
}

int opt_parse_size(const char *s, const char *opt_name, uint64_t *bytes,
		   struct errmsg *e)
{
	static const struct unit units[] = {
		{ "", 1 }, { "K", 1ull << 10 }, { "M", 1ull << 20 },
		{ "G", 1ull << 30 }, { "T", 1ull << 40 }, { "KiB", 1ull << 10 },
		{ "MiB", 1ull << 20 }, { "GiB", 1ull << 30 }, { "TiB", 1ull << 40 },
	};
	int err;

	/* Sizes stay whole numbers (4M, 64M): a fraction of a K is rarely
	 * meant, and often not a whole number of bytes. */
	if (strchr(s, '.'))
		err = -EINVAL;
	else
		err = parse_with_unit(s, units, ARRAY_SIZE(units), bytes);
	if (err == -ERANGE)
		return errmsg_set(e, ERANGE, "invalid %s '%s': too large",
				  opt_name, s);
	if (err < 0)
		return errmsg_set(e, EINVAL, "invalid %s '%s': expected bytes, "
				  "optionally with K, M, G or T (powers of 1024), "
				  "e.g. 8M", opt_name, s);
	return 0;
}

static size_t opt_count(const struct opt *o)
{
	size_t n = 0;

	while (o[n].long_name)
		n++;
	return n;
}

/* "-o, --output=DB" or "    --comm=NAME" into buf. */
static void opt_label(const struct opt *o, char *buf, size_t n)
{
	int k = 0;

	if (o->short_name)
		k = snprintf(buf, n, "-%c, ", o->short_name);
	else
		k = snprintf(buf, n, "    ");
	if (o->arg_optional)
		snprintf(buf + k, n - (size_t)k, "--%s[=%s]", o->long_name,
			 o->arg_name);
	else
		snprintf(buf + k, n - (size_t)k, "--%s%s%s", o->long_name,
			 o->arg_name ? " " : "", o->arg_name ? o->arg_name : "");
}

void opt_print_help(const struct cmd_usage *u, FILE *out)
{
	char label[64];

	fprintf(out, "usage: %s\n\n%s\n\nOptions:\n", u->usage, u->summary);
	for (const struct opt *o = u->opts; o->long_name; o++) {
		opt_label(o, label, sizeof(label));
		fprintf(out, "  %-28s %s\n", label, o->help);
	}
	fprintf(out, "  %-28s %s\n", "-h, --help", "show this help and exit");
	if (u->examples)
		fprintf(out, "\nExamples:\n%s", u->examples);
}

/* Stores one option's argument where the table says. */
static int opt_store(const struct opt *o, const char *arg, struct errmsg *e)
{
	char name[48];

	snprintf(name, sizeof(name), "--%s", o->long_name);
	switch (o->kind) {
	case OPT_FLAG:
		*(int *)o->value = 1;
		return 0;
	case OPT_STRING:
		*(const char **)o->value = arg;
		return 0;
	case OPT_DURATION:
		return opt_parse_duration(arg, name, o->value, e);
	case OPT_SIZE:
		return opt_parse_size(arg, name, o->value, e);
	case OPT_CALLBACK:
		return o->cb(o->value, arg, name, e);
	}
	return 0;
}

/* perf's spellings a perf user types out of habit, and what faultline
 * does instead; cmd NULL: any command. */
static const struct { const char *cmd, *spelling, *says; } perf_options[] = {
	{ "record", "-g", "faultline's --stacks=fp (frame pointers); --stacks=dwarf "
	  "unwinds code built without them" },
	{ "record", "--call-graph", "--stacks=fp or --stacks=dwarf here (perf's "
	  "--call-graph fp or dwarf; dwarf's size is --stack-size; there is no lbr)" },
	{ "record", "-F", "not needed: faultline records every fault and switch of "
	  "its threads, not samples at a frequency; --min-fault-duration keeps only "
	  "the long faults" },
	{ "record", "--freq", "not needed: faultline records every fault and switch "
	  "of its threads, not samples at a frequency; --min-fault-duration keeps "
	  "only the long faults" },
	{ "record", "-c", "not needed: faultline records every fault and switch of "
	  "its threads, not one in N; --min-fault-duration keeps only the long faults" },
	{ NULL, "-i", "not needed: faultline reads the database named as its first "
	  "argument ('faultline COMMAND DB')" },
	{ NULL, "--input", "not needed: faultline reads the database named as its "
	  "first argument ('faultline COMMAND DB')" },
};

/* The message for an unknown option: what perf's spelling of that name
 * is here, or the closest of the command's own, or neither. */
static void unknown_option(const struct cmd_usage *u, const char *arg, int c)
{
	char spelling[64];
	const char *names[64], *near = NULL;
	size_t n = 0, len;

	if (c && c != '?')
		snprintf(spelling, sizeof(spelling), "-%c", c);
	else
		snprintf(spelling, sizeof(spelling), "%s", arg);
	len = strcspn(spelling, "=");
	spelling[len] = '\0';
	for (size_t i = 0; i < ARRAY_SIZE(perf_options); i++)
		if ((!perf_options[i].cmd || !strcmp(perf_options[i].cmd, u->name)) &&
		    !strcmp(perf_options[i].spelling, spelling)) {
			error(u->name, "unknown option '%s': perf's %s is %s; see "
			      "'faultline %s -h'", spelling, spelling,
			      perf_options[i].says, u->name);
			return;
		}
	if (!strncmp(spelling, "--", 2)) {
		for (const struct opt *o = u->opts; o->long_name && n < 63; o++)
			names[n++] = o->long_name;
		names[n++] = "help";
		near = edit_closest(spelling + 2, names, n);
	}
	if (near)
		error(u->name, "unknown option '%s'; did you mean '--%s'? see "
		      "'faultline %s -h'", arg, near, u->name);
	else
		error(u->name, "unknown option '%s'; see 'faultline %s -h'", arg,
		      u->name);
}

/* getopt_long's tables from ours: "+" stops at the first non-option. */
static int build_getopt(const struct opt *opts, size_t n, struct option *lo,
			char *so)
{
	size_t k = 0;

	so[k++] = '+';
	so[k++] = ':';
	for (size_t i = 0; i < n; i++) {
		lo[i] = (struct option){ opts[i].long_name,
			opts[i].arg_optional ? optional_argument :
			opts[i].arg_name ? required_argument : no_argument, NULL,
			opts[i].short_name ? opts[i].short_name : 256 + (int)i };
		if (opts[i].short_name) {
			so[k++] = (char)opts[i].short_name;
			if (opts[i].arg_name)
				so[k++] = ':';
		}
	}
	lo[n] = (struct option){ "help", no_argument, NULL, 'h' };
	lo[n + 1] = (struct option){ 0, 0, 0, 0 };
	so[k++] = 'h';
	so[k] = '\0';
	return 0;
}

static const struct opt *find_opt(const struct opt *opts, size_t n, int c)
{
	if (c >= 256 && (size_t)(c - 256) < n)
		return &opts[c - 256];
	for (size_t i = 0; i < n; i++)
		if (opts[i].short_name == c)
			return &opts[i];
	return NULL;
}

int opt_parse(const struct cmd_usage *u, int argc, char **argv)
{
	size_t n = opt_count(u->opts);
	struct option *lo = calloc(n + 2, sizeof(*lo));
	char *so = calloc(2 * n + 4, 1);
	struct errmsg e;
	int c, res = OPT_OK;

	if (!lo || !so) {
		free(lo);
		free(so);
		return error(u->name, "out of memory"), OPT_USAGE;
	}
	errmsg_init(&e);
	build_getopt(u->opts, n, lo, so);
	optind = 1;
	opterr = 0;
	while (res == OPT_OK && (c = getopt_long(argc, argv, so, lo, NULL)) != -1) {
		const struct opt *o = find_opt(u->opts, n, c);

		if (c == 'h') {
			opt_print_help(u, stdout);
			res = OPT_HELP;
		} else if (c == '?') {
			unknown_option(u, argv[optind - 1], optopt);
			res = OPT_USAGE;
		} else if (c == ':') {
			error(u->name, "missing argument for '%s'; see 'faultline "
			      "%s -h'", argv[optind - 1], u->name);
			res = OPT_USAGE;
		} else if (o && opt_store(o, optarg, &e) < 0) {
			error(u->name, "%s", e.text);
			res = OPT_USAGE;
		}
	}
	free(lo);
	free(so);
	return res == OPT_OK ? optind : res;
}
