#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "../common/array.h"
#include "../common/json.h"
#include "labels.h"

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

int labels_add(struct labels *l, const char *arg, const char *what,
	       struct errmsg *e)
{
	const char *eq = strchr(arg, '=');
	size_t key_len = eq ? (size_t)(eq - arg) : 0;

	if (!eq || key_len == 0)
		return errmsg_set(e, EINVAL, "invalid %s '%s': expected KEY=VALUE, "
				  "e.g. run=4711", what, arg);
	for (size_t i = 0; i < key_len; i++)
		if (!key_char(arg[i]))
			return errmsg_set(e, EINVAL, "invalid %s '%s': a key is made of "
					  "letters, digits, '_', '.' and '-' only",
					  what, arg);
	if (!eq[1] && !l->allow_empty)
		return errmsg_set(e, EINVAL, "invalid %s '%s': no value after '='; "
				  "give KEY=VALUE", what, arg);
	for (size_t i = 0; i < l->n; i++)
		if (l->v[i].key_len == key_len && !memcmp(l->v[i].arg, arg, key_len)) {
			l->v[i] = (struct label){ arg, key_len, eq + 1 };
			return 0;
		}
	if (ARRAY_RESERVE(l->v, l->cap, l->n + 1) < 0)
		return errmsg_set(e, ENOMEM, "out of memory");
	l->v[l->n++] = (struct label){ arg, key_len, eq + 1 };
	return 0;
}

void labels_json(const struct labels *l, struct strbuf *sb)
{
	strbuf_addc(sb, '{');
	for (size_t i = 0; i < l->n; i++) {
		if (i)
			strbuf_addc(sb, ',');
		json_string(sb, l->v[i].arg, l->v[i].key_len);
		strbuf_addc(sb, ':');
		if (l->v[i].value[0])
			json_cstring(sb, l->v[i].value);
		else
			strbuf_adds(sb, "null");
	}
	strbuf_addc(sb, '}');
}
