#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>

#include "../collector/symbol_sources.h"
#include "../decoder/kallsyms.h"
#include "../decoder/perf_map.h"
#include "../decoder/symbolize.h"
#include "db.h"
#include "symbol_store.h"

#define PROT_EXEC_BIT 4		/* PROT_EXEC in mapping.prot */

/* One process's mappings, and its JIT map once looked for. */
struct proc {
	int64_t pid;
	struct addr_space space;	/* the strings are owned here */
	int jit_read;			/* looked for /tmp/perf-PID.map */
	int has_jit;
	struct addr_syms jit;
	char jit_dso[64];		/* "[jit] /tmp/perf-PID.map" */
};

struct store_frame {
	int64_t frame_id, pid;
	uint64_t addr;
	int kernel, return_addr;
};

struct job {
	sqlite3 *db;			/* borrowed */
	const char *path;		/* borrowed */
	int64_t session_id;
	int same_kernel;		/* recorded on the kernel running now */
	struct proc *procs;		/* owned, sorted by pid */
	size_t nprocs;
	struct proc unmapped;		/* a process with no mapping rows */
	struct store_frame *frames;	/* owned */
	size_t nframes;
	struct addr_syms kallsyms;
	int kallsyms_hidden;
	char *debuginfo_path;		/* owned */
	struct symbolizer *sym;		/* owned */
	sqlite3_stmt *update, *insert;	/* owned */
};

static int fail(struct job *j, int rc, struct errmsg *e)
{
	return db_fail(j->db, rc, j->path, "cannot symbolize", e);
}

static int nomem(struct errmsg *e)
{
	return errmsg_set(e, ENOMEM, "out of memory while symbolizing");
}

static char *column_dup(sqlite3_stmt *st, int col)
{
	const unsigned char *s = sqlite3_column_text(st, col);

	return s ? strdup((const char *)s) : NULL;
}

/* Is the session there, and was it recorded on the kernel running now? */
static int check_session(struct job *j, struct errmsg *e)
{
	sqlite3_stmt *st = NULL;
	struct utsname un;
	int rc, err = 0;

	rc = sqlite3_prepare_v2(j->db, "SELECT kernel FROM session WHERE session_id = ?",
				-1, &st, NULL);
	if (rc != SQLITE_OK)
		return fail(j, rc, e);
	sqlite3_bind_int64(st, 1, j->session_id);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW) {
		const char *k = (const char *)sqlite3_column_text(st, 0);

		j->same_kernel = uname(&un) == 0 && k && !strcmp(k, un.release);
	} else if (rc == SQLITE_DONE) {
		err = errmsg_set(e, ENOENT, "no session %lld in '%s'; list them "
				 "with: sqlite3 %s 'SELECT * FROM session_readable'",
				 (long long)j->session_id, j->path, j->path);
	} else {
		err = fail(j, rc, e);
	}
	sqlite3_finalize(st);
	return err;
}

/* libdwfl's debuginfo_path: the user's dirs (absolute: libdwfl looks
 * for .build-id/ only under absolute ones), then the usual places. */
static int debuginfo_path(struct job *j, const struct symbolize_opts *o,
			  struct errmsg *e)
{
	static const char defaults[] = ":.debug:/usr/lib/debug";
	size_t len = sizeof(defaults), n = o ? o->ndebug_dirs : 0;
	char (*abs)[PATH_MAX] = n ? calloc(n, PATH_MAX) : NULL;
	int err = 0;

	if (n && !abs)
		return nomem(e);
	for (size_t i = 0; i < n; i++) {
		struct stat sb;

		if (!realpath(o->debug_dirs[i], abs[i]) || stat(abs[i], &sb) ||
		    !S_ISDIR(sb.st_mode) || strchr(abs[i], ':')) {
			err = errmsg_set(e, ENOTDIR, "debug directory '%s' %s; give "
					 "a directory that holds debug files",
					 o->debug_dirs[i], strchr(abs[i], ':') ?
					 "has a ':' in its path" : "is not a directory");
			goto out;
		}
		len += strlen(abs[i]) + 1;
	}
	j->debuginfo_path = malloc(len);
	if (!j->debuginfo_path) {
		err = nomem(e);
		goto out;
	}
	j->debuginfo_path[0] = '\0';
	for (size_t i = 0; i < n; i++) {
		strcat(j->debuginfo_path, abs[i]);
		strcat(j->debuginfo_path, ":");
	}
	/* The leading ':' of the defaults (the file's own directory) would
	 * make an empty entry after ours; both mean the same. */
	strcat(j->debuginfo_path, n ? defaults + 1 : defaults);
out:
	free(abs);
	return err;
}

static struct proc *proc_add(struct job *j, int64_t pid)
{
	struct proc *v = realloc(j->procs, (j->nprocs + 1) * sizeof(*v));

	if (!v)
		return NULL;
	j->procs = v;
	memset(&v[j->nprocs], 0, sizeof(*v));
	v[j->nprocs].pid = pid;
	addr_space_init(&v[j->nprocs].space);
	addr_syms_init(&v[j->nprocs].jit);
	return &v[j->nprocs++];
}

/* The session's mappings, grouped by pid (ascending). */
static int load_mappings(struct job *j, struct errmsg *e)
{
	sqlite3_stmt *st = NULL;
	struct proc *p = NULL;
	int rc, err = 0;

	rc = sqlite3_prepare_v2(j->db,
		"SELECT pid, start_addr, end_addr, pgoff, path, build_id, prot,"
		" source = 'mmap', ts FROM mapping WHERE session_id = ?"
		" ORDER BY pid", -1, &st, NULL);
	if (rc != SQLITE_OK)
		return fail(j, rc, e);
	sqlite3_bind_int64(st, 1, j->session_id);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		int64_t pid = sqlite3_column_int64(st, 0);
		struct sym_mapping m = {
			.start = (uint64_t)sqlite3_column_int64(st, 1),
			.end = (uint64_t)sqlite3_column_int64(st, 2),
			.pgoff = (uint64_t)sqlite3_column_int64(st, 3),
			.exec = sqlite3_column_type(st, 6) == SQLITE_NULL ||
				(sqlite3_column_int(st, 6) & PROT_EXEC_BIT),
			.from_mmap = sqlite3_column_int(st, 7),
			.ts = sqlite3_column_int64(st, 8),
		};

		if (!p || p->pid != pid)
			p = proc_add(j, pid);
		m.path = column_dup(st, 4);
		m.build_id = column_dup(st, 5);
		if (!p || !m.path || (!m.build_id && sqlite3_column_type(st, 5) != SQLITE_NULL) ||
		    addr_space_add(&p->space, &m) < 0) {
			free((char *)m.path);
			free((char *)m.build_id);
			err = nomem(e);
			goto out;
		}
	}
	if (rc != SQLITE_DONE)
		err = fail(j, rc, e);
out:
	sqlite3_finalize(st);
	return err;
}

/* The frames to do, kernel ones last, each process's by address. */
static int load_frames(struct job *j, int redo, struct errmsg *e)
{
	sqlite3_stmt *st = NULL;
	size_t cap = 0;
	int rc, err = 0;

	rc = sqlite3_prepare_v2(j->db,
		"SELECT frame_id, pid, addr, kernel, return_addr FROM frame"
		" WHERE session_id = ?1 AND (?2 OR status IS NULL)"
		" ORDER BY kernel, pid, addr", -1, &st, NULL);
	if (rc != SQLITE_OK)
		return fail(j, rc, e);
	sqlite3_bind_int64(st, 1, j->session_id);
	sqlite3_bind_int(st, 2, redo);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		if (j->nframes == cap) {
			size_t ncap = cap ? 2 * cap : 1024;
			struct store_frame *v = realloc(j->frames, ncap * sizeof(*v));

			if (!v) {
				err = nomem(e);
				goto out;
			}
			j->frames = v;
			cap = ncap;
		}
		j->frames[j->nframes++] = (struct store_frame){
			sqlite3_column_int64(st, 0), sqlite3_column_int64(st, 1),
			(uint64_t)sqlite3_column_int64(st, 2),
			sqlite3_column_int(st, 3), sqlite3_column_int(st, 4) != 0 };
	}
	if (rc != SQLITE_DONE)
		err = fail(j, rc, e);
out:
	sqlite3_finalize(st);
	return err;
}

/* kallsyms, when the session has kernel frames and this is its kernel. */
static int load_kallsyms(struct job *j, struct errmsg *e)
{
	char *text = NULL;
	size_t len;
	int err;

	if (!j->same_kernel || !j->nframes || !j->frames[j->nframes - 1].kernel)
		return 0;
	err = read_text_file("/proc/kallsyms", &text, &len, e);
	if (err == -ENOENT)
		return 0;
	if (err == 0 && kallsyms_parse(&j->kallsyms, text, len,
				       &j->kallsyms_hidden) < 0)
		err = nomem(e);
	free(text);
	return err;
}

static int make_symbolizer(struct job *j, struct errmsg *e)
{
	struct symbolizer_config c = { j->debuginfo_path, NULL, 0, NULL };

	if (j->kallsyms.n)
		c.kallsyms = &j->kallsyms;
	if (j->same_kernel)
		vdso_image(&c.vdso, &c.vdso_len);
	return symbolizer_new(&c, &j->sym, e);
}

static struct proc *proc_find(struct job *j, int64_t pid)
{
	size_t lo = 0, hi = j->nprocs;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (j->procs[mid].pid == pid)
			return &j->procs[mid];
		if (j->procs[mid].pid < pid)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

/* The process's /tmp/perf-PID.map, read the first time it is needed. */
static int read_jit_map(struct proc *p, struct errmsg *e)
{
	char *text = NULL;
	size_t len;
	int err;

	if (p->jit_read)
		return 0;
	p->jit_read = 1;
	snprintf(p->jit_dso, sizeof(p->jit_dso), "/tmp/perf-%lld.map",
		 (long long)p->pid);
	err = read_text_file(p->jit_dso, &text, &len, e);
	if (err == -ENOENT || err == -EACCES)
		return 0;
	if (err == 0) {
		err = perf_map_parse(&p->jit, text, len) < 0 ? nomem(e) : 0;
		p->has_jit = err == 0;
		snprintf(p->jit_dso, sizeof(p->jit_dso), "[jit] /tmp/perf-%lld.map",
			 (long long)p->pid);
	}
	free(text);
	return err;
}

static int bind_text_or_null(sqlite3_stmt *st, int col, const char *s)
{
	return s ? sqlite3_bind_text(st, col, s, -1, SQLITE_STATIC)
		 : sqlite3_bind_null(st, col);
}

static int run_stmt(struct job *j, sqlite3_stmt *st, struct errmsg *e)
{
	int rc = sqlite3_step(st);

	sqlite3_reset(st);
	sqlite3_clear_bindings(st);
	return rc == SQLITE_DONE ? 0 : fail(j, rc, e);
}

static int store_result(struct job *j, const struct store_frame *f,
			const struct sym_result *r, struct errmsg *e)
{
	sqlite3_stmt *u = j->update, *in = j->insert;
	int err;

	sqlite3_bind_int64(u, 1, j->session_id);
	sqlite3_bind_int64(u, 2, f->frame_id);
	bind_text_or_null(u, 3, r->dso);
	if (r->has_dso_offset)
		sqlite3_bind_int64(u, 4, (int64_t)r->dso_offset);
	bind_text_or_null(u, 5, r->build_id);
	sqlite3_bind_text(u, 6, sym_status_name(r->status), -1, SQLITE_STATIC);
	if ((err = run_stmt(j, u, e)) < 0)
		return err;
	for (size_t i = 0; i < r->nfuncs; i++) {
		const struct sym_func *fn = &r->funcs[i];

		sqlite3_bind_int64(in, 1, j->session_id);
		sqlite3_bind_int64(in, 2, f->frame_id);
		sqlite3_bind_int64(in, 3, (int64_t)i);
		sqlite3_bind_text(in, 4, fn->function, -1, SQLITE_STATIC);
		if (fn->has_offset)
			sqlite3_bind_int64(in, 5, (int64_t)fn->offset);
		if (fn->has_offset && fn->size)
			sqlite3_bind_int64(in, 6, (int64_t)fn->size);
		bind_text_or_null(in, 7, fn->file);
		if (fn->line > 0)
			sqlite3_bind_int(in, 8, fn->line);
		sqlite3_bind_int(in, 9, fn->inlined);
		if ((err = run_stmt(j, in, e)) < 0)
			return err;
	}
	return 0;
}

static void count(struct symbolize_counts *c, enum sym_status st)
{
	c->frames++;
	switch (st) {
	case SYM_OK: c->ok++; break;
	case SYM_NO_MAPPING: c->no_mapping++; break;
	case SYM_NO_FILE: c->no_file++; break;
	case SYM_BUILD_ID_MISMATCH: c->build_id_mismatch++; break;
	case SYM_NO_SYMBOL: c->no_symbol++; break;
	}
}

static int symbolize_frames(struct job *j, struct symbolize_counts *c,
			    struct errmsg *e)
{
	struct proc *p = NULL;
	int err = 0;

	for (size_t i = 0; i < j->nframes && err == 0; i++) {
		const struct store_frame *f = &j->frames[i];
		const struct sym_mapping *m = NULL;
		struct sym_result r;

		if (f->kernel) {
			err = symbolize_kernel(j->sym, f->addr, f->return_addr, &r);
		} else {
			if (!p || p->pid != f->pid) {
				p = proc_find(j, f->pid);
				if (!p) {
					/* No mapping recorded: a JIT map may still
					 * name its frames. */
					p = &j->unmapped;
					addr_syms_release(&p->jit);
					memset(p, 0, sizeof(*p));
					p->pid = f->pid;
				}
				err = read_jit_map(p, e);
			}
			if (err == 0)
				m = addr_space_find(&p->space, f->addr, &err);
			if (err == 0)
				err = symbolize_user(j->sym, m, f->addr, f->return_addr,
						     p->has_jit ? &p->jit : NULL,
						     p->jit_dso, &r);
		}
		if (err == -ENOMEM)
			err = nomem(e);
		if (err == 0)
			err = store_result(j, f, &r, e);
		if (err == 0)
			count(c, r.status);
	}
	return err;
}

/* The page cache for the symbolizing transaction, in KiB.  Its updates
 * and inserts land in frame_id order on tables ordered by address, all
 * over both tables: with SQLite's default 2 MiB, 200k frames spent most
 * of their time re-reading pages (bench/schema/symbolize_rate.c). */
#define SYMBOLIZE_CACHE_KIB 65536

static int cache_size(sqlite3 *db)
{
	sqlite3_stmt *st;
	int kib = -2000;

	if (sqlite3_prepare_v2(db, "PRAGMA cache_size", -1, &st, NULL) == SQLITE_OK) {
		if (sqlite3_step(st) == SQLITE_ROW)
			kib = sqlite3_column_int(st, 0);
		sqlite3_finalize(st);
	}
	return kib;
}

static void set_cache_size(sqlite3 *db, int size)
{
	char sql[64];

	snprintf(sql, sizeof(sql), "PRAGMA cache_size = %d", size);
	sqlite3_exec(db, sql, NULL, NULL, NULL);
}

static int write_all(struct job *j, int redo, struct symbolize_counts *c,
		     struct errmsg *e)
{
	int rc, err, old_cache = cache_size(j->db);

	if (old_cache > -SYMBOLIZE_CACHE_KIB)
		set_cache_size(j->db, -SYMBOLIZE_CACHE_KIB);
	rc = sqlite3_exec(j->db, "BEGIN IMMEDIATE", NULL, NULL, NULL);
	if (rc != SQLITE_OK) {
		err = fail(j, rc, e);
		set_cache_size(j->db, old_cache);
		return err;
	}
	rc = sqlite3_prepare_v2(j->db,
		"UPDATE frame SET dso = ?3, dso_offset = ?4, build_id = ?5,"
		" status = ?6 WHERE session_id = ?1 AND frame_id = ?2",
		-1, &j->update, NULL);
	if (rc == SQLITE_OK)
		rc = sqlite3_prepare_v2(j->db,
			"INSERT INTO symbol (session_id, frame_id, idx, function,"
			" offset, size, file, line, inlined)"
			" VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)", -1, &j->insert, NULL);
	if (rc == SQLITE_OK && redo) {
		char sql[96];

		snprintf(sql, sizeof(sql), "DELETE FROM symbol WHERE session_id = %lld",
			 (long long)j->session_id);
		rc = sqlite3_exec(j->db, sql, NULL, NULL, NULL);
	}
	err = rc == SQLITE_OK ? symbolize_frames(j, c, e) : fail(j, rc, e);
	if (err == 0 && (rc = sqlite3_exec(j->db, "COMMIT", NULL, NULL, NULL)) != SQLITE_OK)
		err = fail(j, rc, e);
	if (err < 0) {
		sqlite3_exec(j->db, "ROLLBACK", NULL, NULL, NULL);
		memset(c, 0, sizeof(*c));
	}
	set_cache_size(j->db, old_cache);
	return err;
}

static void job_release(struct job *j)
{
	for (size_t i = 0; i < j->nprocs; i++) {
		struct addr_space *s = &j->procs[i].space;

		for (size_t k = 0; k < s->n; k++) {
			free((char *)s->v[k].path);
			free((char *)s->v[k].build_id);
		}
		addr_space_release(s);
		addr_syms_release(&j->procs[i].jit);
	}
	free(j->procs);
	addr_syms_release(&j->unmapped.jit);
	free(j->frames);
	addr_syms_release(&j->kallsyms);
	symbolizer_free(j->sym);
	free(j->debuginfo_path);
	sqlite3_finalize(j->update);
	sqlite3_finalize(j->insert);
}

int symbol_store_symbolize(sqlite3 *db, const char *path, int64_t session_id,
			   const struct symbolize_opts *o,
			   struct symbolize_counts *c, struct errmsg *e)
{
	struct job j = { .db = db, .path = path, .session_id = session_id };
	int redo = o && o->redo, err;

	memset(c, 0, sizeof(*c));
	addr_syms_init(&j.kallsyms);
	err = check_session(&j, e);
	if (err == 0)
		err = debuginfo_path(&j, o, e);
	if (err == 0)
		err = load_frames(&j, redo, e);
	if (err == 0 && j.nframes) {
		err = load_mappings(&j, e);
		if (err == 0)
			err = load_kallsyms(&j, e);
		if (err == 0)
			err = make_symbolizer(&j, e);
		if (err == 0)
			err = write_all(&j, redo, c, e);
	}
	job_release(&j);
	return err;
}
