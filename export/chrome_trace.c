#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../common/array.h"

#include "../common/json.h"
#include "../common/out_file.h"
#include "../common/strbuf.h"
#include "../schema/db.h"
#include "chrome_trace.h"
#include "stack_frames.h"

/* A thread with a track: its tid and pid. */
struct ct_thread {
	int64_t tid, pid;
};

/* The writer's state: one pass per table, each event appended to sb and
 * sb handed to the file every OUT_FILE_CHUNK bytes. */
struct ct {
	sqlite3 *db;			/* borrowed */
	const char *path;		/* borrowed: the database's */
	const struct session_info *s;	/* borrowed */
	struct out_file out;
	struct strbuf sb;
	struct stack_frames stacks;
	struct chrome_trace_counts n;
	struct ct_thread *tids;		/* owned: the named threads, by tid */
	size_t ntids, tids_cap;
	int64_t fault_tid;		/* the thread of the last fault row */
	int64_t min_fault_ns;		/* shorter faults are left out */
	int metrics_named;		/* the metrics process has its name */
	int events;			/* events written: a comma before the next */
	struct errmsg *e;		/* borrowed: the caller's */
};

static void ev_begin(struct ct *c, char ph, const char *cat, const char *name)
{
	strbuf_adds(&c->sb, c->events++ ? ",\n{\"ph\":\"" : "\n{\"ph\":\"");
	strbuf_addc(&c->sb, ph);
	strbuf_adds(&c->sb, "\"");
	if (cat) {
		strbuf_adds(&c->sb, ",\"cat\":\"");
		strbuf_adds(&c->sb, cat);	/* ours: plain words */
		strbuf_addc(&c->sb, '"');
	}
	strbuf_adds(&c->sb, ",\"name\":");
	json_cstring(&c->sb, name);
}

static void ev_ids(struct ct *c, int64_t pid, int64_t tid)
{
	strbuf_adds(&c->sb, ",\"pid\":");
	json_int(&c->sb, pid);
	strbuf_adds(&c->sb, ",\"tid\":");
	json_int(&c->sb, tid);
}

/* ,"ts": microseconds since the session's start, to the ns. */
static void ev_ts(struct ct *c, int64_t ts)
{
	strbuf_adds(&c->sb, ",\"ts\":");
	json_thousandths(&c->sb, ts - c->s->start_ts);
}

static int ev_end(struct ct *c)
{
	strbuf_addc(&c->sb, '}');
	return out_file_put(&c->out, &c->sb, 0, c->e);
}

/* An args member, comma first: "key": then the caller's value. */
static void arg_key(struct ct *c, const char *key, int *first)
{
	strbuf_adds(&c->sb, *first ? ",\"args\":{" : ",");
	*first = 0;
	json_cstring(&c->sb, key);
	strbuf_addc(&c->sb, ':');
}

static void arg_int(struct ct *c, sqlite3_stmt *st, int col, const char *key,
		    int *first)
{
	if (sqlite3_column_type(st, col) == SQLITE_NULL)
		return;
	arg_key(c, key, first);
	json_int(&c->sb, sqlite3_column_int64(st, col));
}

static void arg_text(struct ct *c, sqlite3_stmt *st, int col, const char *key,
		     int *first)
{
	const char *t = (const char *)sqlite3_column_text(st, col);

	if (!t)
		return;
	arg_key(c, key, first);
	json_cstring(&c->sb, t);
}

/* A 64-bit address as "0x..." text: a JSON number is a double, which
 * cannot hold every address. */
static void arg_hex(struct ct *c, sqlite3_stmt *st, int col, const char *key,
		    int *first)
{
	static const char digit[] = "0123456789abcdef";
	char hex[24], *p = hex + sizeof(hex);
	uint64_t v;

	if (sqlite3_column_type(st, col) == SQLITE_NULL)
		return;
	arg_key(c, key, first);
	v = (uint64_t)sqlite3_column_int64(st, col);
	*--p = '"';
	do {
		*--p = digit[v & 15];
		v >>= 4;
	} while (v);
	*--p = 'x';
	*--p = '0';
	*--p = '"';
	strbuf_add(&c->sb, p, (size_t)(hex + sizeof(hex) - p));
}

/* The stack of col (a stack_id, or NULL): its database id in args, and
 * its innermost frame of the trace's stackFrames into *sf (0: none), for
 * ev_sf after the args. */
static int arg_stack(struct ct *c, sqlite3_stmt *st, int col, int *first,
		     int64_t *sf)
{
	int err;

	*sf = 0;
	if (sqlite3_column_type(st, col) == SQLITE_NULL)
		return 0;
	err = stack_frames_leaf(&c->stacks, sqlite3_column_int64(st, col), sf, c->e);
	if (err == 0 && *sf)
		arg_int(c, st, col, "stack_id", first);
	return err;
}

/* ,"sf": the event's stack, by its innermost frame (stack_frames.h). */
static void ev_sf(struct ct *c, int64_t sf)
{
	if (!sf)
		return;
	strbuf_adds(&c->sb, ",\"sf\":");
	json_int(&c->sb, sf);
	c->n.stacked++;
}

static void args_end(struct ct *c, int first)
{
	if (!first)
		strbuf_addc(&c->sb, '}');
}

/* Runs sql (?1 the session, ?2 and ?3 the session's span) and calls row
 * for each row; stops at the first error. */
static int each_row(struct ct *c, const char *sql,
		    int (*row)(struct ct *c, sqlite3_stmt *st))
{
	sqlite3_stmt *st = NULL;
	int rc = sqlite3_prepare_v2(c->db, sql, -1, &st, NULL), err = 0;

	if (rc != SQLITE_OK)
		return db_fail(c->db, rc, c->path, "cannot read", c->e);
	sqlite3_bind_int64(st, 1, c->s->id);
	if (sqlite3_bind_parameter_count(st) >= 3) {
		sqlite3_bind_int64(st, 2, c->s->start_ts);
		sqlite3_bind_int64(st, 3, c->s->end_ts);
	}
	while (err == 0 && (rc = sqlite3_step(st)) == SQLITE_ROW)
		err = row(c, st);
	if (err == 0 && rc != SQLITE_DONE)
		err = db_fail(c->db, rc, c->path, "cannot read", c->e);
	sqlite3_finalize(st);
	return err;
}

/* ---- threads ------------------------------------------------------------ */

static int meta(struct ct *c, const char *what, int64_t pid, int64_t tid,
		const char *key, const char *text, int64_t num)
{
	ev_begin(c, 'M', NULL, what);
	ev_ids(c, pid, tid);
	strbuf_adds(&c->sb, ",\"args\":{");
	json_cstring(&c->sb, key);
	strbuf_addc(&c->sb, ':');
	if (text)
		json_cstring(&c->sb, text);
	else
		json_int(&c->sb, num);
	strbuf_addc(&c->sb, '}');
	return ev_end(c);
}

static int name_fault_track(struct ct *c, int64_t pid, int64_t tid,
			    const char *comm)
{
	char name[64];

	if (comm)
		snprintf(name, sizeof(name), "%.32s %lld faults", comm, (long long)tid);
	else
		snprintf(name, sizeof(name), "%lld faults", (long long)tid);
	return meta(c, "thread_name", pid, tid + CHROME_TRACE_TID_BASE, "name",
		    name, 0);
}

/* The latest name of each thread (rows come by tid, then first_ts: the
 * last row of a tid wins). */
static int thread_row(struct ct *c, sqlite3_stmt *st)
{
	int64_t tid = sqlite3_column_int64(st, 0), pid = sqlite3_column_int64(st, 1);
	const char *comm = (const char *)sqlite3_column_text(st, 2);
	int last = sqlite3_column_int(st, 3), err = 0;
	int64_t order = (int64_t)c->ntids * 2;

	if (!last)
		return 0;
	if (ARRAY_RESERVE(c->tids, c->tids_cap, c->ntids + 1) < 0)
		return errmsg_set(c->e, ENOMEM, "out of memory");
	c->tids[c->ntids].tid = tid;
	c->tids[c->ntids++].pid = pid;
	c->n.threads++;
	if (tid == pid)
		err = meta(c, "process_name", pid, tid, "name", comm, 0);
	if (err == 0)
		err = meta(c, "thread_name", pid, tid, "name", comm, 0);
	if (err == 0)
		err = meta(c, "thread_sort_index", pid, tid, "sort_index", NULL, order);
	if (err == 0)
		err = name_fault_track(c, pid, tid, comm);
	if (err == 0)
		err = meta(c, "thread_sort_index", pid, tid + CHROME_TRACE_TID_BASE,
			   "sort_index", NULL, order + 1);
	return err;
}

static const char threads_sql[] =
	"SELECT tid, pid, comm, first_ts = max(first_ts) OVER (PARTITION BY tid)"
	"  FROM thread WHERE session_id = ?1 ORDER BY tid, first_ts";

/* The thread tid of the track list, or NULL when it has no track. */
static const struct ct_thread *thread_of(const struct ct *c, int64_t tid)
{
	size_t lo = 0, hi = c->ntids;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (c->tids[mid].tid < tid)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < c->ntids && c->tids[lo].tid == tid ? &c->tids[lo] : NULL;
}

/* Names tid's fault track and adds tid to the sorted tids, so it is
 * named once (rare: the recorder names every thread it stores). */
static int name_unnamed(struct ct *c, int64_t pid, int64_t tid)
{
	size_t i = 0;

	if (ARRAY_RESERVE(c->tids, c->tids_cap, c->ntids + 1) < 0)
		return errmsg_set(c->e, ENOMEM, "out of memory");
	while (i < c->ntids && c->tids[i].tid < tid)
		i++;
	memmove(c->tids + i + 1, c->tids + i, (c->ntids - i) * sizeof(*c->tids));
	c->tids[i].tid = tid;
	c->tids[i].pid = pid;
	c->ntids++;
	return name_fault_track(c, pid, tid, NULL);
}

/* ---- states, faults, tracepoint hits ------------------------------------ */

/*
 * A wake-up as a flow arrow (Trace Event Format flow events, version 1):
 * "s" on the waker's own track at the wake-up, which binds to the waker's
 * slice enclosing it (running, as it issued the wake-up); "f" with "bp":"e"
 * on the woken thread's track 1 ns after it, which binds to the slice
 * enclosing that: the woken thread's interval that the wake-up began.
 * The id is the woken interval's rowid, unique in the session; both ends
 * share cat and name, which Perfetto's importer keys a flow by too.  A
 * waker without a track of its own (an interrupt, the idle task, a thread
 * that was not recorded) gets no arrow: "woken_by" names it.
 */
static int wake_flow(struct ct *c, sqlite3_stmt *st)
{
	int64_t waker = sqlite3_column_int64(st, 6), id = sqlite3_column_int64(st, 14);
	int64_t at = sqlite3_column_int64(st, 2) + sqlite3_column_int64(st, 3);
	const struct ct_thread *w;
	int err;

	if (sqlite3_column_type(st, 6) == SQLITE_NULL || waker <= 0 ||
	    !(w = thread_of(c, waker)))
		return 0;
	ev_begin(c, 's', "wakeup", "wake-up");
	ev_ids(c, w->pid, w->tid);
	ev_ts(c, at);
	strbuf_adds(&c->sb, ",\"id\":");
	json_int(&c->sb, id);
	err = ev_end(c);
	if (err < 0)
		return err;
	ev_begin(c, 'f', "wakeup", "wake-up");
	strbuf_adds(&c->sb, ",\"bp\":\"e\"");
	ev_ids(c, sqlite3_column_int64(st, 1), sqlite3_column_int64(st, 0));
	ev_ts(c, at + 1);
	strbuf_adds(&c->sb, ",\"id\":");
	json_int(&c->sb, id);
	c->n.wake_flows++;
	return ev_end(c);
}

static int state_row(struct ct *c, sqlite3_stmt *st)
{
	int64_t sf;
	int first = 1, err;

	ev_begin(c, 'X', "state", (const char *)sqlite3_column_text(st, 4));
	ev_ids(c, sqlite3_column_int64(st, 1), sqlite3_column_int64(st, 0));
	ev_ts(c, sqlite3_column_int64(st, 2));
	strbuf_adds(&c->sb, ",\"dur\":");
	json_thousandths(&c->sb, sqlite3_column_int64(st, 3));
	arg_int(c, st, 5, "cpu", &first);
	arg_int(c, st, 6, "waker_tid", &first);
	arg_text(c, st, 13, "woken_by", &first);
	arg_int(c, st, 7, "waker_cpu", &first);
	if (sqlite3_column_int(st, 8))
		arg_int(c, st, 8, "preempted", &first);
	if (sqlite3_column_int(st, 9))
		arg_int(c, st, 9, "uncertain", &first);
	arg_int(c, st, 11, "next_tid", &first);
	arg_text(c, st, 12, "next_comm", &first);
	err = arg_stack(c, st, 10, &first, &sf);
	args_end(c, first);
	ev_sf(c, sf);
	c->n.states++;
	if (err == 0)
		err = ev_end(c);
	return err < 0 ? err : wake_flow(c, st);
}

/* Rows in any order: viewers sort a trace's events themselves.  %s is
 * NOT INDEXED when a table scan pays (session_scan_pays). */
static const char states_sql[] =
	"SELECT tid, pid, ts, dur, state, cpu, waker_tid, waker_cpu, preempted,"
	"       uncertain, stack_id, next_tid, next_comm,"
	"       (SELECT w.waker FROM thread_state_waker w"
	"         WHERE w.session_id = ?1 AND w.state_id = x.rowid), x.rowid"
	"  FROM thread_state AS x %s WHERE session_id = ?1";

static int fault_row(struct ct *c, sqlite3_stmt *st)
{
	int64_t tid = sqlite3_column_int64(st, 0), pid = sqlite3_column_int64(st, 1);
	int unfinished = sqlite3_column_type(st, 3) == SQLITE_NULL;
	const char *kind = (const char *)sqlite3_column_text(st, 4);
	char name[32];
	int64_t sf = 0;
	int first = 1, err = 0;

	/* A thread the thread table does not name: its fault track gets a
	 * name at its first fault. */
	if (tid != c->fault_tid && !thread_of(c, tid))
		err = name_unnamed(c, pid, tid);
	c->fault_tid = tid;
	snprintf(name, sizeof(name), unfinished ? "unfinished fault" : "%s fault",
		 kind ? kind : "?");
	ev_begin(c, unfinished ? 'i' : 'X', "fault", name);
	if (unfinished)
		strbuf_adds(&c->sb, ",\"s\":\"t\"");
	ev_ids(c, pid, tid + CHROME_TRACE_TID_BASE);
	ev_ts(c, sqlite3_column_int64(st, 2));
	if (!unfinished) {
		strbuf_adds(&c->sb, ",\"dur\":");
		json_thousandths(&c->sb, sqlite3_column_int64(st, 3));
	}
	arg_hex(c, st, 7, "addr", &first);
	arg_hex(c, st, 8, "ip", &first);
	arg_int(c, st, 5, "cpu", &first);
	arg_int(c, st, 6, "exit_cpu", &first);
	if (err == 0)
		err = arg_stack(c, st, 9, &first, &sf);
	args_end(c, first);
	ev_sf(c, sf);
	c->n.faults++;
	return err < 0 ? err : ev_end(c);
}

/* A fault that never completed is kept whatever the threshold: it may be
 * the longest of all. */
static const char faults_sql[] =
	"SELECT tid, pid, ts, dur, kind, cpu, exit_cpu, addr, ip, stack_id"
	"  FROM fault %s WHERE session_id = ?1 AND (dur IS NULL OR dur >= %lld)";

/* fields is the event's JSON object as record stored it; json_valid
 * guards the output against a row edited by hand. */
static int tracepoint_row(struct ct *c, sqlite3_stmt *st)
{
	const char *fields = (const char *)sqlite3_column_text(st, 5);
	int first = 1;

	ev_begin(c, 'i', "tracepoint", (const char *)sqlite3_column_text(st, 4));
	strbuf_adds(&c->sb, ",\"s\":\"t\"");
	ev_ids(c, sqlite3_column_int64(st, 2), sqlite3_column_int64(st, 1));
	ev_ts(c, sqlite3_column_int64(st, 0));
	arg_int(c, st, 3, "cpu", &first);
	if (fields) {
		arg_key(c, "fields", &first);
		strbuf_adds(&c->sb, fields);
	} else {
		arg_text(c, st, 6, "fields_text", &first);
	}
	args_end(c, first);
	c->n.tracepoints++;
	return ev_end(c);
}

static const char tracepoints_sql[] =
	"SELECT ts, tid, pid, cpu, name,"
	"       CASE WHEN json_valid(fields) THEN fields END, fields"
	"  FROM tracepoint_event WHERE session_id = ?1 ORDER BY ts";

/* ---- metrics ------------------------------------------------------------ */

struct series {
	char name[512];		/* the track's: name, then labels unless {} */
	char key[64];		/* the counter's arg: its unit, else "value" */
};

/* Every series, sampled or imported, is a counter track: Perfetto and
 * chrome://tracing draw a ph C series as one chart of its values, where
 * instants would be a mark per point with the value hidden in its args. */
static int point_row(struct ct *c, sqlite3_stmt *st, const struct series *se)
{
	double v = sqlite3_column_double(st, 1);
	int first = 1;

	if (!isfinite(v)) {
		c->n.skipped_values++;
		return 0;
	}
	ev_begin(c, 'C', "metric", se->name);
	ev_ids(c, CHROME_TRACE_TID_BASE, CHROME_TRACE_TID_BASE);
	ev_ts(c, sqlite3_column_int64(st, 0));
	arg_key(c, se->key, &first);
	json_real(&c->sb, v);
	args_end(c, first);
	c->n.counter_points++;
	return ev_end(c);
}

static int series_points(struct ct *c, int64_t series_id, const struct series *se)
{
	sqlite3_stmt *st = NULL;
	int rc, err = 0;

	rc = sqlite3_prepare_v2(c->db, "SELECT ts, value FROM metric WHERE series_id = ?1"
				" AND ts BETWEEN ?2 AND ?3 ORDER BY ts", -1, &st, NULL);
	if (rc != SQLITE_OK)
		return db_fail(c->db, rc, c->path, "cannot read", c->e);
	sqlite3_bind_int64(st, 1, series_id);
	sqlite3_bind_int64(st, 2, c->s->start_ts);
	sqlite3_bind_int64(st, 3, c->s->end_ts);
	while (err == 0 && (rc = sqlite3_step(st)) == SQLITE_ROW)
		err = point_row(c, st, se);
	if (err == 0 && rc != SQLITE_DONE)
		err = db_fail(c->db, rc, c->path, "cannot read", c->e);
	sqlite3_finalize(st);
	return err;
}

static int series_row(struct ct *c, sqlite3_stmt *st)
{
	const char *name = (const char *)sqlite3_column_text(st, 1);
	const char *labels = (const char *)sqlite3_column_text(st, 2);
	const char *unit = (const char *)sqlite3_column_text(st, 3);
	struct series se;
	int err = 0;

	if (!c->metrics_named) {
		c->metrics_named = 1;
		err = meta(c, "process_name", CHROME_TRACE_TID_BASE,
			   CHROME_TRACE_TID_BASE, "name", "metrics", 0);
	}
	if (labels && strcmp(labels, "{}"))
		snprintf(se.name, sizeof(se.name), "%s %s", name, labels);
	else
		snprintf(se.name, sizeof(se.name), "%s", name);
	snprintf(se.key, sizeof(se.key), "%s", unit && *unit ? unit : "value");
	return err < 0 ? err : series_points(c, sqlite3_column_int64(st, 0), &se);
}

/* The series the session sampled, and the imported ones with a point in
 * its span (as queries/metrics.sql). */
static const char series_sql[] =
	"SELECT series_id, name, labels, unit"
	"  FROM metric_series ms"
	" WHERE ms.session_id = ?1"
	"    OR (ms.session_id IS NULL AND EXISTS (SELECT 1 FROM metric m"
	"        WHERE m.series_id = ms.series_id AND m.ts BETWEEN ?2 AND ?3))"
	" ORDER BY name, labels, series_id";

/* ---- losses ------------------------------------------------------------- */

static int lost_row(struct ct *c, sqlite3_stmt *st)
{
	const char *kind = (const char *)sqlite3_column_text(st, 2);
	char name[64];
	int first = 1;

	if (sqlite3_column_type(st, 0) == SQLITE_NULL) {
		c->n.lost_untimed++;
		return 0;
	}
	snprintf(name, sizeof(name), "lost %s", kind ? kind : "?");
	ev_begin(c, 'i', "lost", name);
	strbuf_adds(&c->sb, ",\"s\":\"g\"");
	ev_ts(c, sqlite3_column_int64(st, 0));
	arg_int(c, st, 1, "cpu", &first);
	arg_int(c, st, 3, "count", &first);
	args_end(c, first);
	c->n.lost++;
	return ev_end(c);
}

static const char lost_sql[] =
	"SELECT ts, cpu, kind, count FROM lost WHERE session_id = ?1 ORDER BY ts";

/* ---- the whole -------------------------------------------------------- */

static void header(struct ct *c)
{
	char utc[UTC_LEN];
	int first = 1;
	struct strbuf *sb = &c->sb;

	strbuf_adds(sb, "{\"displayTimeUnit\":\"ns\",\"otherData\":{");
	json_key(sb, "source", first), first = 0;
	json_cstring(sb, "faultline");
	json_key(sb, "database", 0);
	json_cstring(sb, c->path);
	json_key(sb, "session", 0);
	json_int(sb, c->s->id);
	json_key(sb, "host", 0);
	json_cstring(sb, c->s->host);
	json_key(sb, "command_line", 0);
	json_cstring(sb, c->s->command_line);
	json_key(sb, "status", 0);
	json_cstring(sb, c->s->status);
	json_key(sb, "clock", 0);
	json_cstring(sb, "CLOCK_REALTIME");
	json_key(sb, "ts_unit", 0);
	json_cstring(sb, "us since origin_realtime_ns");
	json_key(sb, "origin_realtime_ns", 0);
	strbuf_addf(sb, "\"%lld\"", (long long)c->s->start_ts);
	json_key(sb, "origin_utc", 0);
	json_cstring(sb, utc_format(utc, sizeof(utc), c->s->start_ts));
	json_key(sb, "end_utc", 0);
	json_cstring(sb, utc_format(utc, sizeof(utc), c->s->end_ts));
	json_key(sb, "min_fault_duration_ns", 0);
	json_int(sb, c->min_fault_ns);
	json_key(sb, "fault_track_tid_offset", 0);
	json_int(sb, CHROME_TRACE_TID_BASE);
	json_key(sb, "metrics_pid", 0);
	json_int(sb, CHROME_TRACE_TID_BASE);
	strbuf_adds(sb, "},\"traceEvents\":[");
}

/* fmt's %s: how to read table; its %lld, if any: the fault threshold. */
static int each_row_of(struct ct *c, const char *fmt, const char *table,
		       int (*row)(struct ct *c, sqlite3_stmt *st))
{
	char sql[512];

	snprintf(sql, sizeof(sql), fmt, session_scan_pays(c->db, table, c->s->id) ? "NOT INDEXED" : "",
		 (long long)c->min_fault_ns);
	return each_row(c, sql, row);
}

static int body(struct ct *c)
{
	int err = each_row(c, threads_sql, thread_row);

	if (err == 0)
		err = each_row_of(c, states_sql, "thread_state", state_row);
	if (err == 0)
		err = each_row_of(c, faults_sql, "fault", fault_row);
	if (err == 0)
		err = each_row(c, tracepoints_sql, tracepoint_row);
	if (err == 0)
		err = each_row(c, series_sql, series_row);
	if (err == 0)
		err = each_row(c, lost_sql, lost_row);
	return err;
}

/* ,"stackFrames":{...}: every frame an event's "sf" leads to, written
 * after the events, once they have all been seen. */
static int stack_frames_out(struct ct *c)
{
	const struct stack_frames *f = &c->stacks;
	int err = 0;

	strbuf_adds(&c->sb, ",\n\"stackFrames\":{");
	for (int64_t id = 1; err == 0 && id <= (int64_t)f->n; id++) {
		const struct stack_frames_node *nd = stack_frames_node(f, id);

		strbuf_adds(&c->sb, id > 1 ? ",\n\"" : "\n\"");
		json_int(&c->sb, id);
		strbuf_adds(&c->sb, "\":{\"name\":");
		json_cstring(&c->sb, nd->name);
		if (nd->parent) {
			strbuf_adds(&c->sb, ",\"parent\":\"");
			json_int(&c->sb, nd->parent);
			strbuf_addc(&c->sb, '"');
		}
		strbuf_addc(&c->sb, '}');
		err = out_file_put(&c->out, &c->sb, 0, c->e);
	}
	c->n.frames = f->n;
	c->n.stacks = f->nleaves;
	strbuf_adds(&c->sb, "}");
	return err;
}

int chrome_trace_write(sqlite3 *db, const char *db_path,
		       const struct session_info *s, uint64_t min_fault_ns,
		       const char *out_path, struct chrome_trace_counts *n,
		       struct errmsg *e)
{
	struct ct c = { db, db_path, s };
	int err;

	c.e = e;
	c.min_fault_ns = min_fault_ns > INT64_MAX ? INT64_MAX : (int64_t)min_fault_ns;
	c.fault_tid = -1;
	strbuf_init(&c.sb);
	stack_frames_init(&c.stacks, db, db_path, s->id);
	err = out_file_open(&c.out, out_path, e);
	if (err < 0)
		goto out;
	header(&c);
	err = body(&c);
	if (err == 0) {
		strbuf_adds(&c.sb, "\n]");
		err = stack_frames_out(&c);
	}
	if (err == 0) {
		strbuf_adds(&c.sb, "}\n");
		err = out_file_put(&c.out, &c.sb, 1, e);
	}
	if (err == 0)
		err = out_file_commit(&c.out, e);
out:
	out_file_abort(&c.out);
	stack_frames_release(&c.stacks);
	strbuf_release(&c.sb);
	free(c.tids);
	if (n)
		*n = c.n;
	return err;
}
