/*
 * metric_parse_split: one line of a metric file into fields (csv, tsv,
 * plain) or key/value pairs (jsonl), held as slices of the line, or of
 * p->scratch where unquoting or unescaping changed the text (it never
 * lengthens it: p->scratch holds the line's length).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../common/array.h"
#include "../common/utf8.h"
#include "metric_parse_split.h"

/* Bytes of a bad key that a message shows. */
#define SHOW 60

/* Room for n fields (and jsonl keys beside them). */
static int grow_fields(struct metric_parser *p, size_t n)
{
	size_t cap = p->fields_cap;
	int err = ARRAY_RESERVE(p->fields, p->fields_cap, n);

	/* keys has the capacity fields had. */
	if (err == 0)
		err = ARRAY_RESERVE(p->keys, cap, n);
	return err;
}

/* Refuses bytes that are not UTF-8, and NUL bytes (a binary file). */
int mp_check_utf8(const unsigned char *s, size_t len, struct errmsg *e)
{
	for (size_t i = 0, n; i < len; i += n) {
		if (s[i] == 0)
			return errmsg_set(e, EINVAL, "NUL byte at column %zu: this is "
					  "not a text file", i + 1);
		n = utf8_seq_len(s + i, len - i);
		if (n == 0)
			return errmsg_set(e, EILSEQ, "byte 0x%02x at column %zu is "
					  "not UTF-8; convert the file, e.g. iconv "
					  "-f latin1 -t utf-8", s[i], i + 1);
	}
	return 0;
}

/* ---- splitting ---------------------------------------------------------- */

/* A quoted CSV field from s[*i] (the opening quote), unquoted into *out. */
static int csv_quoted(const char *s, size_t len, size_t *i, char **out,
		      size_t field, struct errmsg *e)
{
	for ((*i)++;; (*i)++) {
		if (*i >= len)
			return errmsg_set(e, EINVAL, "field %zu: quote not closed: the "
					  "line is cut short (a quoted field cannot "
					  "span lines)", field);
		if (s[*i] == '"') {
			if (*i + 1 < len && s[*i + 1] == '"') {
				*(*out)++ = '"';
				(*i)++;
				continue;
			}
			(*i)++;
			return 0;
		}
		*(*out)++ = s[*i];
	}
}

/* csv (quotes) or tsv: fields into p->fields; returns their number. */
long mp_split_delimited(struct metric_parser *p, const char *s, size_t len,
			    char sep, int quotes, struct errmsg *e)
{
	char *out = p->scratch;
	size_t n = 0, i = 0;

	for (;;) {
		struct mp_slice f;

		if (n == p->fields_cap && grow_fields(p, n + 1) < 0)
			return -ENOMEM;
		if (quotes && i < len && s[i] == '"') {
			char *start = out;
			int err = csv_quoted(s, len, &i, &out, n + 1, e);

			if (err < 0)
				return err;
			if (i < len && s[i] != sep)
				return errmsg_set(e, EINVAL, "field %zu: text after "
						  "its closing quote; double a quote "
						  "inside a quoted field (\"\")", n + 1);
			f.p = start;
			f.len = (size_t)(out - start);
		} else {
			const char *q = memchr(s + i, sep, len - i);
			size_t end = q ? (size_t)(q - s) : len;

			f.p = s + i;
			f.len = end - i;
			i = end;
		}
		p->fields[n++] = f;
		if (i >= len)
			return (long)n;
		i++;	/* the separator */
	}
}

/* plain: fields separated by runs of spaces and tabs. */
long mp_split_plain(struct metric_parser *p, const char *s, size_t len)
{
	size_t n = 0, i = 0;

	for (;;) {
		size_t start;

		while (i < len && (s[i] == ' ' || s[i] == '\t'))
			i++;
		if (i >= len)
			return (long)n;
		start = i;
		while (i < len && s[i] != ' ' && s[i] != '\t')
			i++;
		if (n == p->fields_cap && grow_fields(p, n + 1) < 0)
			return -ENOMEM;
		p->fields[n++] = (struct mp_slice){ s + start, i - start };
	}
}

/* ---- JSON lines --------------------------------------------------------- */

size_t mp_skip_ws(const char *s, size_t len, size_t i)
{
	while (i < len && (s[i] == ' ' || s[i] == '\t'))
		i++;
	return i;
}

static int hex4(const char *s, size_t len, size_t i, uint32_t *out)
{
	uint32_t v = 0;

	if (i + 4 > len)
		return -1;
	for (size_t k = i; k < i + 4; k++) {
		char c = s[k];

		v <<= 4;
		if (c >= '0' && c <= '9')
			v |= (uint32_t)(c - '0');
		else if (c >= 'a' && c <= 'f')
			v |= (uint32_t)(c - 'a' + 10);
		else if (c >= 'A' && c <= 'F')
			v |= (uint32_t)(c - 'A' + 10);
		else
			return -1;
	}
	*out = v;
	return 0;
}

static char *put_utf8(char *o, uint32_t cp)
{
	if (cp < 0x80) {
		*o++ = (char)cp;
	} else if (cp < 0x800) {
		*o++ = (char)(0xc0 | cp >> 6);
		*o++ = (char)(0x80 | (cp & 0x3f));
	} else if (cp < 0x10000) {
		*o++ = (char)(0xe0 | cp >> 12);
		*o++ = (char)(0x80 | ((cp >> 6) & 0x3f));
		*o++ = (char)(0x80 | (cp & 0x3f));
	} else {
		*o++ = (char)(0xf0 | cp >> 18);
		*o++ = (char)(0x80 | ((cp >> 12) & 0x3f));
		*o++ = (char)(0x80 | ((cp >> 6) & 0x3f));
		*o++ = (char)(0x80 | (cp & 0x3f));
	}
	return o;
}

/* One \uXXXX escape (a surrogate pair takes two) at s[*i] ('u'). */
static int json_unicode(const char *s, size_t len, size_t *i, char **out)
{
	uint32_t cp, lo;

	if (hex4(s, len, *i + 1, &cp) < 0)
		return -1;
	*i += 4;
	if (cp >= 0xdc00 && cp <= 0xdfff)
		return -1;
	if (cp >= 0xd800 && cp <= 0xdbff) {
		if (*i + 2 >= len || s[*i + 1] != '\\' || s[*i + 2] != 'u' ||
		    hex4(s, len, *i + 3, &lo) < 0 || lo < 0xdc00 || lo > 0xdfff)
			return -1;
		cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
		*i += 6;
	}
	*out = put_utf8(*out, cp);
	return 0;
}

/* A JSON string from s[*i] (the opening quote): a slice of the line, or of
 * p->scratch at *out when it has escapes.  *i ends past the closing quote. */
static int json_string(const char *s, size_t len, size_t *i, char **out,
		       struct mp_slice *res, struct errmsg *e)
{
	static const char esc_in[] = "\"\\/bfnrt", esc_out[] = "\"\\/\b\f\n\r\t";
	size_t start = ++(*i);
	char *o;

	while (*i < len && s[*i] != '"' && s[*i] != '\\' &&
	       (unsigned char)s[*i] >= 0x20)
		(*i)++;
	if (*i < len && s[*i] == '"') {
		*res = (struct mp_slice){ s + start, *i - start };
		(*i)++;
		return 0;
	}
	o = *out;
	memcpy(o, s + start, *i - start);
	o += *i - start;
	for (; *i < len; (*i)++) {
		char c = s[*i];
		const char *k;

		if (c == '"') {
			*res = (struct mp_slice){ *out, (size_t)(o - *out) };
			*out = o;
			(*i)++;
			return 0;
		}
		if ((unsigned char)c < 0x20)
			return errmsg_set(e, EINVAL, "column %zu: control character "
					  "in a JSON string; escape it", *i + 1);
		if (c != '\\') {
			*o++ = c;
			continue;
		}
		if (++(*i) >= len)
			break;
		if (s[*i] == 'u') {
			if (json_unicode(s, len, i, &o) < 0)
				return errmsg_set(e, EINVAL, "column %zu: bad \\u "
						  "escape in a JSON string", *i + 1);
		} else if ((k = memchr(esc_in, s[*i], sizeof(esc_in) - 1))) {
			*o++ = esc_out[k - esc_in];
		} else {
			return errmsg_set(e, EINVAL, "column %zu: bad escape '\\%c' in "
					  "a JSON string", *i + 1, s[*i]);
		}
	}
	return errmsg_set(e, EINVAL, "JSON string not closed: the line is cut "
			  "short");
}

/* A scalar value at s[*i]: a string, or the text of a number, true or
 * false; null gives a slice with p NULL (absent). */
static int json_value(const char *s, size_t len, size_t *i, char **out,
		      struct mp_slice key, struct mp_slice *res, struct errmsg *e)
{
	size_t start = *i;

	if (*i >= len)
		return errmsg_set(e, EINVAL, "JSON object not closed: the line is "
				  "cut short");
	if (s[*i] == '"')
		return json_string(s, len, i, out, res, e);
	if (s[*i] == '{' || s[*i] == '[')
		return errmsg_set(e, EINVAL, "key '%.*s' holds a nested %s; import "
				  "reads flat objects: flatten it first, e.g. with "
				  "jq -c", (int)(key.len < SHOW ? key.len : SHOW), key.p,
				  s[*i] == '{' ? "object" : "array");
	/* A number, true or false: the field parsers check the text. */
	while (*i < len && ((s[*i] >= '0' && s[*i] <= '9') ||
			    (s[*i] >= 'a' && s[*i] <= 'z') || s[*i] == '+' ||
			    s[*i] == '-' || s[*i] == '.' || s[*i] == 'E'))
		(*i)++;
	*res = (struct mp_slice){ s + start, *i - start };
	if (mp_slice_is(*res, "null")) {
		res->p = NULL;
		return 0;
	}
	if (res->len && (mp_slice_is(*res, "true") || mp_slice_is(*res, "false") ||
			 s[start] == '-' || (s[start] >= '0' && s[start] <= '9')))
		return 0;
	return errmsg_set(e, EINVAL, "column %zu: not a JSON value", start + 1);
}

/* A flat JSON object: keys into p->keys, values into p->fields. */
long mp_split_json(struct metric_parser *p, const char *s, size_t len,
		       struct errmsg *e)
{
	char *out = p->scratch;
	size_t n = 0, i = mp_skip_ws(s, len, 0);
	int err;

	if (i >= len || s[i] != '{')
		return errmsg_set(e, EINVAL, "not a JSON object: the line does not "
				  "start with '{'");
	i = mp_skip_ws(s, len, i + 1);
	if (i < len && s[i] == '}')
		goto closed;
	for (;;) {
		struct mp_slice key, val;

		if (i >= len)
			break;
		if (s[i] != '"')
			return errmsg_set(e, EINVAL, "column %zu: expected a key in "
					  "double quotes", i + 1);
		err = json_string(s, len, &i, &out, &key, e);
		i = mp_skip_ws(s, len, i);
		if (err == 0 && (i >= len || s[i] != ':'))
			err = i >= len ? errmsg_set(e, EINVAL, "JSON object not "
						   "closed: the line is cut short") :
				errmsg_set(e, EINVAL, "column %zu: expected ':' after "
					   "a key", i + 1);
		if (err == 0) {
			i = mp_skip_ws(s, len, i + 1);
			err = json_value(s, len, &i, &out, key, &val, e);
		}
		if (err < 0)
			return err;
		for (size_t k = 0; k < n; k++)
			if (!mp_slice_cmp(p->keys[k], key))
				return errmsg_set(e, EINVAL, "key '%.*s' appears twice",
						  (int)(key.len < SHOW ? key.len : SHOW),
						  key.p);
		if (n == p->fields_cap && grow_fields(p, n + 1) < 0)
			return -ENOMEM;
		p->keys[n] = key;
		p->fields[n++] = val;
		i = mp_skip_ws(s, len, i);
		if (i < len && s[i] == ',') {
			i = mp_skip_ws(s, len, i + 1);
			continue;
		}
		if (i < len && s[i] == '}')
			goto closed;
		if (i < len)
			return errmsg_set(e, EINVAL, "column %zu: expected ',' or '}'",
					  i + 1);
		break;
	}
	return errmsg_set(e, EINVAL, "JSON object not closed: the line is cut "
			  "short");
closed:
	if (mp_skip_ws(s, len, i + 1) != len)
		return errmsg_set(e, EINVAL, "column %zu: text after the JSON object",
				  mp_skip_ws(s, len, i + 1) + 1);
	return (long)n;
}
