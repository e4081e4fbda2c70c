#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "array.h"
#include "json.h"
#include "labels.h"
#include "utf8.h"

void labels_init(struct labels *l, int allow_empty)
{
	*l = (struct labels){ .allow_empty = allow_empty };
}

void labels_release(struct labels *l)
{
	free(l->v);
	labels_init(l, l->allow_empty);
}

static int key_char(char c)
{
	return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') ||
	       (c >= '0' && c <= '9') || c == '_' || c == '.' || c == '-';
}

int label_key_check(const char *key, size_t len, const char *what,
		    const char *arg, struct errmsg *e)
{
	if (len == 0)
		return errmsg_set(e, EINVAL, "invalid %s '%s': no key; a key is "
				  "letters, digits, '_', '.' and '-', e.g. run",
				  what, arg);
	if (len > LABEL_KEY_MAX)
		return errmsg_set(e, EINVAL, "invalid %s '%s': a key is at most %d "
				  "bytes", what, arg, LABEL_KEY_MAX);
	for (size_t i = 0; i < len; i++)
		if (!key_char(key[i]))
			return errmsg_set(e, EINVAL, "invalid %s '%s': a key is made of "
					  "letters, digits, '_', '.' and '-' only",
					  what, arg);
	return 0;
}

/* Well-formed UTF-8 without control characters: what the JSON writer
 * stores unchanged, and what a table prints on one line. */
static int value_ok(const char *v)
{
	const unsigned char *s = (const unsigned char *)v;
	size_t left = strlen(v), n;

	while (left) {
		if (*s < 0x20 || *s == 0x7f || !(n = utf8_seq_len(s, left)))
			return 0;
		s += n;
		left -= n;
	}
	return 1;
}

int labels_add(struct labels *l, const char *arg, const char *what,
	       struct errmsg *e)
{
	const char *eq = strchr(arg, '=');
	size_t key_len = eq ? (size_t)(eq - arg) : 0, at;
	int err, cmp = 1;

	if (!eq)
		return errmsg_set(e, EINVAL, "invalid %s '%s': expected KEY=VALUE, "
				  "e.g. run=4711", what, arg);
	if ((err = label_key_check(arg, key_len, what, arg, e)) < 0)
		return err;
	if (!eq[1] && !l->allow_empty)
		return errmsg_set(e, EINVAL, "invalid %s '%s': no value after '='; "
				  "give KEY=VALUE", what, arg);
	if (!value_ok(eq + 1))
		return errmsg_set(e, EINVAL, "invalid %s: the value of '%.*s' holds a "
				  "control character or bytes that are not UTF-8; "
				  "give text", what, (int)key_len, arg);
	/* Kept sorted by key, so the JSON object is written in key order. */
	for (at = 0; at < l->n; at++) {
		size_t n = l->v[at].key_len < key_len ? l->v[at].key_len : key_len;

		cmp = memcmp(l->v[at].arg, arg, n);
		if (cmp == 0)
			cmp = (l->v[at].key_len > key_len) - (l->v[at].key_len < key_len);
		if (cmp >= 0)
			break;
	}
	if (at < l->n && cmp == 0) {
		l->v[at] = (struct label){ arg, key_len, eq + 1 };
		return 0;
	}
	if (ARRAY_RESERVE(l->v, l->cap, l->n + 1) < 0)
		return errmsg_set(e, ENOMEM, "out of memory");
	memmove(&l->v[at + 1], &l->v[at], (l->n - at) * sizeof(*l->v));
	l->v[at] = (struct label){ arg, key_len, eq + 1 };
	l->n++;
	return 0;
}

void label_json_member(struct strbuf *sb, int first, const char *key,
		       size_t key_len, const char *value, size_t value_len)
{
	if (!first)
		strbuf_addc(sb, ',');
	json_string(sb, key, key_len);
	strbuf_addc(sb, ':');
	json_string(sb, value, value_len);
}

void labels_json(const struct labels *l, struct strbuf *sb)
{
	strbuf_addc(sb, '{');
	for (size_t i = 0; i < l->n; i++) {
		const struct label *x = &l->v[i];

		if (x->value[0]) {
			label_json_member(sb, i == 0, x->arg, x->key_len, x->value,
					  strlen(x->value));
			continue;
		}
		if (i)
			strbuf_addc(sb, ',');
		json_string(sb, x->arg, x->key_len);
		strbuf_adds(sb, ":null");
	}
	strbuf_addc(sb, '}');
}
