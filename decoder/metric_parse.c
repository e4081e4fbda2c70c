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

#include "metric_parse.h"
#include "metric_parse_split.h"

/* Bytes of a bad field that a message shows. */
#define SHOW 60

static const char *const default_time_cols[] = { "ts", "time", "timestamp" };

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
	free(p->json);
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

/* ---- columns ------------------------------------------------------------ */

/* The header's names as "a, b, c" for messages. */
static const char *column_list(const struct metric_parser *p, char *buf, size_t n)
{
	size_t k = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < p->ncols && k + 1 < n; i++)
		k += (size_t)snprintf(buf + k, n - k, "%s%s", i ? ", " : "",
				      p->fields[i].p);
	return buf;
}

static int find_col(const struct metric_parser *p, const char *name)
{
	for (size_t i = 0; i < p->ncols; i++)
		if (!strcmp(p->fields[i].p, name))
			return (int)i;
	return -1;
}

static int missing_col(const struct metric_parser *p, const char *what,
		       const char *name, const char *opt, struct errmsg *e)
{
	char cols[256];

	return errmsg_set(e, EINVAL, "no %s column '%s' in the header (it has %s); "
			  "name it with %s", what, name,
			  column_list(p, cols, sizeof(cols)), opt);
}

static void sort_labels(struct mp_label *l, size_t n)
{
	for (size_t i = 1; i < n; i++) {
		struct mp_label t = l[i];
		size_t j = i;

		for (; j > 0 && mp_slice_cmp(l[j - 1].key, t.key) > 0; j--)
			l[j] = l[j - 1];
		l[j] = t;
	}
}

/* Appends the constant labels to l[n..]; refuses a key already there. */
static long add_constant_labels(const struct metric_parser *p,
				struct mp_label *l, size_t n, struct errmsg *e)
{
	for (size_t i = 0; i < p->spec.nlabels; i++) {
		const struct metric_label *c = &p->spec.labels[i];

		for (size_t k = 0; k < n; k++)
			if (mp_slice_is(l[k].key, c->key))
				return errmsg_set(e, EINVAL, "label '%s' is both a "
						  "--label and a column; drop one",
						  c->key);
		l[n++] = (struct mp_label){ { c->key, strlen(c->key) },
					    { c->value, strlen(c->value) }, -1 };
	}
	return (long)n;
}

static int is_label_col(const struct metric_parser *p, struct mp_slice name)
{
	for (size_t i = 0; i < p->spec.nlabel_cols; i++)
		if (mp_slice_is(name, p->spec.label_cols[i]))
			return 1;
	return 0;
}

/* The header's columns: which is time, value, metric, and the labels. */
static int header_columns(struct metric_parser *p, struct errmsg *e)
{
	const struct metric_spec *sp = &p->spec;
	size_t nl = 0;
	long n;

	for (size_t i = 0; i < p->ncols; i++)
		for (size_t j = 0; j < i; j++)
			if (!strcmp(p->fields[i].p, p->fields[j].p))
				return errmsg_set(e, EINVAL, "column '%s' appears twice "
						  "in the header; rename one",
						  p->fields[i].p);
	if (sp->time_col) {
		p->time_idx = find_col(p, sp->time_col);
	} else {
		for (size_t i = 0; i < 3 && p->time_idx < 0; i++)
			p->time_idx = find_col(p, default_time_cols[i]);
	}
	if (p->time_idx < 0)
		return missing_col(p, "time", sp->time_col ? sp->time_col :
				   "ts', 'time' or 'timestamp", "--time-column", e);
	p->value_idx = find_col(p, sp->value_col ? sp->value_col : "value");
	if (p->value_idx < 0)
		return missing_col(p, "value", sp->value_col ? sp->value_col :
				   "value", "--value-column", e);
	if (sp->metric_col || !sp->metric) {
		p->metric_idx = find_col(p, sp->metric_col ? sp->metric_col : "metric");
		if (p->metric_idx < 0 && sp->metric_col)
			return missing_col(p, "metric", sp->metric_col,
					   "--metric-column", e);
		if (p->metric_idx < 0)
			return missing_col(p, "metric", "metric",
					   "--metric-column, or give the name with "
					   "--metric NAME", e);
	}
	p->time_name = p->fields[p->time_idx].p;
	p->value_name = p->fields[p->value_idx].p;
	p->metric_name = p->metric_idx >= 0 ? p->fields[p->metric_idx].p : NULL;
	for (size_t i = 0; i < sp->nlabel_cols; i++)
		if (find_col(p, sp->label_cols[i]) < 0)
			return missing_col(p, "label", sp->label_cols[i],
					   "--label-column", e);
	p->hdr_labels = calloc(p->ncols + sp->nlabels + 1, sizeof(*p->hdr_labels));
	if (!p->hdr_labels)
		return -ENOMEM;
	for (size_t i = 0; i < p->ncols; i++) {
		int used = (int)i == p->time_idx || (int)i == p->value_idx ||
			   (int)i == p->metric_idx;

		if (sp->nlabel_cols ? is_label_col(p, p->fields[i]) : !used)
			p->hdr_labels[nl++] = (struct mp_label){ p->fields[i],
								 { NULL, 0 }, (int)i };
	}
	n = add_constant_labels(p, p->hdr_labels, nl, e);
	if (n < 0)
		return (int)n;
	p->nhdr_labels = (size_t)n;
	sort_labels(p->hdr_labels, p->nhdr_labels);
	return mp_grow((void **)&p->labels, &p->labels_cap, p->nhdr_labels + 1,
		    sizeof(*p->labels));
}

/* Keeps the header's names (NUL-terminated, in p->header) and resolves
 * the columns. */
static int take_header(struct metric_parser *p, size_t nfields, struct errmsg *e)
{
	size_t total = 0;
	char *o;

	for (size_t i = 0; i < nfields; i++)
		total += p->fields[i].len + 1;
	p->header = malloc(total + 1);
	if (!p->header)
		return -ENOMEM;
	o = p->header;
	for (size_t i = 0; i < nfields; i++) {
		memcpy(o, p->fields[i].p, p->fields[i].len);
		o[p->fields[i].len] = '\0';
		p->fields[i].p = o;
		o += p->fields[i].len + 1;
	}
	p->ncols = nfields;
	return header_columns(p, e);
}

/* ---- rows --------------------------------------------------------------- */

/* Does v read as a JSON integer that SQLite keeps exact: an optional '-',
 * then 0 or up to 18 digits without a leading zero?  Such a label (a port,
 * a partition) is stored as a number, as the socket sampler stores its
 * port, so json_extract gives the same value for both; "007" stays text. */
static int label_is_integer(const struct mp_slice *v)
{
	size_t i = v->len && v->p[0] == '-', digits = v->len - i;

	if (digits == 0 || digits > 18 || (v->p[i] == '0' && digits > 1))
		return 0;
	for (; i < v->len; i++)
		if (v->p[i] < '0' || v->p[i] > '9')
			return 0;
	return !(v->len == 2 && v->p[0] == '-' && v->p[1] == '0');
}

/* The labels of the row as a JSON object, keys sorted, into p->json. */
static int labels_json(struct metric_parser *p, const struct mp_label *l,
		       size_t n, struct metric_row *row)
{
	size_t need = 3;
	char *o;

	for (size_t i = 0; i < n; i++)
		need += 6 * (l[i].key.len + l[i].val.len) + 6;
	if (mp_grow((void **)&p->json, &p->json_cap, need, 1) < 0)
		return -ENOMEM;
	o = p->json;
	*o++ = '{';
	for (size_t i = 0; i < n; i++) {
		const struct mp_slice *part[2] = { &l[i].key, &l[i].val };

		if (i)
			*o++ = ',';
		for (int k = 0; k < 2; k++) {
			int quote = k == 0 || !label_is_integer(part[k]);

			if (quote)
				*o++ = '"';
			for (size_t j = 0; j < part[k]->len; j++) {
				unsigned char c = (unsigned char)part[k]->p[j];

				if (c == '"' || c == '\\') {
					*o++ = '\\';
					*o++ = (char)c;
				} else if (c < 0x20) {
					o += sprintf(o, "\\u%04x", c);
				} else {
					*o++ = (char)c;
				}
			}
			if (quote)
				*o++ = '"';
			if (k == 0)
				*o++ = ':';
		}
	}
	*o++ = '}';
	*o = '\0';
	row->labels = p->json;
	row->labels_len = (size_t)(o - p->json);
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
	int err = metric_parse_ts(t.p, t.len, p->spec.ts_unit, &row->ts, &kind);

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
		return take_header(p, (size_t)n, e);
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
		err = labels_json(p, p->labels, p->nhdr_labels, row);
	return err < 0 ? err : 1;
}

static int plain_row(struct metric_parser *p, const char *s, size_t len,
		     struct metric_row *row, struct errmsg *e)
{
	long n = mp_split_plain(p, s, len);
	int err;

	if (n < 0)
		return (int)n;
	if (mp_grow((void **)&p->labels, &p->labels_cap, p->spec.nlabels + 1,
		 sizeof(*p->labels)) < 0)
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
		long nl = add_constant_labels(p, p->labels, 0, e);

		sort_labels(p->labels, (size_t)nl);
		err = labels_json(p, p->labels, (size_t)nl, row);
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
	for (size_t i = 0; !sp->time_col && i < 3 && t < 0; i++)
		t = find_key(p, (size_t)n, default_time_cols[i]);
	if (t < 0)
		return missing_key("time", sp->time_col ? sp->time_col :
				   "ts', 'time' or 'timestamp", "--time-column", e);
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
	if (mp_grow((void **)&p->labels, &p->labels_cap, (size_t)n + sp->nlabels + 1,
		 sizeof(*p->labels)) < 0)
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
	nl = add_constant_labels(p, p->labels, (size_t)nl, e);
	if (nl < 0)
		return (int)nl;
	sort_labels(p->labels, (size_t)nl);
	p->time_name = sp->time_col ? sp->time_col : p->keys[t].p;
	p->value_name = sp->value_col ? sp->value_col : "value";
	p->metric_name = sp->metric_col ? sp->metric_col : "metric";
	/* keys[t] is not NUL-terminated: name it by the default it matched. */
	for (size_t i = 0; !sp->time_col && i < 3; i++)
		if (mp_slice_is(p->keys[t], default_time_cols[i]))
			p->time_name = default_time_cols[i];
	err = row_numbers(p, p->fields[t], p->fields[v], row, e);
	if (err == 0)
		err = row_name(p, m >= 0 ? &p->fields[m] : NULL, row, e);
	if (err == 0)
		err = labels_json(p, p->labels, (size_t)nl, row);
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
	if (mp_grow((void **)&p->scratch, &p->scratch_cap, len + 1, 1) < 0)
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

	for (size_t i = 0; dot && i < sizeof(exts) / sizeof(exts[0]); i++)
		if (!strcasecmp(dot, exts[i].ext))
			return exts[i].f;
	return METRIC_FMT_AUTO;
}
