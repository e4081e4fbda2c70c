#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "../common/array.h"
#include "../decoder/pt_image.h"
#include "db.h"
#include "pt_names.h"
#include "pt_replay.h"
#include "pt_store.h"

#define PROT_EXEC_BIT 4		/* PROT_EXEC in mapping.prot */

/* One mapping row of the process being decoded; path owned. */
struct map_row {
	struct pt_map m;
	char *path;
	int64_t ts;
};

struct replay {
	sqlite3 *db;			/* borrowed */
	const char *path;		/* borrowed */
	int64_t session_id;
	struct pt_clock clock;		/* owned pairs */
	struct pt_flow_config cfg;
	struct pt_image_section_cache *iscache;	/* owned */
	struct page_cache cache;	/* owned: the files libipt read, noted */
	struct pt_names names;		/* owned; also the vDSO image */
	struct pt_store store;
	struct pt_flow_out out;
	/* The process being decoded. */
	int64_t pid;
	struct map_row *maps;		/* owned, by ts */
	size_t nmaps, capmaps, next_map;
	struct pt_space space;
	int space_ready;
	/* The trace being decoded, for its batches of rows. */
	int64_t trace_id;
	uint32_t tid;
	size_t seq;
	struct errmsg *e;
};

/* Rows held in memory before they are written: a megabyte of busy trace
 * makes a few hundred thousand. */
#define REPLAY_BATCH_ROWS 65536

static int fail(struct replay *r, int rc, struct errmsg *e)
{
	return db_fail(r->db, rc, r->path, "cannot decode Intel PT in", e);
}

static int nomem(struct errmsg *e)
{
	return errmsg_set(e, ENOMEM, "out of memory while decoding Intel PT");
}

/* ---- what the session recorded -------------------------------------- */

static int load_clock(struct replay *r, struct errmsg *e)
{
	sqlite3_stmt *st = NULL;
	struct pt_tsc_conv conv;
	int rc, err = 0;

	rc = sqlite3_prepare_v2(r->db, "SELECT time_zero, time_mult, time_shift,"
				" time_cycles, time_mask, cpu_family, cpu_model,"
				" cpu_stepping, tsc_art_num, tsc_art_den,"
				" max_nonturbo_ratio, mtc_period FROM pt_clock"
				" WHERE session_id = ?", -1, &st, NULL);
	if (rc != SQLITE_OK)
		return fail(r, rc, e);
	sqlite3_bind_int64(st, 1, r->session_id);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW) {
		memset(&conv, 0, sizeof(conv));
		conv.time_zero = (uint64_t)sqlite3_column_int64(st, 0);
		conv.time_mult = (uint32_t)sqlite3_column_int64(st, 1);
		conv.time_shift = (uint16_t)sqlite3_column_int64(st, 2);
		conv.cap_short = sqlite3_column_type(st, 3) != SQLITE_NULL;
		conv.time_cycles = (uint64_t)sqlite3_column_int64(st, 3);
		conv.time_mask = (uint64_t)sqlite3_column_int64(st, 4);
		pt_clock_init(&r->clock, &conv);
		if (sqlite3_column_type(st, 5) != SQLITE_NULL) {
			r->cfg.cpu.vendor = pcv_intel;
			r->cfg.cpu.family = (uint16_t)sqlite3_column_int(st, 5);
			r->cfg.cpu.model = (uint8_t)sqlite3_column_int(st, 6);
			r->cfg.cpu.stepping = (uint8_t)sqlite3_column_int(st, 7);
		}
		/* CPUID 0x15: eax the denominator, ebx the numerator. */
		r->cfg.cpuid_0x15_ebx = (uint32_t)sqlite3_column_int64(st, 8);
		r->cfg.cpuid_0x15_eax = (uint32_t)sqlite3_column_int64(st, 9);
		r->cfg.nom_freq = (uint8_t)sqlite3_column_int(st, 10);
		r->cfg.mtc_freq = (uint8_t)sqlite3_column_int(st, 11);
	} else if (rc == SQLITE_DONE) {
		err = errmsg_set(e, ENOENT, "session %lld of '%s' has no Intel PT "
				 "trace: it was recorded without --pt",
				 (long long)r->session_id, r->path);
	} else {
		err = fail(r, rc, e);
	}
	sqlite3_finalize(st);
	return err;
}

static int load_pairs(struct replay *r, struct errmsg *e)
{
	sqlite3_stmt *st = NULL;
	int rc;

	rc = sqlite3_prepare_v2(r->db, "SELECT perf_ns, mono_ns, uncertainty_ns"
				" FROM pt_calibration WHERE session_id = ?"
				" ORDER BY perf_ns", -1, &st, NULL);
	if (rc != SQLITE_OK)
		return fail(r, rc, e);
	sqlite3_bind_int64(st, 1, r->session_id);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		struct pt_calib_pair p = {
			(uint64_t)sqlite3_column_int64(st, 0),
			(uint64_t)sqlite3_column_int64(st, 1),
			(uint64_t)sqlite3_column_int64(st, 2),
		};

		/* A pair that contradicts its neighbours was refused when
		 * recorded too; -EINVAL leaves it out the same way. */
		if (pt_clock_add(&r->clock, &p) == -ENOMEM) {
			sqlite3_finalize(st);
			return nomem(e);
		}
	}
	sqlite3_finalize(st);
	return rc == SQLITE_DONE ? 0 : fail(r, rc, e);
}

/* ---- one process ---------------------------------------------------- */

static void clear_process(struct replay *r)
{
	for (size_t i = 0; i < r->nmaps; i++)
		free(r->maps[i].path);
	r->nmaps = r->next_map = 0;
	if (r->space_ready)
		pt_space_release(&r->space);
	r->space_ready = 0;
}

static char *column_dup(sqlite3_stmt *st, int col)
{
	const unsigned char *s = sqlite3_column_text(st, col);

	return s ? strdup((const char *)s) : NULL;
}

/* pid's mapping rows, in time order, into r->maps. */
static int load_maps(struct replay *r, struct errmsg *e)
{
	sqlite3_stmt *st = NULL;
	int rc, err = 0;

	rc = sqlite3_prepare_v2(r->db, "SELECT start_addr, end_addr, pgoff, path,"
				" prot, ts FROM mapping WHERE session_id = ? AND"
				" pid = ? ORDER BY ts, rowid", -1, &st, NULL);
	if (rc != SQLITE_OK)
		return fail(r, rc, e);
	sqlite3_bind_int64(st, 1, r->session_id);
	sqlite3_bind_int64(st, 2, r->pid);
	while (err == 0 && (rc = sqlite3_step(st)) == SQLITE_ROW) {
		struct map_row *m;

		if (ARRAY_RESERVE(r->maps, r->capmaps, r->nmaps + 1) < 0) {
			err = nomem(e);
			break;
		}
		m = &r->maps[r->nmaps];
		memset(m, 0, sizeof(*m));
		m->m.start = (uint64_t)sqlite3_column_int64(st, 0);
		m->m.len = (uint64_t)sqlite3_column_int64(st, 1) - m->m.start;
		m->m.pgoff = (uint64_t)sqlite3_column_int64(st, 2);
		m->path = column_dup(st, 3);
		m->m.exec = sqlite3_column_type(st, 4) == SQLITE_NULL ||
			    (sqlite3_column_int(st, 4) & PROT_EXEC_BIT);
		m->ts = sqlite3_column_int64(st, 5);
		m->m.path = m->path;
		r->nmaps++;
		if (!m->path)
			err = nomem(e);
	}
	if (err == 0 && rc != SQLITE_DONE)
		err = fail(r, rc, e);
	sqlite3_finalize(st);
	return err;
}

static int start_process(struct replay *r, int64_t pid, struct errmsg *e)
{
	int err;

	clear_process(r);
	r->pid = pid;
	if (pt_space_init(&r->space, r->iscache, r->names.vdso,
			  r->names.vdso_len) < 0)
		return nomem(e);
	r->space.cache = &r->cache;
	r->space_ready = 1;
	err = load_maps(r, e);
	if (err == 0)
		err = pt_names_process(&r->names, r->db, r->path, r->session_id,
				       pid, e);
	return err;
}

/* The mappings stored up to ts into the image, in their order. */
static int advance_image(struct replay *r, int64_t ts, struct errmsg *e)
{
	while (r->next_map < r->nmaps && r->maps[r->next_map].ts <= ts) {
		if (pt_space_add(&r->space, &r->maps[r->next_map].m) < 0)
			return nomem(e);
		r->next_map++;
	}
	return 0;
}

/* The function holding addr in the current process. */
static const char *name_of(void *ctx, uint64_t addr)
{
	const struct pt_name *n = pt_names_lookup(&((struct replay *)ctx)->names,
						  addr, 0);

	return n ? n->function : NULL;
}

/* ---- the traces ----------------------------------------------------- */

/* A batch of the trace's rows (pt_flow_out's flush). */
static int store_batch(void *ctx, struct pt_flow_out *o)
{
	struct replay *r = ctx;
	int err = pt_store_flow(&r->store, r->trace_id, r->tid, r->seq, o,
				name_of, r, r->e);

	r->seq += o->nrows;
	return err;
}

static int decode_one(struct replay *r, sqlite3_stmt *st,
		      struct pt_replay_stats *stats, struct errmsg *e)
{
	int64_t pid = sqlite3_column_int64(st, 1);
	int64_t ts = sqlite3_column_int64(st, 3);
	const uint8_t *data = sqlite3_column_blob(st, 4);
	size_t len = (size_t)sqlite3_column_bytes(st, 4);
	struct pt_flow_stats before = r->out.st;
	int err = 0;

	r->trace_id = sqlite3_column_int64(st, 0);
	r->tid = (uint32_t)sqlite3_column_int64(st, 2);
	r->seq = 0;
	r->e = e;
	if (!r->space_ready || pid != r->pid)
		err = start_process(r, pid, e);
	if (err == 0)
		err = advance_image(r, ts, e);
	pt_flow_out_reset(&r->out);
	if (err == 0) {
		err = pt_flow_decode(&r->cfg, &r->space, data, len, &r->out);
		if (err == -ENOMEM)
			err = nomem(e);
	}
	if (err == 0)
		err = store_batch(r, &r->out);
	if (err == 0 && r->out.flushed)
		err = pt_store_shift_depth(&r->store, r->trace_id, -r->out.min_depth, e);
	stats->traces++;
	stats->bytes += len;
	stats->rows += r->out.st.rows - before.rows;
	stats->gaps += r->out.st.gaps - before.gaps;
	stats->bytes_unsynced += r->out.st.bytes_unsynced - before.bytes_unsynced;
	return err;
}

static int decode_all(struct replay *r, struct pt_replay_stats *stats,
		      struct errmsg *e)
{
	sqlite3_stmt *st = NULL;
	int rc, err = 0;

	rc = sqlite3_prepare_v2(r->db, "SELECT trace_id, pid, tid, ts, data FROM"
				" pt_trace WHERE session_id = ? ORDER BY pid, ts,"
				" trace_id", -1, &st, NULL);
	if (rc != SQLITE_OK)
		return fail(r, rc, e);
	sqlite3_bind_int64(st, 1, r->session_id);
	while (err == 0 && (rc = sqlite3_step(st)) == SQLITE_ROW)
		err = decode_one(r, st, stats, e);
	if (err == 0 && rc != SQLITE_DONE)
		err = fail(r, rc, e);
	sqlite3_finalize(st);
	return err;
}

/* The rows of an earlier decode go: a replay replaces them. */
static int delete_decoded(struct replay *r, struct errmsg *e)
{
	static const char *const sql[] = {
		"DELETE FROM pt_call WHERE session_id = ?",
		"DELETE FROM pt_gap WHERE session_id = ? AND trace_id IS NOT NULL",
	};
	int err = 0;

	for (size_t i = 0; i < sizeof(sql) / sizeof(sql[0]) && err == 0; i++) {
		sqlite3_stmt *st = NULL;
		int rc = sqlite3_prepare_v2(r->db, sql[i], -1, &st, NULL);

		if (rc == SQLITE_OK) {
			sqlite3_bind_int64(st, 1, r->session_id);
			rc = sqlite3_step(st);
		}
		sqlite3_finalize(st);
		if (rc != SQLITE_DONE)
			err = fail(r, rc, e);
	}
	return err;
}

static int setup(struct replay *r, const char *debuginfo_path,
		 struct errmsg *e)
{
	int err = load_clock(r, e);

	if (err == 0)
		err = load_pairs(r, e);
	r->cfg.clock = &r->clock;
	r->iscache = err == 0 ? pt_iscache_alloc(NULL) : NULL;
	if (err == 0 && !r->iscache)
		err = nomem(e);
	if (err == 0)
		err = pt_names_open(&r->names, r->db, r->path, r->session_id,
				    debuginfo_path, e);
	if (err == 0)
		err = pt_store_begin(&r->store, r->db, r->path, r->session_id, NULL, e);
	return err;
}

int pt_replay_session(sqlite3 *db, const char *path, int64_t session_id,
		      const char *debuginfo_path, struct pt_replay_stats *st,
		      struct errmsg *e)
{
	struct replay r;
	int err, rc;

	memset(&r, 0, sizeof(r));
	memset(st, 0, sizeof(*st));
	page_cache_init(&r.cache);
	r.db = db;
	r.path = path;
	r.session_id = session_id;
	pt_clock_init(&r.clock, NULL);
	pt_flow_out_init(&r.out);
	r.out.flush = store_batch;
	r.out.flush_ctx = &r;
	r.out.flush_rows = REPLAY_BATCH_ROWS;
	err = setup(&r, debuginfo_path, e);
	rc = err == 0 ? sqlite3_exec(db, "BEGIN", NULL, NULL, NULL) : SQLITE_OK;
	if (rc != SQLITE_OK)
		err = fail(&r, rc, e);
	if (err == 0)
		err = delete_decoded(&r, e);
	if (err == 0)
		err = decode_all(&r, st, e);
	if (rc == SQLITE_OK && !sqlite3_get_autocommit(db)) {
		rc = sqlite3_exec(db, err == 0 ? "COMMIT" : "ROLLBACK", NULL, NULL, NULL);
		if (err == 0 && rc != SQLITE_OK)
			err = fail(&r, rc, e);
	}
	clear_process(&r);
	free(r.maps);
	pt_store_release(&r.store);
	pt_flow_out_release(&r.out);
	pt_names_close(&r.names);
	if (r.iscache)
		pt_iscache_free(r.iscache);
	/* libipt has unmapped the files: what it read can be dropped. */
	page_cache_release(&r.cache);
	pt_clock_release(&r.clock);
	return err;
}
