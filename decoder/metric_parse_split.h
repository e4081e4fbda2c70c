/*
 * metric_parse_split: splitting one line into fields, for metric_parse
 * only (not an interface of its own).  Each splitter fills p->fields (and
 * p->keys for jsonl) and returns their number, or a negative errno with e
 * set; the slices are valid until the next line.
 */
#ifndef FL_METRIC_PARSE_SPLIT_H
#define FL_METRIC_PARSE_SPLIT_H

#include <string.h>

#include "metric_parse.h"

static inline int mp_slice_is(struct mp_slice s, const char *name)
{
	return name && strlen(name) == s.len && !memcmp(s.p, name, s.len);
}

static inline int mp_slice_cmp(struct mp_slice a, struct mp_slice b)
{
	int c = memcmp(a.p, b.p, a.len < b.len ? a.len : b.len);

	return c ? c : (a.len > b.len) - (a.len < b.len);
}

size_t mp_skip_ws(const char *s, size_t len, size_t i);

/* Refuses bytes that are not UTF-8, and NUL bytes.  0 or -EILSEQ/-EINVAL
 * with e naming the byte and its column. */
int mp_check_utf8(const unsigned char *s, size_t len, struct errmsg *e);

/* csv (quotes set) or tsv. */
long mp_split_delimited(struct metric_parser *p, const char *s, size_t len,
			char sep, int quotes, struct errmsg *e);
/* plain: runs of spaces and tabs separate fields. */
long mp_split_plain(struct metric_parser *p, const char *s, size_t len);
/* jsonl: a flat object; a null value is a slice with p NULL. */
long mp_split_json(struct metric_parser *p, const char *s, size_t len,
		   struct errmsg *e);

#endif
