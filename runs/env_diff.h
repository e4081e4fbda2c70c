/*
 * env_diff: what differs in the environment (session_env) between two
 * sides, each one session or several (the sessions of a label's value).
 * A side's value of a key is the one its sessions agree on; where they do
 * not, or some lack the key, the value says so ("a .. b (varies)",
 * "V (in 2 of 3 runs)").  A key one side lacks is NULL there.
 *
 * Used by faultline compare (a section of its own) and by the change
 * points of faultline runs (what else changed where a series changed).
 * Read-only; SQLite.
 */
#ifndef FL_ENV_DIFF_H
#define FL_ENV_DIFF_H

#include <sqlite3.h>
#include <stddef.h>
#include <stdint.h>

#include "../common/errmsg.h"
#include "../common/strbuf.h"

/*
 * The statement whose rows are the keys that differ, by key: columns
 * key, a, b (TEXT, NULL where the side lacks it).  a_ids and b_ids are
 * JSON arrays of session ids ("[3]", "[4,7]"), copied.  The caller
 * finalizes *st.  0, or -EIO with e set.
 */
int env_diff_prepare(sqlite3 *db, const char *a_ids, const char *b_ids,
		     sqlite3_stmt **st, struct errmsg *e);

/*
 * The sessions of one side as a JSON array into sb: session id value
 * when label is NULL, else the sessions whose label has that value (the
 * rule of the compare query).  *n their count (0: none).  0, or -EIO with
 * e set.
 */
int env_side_ids(sqlite3 *db, const char *label, const char *value,
		 struct strbuf *sb, size_t *n, struct errmsg *e);

/* One key that differs. */
struct env_change {
	char *key;	/* owned */
	char *a, *b;	/* owned; NULL: the side lacks the key */
};

struct env_diff {
	struct env_change *v;	/* owned array, by key */
	size_t n, cap;
	int a_recorded, b_recorded;	/* the side has session_env rows */
};

void env_diff_init(struct env_diff *d);
void env_diff_release(struct env_diff *d);

/* The differences between sessions a and b into d (initialised).  0,
 * -ENOMEM, or -EIO with e set. */
int env_diff_sessions(sqlite3 *db, int64_t a, int64_t b, struct env_diff *d,
		      struct errmsg *e);

/*
 * d in words, appended to sb: "LD_BIND_NOW=1 set; thp.enabled madvise ->
 * always; build ids unchanged", "environment unchanged; build ids
 * changed: libc.so.6", or "environment not recorded for one of the
 * runs".  env.NAME keys are named NAME.
 */
void env_diff_summary(const struct env_diff *d, struct strbuf *sb);

#endif
