#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "../common/array.h"
#include "db.h"
#include "pt_names.h"

#define PROT_EXEC_BIT 4		/* PROT_EXEC in mapping.prot */

static int nomem(struct errmsg *e)
{
	return errmsg_set(e, ENOMEM, "out of memory naming Intel PT addresses");
}

static void clear_cache(struct pt_names *n)
{
	for (size_t i = 0; i < n->nslots; i++) {
		free(n->slots[i].function);
		free(n->slots[i].file);
		free(n->slots[i].dso);
	}
	free(n->slots);
	n->slots = NULL;
	n->nslots = n->used = 0;
}

static void clear_process(struct pt_names *n)
{
	clear_cache(n);
	addr_space_release(&n->space);
	addr_space_init(&n->space);
	for (size_t i = 0; i < n->nstrs; i++)
		free(n->strs[i]);
	n->nstrs = 0;
}

static int load_vdso(struct pt_names *n, sqlite3 *db, const char *path,
		     int64_t session_id, struct errmsg *e)
{
	sqlite3_stmt *st = NULL;
	int rc = sqlite3_prepare_v2(db, "SELECT image FROM pt_vdso WHERE"
				    " session_id = ?", -1, &st, NULL);

	if (rc != SQLITE_OK)
		return db_fail(db, rc, path, "cannot read", e);
	sqlite3_bind_int64(st, 1, session_id);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW && sqlite3_column_bytes(st, 0) > 0) {
		n->vdso_len = (size_t)sqlite3_column_bytes(st, 0);
		n->vdso = malloc(n->vdso_len);
		if (n->vdso)
			memcpy(n->vdso, sqlite3_column_blob(st, 0), n->vdso_len);
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_ROW && rc != SQLITE_DONE)
		return db_fail(db, rc, path, "cannot read", e);
	return n->vdso_len && !n->vdso ? nomem(e) : 0;
}

int pt_names_open(struct pt_names *n, sqlite3 *db, const char *path,
		  int64_t session_id, const char *debuginfo_path,
		  struct errmsg *e)
{
	struct symbolizer_config c = { debuginfo_path, NULL, 0, NULL };
	int err;

	memset(n, 0, sizeof(*n));
	addr_space_init(&n->space);
	n->pid = -1;
	err = load_vdso(n, db, path, session_id, e);
	c.vdso = n->vdso;
	c.vdso_len = n->vdso_len;
	if (err == 0)
		err = symbolizer_new(&c, &n->sym, e);
	return err;
}

static char *keep(struct pt_names *n, sqlite3_stmt *st, int col)
{
	const unsigned char *s = sqlite3_column_text(st, col);
	char *copy;

	if (!s || ARRAY_RESERVE(n->strs, n->capstrs, n->nstrs + 1) < 0 ||
	    !(copy = strdup((const char *)s)))
		return NULL;
	n->strs[n->nstrs++] = copy;
	return copy;
}

int pt_names_process(struct pt_names *n, sqlite3 *db, const char *path,
		     int64_t session_id, int64_t pid, struct errmsg *e)
{
	sqlite3_stmt *st = NULL;
	int rc, err = 0;

	clear_process(n);
	n->pid = pid;
	rc = sqlite3_prepare_v2(db, "SELECT start_addr, end_addr, pgoff, path,"
				" build_id, prot, source = 'mmap', ts FROM mapping"
				" WHERE session_id = ? AND pid = ?", -1, &st, NULL);
	if (rc != SQLITE_OK)
		return db_fail(db, rc, path, "cannot read", e);
	sqlite3_bind_int64(st, 1, session_id);
	sqlite3_bind_int64(st, 2, pid);
	while (err == 0 && (rc = sqlite3_step(st)) == SQLITE_ROW) {
		struct sym_mapping m = {
			.start = (uint64_t)sqlite3_column_int64(st, 0),
			.end = (uint64_t)sqlite3_column_int64(st, 1),
			.pgoff = (uint64_t)sqlite3_column_int64(st, 2),
			.exec = sqlite3_column_type(st, 5) == SQLITE_NULL ||
				(sqlite3_column_int(st, 5) & PROT_EXEC_BIT),
			.from_mmap = sqlite3_column_int(st, 6),
			.ts = sqlite3_column_int64(st, 7),
		};

		m.path = keep(n, st, 3);
		m.build_id = sqlite3_column_type(st, 4) == SQLITE_NULL ? NULL :
			     keep(n, st, 4);
		if (!m.path || (sqlite3_column_type(st, 4) != SQLITE_NULL &&
				!m.build_id) || addr_space_add(&n->space, &m) < 0)
			err = nomem(e);
	}
	if (err == 0 && rc != SQLITE_DONE)
		err = db_fail(db, rc, path, "cannot read", e);
	sqlite3_finalize(st);
	return err;
}

static const char *base_name(const char *p)
{
	const char *s = strrchr(p, '/');

	return s && s[1] ? s + 1 : p;
}

/* Fills slot from the symbolizer. */
static void resolve(struct pt_names *n, struct pt_name *slot, int return_addr)
{
	const struct sym_mapping *m;
	struct sym_result r;
	int err = 0;

	m = addr_space_find(&n->space, slot->addr, &err);
	if (symbolize_user(n->sym, m, slot->addr, return_addr, NULL, NULL, &r) < 0)
		return;
	if (r.dso)
		slot->dso = strdup(r.dso[0] == '[' ? r.dso : base_name(r.dso));
	if (r.status != SYM_OK || !r.nfuncs)
		return;
	/* The function that holds the code: the last one; the line: of the
	 * innermost (inlined) one, where the address is. */
	slot->function = strdup(r.funcs[r.nfuncs - 1].function);
	if (r.funcs[0].file) {
		slot->file = strdup(r.funcs[0].file);
		slot->line = r.funcs[0].line;
	}
}

static size_t slot_of(uint64_t addr, size_t nslots)
{
	return (size_t)((addr * 0x9E3779B97F4A7C15ull) >> 20) & (nslots - 1);
}

static int grow(struct pt_names *n)
{
	size_t ncap = n->nslots ? 2 * n->nslots : 1024;
	struct pt_name *v = calloc(ncap, sizeof(*v));

	if (!v)
		return -ENOMEM;
	for (size_t i = 0; i < n->nslots; i++) {
		size_t k;

		if (!n->slots[i].addr)
			continue;
		for (k = slot_of(n->slots[i].addr, ncap); v[k].addr;
		     k = (k + 1) & (ncap - 1))
			;
		v[k] = n->slots[i];
	}
	free(n->slots);
	n->slots = v;
	n->nslots = ncap;
	return 0;
}

const struct pt_name *pt_names_lookup(struct pt_names *n, uint64_t addr,
				      int return_addr)
{
	/* A return address is kept under addr - 1, the call it follows, so
	 * the two lookups of one address do not share a slot. */
	uint64_t key = return_addr ? addr - 1 : addr;
	size_t i;

	if (!key)
		key = 1;
	if (2 * (n->used + 1) > n->nslots && grow(n) < 0)
		return NULL;
	for (i = slot_of(key, n->nslots); n->slots[i].addr;
	     i = (i + 1) & (n->nslots - 1))
		if (n->slots[i].addr == key)
			return &n->slots[i];
	n->slots[i].addr = key;
	n->used++;
	resolve(n, &n->slots[i], 0);
	return &n->slots[i];
}

void pt_names_close(struct pt_names *n)
{
	clear_process(n);
	free(n->strs);
	if (n->sym)
		symbolizer_free(n->sym);
	free(n->vdso);
	memset(n, 0, sizeof(*n));
}
