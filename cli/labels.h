/*
 * labels: KEY=VALUE arguments (record --label, faultline label) checked
 * and written as the JSON object session.labels holds: every value a
 * string.  KEY is [A-Za-z0-9_.-]+, so it needs no escaping in a JSON
 * path either; VALUE is any text, escaped by common/json.h.
 */
#ifndef FL_LABELS_H
#define FL_LABELS_H

#include <stddef.h>

#include "../common/errmsg.h"
#include "../common/strbuf.h"

struct label {
	const char *arg;	/* borrowed: "KEY=VALUE", from argv */
	size_t key_len;		/* KEY is arg[0 .. key_len) */
	const char *value;	/* borrowed: after the '=', "" when none */
};

struct labels {
	struct label *v;	/* owned array; labels_release frees it */
	size_t n, cap;
	int allow_empty;	/* "KEY=" is taken (as "remove KEY") */
};

/* No allocation; allow_empty as above. */
void labels_init(struct labels *l, int allow_empty);
void labels_release(struct labels *l);

/*
 * Checks arg ("KEY=VALUE") and adds it; a KEY given before is replaced.
 * what names the argument in a message ("--label").  0, -EINVAL with e
 * saying what is wrong and what is expected, or -ENOMEM.
 */
int labels_add(struct labels *l, const char *arg, const char *what,
	       struct errmsg *e);

/*
 * Appends l as a JSON object: {"KEY":"VALUE",...} in the order given, a
 * KEY with an empty VALUE as null (for json_patch: remove it).  "{}" when
 * l is empty.
 */
void labels_json(const struct labels *l, struct strbuf *sb);

#endif
