/*
 * labels: the one label model.  Every place a user gives a label (record
 * --label, faultline label, import --label and --label-column, query
 * label=, runs --label, compare --label, export --label) checks it here,
 * and every label object faultline writes (session.labels,
 * metric_series.labels) is made here.  faultline(1), LABELS, says the
 * same to users:
 *
 *   - KEY=VALUE, split at the first '=': VALUE may hold '=' itself;
 *   - KEY is 1 to LABEL_KEY_MAX bytes of [A-Za-z0-9_.-], so it needs
 *     no quoting in a JSON path ('$."KEY"') or a shell;
 *   - VALUE is the text as given, spaces kept, not empty (only
 *     faultline label reads "KEY=" as "remove KEY"), well-formed UTF-8
 *     without control characters, so it is stored as it was given;
 *   - a KEY given twice: the last VALUE wins.
 *
 * Stored as one JSON text: an object, keys in byte order, every value
 * a JSON string, no spaces: {"role":"rx","run":"41"}.  Files of older
 * versions may hold a session's keys in the order given and a metric
 * series' integer-looking values as numbers ({"port":9000}); readers
 * take a value by key and as text (json_extract, json_each), which reads
 * both the same.
 */
#ifndef FL_LABELS_H
#define FL_LABELS_H

#include <stddef.h>

#include "errmsg.h"
#include "strbuf.h"

#define LABEL_KEY_MAX 64

struct label {
	const char *arg;	/* borrowed: "KEY=VALUE", from the caller */
	size_t key_len;		/* KEY is arg[0 .. key_len) */
	const char *value;	/* borrowed: after the '=', "" when none */
};

struct labels {
	struct label *v;	/* owned array, sorted by key; labels_release frees it */
	size_t n, cap;
	int allow_empty;	/* "KEY=" is taken (as "remove KEY") */
};

/* No allocation; allow_empty as above. */
void labels_init(struct labels *l, int allow_empty);
void labels_release(struct labels *l);

/*
 * Checks a KEY of len bytes by the rule above.  what names the argument
 * in a message ("--label"), arg is shown whole.  0, or -EINVAL with e
 * saying what is wrong and what is expected.
 */
int label_key_check(const char *key, size_t len, const char *what,
		    const char *arg, struct errmsg *e);

/*
 * Checks arg ("KEY=VALUE") and adds it; a KEY given before is replaced.
 * arg is borrowed: it must outlive l.  0, -EINVAL with e saying what is
 * wrong and what is expected, or -ENOMEM.
 */
int labels_add(struct labels *l, const char *arg, const char *what,
	       struct errmsg *e);

/*
 * Appends l as the stored JSON object; a KEY with an empty VALUE (only
 * with allow_empty) as null, which json_patch reads as "remove it".
 * "{}" when l is empty.
 */
void labels_json(const struct labels *l, struct strbuf *sb);

/*
 * For writers that hold their labels elsewhere (an import's rows, the
 * socket sampler): appends one "KEY":"VALUE" member, with the comma
 * before it unless first.  The caller writes '{', the members in key
 * order, and '}'.
 */
void label_json_member(struct strbuf *sb, int first, const char *key,
		       size_t key_len, const char *value, size_t value_len);

#endif
