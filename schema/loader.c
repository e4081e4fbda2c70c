#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>

#include "../common/array.h"
#include "../common/clock.h"
#include "db.h"
#include "loader.h"

static int fail(struct loader *l, int rc, struct errmsg *e)
{
	if ((rc & 0xff) == SQLITE_FULL)
		return errmsg_set(e, ENOSPC, "disk full writing '%s': free space "
				  "on its filesystem and record again", l->path);
	return db_fail(l->db, rc, l->path, "cannot write", e);
}

static int prepare(struct loader *l, sqlite3_stmt **st, const char *sql,
		   struct errmsg *e)
{
	int rc = sqlite3_prepare_v3(l->db, sql, -1, SQLITE_PREPARE_PERSISTENT,
				    st, NULL);

	return rc == SQLITE_OK ? 0 : fail(l, rc, e);
}

static int prepare_batch(struct loader *l, struct row_batch *b,
			 const char *table, int ncols, struct errmsg *e)
{
	int rc = row_batch_prepare(b, l->db, table, ncols);

	return rc == SQLITE_OK ? 0 : fail(l, rc, e);
}

/* A failed statement may have taken its whole transaction with it
 * (SQLite rolls one back on SQLITE_FULL, SQLITE_IOERR, SQLITE_NOMEM):
 * its rows are then lost, and counted. */
static void note_rollback(struct loader *l)
{
	if (!l->in_txn || !sqlite3_get_autocommit(l->db))
		return;
	l->rows_unwritten += l->batch_rows;
	l->batch_rows = 0;
	l->in_txn = 0;
}

/* Runs a bound statement to completion and resets it for reuse. */
static int step(struct loader *l, sqlite3_stmt *st, struct errmsg *e)
{
	int rc = sqlite3_step(st);

	sqlite3_reset(st);
	if (rc == SQLITE_DONE)
		return 0;
	note_rollback(l);
	return fail(l, rc, e);
}

static int begin_if_needed(struct loader *l, struct errmsg *e)
{
	int rc;

	if (l->in_txn)
		return 0;
	rc = sqlite3_exec(l->db, "BEGIN", NULL, NULL, NULL);
	if (rc != SQLITE_OK)
		return fail(l, rc, e);
	l->in_txn = 1;
	return 0;
}

/* The rows b holds, into the open transaction; those a failure kept
 * out are lost, and counted. */
static int flush_rows(struct loader *l, struct row_batch *b,
		      struct errmsg *e)
{
	uint64_t written = 0, held = b->n;
	int rc = row_batch_flush(b, &written);

	l->rows += written;
	l->batch_rows += written;
	if (rc == SQLITE_DONE)
		return 0;
	l->rows_unwritten += held - written;
	note_rollback(l);
	if (rc == SQLITE_TOOBIG)
		return errmsg_set(e, E2BIG, "cannot write '%s': a text value "
				  "longer than %d bytes", l->path,
				  ROW_BATCH_TEXT - 1);
	return fail(l, rc, e);
}

/* Every batch's held rows; the first failure stops the rest, which
 * are lost and counted. */
static int flush_held(struct loader *l, struct errmsg *e)
{
	struct row_batch *const all[] = { &l->faults, &l->states, &l->ran };
	int err = 0;

	for (size_t i = 0; i < ARRAY_SIZE(all); i++) {
		if (err == 0 && l->in_txn) {
			err = flush_rows(l, all[i], e);
			continue;
		}
		l->rows_unwritten += all[i]->n;
		row_batch_drop(all[i]);
	}
	return err;
}

/* The rows held (to be batched) first: a commit makes all rows taken
 * before it durable.  What a failed flush left in the transaction is
 * still committed. */
int loader_commit(struct loader *l, struct errmsg *e)
{
	int err, rc;

	if (!l->in_txn)
		return 0;
	err = flush_held(l, e);
	if (!l->in_txn)
		return err;	/* the failure rolled it back */
	rc = sqlite3_exec(l->db, "COMMIT", NULL, NULL, NULL);
	if (rc != SQLITE_OK) {
		struct errmsg later;	/* the flush's error comes first */
		int failed;

		errmsg_init(&later);
		failed = fail(l, rc, err ? &later : e);

		sqlite3_exec(l->db, "ROLLBACK", NULL, NULL, NULL);
		l->in_txn = 0;
		l->rows_unwritten += l->batch_rows;
		l->batch_rows = 0;
		return err ? err : failed;
	}
	l->in_txn = 0;
	l->batch_rows = 0;
	return err;
}

/* A full transaction's end: LOADER_BATCH_ROWS rows. */
static int commit_if_full(struct loader *l, struct errmsg *e)
{
	return l->batch_rows >= LOADER_BATCH_ROWS ? loader_commit(l, e) : 0;
}

/* Held rows of b, written when b is full. */
static int batch_taken(struct loader *l, struct row_batch *b,
		       struct errmsg *e)
{
	int err;

	if (!row_batch_full(b))
		return 0;
	err = flush_rows(l, b, e);
	return err ? err : commit_if_full(l, e);
}

/* Every row not batched goes through here: opens the batch, counts it,
 * closes a full one. */
static int row_written(struct loader *l, sqlite3_stmt *st, struct errmsg *e)
{
	int err = step(l, st, e);

	if (err < 0)
		return err;
	l->rows++;
	l->batch_rows++;
	return commit_if_full(l, e);
}

static void bind_u64(sqlite3_stmt *st, int i, uint64_t v)
{
	sqlite3_bind_int64(st, i, (sqlite3_int64)v);
}

/* A recording's time as a stored ts: the one place CLOCK_MONOTONIC
 * becomes CLOCK_REALTIME (decoder/clock_map.h says by which rule). */
static int64_t realtime_of(struct loader *l, uint64_t mono_ts)
{
	return (int64_t)clock_map_realtime(l->clock, mono_ts);
}

static void bind_ts(struct loader *l, sqlite3_stmt *st, int i, uint64_t mono_ts)
{
	sqlite3_bind_int64(st, i, realtime_of(l, mono_ts));
}

static int insert_session(struct loader *l, const struct session_info *si,
			  struct errmsg *e)
{
	sqlite3_stmt *st = NULL;
	int err = prepare(l, &st,
		"INSERT INTO session (start_ts, host, kernel, command_line, options,"
		" faultline_version, start_realtime_ns, start_monotonic_ns,"
		" min_fault_dur, buffer_bytes, cpus, uuid, cpu_model, labels,"
		" recorder_pid, recorder_start, recorder_boot_id, alive_ts,"
		" stored_until_ts)"
		" VALUES (?,?,?,?,?,?,?,?,?,?,?," FL_SQL_UUID ",?,?,?,?,?,?1,?1)", e);

	if (err < 0)
		return err;
	bind_u64(st, 1, si->start.realtime_ns);
	sqlite3_bind_text(st, 2, si->host, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 3, si->kernel, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 4, si->command_line, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 5, si->options, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 6, si->version, -1, SQLITE_STATIC);
	bind_u64(st, 7, si->start.realtime_ns);
	bind_u64(st, 8, si->start.mono_ns);
	bind_u64(st, 9, si->min_fault_dur_ns);
	bind_u64(st, 10, si->buffer_bytes);
	sqlite3_bind_int(st, 11, si->cpus);
	sqlite3_bind_text(st, 12, si->cpu_model, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 13, si->labels_json ? si->labels_json : "{}", -1,
			  SQLITE_STATIC);
	sqlite3_bind_int(st, 14, (int)si->recorder.pid);
	if (si->recorder.start_ticks)
		bind_u64(st, 15, si->recorder.start_ticks);
	else
		sqlite3_bind_null(st, 15);
	if (si->recorder.boot_id[0])
		sqlite3_bind_text(st, 16, si->recorder.boot_id, -1, SQLITE_STATIC);
	else
		sqlite3_bind_null(st, 16);
	err = step(l, st, e);
	sqlite3_finalize(st);
	if (err == 0)
		l->session_id = sqlite3_last_insert_rowid(l->db);
	return err;
}

int loader_begin(struct loader *l, sqlite3 *db, const char *path,
		 const struct session_info *si, struct clock_map *clock,
		 struct errmsg *e)
{
	int err;

	memset(l, 0, sizeof(*l));
	l->db = db;
	l->path = path;
	l->clock = clock;
	l->end_room = db_end_room_take(db);
	/* The indexes kept up during the load, before the statements that
	 * write them; a file whose earlier sessions lack them gets them
	 * now, as its next session's end would give them. */
	err = db_load_indexes(db, path, e);
	/* Statements first: a database they cannot be prepared on gets no
	 * session row that would stay 'recording' forever. */
	if (err == 0)
		err = prepare_batch(l, &l->faults, "fault (session_id, ts, dur,"
				    " tid, pid, cpu, exit_cpu, kind, addr, ip,"
				    " stack_id)", 11, e);
	if (err == 0)
		err = prepare(l, &l->thread, "INSERT OR REPLACE INTO thread"
			      " (session_id, tid, pid, comm, first_ts, last_ts)"
			      " VALUES (?,?,?,?,?,?)", e);
	if (err == 0)
		err = prepare(l, &l->mapping, "INSERT INTO mapping (session_id, ts,"
			      " pid, tid, start_addr, end_addr, pgoff, path, build_id,"
			      " dev_major, dev_minor, inode, prot, flags, source)"
			      " VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)", e);
	if (err == 0)
		err = prepare(l, &l->lost, "INSERT INTO lost (session_id, ts, cpu,"
			      " kind, count) VALUES (?,?,?,?,?)", e);
	if (err == 0)
		err = prepare_batch(l, &l->states, "thread_state (session_id, tid,"
				    " pid, ts, dur, state, cpu, waker_tid,"
				    " waker_cpu, preempted, uncertain, stack_id,"
				    " next_tid, next_comm, waker_comm,"
				    " waker_context, waker_stack_id)", 17, e);
	if (err == 0)
		err = prepare(l, &l->sys, "INSERT INTO syscall (session_id, tid,"
			      " pid, ts, dur, cpu, nr, name, ret, blocked_ns, fd,"
			      " fd_name, args, stack_id)"
			      " VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?)", e);
	if (err == 0)
		err = prepare(l, &l->sys_hist, "INSERT OR REPLACE INTO"
			      " syscall_histogram (session_id, tid, name, lo_ns,"
			      " hi_ns, count, max_ns) VALUES (?,?,?,?,?,?,?)", e);
	if (err == 0)
		err = prepare(l, &l->sys_file, "INSERT INTO syscall_file (session_id,"
			      " tid, pid, name, fd_name, calls, total_ns, max_ns,"
			      " blocked_ns) VALUES (?,?,?,?,?,?,?,?,?)", e);
	if (err == 0)
		err = prepare_batch(l, &l->ran, "ran_instead (session_id, tid, ts,"
				    " cpu, ran_tid, ran_comm, dur)", 7, e);
	if (err == 0)
		err = prepare(l, &l->tp, "INSERT INTO tracepoint_event (session_id,"
			      " ts, tid, pid, cpu, name, fields) VALUES (?,?,?,?,?,?,?)", e);
	if (err == 0)
		err = prepare(l, &l->hist, "INSERT OR REPLACE INTO fault_histogram"
			      " (session_id, tid, kind, lo_ns, hi_ns, count, max_ns)"
			      " VALUES (?,?,?,?,?,?,?)", e);
	if (err == 0)
		err = prepare(l, &l->series, "INSERT INTO metric_series (session_id,"
			      " name, labels, unit, source, imported_ts)"
			      " VALUES (?,?,?,?,?,?)", e);
	if (err == 0)
		err = prepare(l, &l->metric, "INSERT INTO metric (series_id, ts,"
			      " value) VALUES (?,?,?)", e);
	if (err == 0)
		err = prepare(l, &l->stack, "INSERT INTO stack (session_id, stack_id,"
			      " pid, depth, method, truncated) VALUES (?,?,?,?,?,?)", e);
	if (err == 0)
		err = prepare(l, &l->stack_frame, "INSERT INTO stack_frame (session_id,"
			      " stack_id, depth, frame_id) VALUES (?,?,?,?)", e);
	if (err == 0)
		err = prepare(l, &l->frame, "INSERT INTO frame (session_id, frame_id,"
			      " pid, addr, kernel, return_addr) VALUES (?,?,?,?,?,?)", e);
	if (err == 0)
		err = prepare(l, &l->anchor, "INSERT OR IGNORE INTO clock_anchor"
			      " (session_id, mono_ns, realtime_ns, uncertainty_ns)"
			      " VALUES (?,?,?,?)", e);
	if (err == 0)
		err = prepare(l, &l->step, "INSERT OR IGNORE INTO clock_step"
			      " (session_id, from_mono_ns, to_mono_ns, step_ns)"
			      " VALUES (?,?,?,?)", e);
	if (err == 0)
		err = insert_session(l, si, e);
	if (err == 0)
		err = loader_anchor(l, &si->start, e);
	if (err == 0)
		err = loader_commit(l, e);
	if (err < 0)
		loader_release(l);
	return err;
}

int loader_anchor(struct loader *l, const struct clock_anchor *a,
		  struct errmsg *e)
{
	sqlite3_stmt *st = l->anchor;
	int err = begin_if_needed(l, e);

	if (err < 0)
		return err;
	sqlite3_bind_int64(st, 1, l->session_id);
	bind_u64(st, 2, a->mono_ns);
	bind_u64(st, 3, a->realtime_ns);
	bind_u64(st, 4, a->uncertainty_ns);
	return row_written(l, st, e);
}

int loader_clock_step(struct loader *l, const struct clock_step *s,
		      struct errmsg *e)
{
	sqlite3_stmt *st = l->step;
	int err = begin_if_needed(l, e);

	if (err < 0)
		return err;
	sqlite3_bind_int64(st, 1, l->session_id);
	bind_u64(st, 2, s->from_mono_ns);
	bind_u64(st, 3, s->to_mono_ns);
	sqlite3_bind_int64(st, 4, s->step_ns);
	return row_written(l, st, e);
}

/* NULL for an empty string. */
static void bind_text_or_null(sqlite3_stmt *st, int i, const char *s)
{
	if (s && *s)
		sqlite3_bind_text(st, i, s, -1, SQLITE_TRANSIENT);
	else
		sqlite3_bind_null(st, i);
}

/* NULL for the -1 that marks an absent value. */
static void bind_opt(sqlite3_stmt *st, int i, int64_t v)
{
	if (v < 0)
		sqlite3_bind_null(st, i);
	else
		sqlite3_bind_int64(st, i, v);
}

int loader_fault(struct loader *l, const struct fault *f, struct errmsg *e)
{
	struct row_value *v;
	int err = begin_if_needed(l, e);

	if (err < 0)
		return err;
	v = row_batch_next(&l->faults);
	row_int(&v[0], l->session_id);
	row_int(&v[1], realtime_of(l, f->mono_ts));
	if (f->dur_ns != FAULT_NO_DUR)
		row_int(&v[2], (int64_t)f->dur_ns);
	row_int(&v[3], f->tid);
	row_int(&v[4], f->pid);
	row_int(&v[5], f->cpu);
	if (f->exit_cpu != UINT32_MAX)
		row_int(&v[6], f->exit_cpu);
	row_text(&l->faults, &v[7], fault_kind_name(f->kind));
	row_int(&v[8], (int64_t)f->addr);
	row_int(&v[9], (int64_t)f->ip);
	row_opt(&v[10], f->stack_id ? (int64_t)f->stack_id : -1);
	return batch_taken(l, &l->faults, e);
}

int loader_thread(struct loader *l, const struct thread *t, struct errmsg *e)
{
	sqlite3_stmt *st = l->thread;
	int err = begin_if_needed(l, e);

	if (err < 0)
		return err;
	sqlite3_bind_int64(st, 1, l->session_id);
	sqlite3_bind_int64(st, 2, t->tid);
	sqlite3_bind_int64(st, 3, t->pid);
	sqlite3_bind_text(st, 4, t->comm, -1, SQLITE_TRANSIENT);
	bind_ts(l, st, 5, t->first_mono_ts);
	bind_ts(l, st, 6, t->last_mono_ts);
	return row_written(l, st, e);
}

int loader_syscall(struct loader *l, const struct loader_syscall *s,
		   struct errmsg *e)
{
	const struct syscall_call *c = s->c;
	sqlite3_stmt *st = l->sys;
	int err = begin_if_needed(l, e);

	if (err < 0)
		return err;
	sqlite3_bind_int64(st, 1, l->session_id);
	sqlite3_bind_int64(st, 2, c->tid);
	sqlite3_bind_int64(st, 3, c->pid);
	bind_ts(l, st, 4, c->mono_ts);
	if (c->dur_ns == SYSCALL_NO_DUR) {
		sqlite3_bind_null(st, 5);
		sqlite3_bind_null(st, 9);
	} else {
		bind_u64(st, 5, c->dur_ns);
		sqlite3_bind_int64(st, 9, c->ret);
	}
	sqlite3_bind_int64(st, 6, c->cpu);
	sqlite3_bind_int64(st, 7, c->nr);
	sqlite3_bind_text(st, 8, s->name, -1, SQLITE_TRANSIENT);
	bind_u64(st, 10, c->blocked_ns);
	bind_opt(st, 11, s->fd);
	bind_text_or_null(st, 12, s->fd_name);
	sqlite3_bind_text(st, 13, s->args, -1, SQLITE_TRANSIENT);
	bind_opt(st, 14, c->stack_id ? (int64_t)c->stack_id : -1);
	return row_written(l, st, e);
}

int loader_syscall_file(struct loader *l, const struct loader_syscall_file *s,
			struct errmsg *e)
{
	sqlite3_stmt *st = l->sys_file;
	int err = begin_if_needed(l, e);

	if (err < 0)
		return err;
	sqlite3_bind_int64(st, 1, l->session_id);
	sqlite3_bind_int64(st, 2, s->tid);
	sqlite3_bind_int64(st, 3, s->pid);
	sqlite3_bind_text(st, 4, s->name, -1, SQLITE_TRANSIENT);
	bind_text_or_null(st, 5, s->fd_name);
	bind_u64(st, 6, s->calls);
	bind_u64(st, 7, s->total_ns);
	bind_u64(st, 8, s->max_ns);
	bind_u64(st, 9, s->blocked_ns);
	return row_written(l, st, e);
}

int loader_syscall_histograms(struct loader *l, const struct thread *t,
			      const char *(*name_of)(long nr), struct errmsg *e)
{
	sqlite3_stmt *st = l->sys_hist;
	int err = begin_if_needed(l, e);

	for (size_t i = 0; i < t->nsys_hist && err == 0; i++) {
		const struct log2_hist *h = &t->sys_hist[i].h;
		const char *name = name_of(t->sys_hist[i].nr);
		unsigned top = HIST_BUCKETS - 1;
		char other[32];

		if (!name) {
			snprintf(other, sizeof(other), "syscall_%d", t->sys_hist[i].nr);
			name = other;
		}
		while (top > 0 && !h->count[top])
			top--;
		for (unsigned b = 0; b < HIST_BUCKETS && err == 0; b++) {
			if (!h->count[b])
				continue;
			sqlite3_bind_int64(st, 1, l->session_id);
			sqlite3_bind_int64(st, 2, t->tid);
			sqlite3_bind_text(st, 3, name, -1, SQLITE_TRANSIENT);
			bind_u64(st, 4, hist_bucket_lo(b));
			bind_u64(st, 5, hist_bucket_hi(b));
			bind_u64(st, 6, h->count[b]);
			if (b == top)
				bind_u64(st, 7, h->max_ns);
			else
				sqlite3_bind_null(st, 7);
			err = row_written(l, st, e);
		}
	}
	return err;
}

/* The threads that held the CPU during a runnable wait, a row each. */
static int store_ran_instead(struct loader *l, const struct state_interval *iv,
			     struct errmsg *e)
{
	int err = 0;

	for (size_t i = 0; i < iv->nran && err == 0; i++) {
		const struct cpu_share *r = &iv->ran[i];
		struct row_value *v = row_batch_next(&l->ran);

		row_int(&v[0], l->session_id);
		row_int(&v[1], iv->tid);
		row_int(&v[2], realtime_of(l, iv->mono_ts));
		row_int(&v[3], iv->ran_cpu);
		row_int(&v[4], r->tid);
		row_text_or_null(&l->ran, &v[5], r->comm);
		row_int(&v[6], (int64_t)r->ns);
		err = batch_taken(l, &l->ran, e);
	}
	return err;
}

int loader_state(struct loader *l, const struct state_interval *iv,
		 struct errmsg *e)
{
	struct row_batch *b = &l->states;
	struct row_value *v;
	int err = begin_if_needed(l, e);

	if (err < 0)
		return err;
	v = row_batch_next(b);
	row_int(&v[0], l->session_id);
	row_int(&v[1], iv->tid);
	row_int(&v[2], iv->pid);
	row_int(&v[3], realtime_of(l, iv->mono_ts));
	row_int(&v[4], (int64_t)iv->dur_ns);
	row_text(b, &v[5], thread_state_name(iv->state));
	row_opt(&v[6], iv->cpu);
	row_opt(&v[7], iv->waker_tid);
	row_opt(&v[8], iv->waker_cpu);
	row_int(&v[9], iv->preempted);
	row_int(&v[10], iv->uncertain);
	row_opt(&v[11], iv->stack_id ? (int64_t)iv->stack_id : -1);
	row_opt(&v[12], iv->next_tid);
	row_text_or_null(b, &v[13], iv->next_comm);
	row_text_or_null(b, &v[14], iv->waker_comm);
	if (iv->waker_ctx >= 0)
		row_text(b, &v[15], wake_ctx_name((enum wake_ctx)iv->waker_ctx));
	row_opt(&v[16], iv->waker_stack_id ? (int64_t)iv->waker_stack_id : -1);
	err = batch_taken(l, b, e);
	return err ? err : store_ran_instead(l, iv, e);
}

int loader_stack(struct loader *l, uint32_t stack_id, const struct st_stack *s,
		 struct errmsg *e)
{
	sqlite3_stmt *st = l->stack;
	int err = begin_if_needed(l, e);

	if (err < 0)
		return err;
	sqlite3_bind_int64(st, 1, l->session_id);
	sqlite3_bind_int64(st, 2, stack_id);
	sqlite3_bind_int64(st, 3, s->pid);
	sqlite3_bind_int64(st, 4, s->depth);
	sqlite3_bind_text(st, 5, stack_method_name(s->method), -1, SQLITE_STATIC);
	if (s->truncated)
		sqlite3_bind_text(st, 6, s->truncated, -1, SQLITE_TRANSIENT);
	else
		sqlite3_bind_null(st, 6);
	err = row_written(l, st, e);
	st = l->stack_frame;
	for (uint32_t d = 0; d < s->depth && err == 0; d++) {
		sqlite3_bind_int64(st, 1, l->session_id);
		sqlite3_bind_int64(st, 2, stack_id);
		sqlite3_bind_int64(st, 3, d);
		sqlite3_bind_int64(st, 4, s->frames[d]);
		err = row_written(l, st, e);
	}
	return err;
}

int loader_frame(struct loader *l, uint32_t frame_id, const struct st_frame *f,
		 struct errmsg *e)
{
	sqlite3_stmt *st = l->frame;
	int err = begin_if_needed(l, e);

	if (err < 0)
		return err;
	sqlite3_bind_int64(st, 1, l->session_id);
	sqlite3_bind_int64(st, 2, frame_id);
	sqlite3_bind_int64(st, 3, f->pid);
	bind_u64(st, 4, f->addr);
	sqlite3_bind_int(st, 5, f->kernel);
	sqlite3_bind_int(st, 6, f->return_addr);
	return row_written(l, st, e);
}

int loader_tracepoint(struct loader *l, uint64_t mono_ts, uint32_t tid,
		      uint32_t pid, uint32_t cpu, const char *name,
		      const char *fields, struct errmsg *e)
{
	sqlite3_stmt *st = l->tp;
	int err = begin_if_needed(l, e);

	if (err < 0)
		return err;
	sqlite3_bind_int64(st, 1, l->session_id);
	bind_ts(l, st, 2, mono_ts);
	sqlite3_bind_int64(st, 3, tid);
	sqlite3_bind_int64(st, 4, pid);
	sqlite3_bind_int64(st, 5, cpu);
	sqlite3_bind_text(st, 6, name, -1, SQLITE_TRANSIENT);
	sqlite3_bind_text(st, 7, fields, -1, SQLITE_TRANSIENT);
	return row_written(l, st, e);
}

static void hex(char *out, const uint8_t *b, unsigned n)
{
	static const char digits[] = "0123456789abcdef";

	for (unsigned i = 0; i < n; i++) {
		out[2 * i] = digits[b[i] >> 4];
		out[2 * i + 1] = digits[b[i] & 15];
	}
	out[2 * n] = '\0';
}

int loader_mapping(struct loader *l, uint64_t mono_ts, const struct rec_mmap *m,
		   const char *source, struct errmsg *e)
{
	sqlite3_stmt *st = l->mapping;
	char build_id[41];
	int err = begin_if_needed(l, e);

	if (err < 0)
		return err;
	sqlite3_bind_int64(st, 1, l->session_id);
	bind_ts(l, st, 2, mono_ts);
	sqlite3_bind_int64(st, 3, m->pid);
	sqlite3_bind_int64(st, 4, m->tid);
	bind_u64(st, 5, m->start);
	bind_u64(st, 6, m->start + m->len);
	bind_u64(st, 7, m->pgoff);
	sqlite3_bind_text(st, 8, m->filename, -1, SQLITE_TRANSIENT);
	if (m->build_id_size) {
		hex(build_id, m->build_id, m->build_id_size);
		sqlite3_bind_text(st, 9, build_id, -1, SQLITE_TRANSIENT);
		for (int i = 10; i <= 12; i++)
			sqlite3_bind_null(st, i);
	} else {
		sqlite3_bind_null(st, 9);
		sqlite3_bind_int64(st, 10, m->maj);
		sqlite3_bind_int64(st, 11, m->min);
		bind_u64(st, 12, m->ino);
	}
	sqlite3_bind_int64(st, 13, m->prot);
	sqlite3_bind_int64(st, 14, m->flags);
	sqlite3_bind_text(st, 15, source, -1, SQLITE_STATIC);
	return row_written(l, st, e);
}

int loader_lost(struct loader *l, uint64_t mono_ts, int cpu, const char *kind,
		uint64_t count, struct errmsg *e)
{
	sqlite3_stmt *st = l->lost;
	int err = begin_if_needed(l, e);

	if (err < 0)
		return err;
	sqlite3_bind_int64(st, 1, l->session_id);
	if (mono_ts)
		bind_ts(l, st, 2, mono_ts);
	else
		sqlite3_bind_null(st, 2);
	if (cpu >= 0)
		sqlite3_bind_int(st, 3, cpu);
	else
		sqlite3_bind_null(st, 3);
	sqlite3_bind_text(st, 4, kind, -1, SQLITE_STATIC);
	bind_u64(st, 5, count);
	return row_written(l, st, e);
}

/* A handful of rows a session: prepared for the call, not kept. */
int loader_cgroup_cpu(struct loader *l, uint64_t mono_ts, const char *dir,
		      int64_t quota_us, int64_t period_us, uint64_t nr_periods,
		      uint64_t nr_throttled, uint64_t throttled_ns,
		      struct errmsg *e)
{
	int err = begin_if_needed(l, e);

	if (err == 0 && !l->cgroup)
		err = prepare(l, &l->cgroup, "INSERT INTO cgroup_cpu (session_id,"
			      " ts, path, quota_us, period_us, nr_periods,"
			      " nr_throttled, throttled_ns) VALUES (?,?,?,?,?,?,?,?)", e);
	if (err < 0)
		return err;
	sqlite3_bind_int64(l->cgroup, 1, l->session_id);
	bind_ts(l, l->cgroup, 2, mono_ts);
	sqlite3_bind_text(l->cgroup, 3, dir, -1, SQLITE_TRANSIENT);
	if (quota_us < 0)
		sqlite3_bind_null(l->cgroup, 4);
	else
		sqlite3_bind_int64(l->cgroup, 4, quota_us);
	sqlite3_bind_int64(l->cgroup, 5, period_us);
	bind_u64(l->cgroup, 6, nr_periods);
	bind_u64(l->cgroup, 7, nr_throttled);
	bind_u64(l->cgroup, 8, throttled_ns);
	return row_written(l, l->cgroup, e);
}

int loader_recorder_thread(struct loader *l, pid_t tid, const char *comm,
			   struct errmsg *e)
{
	sqlite3_stmt *st = NULL;
	int err = begin_if_needed(l, e);

	if (err == 0)
		err = prepare(l, &st, "INSERT OR REPLACE INTO recorder_thread"
			      " (session_id, tid, comm) VALUES (?,?,?)", e);
	if (err < 0)
		return err;
	sqlite3_bind_int64(st, 1, l->session_id);
	sqlite3_bind_int(st, 2, tid);
	sqlite3_bind_text(st, 3, comm, -1, SQLITE_STATIC);
	err = row_written(l, st, e);
	sqlite3_finalize(st);
	return err;
}

int loader_env(struct loader *l, const char *key, const char *value,
	       struct errmsg *e)
{
	sqlite3_stmt *st = NULL;
	int err = begin_if_needed(l, e);

	if (err == 0)
		err = prepare(l, &st, "INSERT OR REPLACE INTO session_env"
			      " (session_id, key, value) VALUES (?,?,?)", e);
	if (err < 0)
		return err;
	sqlite3_bind_int64(st, 1, l->session_id);
	sqlite3_bind_text(st, 2, key, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 3, value, -1, SQLITE_STATIC);
	err = row_written(l, st, e);
	sqlite3_finalize(st);
	return err;
}

/* The kernel gave each MMAP2 the file's build id when it had it at hand
 * (attr.build_id): no file is read here, so the page cache the target
 * sees is left alone.  A path mapped again with another build id (the
 * file replaced while recording) keeps its latest. */
int loader_env_build_ids(struct loader *l, struct errmsg *e)
{
	sqlite3_stmt *st = NULL;
	int err = begin_if_needed(l, e);

	if (err == 0)
		err = prepare(l, &st, "INSERT OR REPLACE INTO session_env"
			      " (session_id, key, value) SELECT ?1,"
			      " 'build_id.' || path, build_id FROM (SELECT path,"
			      " build_id, max(ts) FROM mapping WHERE session_id = ?1"
			      " AND build_id IS NOT NULL AND path LIKE '/%'"
			      " AND pid IN (SELECT pid FROM thread WHERE"
			      " session_id = ?1) GROUP BY path)", e);
	if (err < 0)
		return err;
	sqlite3_bind_int64(st, 1, l->session_id);
	err = step(l, st, e);
	if (err == 0)
		l->rows += (uint64_t)sqlite3_changes(l->db);
	sqlite3_finalize(st);
	return err;
}

int loader_metric_series(struct loader *l, const char *name,
			 const char *labels, const char *unit,
			 const char *source, int64_t *series_id,
			 struct errmsg *e)
{
	sqlite3_stmt *st = l->series;
	int err = begin_if_needed(l, e);

	if (err < 0)
		return err;
	sqlite3_bind_int64(st, 1, l->session_id);
	sqlite3_bind_text(st, 2, name, -1, SQLITE_TRANSIENT);
	sqlite3_bind_text(st, 3, labels, -1, SQLITE_TRANSIENT);
	if (unit)
		sqlite3_bind_text(st, 4, unit, -1, SQLITE_TRANSIENT);
	else
		sqlite3_bind_null(st, 4);
	sqlite3_bind_text(st, 5, source, -1, SQLITE_TRANSIENT);
	bind_u64(st, 6, realtime_ns());
	err = row_written(l, st, e);
	if (err == 0)
		*series_id = sqlite3_last_insert_rowid(l->db);
	return err;
}

int loader_metric(struct loader *l, int64_t series_id, uint64_t mono_ts,
		  double value, struct errmsg *e)
{
	sqlite3_stmt *st = l->metric;
	int err = begin_if_needed(l, e);

	if (err < 0)
		return err;
	sqlite3_bind_int64(st, 1, series_id);
	bind_ts(l, st, 2, mono_ts);
	sqlite3_bind_double(st, 3, value);
	return row_written(l, st, e);
}

/* One row per bucket with a count; the highest also carries the exact
 * longest duration (it is that bucket's longest), the others NULL. */
int loader_histograms(struct loader *l, const struct thread *t,
		      struct errmsg *e)
{
	sqlite3_stmt *st = l->hist;
	int err = begin_if_needed(l, e);

	for (int k = FAULT_MINOR; k <= FAULT_MAJOR && err == 0; k++) {
		unsigned top = HIST_BUCKETS - 1;

		while (top > 0 && !t->hist[k].count[top])
			top--;

		for (unsigned b = 0; b < HIST_BUCKETS && err == 0; b++) {
			if (!t->hist[k].count[b])
				continue;
			sqlite3_bind_int64(st, 1, l->session_id);
			sqlite3_bind_int64(st, 2, t->tid);
			sqlite3_bind_text(st, 3, fault_kind_name(k), -1,
					  SQLITE_STATIC);
			bind_u64(st, 4, hist_bucket_lo(b));
			bind_u64(st, 5, hist_bucket_hi(b));
			bind_u64(st, 6, t->hist[k].count[b]);
			if (b == top)
				bind_u64(st, 7, t->hist[k].max_ns);
			else
				sqlite3_bind_null(st, 7);
			err = row_written(l, st, e);
		}
	}
	return err;
}

int loader_alive(struct loader *l, uint64_t stored_mono_ts, struct errmsg *e)
{
	int err = begin_if_needed(l, e);

	if (err == 0 && !l->alive)
		err = prepare(l, &l->alive, "UPDATE session SET alive_ts = ?,"
			      " stored_until_ts = ? WHERE session_id = ?", e);
	if (err < 0)
		return err;
	bind_u64(l->alive, 1, realtime_ns());
	bind_ts(l, l->alive, 2, stored_mono_ts);
	sqlite3_bind_int64(l->alive, 3, l->session_id);
	return step(l, l->alive, e);
}

static int exec(struct loader *l, const char *sql, struct errmsg *e)
{
	int rc = sqlite3_exec(l->db, sql, NULL, NULL, NULL);

	return rc == SQLITE_OK ? 0 : fail(l, rc, e);
}

/* The session row's end, bound to st (the UPDATE of end_row). */
static void bind_end(struct loader *l, sqlite3_stmt *st,
		     const struct clock_anchor *end,
		     const struct session_counts *c,
		     const struct session_ending *how)
{
	/* In the order of the UPDATE's columns below. */
	const uint64_t counts[] = {
		c->records_seen, c->faults_total, c->faults_stored,
		c->faults_below_threshold, c->faults_unfinished,
		c->faults_unpaired_exit, c->records_lost, c->samples_lost,
		c->records_malformed, c->records_unknown, c->records_late,
		c->records_throttled, c->clock_steps, c->recorder_user_ns,
		c->recorder_sys_ns, c->recorder_max_rss_bytes, c->spool_bytes,
		c->spool_peak_bytes, c->records_dropped, l->rows_unwritten,
		c->records_unstored, c->samples_mistimed, c->spilled_bytes,
		c->spill_peak_bytes,
	};
	int k = 1;

	bind_u64(st, k++, end->realtime_ns);
	sqlite3_bind_text(st, k++, how->status, -1, SQLITE_STATIC);
	bind_u64(st, k++, end->realtime_ns);
	bind_u64(st, k++, end->mono_ns);
	for (size_t i = 0; i < ARRAY_SIZE(counts); i++)
		bind_u64(st, k++, counts[i]);
	sqlite3_bind_text(st, k++, how->reason, -1, SQLITE_TRANSIENT);
	if (how->error)
		sqlite3_bind_text(st, k++, how->error, -1, SQLITE_TRANSIENT);
	else
		sqlite3_bind_null(st, k++);
	sqlite3_bind_int64(st, k, l->session_id);
}

/* The indexes; with c->recorder_measured, the CPU time building them
 * took on this thread (the recording's other threads are done) and the
 * process's peak memory since added to c: the recorder measured its
 * cost before the end, and for 1.3M faults building them was about as
 * much again as everything before. */
static int build_indexes(struct loader *l, struct session_counts *c,
			 struct errmsg *e)
{
	struct rusage before, after;
	int measured = c->recorder_measured &&
		       getrusage(RUSAGE_THREAD, &before) == 0;
	int err = db_build_indexes(l->db, l->path, e);

	if (measured && getrusage(RUSAGE_THREAD, &after) == 0) {
		c->recorder_user_ns += timeval_ns(after.ru_utime) -
				       timeval_ns(before.ru_utime);
		c->recorder_sys_ns += timeval_ns(after.ru_stime) -
				      timeval_ns(before.ru_stime);
	}
	if (measured && getrusage(RUSAGE_SELF, &after) == 0 &&
	    (uint64_t)after.ru_maxrss * 1024ull > c->recorder_max_rss_bytes)
		c->recorder_max_rss_bytes = (uint64_t)after.ru_maxrss * 1024ull;
	return err;
}

/* One transaction: the indexes (with_indexes), then the session row's
 * end.  Rolled back whole on a failure. */
static int end_row(struct loader *l, const struct clock_anchor *end,
		   struct session_counts *c, const struct session_ending *how,
		   int with_indexes, struct errmsg *e)
{
	sqlite3_stmt *st = NULL;
	int err = exec(l, "BEGIN IMMEDIATE", e);

	if (err == 0 && with_indexes)
		err = build_indexes(l, c, e);
	if (err == 0)
		err = prepare(l, &st, "UPDATE session SET end_ts = ?, status = ?,"
			" end_realtime_ns = ?, end_monotonic_ns = ?,"
			" records_seen = ?, faults_total = ?, faults_stored = ?,"
			" faults_below_threshold = ?, faults_unfinished = ?,"
			" faults_unpaired_exit = ?, records_lost = ?, samples_lost = ?,"
			" records_malformed = ?, records_unknown = ?, records_late = ?,"
			" records_throttled = ?, clock_steps = ?, recorder_user_ns = ?,"
			" recorder_sys_ns = ?, recorder_max_rss_bytes = ?,"
			" spool_bytes = ?, spool_peak_bytes = ?, records_dropped = ?,"
			" rows_unwritten = ?, records_unstored = ?,"
			" samples_mistimed = ?, spilled_bytes = ?,"
			" spill_peak_bytes = ?, end_reason = ?, error = ?"
			" WHERE session_id = ?", e);
	if (err == 0) {
		bind_end(l, st, end, c, how);
		err = step(l, st, e);
	}
	sqlite3_finalize(st);
	if (err == 0)
		err = exec(l, "COMMIT", e);
	if (err < 0 && !sqlite3_get_autocommit(l->db))
		sqlite3_exec(l->db, "ROLLBACK", NULL, NULL, NULL);
	return err;
}

int loader_end(struct loader *l, const struct clock_anchor *end,
	       struct session_counts *c, const struct session_ending *how,
	       struct errmsg *e)
{
	struct errmsg ignored;
	int err;

	errmsg_init(&ignored);
	/* A failed session keeps its first error, not the next one's. */
	err = loader_commit(l, how->error ? &ignored : e);
	if (err < 0 && !how->error)
		return err;
	db_end_room_release(&l->end_room);
	err = end_row(l, end, c, how, 1, how->error ? &ignored : e);
	/* Its row matters more than its indexes: a full disk leaves room
	 * for the one page it changes (the room just given back, or the
	 * WAL's frames of the transaction rolled back, written over),
	 * rarely for an index. */
	if (err < 0 && how->error)
		err = end_row(l, end, c, how, 0, e);
	return err;
}

void loader_release(struct loader *l)
{
	db_end_room_release(&l->end_room);
	sqlite3_finalize(l->cgroup);
	sqlite3_finalize(l->alive);
	sqlite3_finalize(l->lat);
	sqlite3_finalize(l->blk);
	l->cgroup = l->alive = l->lat = l->blk = NULL;
	row_batch_release(&l->faults);
	sqlite3_finalize(l->thread);
	sqlite3_finalize(l->mapping);
	sqlite3_finalize(l->lost);
	sqlite3_finalize(l->hist);
	row_batch_release(&l->states);
	row_batch_release(&l->ran);
	sqlite3_finalize(l->sys);
	sqlite3_finalize(l->sys_hist);
	sqlite3_finalize(l->sys_file);
	l->sys = l->sys_hist = l->sys_file = NULL;
	sqlite3_finalize(l->tp);
	sqlite3_finalize(l->series);
	sqlite3_finalize(l->metric);
	l->series = l->metric = NULL;
	sqlite3_finalize(l->stack);
	sqlite3_finalize(l->stack_frame);
	sqlite3_finalize(l->frame);
	l->stack = l->stack_frame = l->frame = NULL;
	sqlite3_finalize(l->anchor);
	sqlite3_finalize(l->step);
	l->anchor = l->step = NULL;
	l->thread = l->mapping = l->lost = l->hist = NULL;
	l->tp = NULL;
}

int loader_latency(struct loader *l, const char *name, const struct lat_start *s,
		   uint64_t dur_ns, uint32_t end_tid, const char *fields,
		   struct errmsg *e)
{
	int err = begin_if_needed(l, e);
	sqlite3_stmt *st;

	if (err == 0 && !l->lat)
		err = prepare(l, &l->lat, "INSERT INTO latency (session_id, name,"
			      " tid, pid, ts, dur, cpu, key, end_tid, fields)"
			      " VALUES (?,?,?,?,?,?,?,?,?,?)", e);
	if (err < 0)
		return err;
	st = l->lat;
	sqlite3_bind_int64(st, 1, l->session_id);
	sqlite3_bind_text(st, 2, name, -1, SQLITE_TRANSIENT);
	sqlite3_bind_int64(st, 3, s->tid);
	sqlite3_bind_int64(st, 4, s->pid);
	bind_ts(l, st, 5, s->mono_ts);
	sqlite3_bind_int64(st, 7, s->cpu);
	sqlite3_bind_int64(st, 8, (int64_t)s->key);
	if (dur_ns == LAT_NO_DUR) {
		sqlite3_bind_null(st, 6);
		sqlite3_bind_null(st, 9);
		sqlite3_bind_null(st, 10);
	} else {
		bind_u64(st, 6, dur_ns);
		sqlite3_bind_int64(st, 9, end_tid);
		bind_text_or_null(st, 10, fields);
	}
	return row_written(l, st, e);
}

int loader_latency_count(struct loader *l, const char *name,
			 const struct lat_pending *p, struct errmsg *e)
{
	sqlite3_stmt *st = NULL;
	int err = begin_if_needed(l, e);

	if (err == 0)
		err = prepare(l, &st, "INSERT INTO latency_count (session_id, name,"
			      " paired, unfinished, unmatched_ends)"
			      " VALUES (?,?,?,?,?)", e);
	if (err < 0)
		return err;
	sqlite3_bind_int64(st, 1, l->session_id);
	sqlite3_bind_text(st, 2, name, -1, SQLITE_TRANSIENT);
	bind_u64(st, 3, p->paired);
	bind_u64(st, 4, p->unfinished);
	bind_u64(st, 5, p->unmatched_ends);
	err = row_written(l, st, e);
	sqlite3_finalize(st);
	return err;
}

/* A step's time (CLOCK_REALTIME through the anchors), or NULL unseen. */
static void bind_step_ts(struct loader *l, sqlite3_stmt *st, int i,
			 uint64_t mono_ts)
{
	if (mono_ts == BLOCK_NO_TS)
		sqlite3_bind_null(st, i);
	else
		bind_ts(l, st, i, mono_ts);
}

/* b less a, or NULL when either step was not seen. */
static void bind_between(sqlite3_stmt *st, int i, uint64_t a, uint64_t b)
{
	if (a == BLOCK_NO_TS || b == BLOCK_NO_TS || b < a)
		sqlite3_bind_null(st, i);
	else
		bind_u64(st, i, b - a);
}

int loader_block_request(struct loader *l, const struct block_req *r,
			 const char *disk, struct errmsg *e)
{
	char dev[24];
	int err = begin_if_needed(l, e);
	sqlite3_stmt *st;

	if (err == 0 && !l->blk)
		err = prepare(l, &l->blk, "INSERT INTO block_request (session_id,"
			      " dev, disk, sector, bytes, op, rwbs, insert_ts,"
			      " issue_ts, complete_ts, queue_ns, service_ns, tid,"
			      " pid, comm, cpu, requeues, error)"
			      " VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)", e);
	if (err < 0)
		return err;
	st = l->blk;
	snprintf(dev, sizeof(dev), "%u:%u", r->dev >> 20, r->dev & 0xfffffu);
	sqlite3_bind_int64(st, 1, l->session_id);
	sqlite3_bind_text(st, 2, dev, -1, SQLITE_TRANSIENT);
	bind_text_or_null(st, 3, disk);
	bind_u64(st, 4, r->sector);
	sqlite3_bind_int64(st, 5, r->bytes);
	sqlite3_bind_text(st, 6, block_op(r->op), -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 7, r->op, -1, SQLITE_TRANSIENT);
	bind_step_ts(l, st, 8, r->insert_ts);
	bind_step_ts(l, st, 9, r->issue_ts);
	bind_step_ts(l, st, 10, r->complete_ts);
	bind_between(st, 11, r->insert_ts, r->issue_ts);
	bind_between(st, 12, r->issue_ts, r->complete_ts);
	bind_opt(st, 13, r->tid ? (int64_t)r->tid : -1);
	bind_opt(st, 14, r->tid ? (int64_t)r->pid : -1);
	bind_text_or_null(st, 15, r->comm[0] ? r->comm : NULL);
	sqlite3_bind_int64(st, 16, r->cpu);
	sqlite3_bind_int64(st, 17, r->requeues);
	if (r->complete_ts == BLOCK_NO_TS)
		sqlite3_bind_null(st, 18);
	else
		sqlite3_bind_int64(st, 18, r->error);
	return row_written(l, st, e);
}

int loader_block_count(struct loader *l, const struct block_pending *p,
		       uint64_t malformed, struct errmsg *e)
{
	sqlite3_stmt *st = NULL;
	int err = begin_if_needed(l, e);

	if (err == 0)
		err = prepare(l, &st, "INSERT INTO block_request_count (session_id,"
			      " completed, unfinished, requeued, unmatched,"
			      " malformed) VALUES (?,?,?,?,?,?)", e);
	if (err < 0)
		return err;
	sqlite3_bind_int64(st, 1, l->session_id);
	bind_u64(st, 2, p->completed);
	bind_u64(st, 3, p->unfinished);
	bind_u64(st, 4, p->requeued);
	bind_u64(st, 5, p->unmatched);
	bind_u64(st, 6, malformed);
	err = row_written(l, st, e);
	sqlite3_finalize(st);
	return err;
}
