/*
 * faultline pt: the code path into a stall, from a session's Intel PT
 * (record --pt).  For one trace (the one a major fault carried, --fault;
 * or the one nearest a time, --around), innermost last:
 *
 *   the call stack when tracing stopped: the calls still open at the
 *   trace's end, each with its function, file:line and file;
 *   the last --limit calls and returns before it, indented by depth,
 *   with their time before the trigger;
 *   the gaps, where the flow could not be followed.
 *
 * Without --fault or --around it lists the traces.  --decode decodes the
 * stored traces again (schema/pt_replay.h) first: the only write.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../common/array.h"
#include "../common/clock.h"
#include "../common/term_text.h"
#include "../schema/db.h"
#include "../schema/pt_names.h"
#include "../schema/pt_replay.h"
#include "commands.h"
#include "../common/fmt_dur.h"
#include "opt.h"
#include "session_pick.h"
#include "usage.h"

#define DEFAULT_LIMIT 30

struct pt_args {
	int64_t session;	/* 0: the latest */
	int64_t fault;		/* 0: none */
	int64_t around;		/* CLOCK_REALTIME ns; 0: none */
	int64_t tid;		/* -1: any */
	int decode;
	uint64_t limit;
};

/* The trace being shown. */
struct shown {
	int64_t trace_id, pid, tid, ts, dur, bytes;
	int64_t fault_ts, fault_id;	/* its fault (trigger 'fault'); 0: none */
	char trigger[16];
};

/* One row of pt_call. */
struct flow_row {
	int64_t ts;		/* INT64_MIN: none */
	int depth;
	char kind[8];
	uint64_t from, to;
};

static int parse_id(void *value, const char *arg, const char *opt,
		    struct errmsg *e)
{
	uint64_t v;
	int err = opt_parse_u64(arg, opt, &v, e);

	if (err == 0 && (v == 0 || v > INT64_MAX))
		return errmsg_set(e, ERANGE, "invalid %s '%s': expected a positive "
				  "id", opt, arg);
	if (err == 0)
		*(int64_t *)value = (int64_t)v;
	return err;
}

/* ns since the epoch, or a UTC time "2026-11-23T15:41:18[.014123456][Z]"
 * (utc_parse). */
static int parse_time(void *value, const char *arg, const char *opt,
		      struct errmsg *e)
{
	uint64_t v;

	if (opt_parse_u64(arg, opt, &v, e) == 0 && v <= INT64_MAX) {
		*(int64_t *)value = (int64_t)v;
		return 0;
	}
	if (utc_parse(arg, strlen(arg), UTC_ZONE_OPTIONAL, value) == 0)
		return 0;
	return errmsg_set(e, EINVAL, "invalid %s '%s': expected ns since "
			  "the epoch or a UTC time like "
			  "2026-11-23T15:41:18.014Z", opt, arg);
}

static int parse_limit(void *value, const char *arg, const char *opt,
		       struct errmsg *e)
{
	int err = opt_parse_u64(arg, opt, value, e);

	if (err == 0 && *(uint64_t *)value == 0)
		return errmsg_set(e, EINVAL, "invalid %s '%s': show at least one",
				  opt, arg);
	return err;
}


static int failed(sqlite3 *db, int rc, const char *path, struct errmsg *e)
{
	return db_fail(db, rc, path, "cannot read", e);
}

/* ---- choosing the trace ------------------------------------------------ */

/* A trace and the fault it was taken at, if any. */
#define TRACE_FROM \
	"SELECT t.trace_id, t.pid, t.tid, t.ts, coalesce(t.dur, f.dur, 0)," \
	" t.bytes, t.trigger, coalesce(t.fault_ts, 0), coalesce(f.rowid, 0)" \
	" FROM pt_trace t LEFT JOIN fault f ON f.session_id = t.session_id" \
	"  AND f.tid = t.tid AND f.ts = t.fault_ts AND t.trigger = 'fault'"

static void shown_from(sqlite3_stmt *st, struct shown *s)
{
	const unsigned char *t = sqlite3_column_text(st, 6);

	s->trace_id = sqlite3_column_int64(st, 0);
	s->pid = sqlite3_column_int64(st, 1);
	s->tid = sqlite3_column_int64(st, 2);
	s->ts = sqlite3_column_int64(st, 3);
	s->dur = sqlite3_column_int64(st, 4);
	s->bytes = sqlite3_column_int64(st, 5);
	snprintf(s->trigger, sizeof(s->trigger), "%s", t ? (const char *)t : "?");
	s->fault_ts = sqlite3_column_int64(st, 7);
	s->fault_id = sqlite3_column_int64(st, 8);
}

/* One row of sql (?1 session, ?2 a, ?3 b) into s.  1 found, 0 not. */
static int pick(sqlite3 *db, const char *path, const char *sql, int64_t session,
		int64_t a, int64_t b, struct shown *s, struct errmsg *e)
{
	sqlite3_stmt *st = NULL;
	int rc = sqlite3_prepare_v2(db, sql, -1, &st, NULL), found = 0;

	if (rc != SQLITE_OK)
		return failed(db, rc, path, e);
	sqlite3_bind_int64(st, 1, session);
	sqlite3_bind_int64(st, 2, a);
	if (b >= 0)
		sqlite3_bind_int64(st, 3, b);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW) {
		shown_from(st, s);
		found = 1;
	}
	sqlite3_finalize(st);
	return rc == SQLITE_ROW || rc == SQLITE_DONE ? found : failed(db, rc, path, e);
}

static int pick_trace(sqlite3 *db, const char *path, const struct pt_args *a,
		      struct shown *s, struct errmsg *e)
{
	int found;

	if (a->fault) {
		found = pick(db, path, TRACE_FROM " WHERE t.session_id = ?1 AND"
			     " f.rowid = ?2", a->session, a->fault, -1, s, e);
		if (found == 0)
			return errmsg_set(e, ENOENT, "fault %lld of session %lld has "
					  "no Intel PT trace (with --pt=fault, each "
					  "major fault carries one); 'faultline pt %s' "
					  "lists the faults that do", (long long)a->fault,
					  (long long)a->session, path);
		return found < 0 ? found : 0;
	}
	found = pick(db, path, TRACE_FROM " WHERE t.session_id = ?1 AND"
		     " (?3 IS NULL OR t.tid = ?3) ORDER BY abs(t.ts - ?2), t.trace_id"
		     " LIMIT 1", a->session, a->around, a->tid, s, e);
	if (found == 0)
		return errmsg_set(e, ENOENT, "session %lld has no Intel PT trace%s; "
				  "record with --pt", (long long)a->session,
				  a->tid >= 0 ? " of this thread" : "");
	return found < 0 ? found : 0;
}

/* ---- the flow ---------------------------------------------------------- */

static int load_rows(sqlite3 *db, const char *path, int64_t session,
		     const struct shown *s, struct flow_row **rows, size_t *n,
		     struct errmsg *e)
{
	sqlite3_stmt *st = NULL;
	size_t cap = 0;
	int rc = sqlite3_prepare_v2(db, "SELECT ts, depth, kind, from_addr, to_addr"
				    " FROM pt_call WHERE session_id = ? AND"
				    " trace_id = ? ORDER BY seq", -1, &st, NULL);

	*rows = NULL;
	*n = 0;
	if (rc != SQLITE_OK)
		return failed(db, rc, path, e);
	sqlite3_bind_int64(st, 1, session);
	sqlite3_bind_int64(st, 2, s->trace_id);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		struct flow_row *r;
		const unsigned char *k = sqlite3_column_text(st, 2);

		if (ARRAY_RESERVE(*rows, cap, *n + 1) < 0) {
			sqlite3_finalize(st);
			return errmsg_set(e, ENOMEM, "out of memory");
		}
		r = &(*rows)[(*n)++];
		r->ts = sqlite3_column_type(st, 0) == SQLITE_NULL ? INT64_MIN :
			sqlite3_column_int64(st, 0);
		r->depth = sqlite3_column_int(st, 1);
		snprintf(r->kind, sizeof(r->kind), "%s", k ? (const char *)k : "?");
		r->from = (uint64_t)sqlite3_column_int64(st, 3);
		r->to = (uint64_t)sqlite3_column_int64(st, 4);
	}
	sqlite3_finalize(st);
	return rc == SQLITE_DONE ? 0 : failed(db, rc, path, e);
}

/* "function  file:line  [dso]" for addr. */
static void describe(struct pt_names *names, uint64_t addr, int return_addr,
		     char *buf, size_t n)
{
	const struct pt_name *nm = addr ? pt_names_lookup(names, addr, return_addr) : NULL;
	char where[256] = "", *shown;

	if (nm && nm->file) {
		const char *b = strrchr(nm->file, '/');

		snprintf(where, sizeof(where), "  %s:%d", b ? b + 1 : nm->file, nm->line);
	}
	if (!addr)
		snprintf(buf, n, "?");
	else if (nm && nm->function)
		snprintf(buf, n, "%s%s  [%s]", nm->function, where,
			 nm->dso ? nm->dso : "?");
	else
		snprintf(buf, n, "0x%" PRIx64 "  [%s]", addr,
			 nm && nm->dso ? nm->dso : "not named");
	/* Function, file and object names are the target's choice:
	 * escaped for the terminal (common/term_text.h). */
	shown = term_text_dup(buf);
	snprintf(buf, n, "%s", shown ? shown : "?");
	free(shown);
}

/*
 * The calls open at the end: an address in each open function, by
 * depth.  A call at depth d: the caller's site at d-1, the callee at d;
 * a return to depth d: the return address at d; others: where the flow
 * is at their depth.
 */
static int open_stack(const struct flow_row *rows, size_t n, uint64_t *at,
		      int *is_ret, int max)
{
	int top = -1;

	for (size_t i = 0; i < n; i++) {
		const struct flow_row *r = &rows[i];
		int d = r->depth;

		if (d < 0 || d >= max)
			continue;
		if (!strcmp(r->kind, "call")) {
			if (d > 0) {
				at[d - 1] = r->from;
				is_ret[d - 1] = 0;
			}
			at[d] = r->to;
		} else if (!strcmp(r->kind, "disable")) {
			at[d] = r->from;
		} else {
			at[d] = r->to;
		}
		is_ret[d] = !strcmp(r->kind, "return");
		top = d;
	}
	return top;
}

static void print_stack(struct pt_names *names, const struct flow_row *rows,
			size_t n)
{
	uint64_t at[256] = { 0 };
	int is_ret[256] = { 0 };
	int top = open_stack(rows, n, at, is_ret, 256);
	char what[512];

	printf("\nthe call stack when the trace ends (outermost first, innermost "
	       "last):\n");
	for (int d = 0; d <= top; d++) {
		describe(names, at[d], is_ret[d], what, sizeof(what));
		printf("  %3d  %16" PRIx64 "  %s\n", d, at[d], what);
	}
	if (n && !strcmp(rows[n - 1].kind, "disable"))
		printf("       tracing stopped there: the fault, a system call or a "
		       "switch-out took the thread into the kernel\n");
}

static void print_recent(struct pt_names *names, const struct flow_row *rows,
			 size_t n, const struct shown *s, uint64_t limit)
{
	size_t from = n > limit ? n - (size_t)limit : 0;
	/* Before the stall: a fault's entry, else the trigger. */
	int64_t ref = s->fault_ts ? s->fault_ts : s->ts;
	char what[512], when[32];

	printf("\nthe last %zu of %zu calls and returns (how long before the %s "
	       "%s):\n", n - from, n, s->trigger, s->fault_ts ? "began" : "");
	for (size_t i = from; i < n; i++) {
		const struct flow_row *r = &rows[i];
		int ret = !strcmp(r->kind, "return");
		uint64_t addr = ret || !strcmp(r->kind, "disable") ? r->from : r->to;
		int indent = r->depth > 20 ? 20 : r->depth;

		if (r->ts == INT64_MIN)
			snprintf(when, sizeof(when), "?");
		else if (r->ts <= ref)
			fmt_dur(when, sizeof(when), (uint64_t)(ref - r->ts));
		else
			snprintf(when, sizeof(when), "after");
		describe(names, addr, 0, what, sizeof(what));
		printf("  %10s  %-7s %*s%s%s\n", when, r->kind, 2 * indent, "",
		       ret ? "<- " : "", what);
	}
}

static int print_gaps(sqlite3 *db, const char *path, int64_t session,
		      const struct shown *s, struct errmsg *e)
{
	sqlite3_stmt *st = NULL;
	int rc = sqlite3_prepare_v2(db, "SELECT reason, message, ip FROM pt_gap"
				    " WHERE session_id = ? AND trace_id = ?"
				    " ORDER BY offset", -1, &st, NULL);
	int first = 1;

	if (rc != SQLITE_OK)
		return failed(db, rc, path, e);
	sqlite3_bind_int64(st, 1, session);
	sqlite3_bind_int64(st, 2, s->trace_id);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		if (first)
			printf("\ngaps, where the flow could not be followed:\n");
		first = 0;
		printf("  %-11s %s\n", sqlite3_column_text(st, 0),
		       sqlite3_column_text(st, 1));
	}
	sqlite3_finalize(st);
	return rc == SQLITE_DONE ? 0 : failed(db, rc, path, e);
}

static int show_trace(sqlite3 *db, const char *path, const struct pt_args *a,
		      struct errmsg *e)
{
	struct shown s;
	struct flow_row *rows = NULL;
	struct pt_names names;
	char ts[48], dur[32];
	size_t n = 0;
	int err = pick_trace(db, path, a, &s, e);

	if (err < 0)
		return err;
	if (s.fault_id)
		printf("trace %lld of session %lld: fault %lld, a major fault of %s "
		       "at %s, thread %lld, %lld bytes\n", (long long)s.trace_id,
		       (long long)a->session, (long long)s.fault_id,
		       fmt_dur(dur, sizeof(dur), (uint64_t)s.dur),
		       utc_format(ts, sizeof(ts), s.fault_ts), (long long)s.tid,
		       (long long)s.bytes);
	else
		printf("trace %lld of session %lld: %s at %s%s%s, thread %lld, %lld "
		       "bytes\n", (long long)s.trace_id, (long long)a->session,
		       s.trigger, utc_format(ts, sizeof(ts), s.ts), s.dur ? ", lasting " : "",
		       s.dur ? fmt_dur(dur, sizeof(dur), (uint64_t)s.dur) : "",
		       (long long)s.tid, (long long)s.bytes);
	err = load_rows(db, path, a->session, &s, &rows, &n, e);
	if (err == 0 && !n)
		printf("\nno calls or returns decoded from it%s\n", s.bytes ?
		       "; if it was never decoded, run 'faultline pt DB --decode'" : "");
	if (err == 0 && n)
		err = pt_names_open(&names, db, path, a->session, NULL, e);
	if (err == 0 && n) {
		err = pt_names_process(&names, db, path, a->session, s.pid, e);
		if (err == 0) {
			print_stack(&names, rows, n);
			print_recent(&names, rows, n, &s, a->limit);
		}
		pt_names_close(&names);
	}
	if (err == 0)
		err = print_gaps(db, path, a->session, &s, e);
	free(rows);
	return err;
}

/* ---- the list --------------------------------------------------------- */

static int list_traces(sqlite3 *db, const char *path, const struct pt_args *a,
		       struct errmsg *e)
{
	sqlite3_stmt *st = NULL;
	char ts[48], dur[32];
	int rc, n = 0;

	rc = sqlite3_prepare_v2(db,
		"SELECT t.trace_id, t.trigger, coalesce(t.fault_ts, t.ts),"
		" coalesce(t.dur, f.dur, 0), t.tid, t.bytes, f.rowid"
		" FROM pt_trace t LEFT JOIN fault f ON f.session_id = t.session_id"
		"  AND f.tid = t.tid AND f.ts = t.fault_ts AND t.trigger = 'fault'"
		" WHERE t.session_id = ?1 AND (?2 IS NULL OR t.tid = ?2)"
		" ORDER BY coalesce(t.dur, f.dur, 0) DESC, t.ts LIMIT ?3", -1, &st,
		NULL);
	if (rc != SQLITE_OK)
		return failed(db, rc, path, e);
	sqlite3_bind_int64(st, 1, a->session);
	if (a->tid >= 0)
		sqlite3_bind_int64(st, 2, a->tid);
	sqlite3_bind_int64(st, 3, a->limit > INT64_MAX ? INT64_MAX : (int64_t)a->limit);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		if (!n++)
			printf("%8s  %-10s  %-30s  %10s  %8s  %8s  %8s\n", "trace",
			       "trigger", "time (UTC)", "lasting", "tid", "bytes",
			       "fault");
		printf("%8lld  %-10s  %-30s  %10s  %8lld  %8lld  %8s\n",
		       (long long)sqlite3_column_int64(st, 0),
		       sqlite3_column_text(st, 1),
		       utc_format(ts, sizeof(ts), sqlite3_column_int64(st, 2)),
		       sqlite3_column_int64(st, 3) ? fmt_dur(dur, sizeof(dur),
				(uint64_t)sqlite3_column_int64(st, 3)) : "-",
		       (long long)sqlite3_column_int64(st, 4),
		       (long long)sqlite3_column_int64(st, 5),
		       sqlite3_column_type(st, 6) == SQLITE_NULL ? "-" :
		       (const char *)sqlite3_column_text(st, 6));
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE)
		return failed(db, rc, path, e);
	if (!n)
		printf("session %lld in '%s' has no Intel PT trace%s; record with "
		       "--pt\n", (long long)a->session, path,
		       a->tid >= 0 ? " of this thread" : "");
	else
		printf("\nlongest first; 'faultline pt %s --fault ID' or --around TIME "
		       "shows the path into one\n", path);
	return 0;
}

/* ---- the command ------------------------------------------------------ */

static int decode_again(const char *path, int64_t *session, struct errmsg *e)
{
	struct pt_replay_stats st;
	sqlite3 *db = NULL;
	int err = db_open_write(path, &db, e);

	if (err == 0)
		err = session_pick(db, path, session, e);
	if (err == 0)
		err = pt_replay_session(db, path, *session, NULL, &st, e);
	if (err == 0)
		printf("decoded %llu traces (%llu bytes) of session %lld: %llu calls "
		       "and returns, %llu gaps\n", (unsigned long long)st.traces,
		       (unsigned long long)st.bytes, (long long)*session,
		       (unsigned long long)st.rows, (unsigned long long)st.gaps);
	db_close(db);
	return err;
}

static const char pt_usage[] =
	"faultline pt DB [--session N] [--fault ID | --around TIME] [--tid TID]\n"
	"                        [--decode] [--limit N]";

static const char pt_examples[] =
	"  faultline pt run.db                          # the traces, longest first\n"
	"  faultline pt run.db --fault 17               # the path into fault 17\n"
	"  faultline pt run.db --around 2026-11-23T15:41:18.014Z --tid 4243\n"
	"  faultline pt run.db --decode                 # decode the traces again\n";

int cmd_pt(int argc, char **argv)
{
	struct pt_args a = { 0, 0, 0, -1, 0, DEFAULT_LIMIT };
	const struct opt opts[] = {
		{ 's', "session", "N", "the session to read (default: the latest)",
		  OPT_CALLBACK, &a.session, session_pick_parse },
		{ 0, "fault", "ID", "the trace a major fault carried (ID: the fault's "
		  "rowid, as the list shows)", OPT_CALLBACK, &a.fault, parse_id },
		{ 0, "around", "TIME", "the trace nearest TIME (ns since the epoch, or "
		  "UTC like 2026-11-23T15:41:18.014Z)", OPT_CALLBACK, &a.around,
		  parse_time },
		{ 0, "tid", "TID", "only this thread's traces", OPT_CALLBACK, &a.tid,
		  opt_parse_tid },
		{ 0, "decode", NULL, "decode the session's stored traces again first "
		  "(the files they ran may have been found since)", OPT_FLAG,
		  &a.decode, NULL },
		{ 0, "limit", "N", "calls and returns to show, or traces to list "
		  "(default " FL_STR(DEFAULT_LIMIT) ")", OPT_CALLBACK, &a.limit,
		  parse_limit },
		{ 0 },
	};
	const struct cmd_usage u = {
		"pt", pt_usage,
		"Print the code path into a stall from a session's Intel PT trace, "
		"innermost last.", pt_examples, opts,
	};
	const char *path = NULL;
	sqlite3 *db = NULL;
	struct errmsg e;
	int res = parse_db_args(&u, argc, argv, &path), err = 0;

	if (res < 0)
		return res == OPT_HELP ? 0 : EXIT_USAGE;
	if (a.fault && a.around)
		return error("pt", "--fault and --around each pick a trace; give "
			     "one of them"), EXIT_USAGE;
	errmsg_init(&e);
	if (a.decode)
		err = decode_again(path, &a.session, &e);
	if (err == 0)
		err = db_open_read(path, &db, &e);
	if (err == 0)
		err = session_pick(db, path, &a.session, &e);
	if (err == 0 && (a.fault || a.around))
		err = show_trace(db, path, &a, &e);
	else if (err == 0 && !a.decode)
		err = list_traces(db, path, &a, &e);
	db_close(db);
	if (err < 0)
		return error("pt", "%s", e.text), 1;
	return 0;
}
