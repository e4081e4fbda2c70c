/*
 * stack_text: a recorded stack as one line, innermost function first,
 * "read_cold <- receiver <- start_thread", named as the longest-stalls
 * query names it: the function (each inlined one too), else the file and
 * offset ("/usr/bin/rx+0x1234"), else the address.  Looked up once per
 * stack id and kept, since a session holds few distinct stacks and many
 * events share each.
 */
#ifndef FL_STACK_TEXT_H
#define FL_STACK_TEXT_H

#include <sqlite3.h>
#include <stddef.h>
#include <stdint.h>

#include "../common/errmsg.h"

struct stack_text_slot {
	int64_t stack_id;	/* 0: empty (stack ids start at 1) */
	char *text;		/* owned (malloc) */
};

struct stack_text {
	sqlite3 *db;			/* borrowed */
	const char *path;		/* borrowed: names db in messages */
	int64_t session;
	size_t max_names;		/* 0: every name */
	sqlite3_stmt *st;		/* owned: the frame lookup */
	struct stack_text_slot *slots;	/* owned: open addressing, cap a power of 2 */
	size_t cap, n;
};

/* Sets up t for session of db: nothing allocated yet.  max_names cuts
 * each line after that many names (", <- ..." marks the cut); 0 keeps
 * all. */
void stack_text_init(struct stack_text *t, sqlite3 *db, const char *path,
		     int64_t session, size_t max_names);

/*
 * *text: stack_id's line (borrowed from t: valid until stack_text_release;
 * "" for a stack with no frames).  0, or a negative errno with e set.
 */
int stack_text_get(struct stack_text *t, int64_t stack_id, const char **text,
		   struct errmsg *e);

/* Calls fn for every stack looked up so far, in no particular order;
 * stops at and returns fn's first non-zero result. */
int stack_text_each(const struct stack_text *t,
		    int (*fn)(void *ctx, int64_t stack_id, const char *text),
		    void *ctx);

void stack_text_release(struct stack_text *t);

#endif
