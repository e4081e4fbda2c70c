/*
 * faultline import: an application's metrics (CSV, TSV, JSON lines, plain
 * TIMESTAMP VALUE) into the metric_series and metric tables.  Options,
 * then for each file: read it in large blocks, parse line by line
 * (decoder/metric_parse), write (schema/metric_store) in one transaction
 * per file, print a summary.  The indexes are built once, at the end.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../common/array.h"
#include "../common/labels.h"
#include "../common/sha256.h"
#include "../decoder/metric_parse.h"
#include "../schema/db.h"
#include "../schema/metric_store.h"
#include "commands.h"
#include "import_check.h"
#include "opt.h"
#include "usage.h"

/* Read size: 1 MiB, some 40000 lines of a typical CSV file a read(2);
 * the buffer doubles for a longer line, up to LINE_MAX_BYTES. */
#define READ_BYTES (1u << 20)
/* A longer line is not a metric line: refuse it instead of growing. */
#define LINE_MAX_BYTES (64u << 20)

struct import_args {
	struct metric_spec spec;
	const char **label_cols;	/* owned array; strings borrowed/owned */
	size_t label_cols_cap;
	struct labels label_set;	/* --label, checked; args borrowed */
	struct metric_label *labels;	/* owned array, label_set for the
					 * parser; keys in owned */
	char **owned;			/* owned: copies the two above point in */
	size_t nowned, owned_cap;
	const char *format, *ts_unit;	/* borrowed from argv */
	const char *unit;		/* borrowed from argv, or NULL */
	int quiet;
	int again;			/* import content seen before */
	int any_time;			/* import points outside every session */
	const char **paths;		/* owned array of argv strings: DB, FILE... */
	size_t npaths;
};

static int keep(struct import_args *a, char *s)
{
	if (ARRAY_RESERVE(a->owned, a->owned_cap, a->nowned + 1) < 0) {
		free(s);
		return -ENOMEM;
	}
	a->owned[a->nowned++] = s;
	return 0;
}

static int push_label_col(struct import_args *a, const char *name)
{
	if (ARRAY_RESERVE(a->label_cols, a->label_cols_cap,
			  a->spec.nlabel_cols + 1) < 0)
		return -ENOMEM;
	a->label_cols[a->spec.nlabel_cols++] = name;
	a->spec.label_cols = a->label_cols;
	return 0;
}

/* A label column's name is the label's key: the one rule for keys. */
static int add_label_col(void *value, const char *arg, const char *opt,
			 struct errmsg *e)
{
	if (!*arg)
		return errmsg_set(e, EINVAL, "invalid %s '': give a column name", opt);
	if (label_key_check(arg, strlen(arg), opt, arg, e) < 0)
		return -EINVAL;
	return push_label_col(value, arg);
}

/* "a,b,c": each a label column. */
static int add_label_cols(void *value, const char *arg, const char *opt,
			  struct errmsg *e)
{
	struct import_args *a = value;
	char *copy = strdup(arg), *save = NULL;
	int err;

	if (!copy || keep(a, copy) < 0)
		return -ENOMEM;
	if (!*arg || arg[0] == ',' || arg[strlen(arg) - 1] == ',' || strstr(arg, ",,"))
		return errmsg_set(e, EINVAL, "invalid %s '%s': expected column "
				  "names separated by commas, e.g. host,topic", opt,
				  arg);
	for (char *t = strtok_r(copy, ",", &save); t; t = strtok_r(NULL, ",", &save))
		if ((err = push_label_col(a, t)) < 0)
			return err;
	return 0;
}

/* "KEY=VALUE": a label every row of the import gets (a KEY given again
 * takes the last). */
static int add_label(void *value, const char *arg, const char *opt,
		     struct errmsg *e)
{
	struct import_args *a = value;

	return labels_add(&a->label_set, arg, opt, e);
}

/* The checked --label set as the parser's constant labels. */
static int spec_labels(struct import_args *a)
{
	const struct labels *l = &a->label_set;
	char *key;

	if (l->n == 0)
		return 0;
	if (!(a->labels = calloc(l->n, sizeof(*a->labels))))
		return -ENOMEM;
	for (size_t i = 0; i < l->n; i++) {
		if (!(key = strndup(l->v[i].arg, l->v[i].key_len)) || keep(a, key) < 0)
			return -ENOMEM;
		a->labels[i] = (struct metric_label){ key, l->v[i].value };
	}
	a->spec.labels = a->labels;
	a->spec.nlabels = l->n;
	return 0;
}

static void free_args(struct import_args *a)
{
	for (size_t i = 0; i < a->nowned; i++)
		free(a->owned[i]);
	free(a->owned);
	free(a->label_cols);
	free(a->labels);
	labels_release(&a->label_set);
	free(a->paths);
}

static const char import_usage[] =
	"faultline import [-m NAME | --metric-column COLUMN] [-f FORMAT]\n"
	"                        [--time-column COLUMN] [--value-column COLUMN]\n"
	"                        [--ts-unit UNIT] [--label-column COLUMN] [--labels COLUMN,...]\n"
	"                        [--label KEY=VALUE] [--unit UNIT] [--again] [--any-time]\n"
	"                        [-q] DB FILE...";

static const char import_examples[] =
	"  faultline import run.db naks.csv --metric naks\n"
	"  faultline import run.db queue.tsv --metric rx_queue --labels host,port --unit bytes\n"
	"  faultline import run.db lat.jsonl --metric-column name --value-column us\n"
	"  some-exporter | faultline import run.db - -m qdepth --label host=rx1\n";

static int usage_error(const char *msg)
{
	error("import", "%s", msg);
	return EXIT_USAGE;
}

/* Options may come before, between and after DB and FILE... (opt_parse
 * stops at each non-option: take it, parse on from there). */
static int parse_all(const struct cmd_usage *u, struct import_args *a,
		     int argc, char **argv)
{
	int at = 0;

	a->paths = calloc((size_t)argc + 1, sizeof(*a->paths));
	if (!a->paths)
		return usage_error("out of memory");
	for (;;) {
		int first = opt_parse(u, argc - at, argv + at);

		if (first == OPT_HELP)
			return -1;
		if (first < 0)
			return EXIT_USAGE;
		at += first;
		if (at >= argc)
			return 0;
		if (!strcmp(argv[at - 1], "--")) {
			while (at < argc)
				a->paths[a->npaths++] = argv[at++];
			return 0;
		}
		/* argv[at] becomes the next round's argv[0], which getopt
		 * skips: take it here. */
		a->paths[a->npaths++] = argv[at];
	}
}

static int check_args(struct import_args *a)
{
	struct metric_parser p;
	struct errmsg e;
	int err;

	if (spec_labels(a) < 0)
		return error("import", "out of memory"), 1;
	/* What the parser refuses in the spec is a usage error. */
	errmsg_init(&e);
	err = metric_parser_init(&p, &a->spec, &e);
	metric_parser_release(&p);
	if (err < 0)
		return usage_error(e.text);
	if (a->format && metric_format_parse(a->format, &a->spec.format) < 0)
		return usage_error("invalid --format: expected csv, tsv, jsonl or "
				   "plain");
	if (a->ts_unit && metric_ts_unit_parse(a->ts_unit, &a->spec.ts_unit) < 0)
		return usage_error("invalid --ts-unit: expected s, ms, us or ns");
	if (a->npaths < 1)
		return usage_error("no database: give DB FILE..., e.g. 'faultline "
				   "import run.db naks.csv --metric naks'");
	if (a->npaths < 2)
		return usage_error("no file to import: give one or more FILEs after "
				   "DB, or - for standard input");
	return 0;
}

static int parse_args(struct import_args *a, int argc, char **argv)
{
	struct metric_spec *sp = &a->spec;
	const struct opt opts[] = {
		{ 'm', "metric", "NAME", "the metric's name, for every row",
		  OPT_STRING, &sp->metric, NULL },
		{ 0, "metric-column", "COLUMN", "column (or JSON key) that names "
		  "each row's metric (default: a column named metric)",
		  OPT_STRING, &sp->metric_col, NULL },
		{ 'f', "format", "FORMAT", "csv, tsv, jsonl or plain (default: from "
		  "the extension, else from the first line)", OPT_STRING,
		  &a->format, NULL },
		{ 0, "time-column", "COLUMN", "the timestamp column (default: ts, "
		  "time or timestamp, or one with _s, _ms, _us or _ns, which gives "
		  "its unit)", OPT_STRING, &sp->time_col, NULL },
		{ 0, "value-column", "COLUMN", "the value column (default: value)",
		  OPT_STRING, &sp->value_col, NULL },
		{ 0, "ts-unit", "UNIT", "s, ms, us or ns for numeric timestamps "
		  "(default: by magnitude)", OPT_STRING, &a->ts_unit, NULL },
		{ 0, "label-column", "COLUMN", "a column whose value labels the "
		  "series (repeatable; default: every other column)",
		  OPT_CALLBACK, a, add_label_col },
		{ 0, "labels", "COLUMN,...", "label columns, as a list",
		  OPT_CALLBACK, a, add_label_cols },
		{ 0, "label", "KEY=VALUE", "a label on every series of the import "
		  "(repeatable)", OPT_CALLBACK, a, add_label },
		{ 0, "unit", "UNIT", "the metric's unit, stored with its series",
		  OPT_STRING, &a->unit, NULL },
		{ 0, "again", NULL, "import a file whose content was imported "
		  "before (skipped by default)", OPT_FLAG, &a->again, NULL },
		{ 0, "any-time", NULL, "import a file whose points all lie outside "
		  "every recorded session (refused by default)", OPT_FLAG,
		  &a->any_time, NULL },
		{ 'q', "quiet", NULL, "no summary lines", OPT_FLAG, &a->quiet, NULL },
		{ 0 },
	};
	const struct cmd_usage u = {
		"import", import_usage,
		"Import an application's metrics (CSV, TSV, JSON lines or TIMESTAMP "
		"VALUE lines)\ninto a faultline database, one transaction per file.",
		import_examples, opts,
	};
	int status = parse_all(&u, a, argc, argv);

	return status ? status : check_args(a);
}

/* One file's import: its name, the parser, the store, the read buffer. */
struct import_file {
	const char *name;		/* borrowed: as given; "stdin" for "-" */
	int fd;
	struct metric_parser parser;
	struct metric_store store;
	char *buf;			/* owned */
	size_t cap, have;
	int line_error;			/* e is about parser.line */
	struct sha256 sha;		/* of every byte read */
	char digest[SHA256_HEX_LEN + 1];
};

/* Parses and stores each complete line of buf[0..len); a last line
 * without '\n' only at eof.  Returns the bytes used, or -errno. */
static long feed(struct import_file *f, size_t len, int eof, struct errmsg *e)
{
	size_t at = 0;

	while (at < len) {
		const char *nl = memchr(f->buf + at, '\n', len - at);
		size_t end = nl ? (size_t)(nl - f->buf) : len;
		struct metric_row row;
		int r;

		if (!nl && !eof)
			break;
		r = metric_parse_line(&f->parser, f->buf + at, end - at, &row, e);
		if (r == 1)
			r = metric_store_add(&f->store, &row, e);
		else
			f->line_error = r < 0;
		if (r < 0)
			return r;
		at = nl ? end + 1 : end;
	}
	return (long)at;
}

static int read_all(struct import_file *f, struct errmsg *e)
{
	for (;;) {
		ssize_t n;
		long used;

		if (f->have == f->cap) {
			if (f->cap >= LINE_MAX_BYTES) {
				f->line_error = 1;
				f->parser.line++;
				return errmsg_set(e, E2BIG, "line longer than %u MiB: "
						  "not a metric file?",
						  LINE_MAX_BYTES >> 20);
			}
			if (ARRAY_RESERVE(f->buf, f->cap, f->cap * 2) < 0)
				return errmsg_set(e, ENOMEM, "out of memory");
		}
		n = read(f->fd, f->buf + f->have, f->cap - f->have);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return errmsg_set(e, errno, "cannot read: %s", strerror(errno));
		sha256_update(&f->sha, f->buf + f->have, (size_t)n);
		f->have += (size_t)n;
		used = feed(f, f->have, n == 0, e);
		if (used < 0)
			return (int)used;
		memmove(f->buf, f->buf + used, f->have - (size_t)used);
		f->have -= (size_t)used;
		if (n == 0)
			return metric_parse_finish(&f->parser, e);
	}
}

/* The parts of the run that outlive one file. */
struct import_run {
	struct import_args *args;
	sqlite3 *db;
	const char *db_path;
	char done[1024];		/* names of the files imported, for messages */
};

static int open_input(struct import_file *f, const char *path,
		      struct errmsg *e)
{
	if (!strcmp(path, "-")) {
		f->fd = STDIN_FILENO;
		return 0;
	}
	f->fd = open(path, O_RDONLY | O_CLOEXEC);
	if (f->fd < 0)
		return errmsg_set(e, errno, "cannot open: %s; check the path",
				  strerror(errno));
	return 0;
}

/* Imports one file, all of it or nothing. */
static int import_one(struct import_run *run, const char *name)
{
	struct import_args *a = run->args;
	/* Messages and the summary say "stdin"; the series' source is "-". */
	struct import_file f = { .name = strcmp(name, "-") ? name : "stdin",
				 .fd = -1, .cap = READ_BYTES };
	struct metric_spec spec = a->spec;
	struct errmsg e;
	int err, skip = 0;

	errmsg_init(&e);
	sha256_init(&f.sha);
	if (!a->format)
		spec.format = metric_format_from_path(name);
	f.buf = malloc(f.cap);
	err = f.buf ? 0 : errmsg_set(&e, ENOMEM, "out of memory");
	if (err == 0)
		err = open_input(&f, name, &e);
	if (err == 0)
		err = metric_parser_init(&f.parser, &spec, &e);
	if (err == 0)
		err = metric_store_begin(&f.store, run->db, run->db_path, name,
					 a->unit, &e);
	if (err == 0)
		err = read_all(&f, &e);
	if (err == 0) {
		sha256_hex(&f.sha, f.digest);
		skip = a->again ? 0 : import_seen_before(f.name, &f.store, f.digest, &e);
		err = skip < 0 ? skip : 0;
	}
	if (err == 0 && !skip)
		err = import_check_times(f.name, &f.store, a->any_time, &e);
	if (err == 0 && !skip)
		err = metric_store_commit(&f.store, f.digest, &e);
	if (err == 0 && !skip && !a->quiet)
		import_print_summary(f.name, &f.store);
	if (err < 0 && f.line_error)
		error("import", "%s: %s:%lu: %s; nothing of %s is kept%s%s%s",
		      run->db_path, f.name, f.parser.line, e.text, f.name,
		      run->done[0] ? " (imported before it: " : "", run->done,
		      run->done[0] ? ")" : "");
	else if (err < 0)
		error("import", "%s: %s: %s; nothing of %s is kept%s%s%s",
		      run->db_path, f.name, e.text, f.name,
		      run->done[0] ? " (imported before it: " : "", run->done,
		      run->done[0] ? ")" : "");
	else if (!skip)
		snprintf(run->done + strlen(run->done), sizeof(run->done) -
			 strlen(run->done), "%s%s", run->done[0] ? ", " : "", f.name);
	metric_store_release(&f.store);
	metric_parser_release(&f.parser);
	if (f.fd > STDIN_FILENO)
		close(f.fd);
	free(f.buf);
	return err;
}

/* Leaves the file without side files (db_end_write).  Another process
 * holding it open only delays that: a warning; any other failure is the
 * import's. */
static void end_write(struct import_run *run, int *err)
{
	struct errmsg e;
	int r;

	errmsg_init(&e);
	r = db_end_write(run->db, run->db_path, &e);
	if (r == -EBUSY)
		warning("import", "%s", e.text);
	else if (r < 0 && *err == 0)
		*err = error("import", "%s", e.text);
}

int cmd_import(int argc, char **argv)
{
	struct import_args a = { 0 };
	struct import_run run = { .args = &a };
	struct errmsg e;
	int status = parse_args(&a, argc, argv), err = 0, imported = 0;

	if (status) {
		free_args(&a);
		return status < 0 ? 0 : status;
	}
	errmsg_init(&e);
	run.db_path = a.paths[0];
	err = db_open_write(run.db_path, &run.db, &e);
	if (err < 0)
		error("import", "%s", e.text);
	for (size_t i = 1; err == 0 && i < a.npaths; i++) {
		err = import_one(&run, a.paths[i]);
		imported += err == 0;
	}
	/* Once, after the load: cheaper than keeping them during it. */
	if (imported && db_build_indexes(run.db, run.db_path, &e) < 0) {
		error("import", "%s", e.text);
		err = -1;
	}
	end_write(&run, &err);
	db_close(run.db);
	free_args(&a);
	return err < 0 ? 1 : 0;
}
