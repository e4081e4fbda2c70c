/*
 * metric_parse: a metric file's lines to rows (formats in metric_parse.h).
 * A line is split into fields (csv, tsv, plain) or key/value pairs
 * (jsonl) by metric_parse_split; the columns the header (or the keys)
 * name give the row.  Buffers grow to the longest line and are reused: no
 * allocation per line.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "../common/array.h"
#include "../common/json.h"
#include "../common/labels.h"
#include "metric_parse.h"
#include "metric_parse_cols.h"
#include "metric_parse_split.h"

/* Bytes of a bad field that a message shows. */
#define SHOW 60

int metric_parser_init(struct metric_parser *p, const struct metric_spec *spec,
		       struct errmsg *e)
{
	memset(p, 0, sizeof(*p));
	p->spec = *spec;
	p->format = spec->format;
	p->time_idx = p->value_idx = p->metric_idx = -1;
	if (spec->metric && spec->metric_col)
		return errmsg_set(e, EINVAL, "give --metric or --metric-column, "
				  "not both");
	if (spec->metric && !*spec->metric)
		return errmsg_set(e, EINVAL, "the metric name is empty; give "
				  "--metric NAME");
	for (size_t i = 0; i < spec->nlabels; i++)
		for (size_t j = 0; j < i; j++)
			if (!strcmp(spec->labels[i].key, spec->labels[j].key))
				return errmsg_set(e, EINVAL, "label '%s' is given "
						  "twice; give each --label once",
						  spec->labels[i].key);
	/* A label is one key of the labels object: each column once. */
	for (size_t i = 0; i < spec->nlabel_cols; i++)
		for (size_t j = 0; j < i; j++)
			if (!strcmp(spec->label_cols[i], spec->label_cols[j]))
				return errmsg_set(e, EINVAL, "label column '%s' is "
						  "given twice; name each once",
						  spec->label_cols[i]);
	return 0;
}

void metric_parser_release(struct metric_parser *p)
{
	free(p->header);
	free(p->hdr_labels);
	free(p->fields);
	free(p->keys);
	free(p->labels);
	free(p->scratch);
	strbuf_release(&p->json);
	memset(p, 0, sizeof(*p));
}

/* "column 'value'", "key 'value'" or "field 2", for messages. */
static const char *where(const struct metric_parser *p, const char *name,
			 int plain_field, char *buf, size_t n)
{
	if (p->format == METRIC_FMT_PLAIN)
		snprintf(buf, n, "field %d", plain_field);
	else
		snprintf(buf, n, "%s '%s'",
			 p->format == METRIC_FMT_JSONL ? "key" : "column", name);
	return buf;
}

/* ---- rows --------------------------------------------------------------- */

/* The labels of the row as the one stored label object (common/labels.h):
 * keys sorted (l is), every value a string, into p->json. */
static int row_labels_json(struct metric_parser *p, const struct mp_label *l,
		       size_t n, struct metric_row *row)
{
	struct strbuf *sb = &p->json;

	strbuf_reset(sb);
	strbuf_addc(sb, '{');
	for (size_t i = 0; i < n; i++)
		label_json_member(sb, i == 0, l[i].key.p, l[i].key.len,
				  l[i].val.p, l[i].val.len);
	strbuf_addc(sb, '}');
	if (strbuf_error(sb))
		return -ENOMEM;
	row->labels = sb->buf;
	row->labels_len = sb->len;
	return 0;
}

static int bad_ts(const struct metric_parser *p, struct mp_slice f, int err,
		  struct errmsg *e)
{
	char w[96];
	int show = (int)(f.len < SHOW ? f.len : SHOW);

	where(p, p->time_name, 1, w, sizeof(w));
	if (err == -ERANGE)
		return errmsg_set(e, ERANGE, "timestamp '%.*s' in %s is out of range: "
				  "faultline keeps ns since 1970 up to 2262-04-11%s",
				  show, f.p, w, p->spec.ts_unit ? "; check --ts-unit" :
				  "");
	return errmsg_set(e, EINVAL, "timestamp '%.*s' in %s is neither epoch "
			  "s/ms/us/ns (digits, optional fraction) nor RFC 3339 "
			  "with an offset (2026-11-22T15:41:18.014+01:00)", show,
			  f.p, w);
}

/* ts and value of the row, from their fields. */
static int row_numbers(struct metric_parser *p, struct mp_slice t,
		       struct mp_slice v, struct metric_row *row, struct errmsg *e)
{
	enum ts_kind kind = TS_AUTO;
	char w[96];
	/* --ts-unit, else the unit the column's name gives, else by
	 * magnitude. */
	enum ts_kind unit = p->spec.ts_unit ? p->spec.ts_unit : p->name_unit;
	int err = metric_parse_ts(t.p, t.len, unit, &row->ts, &kind);

	if (err < 0)
		return bad_ts(p, t, err, e);
	if (!p->ts_first) {
		p->ts_first = kind;
		p->ts_first_line = p->line;
	} else if (kind != p->ts_first) {
		return errmsg_set(e, EINVAL, "mixed units: timestamp '%.*s' in %s "
				  "reads as %s, line %lu's as %s; one file uses one "
				  "unit: give --ts-unit or split the file",
				  (int)(t.len < SHOW ? t.len : SHOW), t.p,
				  where(p, p->time_name, 1, w, sizeof(w)),
				  metric_ts_kind_name(kind), p->ts_first_line,
				  metric_ts_kind_name(p->ts_first));
	}
	err = metric_parse_value(v.p, v.len, &row->value);
	if (err < 0)
		return errmsg_set(e, -err, "value '%.*s' in %s is %s",
				  (int)(v.len < SHOW ? v.len : SHOW), v.p,
				  where(p, p->value_name, 2, w, sizeof(w)),
				  err == -ERANGE ? "out of range for a double" :
				  "not a number");
	return 0;
}

static int row_name(struct metric_parser *p, const struct mp_slice *name,
		    struct metric_row *row, struct errmsg *e)
{
	char w[96];

	if (!name) {
		row->name = p->spec.metric;
		row->name_len = strlen(p->spec.metric);
		return 0;
	}
	if (!name->len)
		return errmsg_set(e, EINVAL, "the metric name in %s is empty",
				  where(p, p->metric_name, 0, w, sizeof(w)));
	row->name = name->p;
	row->name_len = name->len;
	return 0;
}

static int delimited_row(struct metric_parser *p, const char *s, size_t len,
			 struct metric_row *row, struct errmsg *e)
{
	char sep = p->format == METRIC_FMT_CSV ? ',' : '\t';
	long n = mp_split_delimited(p, s, len, sep, p->format == METRIC_FMT_CSV, e);
	int err;

	if (n < 0)
		return (int)n;
	if (!p->header)
		return mp_take_header(p, (size_t)n, e);
	if ((size_t)n != p->ncols)
		return errmsg_set(e, EINVAL, "%ld fields, the header has %zu: %s",
				  n, p->ncols, (size_t)n < p->ncols ?
				  "the line is cut short or a field is missing" :
				  p->format == METRIC_FMT_CSV ?
				  "quote a field that holds a ','" :
				  "a field holds a tab");
	for (size_t i = 0; i < p->nhdr_labels; i++) {
		p->labels[i] = p->hdr_labels[i];
		if (p->labels[i].col >= 0)
			p->labels[i].val = p->fields[p->labels[i].col];
	}
	err = row_numbers(p, p->fields[p->time_idx], p->fields[p->value_idx], row, e);
	if (err == 0)
		err = row_name(p, p->metric_idx >= 0 ? &p->fields[p->metric_idx] :
			       NULL, row, e);
	if (err == 0)
		err = row_labels_json(p, p->labels, p->nhdr_labels, row);
	return err < 0 ? err : 1;
}

static int plain_row(struct metric_parser *p, const char *s, size_t len,
		     struct metric_row *row, struct errmsg *e)
{
	long n = mp_split_plain(p, s, len);
	int err;

	if (n < 0)
		return (int)n;
	if (ARRAY_RESERVE(p->labels, p->labels_cap, p->spec.nlabels + 1) < 0)
		return -ENOMEM;
	if (n != 2)
		return errmsg_set(e, EINVAL, "%ld field%s, expected TIMESTAMP VALUE%s",
				  n, n == 1 ? "" : "s",
				  n == 1 ? ": the line is cut short" : "");
	p->time_name = "timestamp";
	p->value_name = "value";
	err = row_numbers(p, p->fields[0], p->fields[1], row, e);
	if (err == 0)
		err = row_name(p, NULL, row, e);
	if (err == 0) {
		long nl = mp_add_constant_labels(p, p->labels, 0, e);

		mp_sort_labels(p->labels, (size_t)nl);
		err = row_labels_json(p, p->labels, (size_t)nl, row);
	}
	return err < 0 ? err : 1;
}

/* Index of the key named name among the line's n keys, or -1 (null
 * counts as absent). */
static int find_key(const struct metric_parser *p, size_t n, const char *name)
{
	for (size_t i = 0; i < n; i++)
		if (p->fields[i].p && mp_slice_is(p->keys[i], name))
			return (int)i;
	return -1;
}

/* The best-ranked time key among the line's n (null counts as absent),
 * or -1. */
static int find_time_key(const struct metric_parser *p, size_t n)
{
	int best = -1, best_rank = 0;

	for (size_t i = 0; i < n; i++) {
		int r = p->fields[i].p ? mp_time_col_rank(p->keys[i]) : -1;

		if (r >= 0 && (best < 0 || r < best_rank)) {
			best = (int)i;
			best_rank = r;
		}
	}
	return best;
}

static int missing_key(const char *what, const char *name, const char *opt,
		       struct errmsg *e)
{
	return errmsg_set(e, EINVAL, "no %s key '%s'; name it with %s", what,
			  name, opt);
}

static int json_row(struct metric_parser *p, const char *s, size_t len,
		    struct metric_row *row, struct errmsg *e)
{
	const struct metric_spec *sp = &p->spec;
	long n = mp_split_json(p, s, len, e), nl = 0;
	int t = -1, v, m = -1, err;

	if (n < 0)
		return (int)n;
	if (sp->time_col)
		t = find_key(p, (size_t)n, sp->time_col);
	else
		t = find_time_key(p, (size_t)n);
	if (t < 0 && sp->time_col)
		return missing_key("time", sp->time_col, "--time-column", e);
	if (t < 0)
		return errmsg_set(e, EINVAL, "no time key: faultline looks for %s; "
				  "name it with --time-column", mp_time_cols_text);
	v = find_key(p, (size_t)n, sp->value_col ? sp->value_col : "value");
	if (v < 0)
		return missing_key("value", sp->value_col ? sp->value_col : "value",
				   "--value-column", e);
	if (sp->metric_col || !sp->metric) {
		m = find_key(p, (size_t)n, sp->metric_col ? sp->metric_col : "metric");
		if (m < 0)
			return missing_key("metric", sp->metric_col ? sp->metric_col :
					   "metric", sp->metric_col ? "--metric-column" :
					   "--metric-column, or give the name with "
					   "--metric NAME", e);
	}
	if (ARRAY_RESERVE(p->labels, p->labels_cap, (size_t)n + sp->nlabels + 1) < 0)
		return -ENOMEM;
	for (size_t i = 0; i < sp->nlabel_cols; i++) {
		int k = find_key(p, (size_t)n, sp->label_cols[i]);

		if (k < 0)
			return missing_key("label", sp->label_cols[i],
					   "--label-column", e);
		p->labels[nl++] = (struct mp_label){ p->keys[k], p->fields[k], k };
	}
	for (long i = 0; !sp->nlabel_cols && i < n; i++)
		if (p->fields[i].p && i != t && i != v && i != m)
			p->labels[nl++] = (struct mp_label){ p->keys[i], p->fields[i],
							     (int)i };
	nl = mp_add_constant_labels(p, p->labels, (size_t)nl, e);
	if (nl < 0)
		return (int)nl;
	mp_sort_labels(p->labels, (size_t)nl);
	p->value_name = sp->value_col ? sp->value_col : "value";
	p->metric_name = sp->metric_col ? sp->metric_col : "metric";
	/* keys[t] is not NUL-terminated; a time key found by its name is
	 * short (timestamp_ms at most), so a copy names it in messages. */
	if (sp->time_col) {
		p->time_name = sp->time_col;
	} else {
		snprintf(p->time_key, sizeof(p->time_key), "%.*s",
			 (int)p->keys[t].len, p->keys[t].p);
		p->time_name = p->time_key;
	}
	p->name_unit = mp_time_col_unit(p->keys[t]);
	err = row_numbers(p, p->fields[t], p->fields[v], row, e);
	if (err == 0)
		err = row_name(p, m >= 0 ? &p->fields[m] : NULL, row, e);
	if (err == 0)
		err = row_labels_json(p, p->labels, (size_t)nl, row);
	return err < 0 ? err : 1;
}

/* ---- lines -------------------------------------------------------------- */

static enum metric_format sniff(const char *s, size_t len)
{
	size_t i = mp_skip_ws(s, len, 0);

	/* '[': not JSON lines, but a message about JSON helps most. */
	if (i < len && (s[i] == '{' || s[i] == '['))
		return METRIC_FMT_JSONL;
	if (memchr(s, '\t', len))
		return METRIC_FMT_TSV;
	if (memchr(s, ',', len))
		return METRIC_FMT_CSV;
	return METRIC_FMT_PLAIN;
}

int metric_parse_line(struct metric_parser *p, const char *s, size_t len,
		      struct metric_row *row, struct errmsg *e)
{
	int err;

	p->line++;
	if (p->line == 1 && len >= 3 && !memcmp(s, "\xef\xbb\xbf", 3)) {
		s += 3;
		len -= 3;
	}
	if (len && s[len - 1] == '\r')
		len--;
	if (mp_skip_ws(s, len, 0) == len)
		return 0;
	err = mp_check_utf8((const unsigned char *)s, len, e);
	if (err < 0)
		return err;
	if (p->format == METRIC_FMT_AUTO)
		p->format = sniff(s, len);
	if (p->format == METRIC_FMT_PLAIN && s[mp_skip_ws(s, len, 0)] == '#')
		return 0;
	if (p->format == METRIC_FMT_PLAIN && !p->spec.metric)
		return errmsg_set(e, EINVAL, "plain lines (TIMESTAMP VALUE) name no "
				  "metric: give --metric NAME");
	p->lines_seen++;
	/* Unquoting and unescaping never lengthen the text. */
	if (ARRAY_RESERVE(p->scratch, p->scratch_cap, len + 1) < 0)
		return -ENOMEM;
	switch (p->format) {
	case METRIC_FMT_CSV:
	case METRIC_FMT_TSV:
		err = delimited_row(p, s, len, row, e);
		break;
	case METRIC_FMT_JSONL:
		err = json_row(p, s, len, row, e);
		break;
	default:
		err = plain_row(p, s, len, row, e);
		break;
	}
	p->rows += err == 1;
	return err;
}

int metric_parse_finish(struct metric_parser *p, struct errmsg *e)
{
	if (p->rows)
		return 0;
	if (!p->lines_seen)
		return errmsg_set(e, EINVAL, "the file is empty: nothing to import");
	return errmsg_set(e, EINVAL, "no rows%s: nothing to import",
			  p->header ? " after the header" : "");
}

static const char *const format_names[] = {
	[METRIC_FMT_AUTO] = "auto", [METRIC_FMT_CSV] = "csv",
	[METRIC_FMT_TSV] = "tsv", [METRIC_FMT_JSONL] = "jsonl",
	[METRIC_FMT_PLAIN] = "plain",
};

static const char *const ts_names[] = {
	[TS_AUTO] = "auto", [TS_S] = "s", [TS_MS] = "ms", [TS_US] = "us",
	[TS_NS] = "ns", [TS_RFC3339] = "RFC 3339",
};

/* Index of name among names[lo..hi], or -1. */
static int name_index(const char *const *names, int lo, int hi, const char *name)
{
	for (int i = lo; i <= hi; i++)
		if (!strcmp(name, names[i]))
			return i;
	return -1;
}

int metric_format_parse(const char *name, enum metric_format *out)
{
	int f = name_index(format_names, METRIC_FMT_CSV, METRIC_FMT_PLAIN, name);

	if (f < 0)
		return -1;
	*out = (enum metric_format)f;
	return 0;
}

const char *metric_format_name(enum metric_format f)
{
	return format_names[f];
}

int metric_ts_unit_parse(const char *name, enum ts_kind *out)
{
	int k = name_index(ts_names, TS_S, TS_NS, name);

	if (k < 0)
		return -1;
	*out = (enum ts_kind)k;
	return 0;
}

const char *metric_ts_kind_name(enum ts_kind k)
{
	return ts_names[k];
}

enum metric_format metric_format_from_path(const char *path)
{
	static const struct {
		const char *ext;
		enum metric_format f;
	} exts[] = {
		{ ".csv", METRIC_FMT_CSV }, { ".tsv", METRIC_FMT_TSV },
		{ ".tab", METRIC_FMT_TSV }, { ".jsonl", METRIC_FMT_JSONL },
		{ ".ndjson", METRIC_FMT_JSONL }, { ".json", METRIC_FMT_JSONL },
	};
	const char *dot = strrchr(path, '.');

	for (size_t i = 0; dot && i < ARRAY_SIZE(exts); i++)
		if (!strcasecmp(dot, exts[i].ext))
			return exts[i].f;
	return METRIC_FMT_AUTO;
}
