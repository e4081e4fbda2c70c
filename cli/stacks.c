/*
 * faultline stacks: the stacks of a session's long faults and blocks,
 * most frequent first, each frame named as symbolization left it:
 *
 *     addr  function+off/size  [dso]  file:line
 *
 * Reads only (db_open_read).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../common/array.h"
#include "../common/term_text.h"
#include "../schema/db.h"
#include "commands.h"
#include "fmt_dur.h"
#include "opt.h"
#include "session_pick.h"
#include "reader.h"
#include "usage.h"

#define DEFAULT_LIMIT 10

struct stacks_args {
	int64_t session;	/* 0: the latest */
	uint64_t min_dur_ns;
	int64_t tid;		/* -1: all */
	const char *kind;	/* borrowed: major, minor, blocked, all */
	uint64_t limit;
	const struct stack_order *sort;	/* static: --sort */
};

/* --sort: what ranks the stacks first; ties go to the longest event,
 * then the stack id. */
struct stack_order {
	const char *name;
	const char *order_by;	/* SQL over the grouped events */
	const char *says;	/* for the summary line */
};

static const struct stack_order stack_orders[] = {
	{ "time", "sum(ev.dur) DESC, max(ev.dur) DESC", "the most time first" },
	{ "count", "count(*) DESC, max(ev.dur) DESC", "the most frequent first" },
	{ "max", "max(ev.dur) DESC, sum(ev.dur) DESC", "the longest event first" },
};

static int parse_sort(void *value, const char *arg, const char *opt,
		      struct errmsg *e)
{
	for (size_t i = 0; i < ARRAY_SIZE(stack_orders); i++)
		if (!strcmp(arg, stack_orders[i].name)) {
			*(const struct stack_order **)value = &stack_orders[i];
			return 0;
		}
	return errmsg_set(e, EINVAL, "invalid %s '%s': expected time, count or "
			  "max", opt, arg);
}

static int parse_kind(void *value, const char *arg, const char *opt,
		      struct errmsg *e)
{
	static const char *const kinds[] = { "major", "minor", "blocked", "all" };

	for (size_t i = 0; i < ARRAY_SIZE(kinds); i++)
		if (!strcmp(arg, kinds[i])) {
			*(const char **)value = kinds[i];
			return 0;
		}
	return errmsg_set(e, EINVAL, "invalid %s '%s': expected major, minor, "
			  "blocked or all", opt, arg);
}

static int parse_limit(void *value, const char *arg, const char *opt,
		       struct errmsg *e)
{
	int err = opt_parse_u64(arg, opt, value, e);

	if (err == 0 && *(uint64_t *)value == 0)
		return errmsg_set(e, EINVAL, "invalid %s '%s': show at least one "
				  "stack", opt, arg);
	return err;
}

/* The events with a stack that pass the filters: faults (their kind) and
 * thread-state intervals begun by a switch-out with a stack (their
 * state).  Parameters ?1 session, ?2 kind, ?3 min dur, ?4 tid or NULL. */
#define EVENTS_CTE \
	"WITH ev AS (" \
	" SELECT stack_id, coalesce(dur, 0) AS dur, tid, kind || ' fault' AS what" \
	"   FROM fault WHERE session_id = ?1 AND stack_id IS NOT NULL" \
	"    AND (?2 = 'all' OR kind = ?2) AND coalesce(dur, 0) >= ?3" \
	"    AND (?4 IS NULL OR tid = ?4)" \
	" UNION ALL" \
	" SELECT stack_id, dur, tid, state FROM thread_state" \
	"  WHERE session_id = ?1 AND stack_id IS NOT NULL" \
	"    AND (?2 = 'all' OR (?2 = 'blocked' AND state = 'blocked'))" \
	"    AND dur >= ?3 AND (?4 IS NULL OR tid = ?4)) "

static int prepare(sqlite3 *db, const char *path, const char *sql,
		   const struct stacks_args *a, sqlite3_stmt **st, struct errmsg *e)
{
	int rc = sqlite3_prepare_v2(db, sql, -1, st, NULL);

	if (rc != SQLITE_OK)
		return db_fail(db, rc, path, "cannot read", e);
	sqlite3_bind_int64(*st, 1, a->session);
	if (sqlite3_bind_parameter_count(*st) < 2)
		return 0;
	sqlite3_bind_text(*st, 2, a->kind, -1, SQLITE_STATIC);
	sqlite3_bind_int64(*st, 3, a->min_dur_ns > INT64_MAX ? INT64_MAX
			   : (int64_t)a->min_dur_ns);
	if (a->tid >= 0)
		sqlite3_bind_int64(*st, 4, a->tid);
	return 0;
}

static const char *base_name(const char *path)
{
	const char *slash = strrchr(path, '/');

	return slash && slash[1] ? slash + 1 : path;
}

static const char *col_text(sqlite3_stmt *st, int col)
{
	return (const char *)sqlite3_column_text(st, col);
}

/* One line per function at a frame (inlined ones first). */
static void print_frame_line(sqlite3_stmt *st)
{
	const char *dso = col_text(st, 2), *status = col_text(st, 3);
	const char *fn = col_text(st, 4), *file = col_text(st, 7);
	char name[512], where[512] = "", place[256] = "", *shown;
	size_t len;

	if (fn) {
		len = (size_t)snprintf(name, sizeof(name), "%s", fn);
		if (sqlite3_column_type(st, 5) != SQLITE_NULL && len < sizeof(name))
			len += (size_t)snprintf(name + len, sizeof(name) - len,
						"+0x%llx", (unsigned long long)
						sqlite3_column_int64(st, 5));
		if (sqlite3_column_type(st, 6) != SQLITE_NULL && len < sizeof(name))
			len += (size_t)snprintf(name + len, sizeof(name) - len,
						"/0x%llx", (unsigned long long)
						sqlite3_column_int64(st, 6));
		if (sqlite3_column_int(st, 9) && len < sizeof(name))
			snprintf(name + len, sizeof(name) - len, " (inlined)");
	} else if (status) {
		snprintf(name, sizeof(name), "?? (%s)", status);
	} else {
		snprintf(name, sizeof(name), "?? (not symbolized: run faultline "
			 "symbolize)");
	}
	if (dso)
		snprintf(where, sizeof(where), dso[0] == '[' ? "%s" : "[%s]",
			 dso[0] == '[' ? dso : base_name(dso));
	if (file)
		snprintf(place, sizeof(place), "  %s:%d", base_name(file),
			 sqlite3_column_int(st, 8));
	/* Function names and paths are whatever the target's user chose
	 * (a perf map's names too): escaped for the terminal. */
	printf("    %16" PRIx64 "  ", (uint64_t)sqlite3_column_int64(st, 1));
	shown = term_text_dup(name);
	printf("%-40s  ", shown ? shown : "");
	free(shown);
	term_text_fputs(where, stdout);
	term_text_fputs(place, stdout);
	putchar('\n');
}

static int print_frames(sqlite3 *db, const char *path,
			const struct stacks_args *a, int64_t stack_id,
			struct errmsg *e)
{
	sqlite3_stmt *st = NULL;
	int rc, err;

	err = prepare(db, path,
		"SELECT sf.depth, f.addr, f.dso, f.status, s.function, s.offset,"
		" s.size, s.file, s.line, s.inlined"
		"  FROM stack_frame sf JOIN frame f USING (session_id, frame_id)"
		"  LEFT JOIN symbol s USING (session_id, frame_id)"
		" WHERE sf.session_id = ?1 AND sf.stack_id = ?5"
		" ORDER BY sf.depth, s.idx", a, &st, e);
	if (err < 0)
		return err;
	sqlite3_bind_int64(st, 5, stack_id);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW)
		print_frame_line(st);
	sqlite3_finalize(st);
	return rc == SQLITE_DONE ? 0 : db_fail(db, rc, path, "cannot read", e);
}

static void print_stack_header(sqlite3_stmt *st, int rank)
{
	char total[32], longest[32];
	const char *method = col_text(st, 6), *truncated = col_text(st, 7);
	int64_t all_ns = sqlite3_column_int64(st, 8);

	printf("\n#%d  stack %lld: %lld events, total %s (%.1f%% of all), "
	       "longest %s (tid %lld, %s), %s\n", rank,
	       (long long)sqlite3_column_int64(st, 0),
	       (long long)sqlite3_column_int64(st, 1),
	       fmt_dur(total, sizeof(total), (uint64_t)sqlite3_column_int64(st, 2)),
	       all_ns > 0 ? 100.0 * (double)sqlite3_column_int64(st, 2) / (double)all_ns :
	       0.0,
	       fmt_dur(longest, sizeof(longest), (uint64_t)sqlite3_column_int64(st, 3)),
	       (long long)sqlite3_column_int64(st, 4), col_text(st, 5),
	       method ? method : "unknown method");
	if (truncated)
		printf("    (the user part ends early: %s)\n", truncated);
}

static int print_stacks(sqlite3 *db, const char *path,
			const struct stacks_args *a, struct errmsg *e)
{
	sqlite3_stmt *st = NULL;
	char sql[1024];
	int rc, err, rank = 0;

	snprintf(sql, sizeof(sql), EVENTS_CTE
		 "SELECT ev.stack_id, count(*), sum(ev.dur), max(ev.dur), ev.tid,"
		 "       ev.what, s.method, s.truncated,"
		 "       (SELECT sum(dur) FROM ev) AS all_ns"
		 "  FROM ev LEFT JOIN stack s"
		 "    ON s.session_id = ?1 AND s.stack_id = ev.stack_id"
		 " GROUP BY ev.stack_id ORDER BY %s, ev.stack_id LIMIT ?5",
		 a->sort->order_by);
	err = prepare(db, path, sql, a, &st, e);
	if (err < 0)
		return err;
	sqlite3_bind_int64(st, 5, a->limit > INT64_MAX ? INT64_MAX : (int64_t)a->limit);
	while (err == 0 && (rc = sqlite3_step(st)) == SQLITE_ROW) {
		print_stack_header(st, ++rank);
		err = print_frames(db, path, a, sqlite3_column_int64(st, 0), e);
	}
	if (err == 0 && rc != SQLITE_DONE)
		err = db_fail(db, rc, path, "cannot read", e);
	sqlite3_finalize(st);
	return err;
}

/* The summary line; *events 0 when nothing matched. */
static int print_summary(sqlite3 *db, const char *path,
			 const struct stacks_args *a, int64_t *events,
			 struct errmsg *e)
{
	sqlite3_stmt *st = NULL;
	char min[32];
	int rc, err;

	err = prepare(db, path, EVENTS_CTE
		      "SELECT count(DISTINCT stack_id), count(*) FROM ev", a, &st, e);
	if (err < 0)
		return err;
	rc = sqlite3_step(st);
	if (rc != SQLITE_ROW) {
		sqlite3_finalize(st);
		return db_fail(db, rc, path, "cannot read", e);
	}
	*events = sqlite3_column_int64(st, 1);
	fmt_dur(min, sizeof(min), a->min_dur_ns);
	if (*events == 0)
		printf("session %lld in '%s': no events (--kind %s) with a stack "
		       "of at least %s%s; record with --stacks, or widen --kind, "
		       "--min-duration, --tid\n", (long long)a->session, path,
		       a->kind, min, a->tid >= 0 ? " for this thread" : "");
	else
		printf("session %lld in '%s': %lld distinct stacks over %lld "
		       "events (--kind %s) of at least %s; %s, frames innermost "
		       "first\n", (long long)a->session, path,
		       (long long)sqlite3_column_int64(st, 0), (long long)*events,
		       a->kind, min, a->sort->says);
	sqlite3_finalize(st);
	return 0;
}

static const char stacks_usage[] =
	"faultline stacks DB [--session N] [--min-duration DUR] [--tid TID]\n"
	"                        [--kind major|minor|blocked|all] [--limit N]\n"
	"                        [--sort time|count|max]";

static const char stacks_examples[] =
	"  faultline stacks run.db\n"
	"  faultline stacks run.db --kind major --min-duration 1ms --limit 3\n"
	"  faultline stacks run.db --tid 4242 --kind blocked\n"
	"  faultline stacks run.db --sort count\n";

int cmd_stacks(int argc, char **argv)
{
	struct stacks_args a = { 0, 0, -1, "all", DEFAULT_LIMIT, &stack_orders[0] };
	const struct opt opts[] = {
		{ 0, "session", "N", "the session to read (default: the latest)",
		  OPT_CALLBACK, &a.session, session_pick_parse },
		{ 0, "min-duration", "DUR", "only events at least this long "
		  "(default 0)", OPT_DURATION, &a.min_dur_ns, NULL },
		{ 0, "tid", "TID", "only this thread's events", OPT_CALLBACK,
		  &a.tid, opt_parse_tid },
		{ 0, "kind", "KIND", "major or minor faults, blocked intervals, "
		  "or all (default)", OPT_CALLBACK, &a.kind, parse_kind },
		{ 0, "limit", "N", "show the first N stacks (default "
		  FL_STR(DEFAULT_LIMIT) ")", OPT_CALLBACK, &a.limit, parse_limit },
		{ 0, "sort", "ORDER", "time (the most time in its events, the "
		  "default), count (the most events) or max (the longest event)",
		  OPT_CALLBACK, &a.sort, parse_sort },
		{ 0 },
	};
	const struct cmd_usage u = {
		"stacks", stacks_usage,
		"Print the stacks of a session's faults and blocks, the most time "
		"first, one frame a line.\nReads only: writes nothing, so a database "
		"on a read-only mount will do.",
		stacks_examples, opts,
	};
	const char *path = NULL;
	sqlite3 *db = NULL;
	struct errmsg e;
	int64_t events = 0;
	int res = parse_db_args(&u, argc, argv, &path), err;

	if (res < 0)
		return res == OPT_HELP ? 0 : EXIT_USAGE;
	errmsg_init(&e);
	err = reader_open("stacks", path, &db, &e);
	if (err == 0)
		err = session_pick(db, path, &a.session, &e);
	if (err == 0)
		err = print_summary(db, path, &a, &events, &e);
	if (err == 0 && events)
		err = print_stacks(db, path, &a, &e);
	db_close(db);
	if (err < 0)
		return error("stacks", "%s", e.text), 1;
	return 0;
}
