#include <assert.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "db.h"
#include "symbol_store.h"

#define PROT_EXEC_BIT 4		/* PROT_EXEC in mapping.prot */

static int fail(const struct symbol_store *s, int rc, struct errmsg *e)
{
	return db_fail(s->db, rc, s->path, "cannot symbolize", e);
}

static int nomem(struct errmsg *e)
{
	return errmsg_set(e, ENOMEM, "out of memory while symbolizing");
}

int symbol_store_session_kernel(const struct symbol_store *s, char **kernel,
				struct errmsg *e)
{
	sqlite3_stmt *st = NULL;
	int rc, err = 0;

	*kernel = NULL;
	rc = sqlite3_prepare_v2(s->db, "SELECT kernel FROM session WHERE session_id = ?",
				-1, &st, NULL);
	if (rc != SQLITE_OK)
		return fail(s, rc, e);
	sqlite3_bind_int64(st, 1, s->session_id);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW) {
		const char *k = (const char *)sqlite3_column_text(st, 0);

		if (k && !(*kernel = strdup(k)))
			err = nomem(e);
	} else if (rc == SQLITE_DONE) {
		err = errmsg_set(e, ENOENT, "no session %lld in '%s'; list them "
				 "with: sqlite3 %s 'SELECT * FROM session_readable'",
				 (long long)s->session_id, s->path, s->path);
	} else {
		err = fail(s, rc, e);
	}
	sqlite3_finalize(st);
	return err;
}

/* The session's mappings. */
static int read_mappings(const struct symbol_store *s, struct sym_input *in,
			 struct errmsg *e)
{
	sqlite3_stmt *st = NULL;
	int rc, err = 0;

	rc = sqlite3_prepare_v2(s->db,
		"SELECT pid, start_addr, end_addr, pgoff, path, build_id, prot,"
		" source = 'mmap', ts FROM mapping WHERE session_id = ?"
		" ORDER BY pid", -1, &st, NULL);
	if (rc != SQLITE_OK)
		return fail(s, rc, e);
	sqlite3_bind_int64(st, 1, s->session_id);
	while (err == 0 && (rc = sqlite3_step(st)) == SQLITE_ROW) {
		/* The strings are SQLite's until the next step: the input
		 * copies them. */
		struct sym_mapping m = {
			.start = (uint64_t)sqlite3_column_int64(st, 1),
			.end = (uint64_t)sqlite3_column_int64(st, 2),
			.pgoff = (uint64_t)sqlite3_column_int64(st, 3),
			.path = (const char *)sqlite3_column_text(st, 4),
			.build_id = (const char *)sqlite3_column_text(st, 5),
			.exec = sqlite3_column_type(st, 6) == SQLITE_NULL ||
				(sqlite3_column_int(st, 6) & PROT_EXEC_BIT),
			.from_mmap = sqlite3_column_int(st, 7),
			.ts = sqlite3_column_int64(st, 8),
		};

		if (!m.path || (!m.build_id && sqlite3_column_type(st, 5) != SQLITE_NULL) ||
		    sym_input_add_mapping(in, sqlite3_column_int64(st, 0), &m) < 0)
			err = nomem(e);
	}
	if (err == 0 && rc != SQLITE_DONE)
		err = fail(s, rc, e);
	sqlite3_finalize(st);
	return err;
}

/* The frames to do, kernel ones last, each process's by address. */
static int read_frames(const struct symbol_store *s, struct sym_input *in,
		       struct errmsg *e)
{
	sqlite3_stmt *st = NULL;
	int rc, err = 0;

	rc = sqlite3_prepare_v2(s->db,
		"SELECT frame_id, pid, addr, kernel, return_addr FROM frame"
		" WHERE session_id = ?1 AND (?2 OR status IS NULL)"
		" ORDER BY kernel, pid, addr", -1, &st, NULL);
	if (rc != SQLITE_OK)
		return fail(s, rc, e);
	sqlite3_bind_int64(st, 1, s->session_id);
	sqlite3_bind_int(st, 2, s->redo);
	while (err == 0 && (rc = sqlite3_step(st)) == SQLITE_ROW) {
		struct sym_frame f = {
			sqlite3_column_int64(st, 0), sqlite3_column_int64(st, 1),
			(uint64_t)sqlite3_column_int64(st, 2),
			sqlite3_column_int(st, 3), sqlite3_column_int(st, 4) != 0 };

		if (sym_input_add_frame(in, &f) < 0)
			err = nomem(e);
	}
	if (err == 0 && rc != SQLITE_DONE)
		err = fail(s, rc, e);
	sqlite3_finalize(st);
	return err;
}

int symbol_store_read(const struct symbol_store *s, struct sym_input *in,
		      struct errmsg *e)
{
	int err = read_frames(s, in, e);

	/* No frames: no job, and no mappings to read for it. */
	if (err == 0 && in->nframes)
		err = read_mappings(s, in, e);
	return err;
}

/* ---- writing --------------------------------------------------------- */

struct writer {
	const struct symbol_store *s;	/* borrowed */
	sqlite3_stmt *update, *insert;	/* owned */
};

static int bind_text_or_null(sqlite3_stmt *st, int col, const char *text)
{
	return text ? sqlite3_bind_text(st, col, text, -1, SQLITE_STATIC)
		    : sqlite3_bind_null(st, col);
}

static int run_stmt(const struct writer *w, sqlite3_stmt *st, struct errmsg *e)
{
	int rc = sqlite3_step(st);

	sqlite3_reset(st);
	sqlite3_clear_bindings(st);
	return rc == SQLITE_DONE ? 0 : fail(w->s, rc, e);
}

static int store_result(const struct writer *w, const struct sym_frame *f,
			const struct sym_result *r, struct errmsg *e)
{
	sqlite3_stmt *u = w->update, *in = w->insert;
	int err;

	sqlite3_bind_int64(u, 1, w->s->session_id);
	sqlite3_bind_int64(u, 2, f->frame_id);
	bind_text_or_null(u, 3, r->dso);
	if (r->has_dso_offset)
		sqlite3_bind_int64(u, 4, (int64_t)r->dso_offset);
	bind_text_or_null(u, 5, r->build_id);
	sqlite3_bind_text(u, 6, sym_status_name(r->status), -1, SQLITE_STATIC);
	if ((err = run_stmt(w, u, e)) < 0)
		return err;
	for (size_t i = 0; i < r->nfuncs; i++) {
		const struct sym_func *fn = &r->funcs[i];

		sqlite3_bind_int64(in, 1, w->s->session_id);
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
		if ((err = run_stmt(w, in, e)) < 0)
			return err;
	}
	return 0;
}

/* Inside the transaction: the statements, the old rows gone with redo,
 * then every result in the job's order. */
static int write_rows(struct writer *w, const struct sym_input *in,
		      const struct symbolize_job *j, struct errmsg *e)
{
	sqlite3 *db = w->s->db;
	int rc, err = 0;

	rc = sqlite3_prepare_v2(db,
		"UPDATE frame SET dso = ?3, dso_offset = ?4, build_id = ?5,"
		" status = ?6 WHERE session_id = ?1 AND frame_id = ?2",
		-1, &w->update, NULL);
	if (rc == SQLITE_OK)
		rc = sqlite3_prepare_v2(db,
			"INSERT INTO symbol (session_id, frame_id, idx, function,"
			" offset, size, file, line, inlined)"
			" VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)", -1, &w->insert, NULL);
	if (rc == SQLITE_OK && w->s->redo) {
		char sql[96];

		snprintf(sql, sizeof(sql), "DELETE FROM symbol WHERE session_id = %lld",
			 (long long)w->s->session_id);
		rc = sqlite3_exec(db, sql, NULL, NULL, NULL);
	}
	if (rc != SQLITE_OK)
		return fail(w->s, rc, e);
	for (size_t i = 0; i < in->nframes && err == 0; i++) {
		struct sym_result r;

		symbolize_job_result(j, i, &r);
		err = store_result(w, &in->frames[i], &r, e);
	}
	return err;
}

/* The page cache for the symbolizing transaction, in KiB.  Its updates
 * and inserts land in frame_id order on tables ordered by address, all
 * over both tables: with SQLite's default 2 MiB, 200k frames spent most
 * of their time re-reading pages (bench/schema/symbolize_rate.c). */
#define SYMBOLIZE_CACHE_KIB 65536

int symbol_store_write(const struct symbol_store *s, const struct sym_input *in,
		       const struct symbolize_job *j, struct errmsg *e)
{
	struct writer w = { s, NULL, NULL };
	int rc, err, old_cache = db_cache_size(s->db);

	assert(j->nnamed == in->nframes);
	if (old_cache > -SYMBOLIZE_CACHE_KIB)
		db_set_cache_size(s->db, -SYMBOLIZE_CACHE_KIB);
	rc = sqlite3_exec(s->db, "BEGIN IMMEDIATE", NULL, NULL, NULL);
	if (rc != SQLITE_OK) {
		err = fail(s, rc, e);
		db_set_cache_size(s->db, old_cache);
		return err;
	}
	err = write_rows(&w, in, j, e);
	if (err == 0 && (rc = sqlite3_exec(s->db, "COMMIT", NULL, NULL, NULL)) != SQLITE_OK)
		err = fail(s, rc, e);
	if (err < 0)
		sqlite3_exec(s->db, "ROLLBACK", NULL, NULL, NULL);
	sqlite3_finalize(w.update);
	sqlite3_finalize(w.insert);
	db_set_cache_size(s->db, old_cache);
	return err;
}
