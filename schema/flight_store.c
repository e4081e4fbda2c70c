#include <errno.h>

#include "db.h"
#include "flight_store.h"

/* Binds the session id, then text, then v, in order, from the first
 * parameter; the next free parameter's number. */
static int bind_row(struct loader *l, sqlite3_stmt *st, const int64_t *v,
		    size_t n, const char *const *text, size_t ntext)
{
	int k = 1;

	sqlite3_bind_int64(st, k++, l->session_id);
	for (size_t i = 0; i < ntext; i++)
		sqlite3_bind_text(st, k++, text[i], -1, SQLITE_STATIC);
	for (size_t i = 0; i < n; i++)
		sqlite3_bind_int64(st, k++, v[i]);
	return k;
}

/* Steps st (prepared with rc) once and finalizes it. */
static int step_once(struct loader *l, sqlite3_stmt *st, int rc,
		     struct errmsg *e)
{
	if (rc == SQLITE_OK)
		rc = sqlite3_step(st);
	sqlite3_finalize(st);
	if (rc == SQLITE_DONE || rc == SQLITE_OK)
		return 0;
	return db_fail(l->db, rc, l->path, "cannot write", e);
}

/* Runs sql with the values bound in order; a dump writes a few rows, so
 * the statement is prepared each time. */
static int run(struct loader *l, const char *sql, const int64_t *v, size_t n,
	       const char *const *text, size_t ntext, struct errmsg *e)
{
	sqlite3_stmt *st = NULL;
	int rc = sqlite3_prepare_v2(l->db, sql, -1, &st, NULL);

	if (rc == SQLITE_OK)
		bind_row(l, st, v, n, text, ntext);
	return step_once(l, st, rc, e);
}

int flight_tables_check(sqlite3 *db, const char *path, struct errmsg *e)
{
	sqlite3_stmt *st = NULL;
	int n = 0;

	if (sqlite3_prepare_v2(db, "SELECT count(*) FROM sqlite_master WHERE"
			       " type = 'table' AND name IN ('flight_dump',"
			       " 'flight_dump_cpu', 'flight_summary', 'flight_minute',"
			       " 'flight_cost')", -1, &st, NULL) == SQLITE_OK &&
	    sqlite3_step(st) == SQLITE_ROW)
		n = sqlite3_column_int(st, 0);
	sqlite3_finalize(st);
	st = NULL;
	/* block_dropped came after them, in the same schema version. */
	if (n == 5 && sqlite3_prepare_v2(db, "SELECT block_dropped FROM"
					 " flight_dump", -1, &st, NULL) == SQLITE_OK) {
		sqlite3_finalize(st);
		return 0;
	}
	sqlite3_finalize(st);
	return errmsg_set(e, ENOENT, "'%s' was made by a faultline without the "
			  "flight recorder's tables; record --flight into a new "
			  "file", path);
}

int loader_flight_dump(struct loader *l, const struct flight_dump_row *r,
		       struct errmsg *e)
{
	const char *text[] = { r->trigger, r->reason };
	int64_t v[] = {
		(int64_t)clock_map_realtime(l->clock, r->trigger_mono_ns),
		(int64_t)r->before_ns, (int64_t)r->after_ns,
		(int64_t)clock_map_realtime(l->clock, r->window_start_mono_ns),
		(int64_t)clock_map_realtime(l->clock, r->window_end_mono_ns),
		r->cut_short,
		r->whole_from_mono_ns ?
		(int64_t)clock_map_realtime(l->clock, r->whole_from_mono_ns) : 0,
		(int64_t)r->history_bytes, (int64_t)r->history_peak_bytes,
		(int64_t)r->history_dropped_records,
		(int64_t)r->history_dropped_bytes, (int64_t)r->suppressed,
		(int64_t)r->aside_dropped,
		r->block_io ? (int64_t)r->block_dropped : -1,
	};

	sqlite3_stmt *st = NULL;
	int rc = sqlite3_prepare_v2(l->db, "INSERT INTO flight_dump (session_id,"
				    " trigger, reason, trigger_ts, before_ns,"
				    " after_ns, window_start_ts, window_end_ts,"
				    " cut_short, whole_from_ts, history_bytes,"
				    " history_peak_bytes, history_dropped_records,"
				    " history_dropped_bytes, suppressed,"
				    " aside_dropped, block_dropped, metric,"
				    " metric_value, metric_threshold) VALUES"
				    " (?,?,?,?,?,?,?,?,?,nullif(?,0),?,?,?,?,?,?,"
				    "nullif(?,-1),?,?,?)", -1, &st, NULL);

	if (rc == SQLITE_OK) {
		int k = bind_row(l, st, v, sizeof(v) / sizeof(v[0]), text, 2);

		/* Unbound parameters are NULL: the metric's stay so for
		 * the other triggers. */
		if (r->metric) {
			sqlite3_bind_text(st, k, r->metric, -1, SQLITE_STATIC);
			sqlite3_bind_double(st, k + 1, r->metric_value);
			sqlite3_bind_double(st, k + 2, r->metric_threshold);
		}
	}
	return step_once(l, st, rc, e);
}

int loader_flight_cpu(struct loader *l, const struct flight_cpu_row *r,
		      struct errmsg *e)
{
	int64_t v[] = { r->cpu, (int64_t)r->records, (int64_t)r->bytes,
			(int64_t)r->lost_records, (int64_t)r->spool_dropped };

	return run(l, "INSERT INTO flight_dump_cpu (session_id, cpu, records,"
		   " bytes, lost_records, spool_dropped) VALUES (?,?,?,?,?,?)",
		   v, sizeof(v) / sizeof(v[0]), NULL, 0, e);
}

int loader_flight_summary(struct loader *l, const struct flight_summary_row *r,
			  struct errmsg *e)
{
	int64_t v[] = { (int64_t)r->triggers, (int64_t)r->dumps,
			(int64_t)r->suppressed_pending, (int64_t)r->suppressed_rate,
			(int64_t)r->suppressed_disk, (int64_t)r->max_dumps,
			(int64_t)r->period_ns, (int64_t)r->max_disk,
			(int64_t)r->disk_bytes };

	sqlite3_stmt *st = NULL;
	int rc = sqlite3_prepare_v2(l->db, "INSERT INTO flight_summary"
				    " (session_id, triggers, dumps,"
				    " suppressed_pending, suppressed_rate,"
				    " suppressed_disk, max_dumps, period_ns, max_disk,"
				    " disk_bytes, metric_lines, metric_malformed,"
				    " metric_ignored, metric_udp_dropped) VALUES"
				    " (?,?,?,?,?,?,?,?,nullif(?,0),?,?,?,?,?)", -1, &st,
				    NULL);

	if (rc == SQLITE_OK) {
		int k = bind_row(l, st, v, sizeof(v) / sizeof(v[0]), NULL, 0);

		/* Unbound: NULL, without a metric source. */
		if (r->metric_fed) {
			sqlite3_bind_int64(st, k, (int64_t)r->metric_lines);
			sqlite3_bind_int64(st, k + 1, (int64_t)r->metric_malformed);
			sqlite3_bind_int64(st, k + 2, (int64_t)r->metric_ignored);
		}
		if (r->metric_udp)
			sqlite3_bind_int64(st, k + 3, (int64_t)r->metric_udp_dropped);
	}
	return step_once(l, st, rc, e);
}

int loader_flight_minute(struct loader *l, const struct flight_minute_row *rows,
			 size_t n, struct errmsg *e)
{
	sqlite3_stmt *st = NULL;
	int rc = sqlite3_exec(l->db, "BEGIN", NULL, NULL, NULL);

	if (rc == SQLITE_OK)
		rc = sqlite3_prepare_v2(l->db, "INSERT INTO flight_minute"
					" (session_id, minute_ts, tid, kind, lo_ns,"
					" hi_ns, count, max_ns) VALUES"
					" (?,?,?,?,?,?,?,nullif(?,0))", -1, &st, NULL);
	for (size_t i = 0; rc == SQLITE_OK && i < n; i++) {
		const struct flight_minute_row *r = &rows[i];

		sqlite3_bind_int64(st, 1, l->session_id);
		sqlite3_bind_int64(st, 2, r->minute_ts);
		sqlite3_bind_int64(st, 3, r->tid);
		sqlite3_bind_text(st, 4, r->kind, -1, SQLITE_STATIC);
		sqlite3_bind_int64(st, 5, (int64_t)r->lo_ns);
		sqlite3_bind_int64(st, 6, (int64_t)r->hi_ns);
		sqlite3_bind_int64(st, 7, (int64_t)r->count);
		sqlite3_bind_int64(st, 8, (int64_t)r->max_ns);
		rc = sqlite3_step(st);
		sqlite3_reset(st);
		if (rc == SQLITE_DONE)
			rc = SQLITE_OK;
	}
	sqlite3_finalize(st);
	if (rc == SQLITE_OK)
		rc = sqlite3_exec(l->db, "COMMIT", NULL, NULL, NULL);
	if (rc == SQLITE_OK)
		return 0;
	if (!sqlite3_get_autocommit(l->db))
		sqlite3_exec(l->db, "ROLLBACK", NULL, NULL, NULL);
	return db_fail(l->db, rc, l->path, "cannot write", e);
}

int loader_flight_cost(struct loader *l, const struct flight_cost_row *r,
		       struct errmsg *e)
{
	int64_t v[] = { (int64_t)clock_map_realtime(l->clock, r->mono_ns),
			(int64_t)r->user_ns, (int64_t)r->sys_ns,
			(int64_t)r->rss_bytes, (int64_t)r->max_rss_bytes,
			(int64_t)r->history_bytes };

	return run(l, "INSERT INTO flight_cost (session_id, ts, user_ns, sys_ns,"
		   " rss_bytes, max_rss_bytes, history_bytes)"
		   " VALUES (?,?,?,?,?,?,?)", v, sizeof(v) / sizeof(v[0]), NULL,
		   0, e);
}
