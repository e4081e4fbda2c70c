/*
 * metric_parse: lines of an application's metric file to rows of
 * (timestamp, value, metric name, labels).  Pure: no I/O, no SQLite; the
 * caller reads the file and hands over one line at a time.
 *
 * Formats, one record per line (a quoted CSV field cannot span lines):
 *
 *   csv    header row, then rows; fields separated by ',', a field may be
 *          quoted with '"' and a quote inside doubled ("")
 *   tsv    header row, then rows; fields separated by TAB, no quoting
 *   jsonl  one flat JSON object per line: string keys; string, number,
 *          true/false or null values (a null key counts as absent);
 *          nested objects and arrays are refused
 *   plain  TIMESTAMP VALUE, separated by spaces or tabs; no header
 *
 * Every format: lines are UTF-8 (a leading byte-order mark is skipped), a
 * trailing CR is dropped, blank lines are skipped, and in plain so are
 * lines starting with '#'.  A last line without its newline is fine when
 * it is complete.
 *
 * Timestamps, to INTEGER ns since the Unix epoch (CLOCK_REALTIME as the
 * source wrote it):
 *
 *   epoch numbers  digits with an optional fraction, in s, ms, us or ns;
 *                  the unit is the one asked for, or by the magnitude of
 *                  the integer part: below 1e11 s, below 1e14 ms, below
 *                  1e17 us, else ns (today's time is 1.8e9 s, 1.8e12 ms,
 *                  1.8e15 us, 1.8e18 ns).  Fraction digits past the ns
 *                  are dropped.
 *   RFC 3339       2026-11-22T15:41:18.014+01:00, ...Z; 't', 'z' and a
 *                  space for the 'T' are accepted; the offset is required.
 *
 * A time column whose name ends in _s, _ms, _us or _ns (ts_ms, time_ns,
 * sent_at_us) holds that unit, unless --ts-unit (spec.ts_unit) says
 * otherwise; without a --time-column, the first of ts, time, timestamp,
 * then the same with each suffix, is the time column.
 *
 * One file uses one kind of timestamp: a row whose kind (s, ms, us, ns or
 * RFC 3339) differs from the first row's is an error naming both lines.
 * A timestamp before 1970 or after 2262-04-11 (INT64 ns) is an error.
 *
 * Values: a decimal number (sign, digits, fraction, exponent), finite.
 */
#ifndef FL_METRIC_PARSE_H
#define FL_METRIC_PARSE_H

#include <stddef.h>
#include <stdint.h>

#include "../common/strbuf.h"
#include "../common/errmsg.h"

enum metric_format {
	METRIC_FMT_AUTO = 0,	/* sniffed from the first line */
	METRIC_FMT_CSV,
	METRIC_FMT_TSV,
	METRIC_FMT_JSONL,
	METRIC_FMT_PLAIN,
};

enum ts_kind {
	TS_AUTO = 0,		/* numbers: by magnitude */
	TS_S,
	TS_MS,
	TS_US,
	TS_NS,
	TS_RFC3339,
};

struct metric_label {		/* both borrowed from the caller */
	const char *key;
	const char *value;
};

/* What to take from each line.  Every string borrowed from the caller for
 * the parser's life (argv, typically). */
struct metric_spec {
	enum metric_format format;
	enum ts_kind ts_unit;		/* TS_AUTO, or TS_S..TS_NS */
	const char *time_col;		/* NULL: ts, time or timestamp, alone
					 * or with _s, _ms, _us or _ns */
	const char *value_col;		/* NULL: value */
	const char *metric;		/* the metric's name, or NULL */
	const char *metric_col;		/* column naming the metric, or NULL;
					 * with neither: a column "metric" */
	const char *const *label_cols;	/* label columns; NULL (0 of them):
					 * every column not used otherwise */
	size_t nlabel_cols;
	const struct metric_label *labels;	/* constant labels */
	size_t nlabels;
};

struct metric_row {
	int64_t ts;		/* ns since the epoch, CLOCK_REALTIME */
	double value;
	/* Borrowed from the parser or the line: valid until the next call. */
	const char *name;
	size_t name_len;
	const char *labels;	/* JSON object, keys sorted; "{}" if none */
	size_t labels_len;
};

struct mp_slice {
	const char *p;
	size_t len;
};

/* A label of the current row: key and value, borrowed from the header,
 * the line, the scratch buffer or the spec. */
struct mp_label {
	struct mp_slice key, val;
	int col;		/* column (csv, tsv) or -1 for a constant */
};

struct metric_parser {
	struct metric_spec spec;	/* copy; strings borrowed as above */
	enum metric_format format;	/* the spec's, or sniffed */
	unsigned long line;		/* number of the line being parsed */
	unsigned long rows;		/* rows returned so far */
	unsigned long lines_seen;	/* non-blank lines, header included */
	enum ts_kind ts_first;		/* kind of the first row's timestamp */
	enum ts_kind name_unit;		/* the unit the time column's name
					 * gives (ts_ms), else TS_AUTO */
	char time_key[16];		/* jsonl: the time key found by name */
	unsigned long ts_first_line;
	/* csv, tsv: the header, copied (owned), and the columns it names. */
	char *header;
	size_t ncols;
	int time_idx, value_idx, metric_idx;
	const char *time_name;		/* borrowed: column or key for messages */
	const char *value_name, *metric_name;
	struct mp_label *hdr_labels;	/* owned; sorted by key */
	size_t nhdr_labels;
	/* Per line, reused: fields, labels, unescaped text, labels JSON. */
	struct mp_slice *fields;	/* owned */
	struct mp_slice *keys;		/* owned; jsonl keys beside fields */
	size_t fields_cap;
	struct mp_label *labels;	/* owned */
	size_t labels_cap;
	char *scratch;			/* owned */
	size_t scratch_cap;
	struct strbuf json;		/* owned: the row's labels */
};

/*
 * Sets p up for spec (copied; its strings stay borrowed).  Refuses specs
 * that cannot work (plain without a metric name, a constant label given
 * twice).  0 or -errno with e set; p needs metric_parser_release either
 * way.
 */
int metric_parser_init(struct metric_parser *p, const struct metric_spec *spec,
		       struct errmsg *e);

void metric_parser_release(struct metric_parser *p);

/*
 * Parses the next line: its bytes without the '\n' (a trailing '\r' is
 * dropped).  Returns 1 with *row filled (borrowing from line and p until
 * the next call), 0 for a line that holds no row (the header, a blank
 * line, a comment), or a negative errno with e set to the reason; the
 * line's number is p->line.  After an error the parser is spent.
 */
int metric_parse_line(struct metric_parser *p, const char *line, size_t len,
		      struct metric_row *row, struct errmsg *e);

/* At the end of the input: an error when no row was found.  0 or -EINVAL
 * with e set. */
int metric_parse_finish(struct metric_parser *p, struct errmsg *e);

/* The format a file name's extension names (.csv, .tsv, .tab, .jsonl,
 * .ndjson, .json), else METRIC_FMT_AUTO. */
enum metric_format metric_format_from_path(const char *path);

/* "csv" ... "plain", or NULL for an unknown name; and back. */
int metric_format_parse(const char *name, enum metric_format *out);
const char *metric_format_name(enum metric_format f);

/* "s", "ms", "us", "ns" to a kind; -1 when unknown. */
int metric_ts_unit_parse(const char *name, enum ts_kind *out);
const char *metric_ts_kind_name(enum ts_kind k);

/*
 * One timestamp field to ns.  unit TS_AUTO detects by magnitude; *kind
 * is what the text was (TS_S..TS_NS or TS_RFC3339).  0, or -EINVAL (not
 * a timestamp) / -ERANGE (before 1970 or after 2262-04-11).
 */
int metric_parse_ts(const char *s, size_t len, enum ts_kind unit,
		    int64_t *ns, enum ts_kind *kind);

/* One value field: a finite decimal number.  0, -EINVAL or -ERANGE. */
int metric_parse_value(const char *s, size_t len, double *out);

#endif
