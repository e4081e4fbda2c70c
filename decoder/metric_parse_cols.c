/*
 * metric_parse_cols: which columns of a csv or tsv header, or keys of a
 * JSON line, hold the time, the value, the metric's name and the labels;
 * for metric_parse only.  A time column's name may carry its unit
 * (ts_ms): see mp_time_col_unit.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../common/array.h"
#include "metric_parse_cols.h"
#include "metric_parse_split.h"

/* The time columns looked for when none is named, best first: each base
 * name alone, then with a unit. */
static const char *const time_bases[] = { "ts", "time", "timestamp" };
static const struct {
	const char *suffix;
	enum ts_kind unit;
} time_units[] = {
	{ "", TS_AUTO }, { "_s", TS_S }, { "_ms", TS_MS }, { "_us", TS_US },
	{ "_ns", TS_NS },
};

const char mp_time_cols_text[] =
	"ts, time or timestamp, alone or with a unit: _s, _ms, _us or _ns "
	"(ts_ms holds milliseconds)";

/* Does name end in suffix (and hold more before it)? */
static int ends_in(struct mp_slice name, const char *suffix)
{
	size_t n = strlen(suffix);

	return name.len > n && !memcmp(name.p + name.len - n, suffix, n);
}

enum ts_kind mp_time_col_unit(struct mp_slice name)
{
	for (size_t u = 1; u < ARRAY_SIZE(time_units); u++)
		if (ends_in(name, time_units[u].suffix))
			return time_units[u].unit;
	return TS_AUTO;
}

int mp_time_col_rank(struct mp_slice name)
{
	for (size_t u = 0; u < ARRAY_SIZE(time_units); u++)
		for (size_t b = 0; b < ARRAY_SIZE(time_bases); b++) {
			size_t nb = strlen(time_bases[b]);

			if (name.len == nb + strlen(time_units[u].suffix) &&
			    !memcmp(name.p, time_bases[b], nb) &&
			    !memcmp(name.p + nb, time_units[u].suffix, name.len - nb))
				return (int)(u * ARRAY_SIZE(time_bases) + b);
		}
	return -1;
}

int mp_best_time_col(const struct mp_slice *names, size_t n)
{
	int best = -1, best_rank = 0;

	for (size_t i = 0; i < n; i++) {
		int r = mp_time_col_rank(names[i]);

		if (r >= 0 && (best < 0 || r < best_rank)) {
			best = (int)i;
			best_rank = r;
		}
	}
	return best;
}

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

void mp_sort_labels(struct mp_label *l, size_t n)
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
long mp_add_constant_labels(const struct metric_parser *p,
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
	char cols[256];
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
		p->time_idx = mp_best_time_col(p->fields, p->ncols);
	}
	if (p->time_idx < 0 && sp->time_col)
		return missing_col(p, "time", sp->time_col, "--time-column", e);
	if (p->time_idx < 0)
		return errmsg_set(e, EINVAL, "no time column in the header (it has %s): "
				  "faultline looks for %s; name it with --time-column",
				  column_list(p, cols, sizeof(cols)), mp_time_cols_text);
	p->name_unit = mp_time_col_unit(p->fields[p->time_idx]);
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
	n = mp_add_constant_labels(p, p->hdr_labels, nl, e);
	if (n < 0)
		return (int)n;
	p->nhdr_labels = (size_t)n;
	mp_sort_labels(p->hdr_labels, p->nhdr_labels);
	return ARRAY_RESERVE(p->labels, p->labels_cap, p->nhdr_labels + 1);
}

/* Keeps the header's names (NUL-terminated, in p->header) and resolves
 * the columns. */
int mp_take_header(struct metric_parser *p, size_t nfields, struct errmsg *e)
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

