#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "../common/array.h"
#include "../common/demangle.h"
#include "../schema/db.h"
#include "../schema/views.h"
#include "stack_frames.h"

/* One row per name, innermost frame first, inlined functions before the
 * function that holds them: schema.sql's stack_frame_name. */
static const char frames_sql[] =
	"SELECT name FROM stack_frame_name"
	" WHERE session_id = ?1 AND stack_id = ?2 ORDER BY depth, idx";

void stack_frames_init(struct stack_frames *f, sqlite3 *db, const char *path,
		       int64_t session)
{
	memset(f, 0, sizeof(*f));
	f->db = db;
	f->path = path;
	f->session = session;
}

void stack_frames_release(struct stack_frames *f)
{
	for (size_t i = 0; i < f->n; i++)
		free(f->nodes[i].name);
	free(f->nodes);
	free(f->by_key);
	free(f->leaves);
	sqlite3_finalize(f->st);
	stack_frames_init(f, NULL, NULL, 0);
}

static size_t key_hash(int64_t parent, const char *name)
{
	uint64_t h = 0xcbf29ce484222325ull ^ (uint64_t)parent;

	for (; *name; name++)
		h = (h ^ (unsigned char)*name) * 0x100000001b3ull;
	return (size_t)(h ^ (h >> 29));
}

/* The slot of (parent, name) in by_key: its node's, or the empty one
 * where it goes. */
static size_t key_slot(const struct stack_frames *f, int64_t parent,
		       const char *name)
{
	size_t i = key_hash(parent, name) & (f->key_cap - 1);

	for (; f->by_key[i]; i = (i + 1) & (f->key_cap - 1)) {
		const struct stack_frames_node *nd = &f->nodes[f->by_key[i] - 1];

		if (nd->parent == parent && !strcmp(nd->name, name))
			break;
	}
	return i;
}

/* Keeps by_key's load under one half, so a probe ends soon. */
static int grow_keys(struct stack_frames *f)
{
	size_t cap = f->key_cap ? f->key_cap * 2 : 256;
	uint32_t *old = f->by_key;
	size_t oldcap = f->key_cap;

	if (!(f->by_key = calloc(cap, sizeof(*old)))) {
		f->by_key = old;
		return -ENOMEM;
	}
	f->key_cap = cap;
	for (size_t i = 0; i < oldcap; i++)
		if (old[i]) {
			const struct stack_frames_node *nd = &f->nodes[old[i] - 1];

			f->by_key[key_slot(f, nd->parent, nd->name)] = old[i];
		}
	free(old);
	return 0;
}

/* *id: the node (parent, name), made when new.  0 or -ENOMEM. */
static int node_of(struct stack_frames *f, int64_t parent, const char *name,
		   int64_t *id)
{
	size_t i;

	if (f->n >= UINT32_MAX - 1)
		return -ENOMEM;
	if ((f->n + 1) * 2 > f->key_cap && grow_keys(f) < 0)
		return -ENOMEM;
	i = key_slot(f, parent, name);
	if (!f->by_key[i]) {
		char *copy = strdup(name);

		if (!copy || ARRAY_RESERVE(f->nodes, f->cap, f->n + 1) < 0) {
			free(copy);
			return -ENOMEM;
		}
		f->nodes[f->n].parent = parent;
		f->nodes[f->n].name = copy;
		f->by_key[i] = (uint32_t)++f->n;
	}
	*id = f->by_key[i];
	return 0;
}

static size_t leaf_slot(const struct stack_frames *f, int64_t stack_id)
{
	size_t i = ((uint64_t)stack_id * 0x9e3779b97f4a7c15ull) & (f->leaf_cap - 1);

	while (f->leaves[i].stack_id && f->leaves[i].stack_id != stack_id)
		i = (i + 1) & (f->leaf_cap - 1);
	return i;
}

static int grow_leaves(struct stack_frames *f)
{
	size_t cap = f->leaf_cap ? f->leaf_cap * 2 : 64;
	struct stack_frames_leaf *old = f->leaves;
	size_t oldcap = f->leaf_cap;

	if (!(f->leaves = calloc(cap, sizeof(*old)))) {
		f->leaves = old;
		return -ENOMEM;
	}
	f->leaf_cap = cap;
	for (size_t i = 0; i < oldcap; i++)
		if (old[i].stack_id)
			f->leaves[leaf_slot(f, old[i].stack_id)] = old[i];
	free(old);
	return 0;
}

/* The names of stack_id, innermost first, into *names (owned, each
 * owned); *n of them. */
static int read_names(struct stack_frames *f, int64_t stack_id, char ***names,
		      size_t *n, struct errmsg *e)
{
	size_t cap = 0;
	int rc = SQLITE_OK, err = 0;

	*names = NULL;
	*n = 0;
	/* A file of an older faultline may lack the view (schema/views.h). */
	if (!f->st && schema_stack_views_current(f->db, e) < 0)
		return -EIO;
	if (!f->st)
		rc = sqlite3_prepare_v2(f->db, frames_sql, -1, &f->st, NULL);
	if (rc != SQLITE_OK)
		return db_fail(f->db, rc, f->path, "cannot read", e);
	sqlite3_bind_int64(f->st, 1, f->session);
	sqlite3_bind_int64(f->st, 2, stack_id);
	while (err == 0 && (rc = sqlite3_step(f->st)) == SQLITE_ROW) {
		const char *name = (const char *)sqlite3_column_text(f->st, 0);
		char *owned = NULL, *copy;

		copy = strdup(name ? demangle_shown(name, &owned) : "?");
		free(owned);
		if (!copy || ARRAY_RESERVE(*names, cap, *n + 1) < 0) {
			free(copy);
			err = errmsg_set(e, ENOMEM, "out of memory");
			break;
		}
		(*names)[(*n)++] = copy;
	}
	sqlite3_reset(f->st);
	if (err == 0 && rc != SQLITE_DONE)
		err = db_fail(f->db, rc, f->path, "cannot read", e);
	return err;
}

/* Adds stack_id's frames to the tree, outermost first: *sf its leaf. */
static int add_stack(struct stack_frames *f, int64_t stack_id, int64_t *sf,
		     struct errmsg *e)
{
	char **names;
	size_t n;
	int64_t id = 0;
	int err = read_names(f, stack_id, &names, &n, e);

	for (size_t i = n; err == 0 && i-- > 0;)
		if (node_of(f, id, names[i], &id) < 0)
			err = errmsg_set(e, ENOMEM, "out of memory");
	for (size_t i = 0; i < n; i++)
		free(names[i]);
	free(names);
	*sf = id;
	return err;
}

int stack_frames_leaf(struct stack_frames *f, int64_t stack_id, int64_t *sf,
		      struct errmsg *e)
{
	size_t i;
	int err;

	*sf = 0;
	if (stack_id <= 0)	/* not a stack id: ids start at 1 */
		return 0;
	if (f->leaf_cap && f->leaves[i = leaf_slot(f, stack_id)].stack_id) {
		*sf = f->leaves[i].sf;
		return 0;
	}
	if ((f->nleaves + 1) * 2 > f->leaf_cap && grow_leaves(f) < 0)
		return errmsg_set(e, ENOMEM, "out of memory");
	err = add_stack(f, stack_id, sf, e);
	if (err < 0)
		return err;
	i = leaf_slot(f, stack_id);
	f->leaves[i].stack_id = stack_id;
	f->leaves[i].sf = *sf;
	f->nleaves++;
	return 0;
}
