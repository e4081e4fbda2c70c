#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "../common/array.h"
#include "db.h"
#include "loader.h"
#include "pt_store.h"

/* Rows a transaction pt_store opened holds before it commits one: the
 * loader's batch size, for the same reason. */
#define PT_STORE_BATCH LOADER_BATCH_ROWS

static int fail(struct pt_store *s, int rc, struct errmsg *e)
{
	return db_fail(s->db, rc, s->path, "cannot write", e);
}

static int prepare(struct pt_store *s, sqlite3_stmt **st, const char *sql,
		   struct errmsg *e)
{
	int rc = sqlite3_prepare_v3(s->db, sql, -1, SQLITE_PREPARE_PERSISTENT,
				    st, NULL);

	return rc == SQLITE_OK ? 0 : fail(s, rc, e);
}

static int step(struct pt_store *s, sqlite3_stmt *st, struct errmsg *e)
{
	int rc = sqlite3_step(st);

	sqlite3_reset(st);
	sqlite3_clear_bindings(st);
	return rc == SQLITE_DONE ? 0 : fail(s, rc, e);
}

static void bind_u64(sqlite3_stmt *st, int i, uint64_t v)
{
	sqlite3_bind_int64(st, i, (sqlite3_int64)v);
}

/* ---- wall clock ---------------------------------------------------- */

/* A time of the recording as a stored ts: the session's clock map, the
 * same conversion as every row the loader writes (decoder/clock_map.h). */
static uint64_t wall_ts(struct pt_store *s, uint64_t mono_ns)
{
	return s->map->n ? clock_map_realtime(s->map, mono_ns) : mono_ns;
}

/* The session's clock_anchor rows into s->own_map, in time order: the
 * map then gives every time the ts the recording gave it. */
static int load_anchors(struct pt_store *s, struct errmsg *e)
{
	sqlite3_stmt *st = NULL;
	int rc;

	rc = sqlite3_prepare_v2(s->db,
		"SELECT mono_ns, realtime_ns, uncertainty_ns FROM clock_anchor"
		" WHERE session_id = ? ORDER BY mono_ns", -1, &st, NULL);
	if (rc != SQLITE_OK)
		return fail(s, rc, e);
	sqlite3_bind_int64(st, 1, s->session_id);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		struct clock_anchor a = {
			(uint64_t)sqlite3_column_int64(st, 0),
			(uint64_t)sqlite3_column_int64(st, 1),
			(uint64_t)sqlite3_column_int64(st, 2),
		};
		struct clock_step step;

		if (clock_map_add(&s->own_map, &a, &step) == -ENOMEM) {
			sqlite3_finalize(st);
			return errmsg_set(e, ENOMEM, "out of memory");
		}
	}
	sqlite3_finalize(st);
	return rc == SQLITE_DONE ? 0 : fail(s, rc, e);
}

/* The next trace_id after the session's stored ones. */
static int load_next_id(struct pt_store *s, struct errmsg *e)
{
	sqlite3_stmt *st = NULL;
	int rc = sqlite3_prepare_v2(s->db, "SELECT coalesce(max(trace_id), 0) + 1"
				    " FROM pt_trace WHERE session_id = ?", -1, &st, NULL);

	if (rc != SQLITE_OK)
		return fail(s, rc, e);
	sqlite3_bind_int64(st, 1, s->session_id);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW)
		s->next_trace_id = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	return rc == SQLITE_ROW ? 0 : fail(s, rc, e);
}

int pt_store_begin(struct pt_store *s, sqlite3 *db, const char *path,
		   int64_t session_id, struct clock_map *map, struct errmsg *e)
{
	int err;

	memset(s, 0, sizeof(*s));
	s->db = db;
	s->path = path;
	s->session_id = session_id;
	clock_map_init(&s->own_map);
	s->map = map ? map : &s->own_map;
	err = prepare(s, &s->trace, "INSERT INTO pt_trace (session_id, trace_id,"
		      " pid, tid, cpu, trigger, ts, mono_ns, dur, fault_ts, bytes, data)"
		      " VALUES (?,?,?,?,?,?,?,?,?,?,?,?)", e);
	if (err == 0)
		err = prepare(s, &s->call, "INSERT INTO pt_call (session_id,"
			      " trace_id, seq, tid, ts, depth, kind, from_addr, to_addr,"
			      " symbol) VALUES (?,?,?,?,?,?,?,?,?,?)", e);
	if (err == 0)
		err = prepare(s, &s->gap, "INSERT INTO pt_gap (session_id, trace_id,"
			      " tid, cpu, ts, dur, reason, offset, ip, message)"
			      " VALUES (?,?,?,?,?,?,?,?,?,?)", e);
	if (err == 0 && !map)
		err = load_anchors(s, e);
	if (err == 0)
		err = load_next_id(s, e);
	return err;
}

/* ---- transactions ---------------------------------------------------- */

/* Inside the open transaction, or one of pt_store's own. */
static int begin_if_needed(struct pt_store *s, struct errmsg *e)
{
	int rc;

	if (!sqlite3_get_autocommit(s->db))
		return 0;
	rc = sqlite3_exec(s->db, "BEGIN", NULL, NULL, NULL);
	if (rc != SQLITE_OK)
		return fail(s, rc, e);
	s->own_txn = 1;
	s->txn_rows = 0;
	return 0;
}

int pt_store_commit(struct pt_store *s, struct errmsg *e)
{
	int rc;

	if (!s->own_txn)
		return 0;
	s->own_txn = 0;
	rc = sqlite3_exec(s->db, "COMMIT", NULL, NULL, NULL);
	if (rc != SQLITE_OK) {
		int err = fail(s, rc, e);

		sqlite3_exec(s->db, "ROLLBACK", NULL, NULL, NULL);
		return err;
	}
	return 0;
}

static int row_done(struct pt_store *s, struct errmsg *e)
{
	if (s->own_txn && ++s->txn_rows >= PT_STORE_BATCH)
		return pt_store_commit(s, e);
	return 0;
}

/* ---- rows ------------------------------------------------------------ */

int pt_store_clock(struct pt_store *s, const struct pt_session_info *info,
		   const struct pt_clock *c, struct errmsg *e)
{
	sqlite3_stmt *st = NULL;
	int err = begin_if_needed(s, e);

	if (err == 0)
		err = prepare(s, &st, "INSERT OR REPLACE INTO pt_clock (session_id,"
			      " mode, pmu_type, config, snapshot_bytes, aux_bytes,"
			      " time_zero, time_mult, time_shift, time_cycles, time_mask,"
			      " cpu_family, cpu_model, cpu_stepping, tsc_art_num,"
			      " tsc_art_den, max_nonturbo_ratio, mtc_period)"
			      " VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)", e);
	if (err == 0) {
		sqlite3_bind_int64(st, 1, s->session_id);
		sqlite3_bind_text(st, 2, info->mode, -1, SQLITE_STATIC);
		sqlite3_bind_int64(st, 3, info->pmu_type);
		bind_u64(st, 4, info->config);
		bind_u64(st, 5, info->snapshot_bytes);
		bind_u64(st, 6, info->aux_bytes);
		bind_u64(st, 7, c->tsc.time_zero);
		sqlite3_bind_int64(st, 8, c->tsc.time_mult);
		sqlite3_bind_int64(st, 9, c->tsc.time_shift);
		if (c->tsc.cap_short) {
			bind_u64(st, 10, c->tsc.time_cycles);
			bind_u64(st, 11, c->tsc.time_mask);
		}
		if (info->cpu_family) {
			sqlite3_bind_int64(st, 12, info->cpu_family);
			sqlite3_bind_int64(st, 13, info->cpu_model);
			sqlite3_bind_int64(st, 14, info->cpu_stepping);
		}
		if (info->tsc_art_den) {
			sqlite3_bind_int64(st, 15, info->tsc_art_num);
			sqlite3_bind_int64(st, 16, info->tsc_art_den);
		}
		if (info->max_nonturbo_ratio)
			sqlite3_bind_int64(st, 17, info->max_nonturbo_ratio);
		sqlite3_bind_int64(st, 18, info->mtc_period);
		err = step(s, st, e);
	}
	sqlite3_finalize(st);
	st = NULL;
	if (err == 0)
		err = prepare(s, &st, "INSERT OR IGNORE INTO pt_calibration (session_id,"
			      " perf_ns, mono_ns, uncertainty_ns) VALUES (?,?,?,?)", e);
	for (size_t i = 0; err == 0 && i < c->n; i++) {
		sqlite3_bind_int64(st, 1, s->session_id);
		bind_u64(st, 2, c->pairs[i].perf_ns);
		bind_u64(st, 3, c->pairs[i].mono_ns);
		bind_u64(st, 4, c->pairs[i].uncertainty_ns);
		err = step(s, st, e);
	}
	sqlite3_finalize(st);
	return err;
}

int pt_store_vdso(struct pt_store *s, const void *image, size_t len,
		  struct errmsg *e)
{
	sqlite3_stmt *st = NULL;
	int err = begin_if_needed(s, e);

	if (err == 0)
		err = prepare(s, &st, "INSERT OR REPLACE INTO pt_vdso (session_id,"
			      " image) VALUES (?,?)", e);
	if (err == 0) {
		sqlite3_bind_int64(st, 1, s->session_id);
		sqlite3_bind_blob64(st, 2, image, len, SQLITE_STATIC);
		err = step(s, st, e);
	}
	sqlite3_finalize(st);
	return err;
}

int pt_store_trace(struct pt_store *s, const struct pt_trace *t,
		   int64_t *trace_id, struct errmsg *e)
{
	sqlite3_stmt *st = s->trace;
	int err = begin_if_needed(s, e);

	if (err < 0)
		return err;
	sqlite3_bind_int64(st, 1, s->session_id);
	sqlite3_bind_int64(st, 2, s->next_trace_id);
	sqlite3_bind_int64(st, 3, t->pid);
	sqlite3_bind_int64(st, 4, t->tid);
	if (t->cpu >= 0)
		sqlite3_bind_int64(st, 5, t->cpu);
	sqlite3_bind_text(st, 6, pt_trigger_name(t->trigger), -1, SQLITE_STATIC);
	bind_u64(st, 7, wall_ts(s, t->trigger_mono_ns));
	bind_u64(st, 8, t->trigger_mono_ns);
	if (t->trigger_dur_ns)
		bind_u64(st, 9, t->trigger_dur_ns);
	if (t->trigger == PT_TRIG_FAULT && t->fault_mono_ns)
		bind_u64(st, 10, wall_ts(s, t->fault_mono_ns));
	bind_u64(st, 11, t->len);
	sqlite3_bind_blob64(st, 12, t->len ? (const void *)t->bytes : "", t->len,
			    SQLITE_STATIC);
	err = step(s, st, e);
	if (err == 0) {
		*trace_id = s->next_trace_id++;
		s->traces++;
		err = row_done(s, e);
	}
	return err;
}

/* The address a row's symbol names: where a call, jump or enable went;
 * what a return or disable left. */
static uint64_t named_addr(const struct pt_row *r)
{
	if (r->kind == PT_ROW_RETURN || r->kind == PT_ROW_DISABLE)
		return r->from;
	return r->to;
}

static int store_row(struct pt_store *s, int64_t trace_id, uint32_t tid,
		     size_t seq, const struct pt_row *r, const char *sym,
		     struct errmsg *e)
{
	sqlite3_stmt *st = s->call;
	/* Every row: a batch pt_store committed may have ended the
	 * transaction in the middle of a trace's rows. */
	int err = begin_if_needed(s, e);

	if (err < 0)
		return err;
	sqlite3_bind_int64(st, 1, s->session_id);
	sqlite3_bind_int64(st, 2, trace_id);
	sqlite3_bind_int64(st, 3, (sqlite3_int64)seq);
	sqlite3_bind_int64(st, 4, tid);
	if (r->has_time)
		bind_u64(st, 5, wall_ts(s, r->mono_ns));
	sqlite3_bind_int(st, 6, r->depth);
	sqlite3_bind_text(st, 7, pt_row_kind_name(r->kind), -1, SQLITE_STATIC);
	if (r->from)
		bind_u64(st, 8, r->from);
	if (r->to)
		bind_u64(st, 9, r->to);
	if (sym)
		sqlite3_bind_text(st, 10, sym, -1, SQLITE_TRANSIENT);
	err = step(s, st, e);
	if (err == 0) {
		s->calls++;
		err = row_done(s, e);
	}
	return err;
}

int pt_store_flow(struct pt_store *s, int64_t trace_id, uint32_t tid,
		  size_t seq_base, const struct pt_flow_out *o,
		  const char *(*name)(void *ctx, uint64_t addr), void *ctx,
		  struct errmsg *e)
{
	int err = begin_if_needed(s, e);

	for (size_t i = 0; err == 0 && i < o->nrows; i++) {
		uint64_t at = named_addr(&o->rows[i]);
		const char *sym = name && at ? name(ctx, at) : NULL;

		err = store_row(s, trace_id, tid, seq_base + i, &o->rows[i], sym, e);
	}
	for (size_t i = 0; err == 0 && i < o->ngaps; i++)
		err = pt_store_gap(s, trace_id, tid, -1, &o->gaps[i], e);
	return err;
}

int pt_store_gap(struct pt_store *s, int64_t trace_id, int64_t tid, int cpu,
		 const struct pt_gap *g, struct errmsg *e)
{
	sqlite3_stmt *st = s->gap;
	int err = begin_if_needed(s, e);

	if (err < 0)
		return err;
	sqlite3_bind_int64(st, 1, s->session_id);
	if (trace_id > 0)
		sqlite3_bind_int64(st, 2, trace_id);
	if (tid >= 0)
		sqlite3_bind_int64(st, 3, tid);
	if (cpu >= 0)
		sqlite3_bind_int(st, 4, cpu);
	if (g->has_time)
		bind_u64(st, 5, wall_ts(s, g->mono_ns));
	if (g->dur_ns)
		bind_u64(st, 6, g->dur_ns);
	sqlite3_bind_text(st, 7, pt_gap_reason_name(g->reason), -1, SQLITE_STATIC);
	bind_u64(st, 8, g->offset);
	if (g->ip)
		bind_u64(st, 9, g->ip);
	sqlite3_bind_text(st, 10, g->message, -1, SQLITE_STATIC);
	err = step(s, st, e);
	if (err == 0) {
		s->gaps++;
		err = row_done(s, e);
	}
	return err;
}

int pt_store_shift_depth(struct pt_store *s, int64_t trace_id, int32_t delta,
			 struct errmsg *e)
{
	sqlite3_stmt *st = NULL;
	int err;

	if (!delta)
		return 0;
	err = prepare(s, &st, "UPDATE pt_call SET depth = depth + ? WHERE"
		      " session_id = ? AND trace_id = ?", e);
	if (err == 0) {
		sqlite3_bind_int(st, 1, delta);
		sqlite3_bind_int64(st, 2, s->session_id);
		sqlite3_bind_int64(st, 3, trace_id);
		err = step(s, st, e);
	}
	sqlite3_finalize(st);
	return err;
}

/* The tolerance of pt_store_link_faults, ns: the loader's and pt_store's
 * anchors, read microseconds apart, put one monotonic time on realtime
 * within nanoseconds of each other. */
#define PT_LINK_TOLERANCE_NS 10000

/* The entry ts of tid's major fault that ended nearest ts, within the
 * tolerance: 1 with *fault_ts, 0 when none did. */
static int nearest_fault(struct pt_store *s, sqlite3_stmt *st, int64_t tid,
			 int64_t ts, int64_t *fault_ts, struct errmsg *e)
{
	int rc, found = 0;

	sqlite3_bind_int64(st, 1, s->session_id);
	sqlite3_bind_int64(st, 2, tid);
	sqlite3_bind_int64(st, 3, ts);
	sqlite3_bind_int64(st, 4, PT_LINK_TOLERANCE_NS);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW) {
		*fault_ts = sqlite3_column_int64(st, 0);
		found = 1;
	}
	sqlite3_reset(st);
	return rc == SQLITE_ROW || rc == SQLITE_DONE ? found : fail(s, rc, e);
}

int pt_store_link_faults(struct pt_store *s, struct errmsg *e)
{
	sqlite3_stmt *traces = NULL, *fault = NULL, *link = NULL;
	int rc, err = prepare(s, &traces, "SELECT trace_id, tid, ts FROM pt_trace"
			      " WHERE session_id = ? AND trigger = 'fault' AND"
			      " fault_ts IS NULL", e);

	if (err == 0)
		err = prepare(s, &fault, "SELECT ts FROM fault WHERE session_id = ?1"
			      " AND tid = ?2 AND kind = 'major' AND dur IS NOT NULL"
			      " AND abs(ts + dur - ?3) <= ?4"
			      " ORDER BY abs(ts + dur - ?3) LIMIT 1", e);
	if (err == 0)
		err = prepare(s, &link, "UPDATE pt_trace SET fault_ts = ? WHERE"
			      " session_id = ? AND trace_id = ?", e);
	if (err == 0)
		err = begin_if_needed(s, e);
	if (err == 0)
		sqlite3_bind_int64(traces, 1, s->session_id);
	while (err == 0 && (rc = sqlite3_step(traces)) == SQLITE_ROW) {
		int64_t fault_ts = 0;
		int found = nearest_fault(s, fault, sqlite3_column_int64(traces, 1),
					  sqlite3_column_int64(traces, 2), &fault_ts, e);

		if (found < 0) {
			err = found;
			break;
		}
		if (!found)
			continue;
		sqlite3_bind_int64(link, 1, fault_ts);
		sqlite3_bind_int64(link, 2, s->session_id);
		sqlite3_bind_int64(link, 3, sqlite3_column_int64(traces, 0));
		err = step(s, link, e);
	}
	if (err == 0 && rc != SQLITE_DONE)
		err = fail(s, rc, e);
	sqlite3_finalize(traces);
	sqlite3_finalize(fault);
	sqlite3_finalize(link);
	if (err == 0)
		err = pt_store_commit(s, e);
	return err;
}

void pt_store_release(struct pt_store *s)
{
	sqlite3_finalize(s->trace);
	sqlite3_finalize(s->call);
	sqlite3_finalize(s->gap);
	clock_map_release(&s->own_map);
	memset(s, 0, sizeof(*s));
}
