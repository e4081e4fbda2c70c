#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "../common/array.h"
#include "../common/demangle.h"
#include "../common/strbuf.h"
#include "../schema/db.h"
#include "../schema/views.h"
#include "stack_text.h"

/* One row per name, innermost frame first, inlined functions before the
 * function that holds them: schema.sql's stack_frame_name, the naming
 * every reader shares. */
static const char frames_sql[] =
	"SELECT name FROM stack_frame_name"
	" WHERE session_id = ?1 AND stack_id = ?2 ORDER BY depth, idx";

void stack_text_init(struct stack_text *t, sqlite3 *db, const char *path,
		     int64_t session, size_t max_names)
{
	memset(t, 0, sizeof(*t));
	t->db = db;
	t->path = path;
	t->session = session;
	t->max_names = max_names;
}

void stack_text_release(struct stack_text *t)
{
	for (size_t i = 0; i < t->cap; i++)
		free(t->slots[i].text);
	free(t->slots);
	sqlite3_finalize(t->st);
	stack_text_init(t, NULL, NULL, 0, 0);
}

static size_t slot_of(const struct stack_text *t, int64_t id)
{
	size_t i = ((uint64_t)id * 0x9e3779b97f4a7c15ull) & (t->cap - 1);

	while (t->slots[i].stack_id && t->slots[i].stack_id != id)
		i = (i + 1) & (t->cap - 1);
	return i;
}

/* Keeps the load under one half, so a probe ends soon. */
static int grow(struct stack_text *t)
{
	size_t cap = t->cap ? t->cap * 2 : 64, bytes;
	struct stack_text_slot *old = t->slots;
	size_t oldcap = t->cap;

	if (array_bytes(cap, sizeof(*old), &bytes) < 0 ||
	    !(t->slots = calloc(cap, sizeof(*old)))) {
		t->slots = old;
		return -ENOMEM;
	}
	t->cap = cap;
	for (size_t i = 0; i < oldcap; i++)
		if (old[i].stack_id)
			t->slots[slot_of(t, old[i].stack_id)] = old[i];
	free(old);
	return 0;
}

/* Builds stack_id's line into sb. */
static int lookup(struct stack_text *t, int64_t stack_id, struct strbuf *sb,
		  struct errmsg *e)
{
	size_t names = 0;
	int rc = SQLITE_OK;

	/* A file of an older faultline may lack the view (schema/views.h). */
	if (!t->st && schema_stack_views_current(t->db, e) < 0)
		return -EIO;
	if (!t->st)
		rc = sqlite3_prepare_v2(t->db, frames_sql, -1, &t->st, NULL);
	if (rc != SQLITE_OK)
		return db_fail(t->db, rc, t->path, "cannot read", e);
	sqlite3_reset(t->st);
	sqlite3_bind_int64(t->st, 1, t->session);
	sqlite3_bind_int64(t->st, 2, stack_id);
	while ((rc = sqlite3_step(t->st)) == SQLITE_ROW) {
		const char *name = (const char *)sqlite3_column_text(t->st, 0);

		if (t->max_names && names == t->max_names) {
			strbuf_adds(sb, " <- ...");
			break;
		}
		char *owned = NULL;

		if (names++)
			strbuf_adds(sb, " <- ");
		strbuf_adds(sb, name ? demangle_shown(name, &owned) : "?");
		free(owned);
	}
	sqlite3_reset(t->st);
	if (rc != SQLITE_ROW && rc != SQLITE_DONE)
		return db_fail(t->db, rc, t->path, "cannot read", e);
	return strbuf_error(sb) < 0 ? errmsg_set(e, ENOMEM, "out of memory") : 0;
}

int stack_text_get(struct stack_text *t, int64_t stack_id, const char **text,
		   struct errmsg *e)
{
	struct strbuf sb;
	size_t i;
	int err;

	if (stack_id <= 0) {	/* not a stack id: ids start at 1 */
		*text = "";
		return 0;
	}
	if (t->cap && t->slots[i = slot_of(t, stack_id)].stack_id) {
		*text = t->slots[i].text;
		return 0;
	}
	if ((t->n + 1) * 2 > t->cap && grow(t) < 0)
		return errmsg_set(e, ENOMEM, "out of memory");
	strbuf_init(&sb);
	err = lookup(t, stack_id, &sb, e);
	if (err < 0) {
		strbuf_release(&sb);
		return err;
	}
	i = slot_of(t, stack_id);
	t->slots[i].stack_id = stack_id;
	t->slots[i].text = sb.buf ? strbuf_detach(&sb) : strdup("");
	if (!t->slots[i].text) {
		t->slots[i].stack_id = 0;
		return errmsg_set(e, ENOMEM, "out of memory");
	}
	t->n++;
	*text = t->slots[i].text;
	return 0;
}

int stack_text_each(const struct stack_text *t,
		    int (*fn)(void *ctx, int64_t stack_id, const char *text),
		    void *ctx)
{
	int err = 0;

	for (size_t i = 0; i < t->cap && !err; i++)
		if (t->slots[i].stack_id)
			err = fn(ctx, t->slots[i].stack_id, t->slots[i].text);
	return err;
}
