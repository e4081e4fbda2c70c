/*
 * faultline stacks: the stacks of a session's long faults and blocks,
 * ranked by --sort, each frame named as symbolization left it (through
 * schema.sql's stack_frame_name, names demangled when written), as text,
 * folded lines for flame graphs, JSON or CSV (stacks_out.c).
 *
 * Reads only (db_open_read).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../common/array.h"
#include "../common/json.h"
#include "../schema/views.h"
#include "../export/pg_conn.h"
#include "../schema/db.h"
#include "commands.h"
#include "../common/fmt_dur.h"
#include "opt.h"
#include "reader.h"
#include "session_pick.h"
#include "stacks_out.h"
#include "usage.h"

#define DEFAULT_LIMIT 10

struct stacks_args {
	int64_t session;	/* 0: the latest */
	uint64_t min_dur_ns;
	int64_t tid;		/* -1: all */
	const char *kind;	/* borrowed: major, minor, blocked, all */
	uint64_t limit;		/* 0: not given (text, JSON, CSV show
				 * DEFAULT_LIMIT; folded every stack) */
	const struct stack_order *sort;	/* static: --sort */
	enum stacks_format format;
	const char *schema;	/* borrowed: --schema, NULL: not given */
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

static int parse_format(void *value, const char *arg, const char *opt,
			struct errmsg *e)
{
	static const char *const names[] = { "text", "folded", "json", "csv" };

	for (size_t i = 0; i < ARRAY_SIZE(names); i++)
		if (!strcmp(arg, names[i])) {
			*(enum stacks_format *)value = (enum stacks_format)i;
			return 0;
		}
	return errmsg_set(e, EINVAL, "invalid %s '%s': expected text, folded, "
			  "json or csv", opt, arg);
}

static int set_folded(void *value, const char *arg, const char *opt,
		      struct errmsg *e)
{
	(void)arg, (void)opt, (void)e;
	*(enum stacks_format *)value = STACKS_FOLDED;
	return 0;
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

static const char *col_text(sqlite3_stmt *st, int col)
{
	return (const char *)sqlite3_column_text(st, col);
}

static void frame_from(sqlite3_stmt *st, struct frame_row *f)
{
	f->depth = sqlite3_column_int64(st, 0);
	f->addr = sqlite3_column_int64(st, 1);
	f->kernel = sqlite3_column_int(st, 2);
	f->dso = col_text(st, 3);
	f->status = col_text(st, 4);
	f->function = col_text(st, 5);
	f->has_offset = sqlite3_column_type(st, 6) != SQLITE_NULL;
	f->offset = sqlite3_column_int64(st, 6);
	f->has_size = sqlite3_column_type(st, 7) != SQLITE_NULL;
	f->size = sqlite3_column_int64(st, 7);
	f->file = col_text(st, 8);
	f->has_line = sqlite3_column_type(st, 9) != SQLITE_NULL;
	f->line = sqlite3_column_int64(st, 9);
	f->inlined = sqlite3_column_int(st, 10);
	f->name = col_text(st, 11);
}

/* A stack's frames up to its cut, innermost first, inlined functions
 * before the function that holds them. */
static int write_frames(sqlite3 *db, const char *path, sqlite3_stmt *st,
			struct stacks_out *o, const struct stack_row *s,
			struct errmsg *e)
{
	struct frame_row f;
	int rc, err = 0;

	sqlite3_reset(st);
	sqlite3_bind_int64(st, 5, s->stack_id);
	while (err == 0 && (rc = sqlite3_step(st)) == SQLITE_ROW) {
		frame_from(st, &f);
		err = stacks_out_frame(o, s, &f);
	}
	if (err < 0)
		return errmsg_set(e, ENOMEM, "out of memory");
	return rc == SQLITE_DONE ? 0 : db_fail(db, rc, path, "cannot read", e);
}

static void stack_from(sqlite3_stmt *st, const struct stacks_args *a,
		       struct stack_row *s)
{
	s->stack_id = sqlite3_column_int64(st, 0);
	s->events = sqlite3_column_int64(st, 1);
	s->total_ns = sqlite3_column_int64(st, 2);
	s->longest_ns = sqlite3_column_int64(st, 3);
	s->longest_tid = sqlite3_column_int64(st, 4);
	s->what = col_text(st, 5);
	s->method = col_text(st, 6);
	s->truncated = col_text(st, 7);
	s->all_ns = sqlite3_column_int64(st, 8);
	/* Folded: what --sort ranks by, as a number a flame graph sums:
	 * the events for count, else their time in microseconds (max's
	 * longest event would not add up). */
	s->folded_value = strcmp(a->sort->name, "count") ?
			  (s->total_ns + 500) / 1000 : s->events;
}

static int write_stacks(sqlite3 *db, const char *path,
			const struct stacks_args *a, struct stacks_out *o,
			struct errmsg *e)
{
	sqlite3_stmt *st = NULL, *fr = NULL;
	struct stack_row s = { 0 };
	char sql[1024];
	int rc = SQLITE_DONE, err;
	uint64_t limit = a->limit ? a->limit :
			 a->format == STACKS_FOLDED ? INT64_MAX : DEFAULT_LIMIT;

	snprintf(sql, sizeof(sql), EVENTS_CTE
		 "SELECT ev.stack_id, count(*), sum(ev.dur), max(ev.dur), ev.tid,"
		 "       ev.what, s.method, s.truncated,"
		 "       (SELECT sum(dur) FROM ev) AS all_ns"
		 "  FROM ev LEFT JOIN stack_shown s"
		 "    ON s.session_id = ?1 AND s.stack_id = ev.stack_id"
		 " GROUP BY ev.stack_id ORDER BY %s, ev.stack_id LIMIT ?5",
		 a->sort->order_by);
	err = prepare(db, path, sql, a, &st, e);
	if (err == 0)
		err = prepare(db, path,
			"SELECT depth, addr, kernel, dso, status, function, offset,"
			" size, file, line, inlined, name FROM stack_frame_name"
			" WHERE session_id = ?1 AND stack_id = ?5"
			" ORDER BY depth, idx", a, &fr, e);
	if (err == 0)
		sqlite3_bind_int64(st, 5, limit > INT64_MAX ? INT64_MAX : (int64_t)limit);
	while (err == 0 && (rc = sqlite3_step(st)) == SQLITE_ROW) {
		s.rank++;
		stack_from(st, a, &s);
		err = stacks_out_stack(o, &s) < 0 ?
		      errmsg_set(e, ENOMEM, "out of memory") : 0;
		if (err == 0)
			err = write_frames(db, path, fr, o, &s, e);
		if (err == 0)
			stacks_out_stack_end(o, &s);
	}
	if (err == 0 && rc != SQLITE_DONE)
		err = db_fail(db, rc, path, "cannot read", e);
	sqlite3_finalize(st);
	sqlite3_finalize(fr);
	return err;
}

/* How many events matched, and in how many distinct stacks. */
static int count_events(sqlite3 *db, const char *path,
			const struct stacks_args *a, int64_t *stacks,
			int64_t *events, struct errmsg *e)
{
	sqlite3_stmt *st = NULL;
	int rc, err;

	err = prepare(db, path, EVENTS_CTE
		      "SELECT count(DISTINCT stack_id), count(*) FROM ev", a, &st, e);
	if (err < 0)
		return err;
	rc = sqlite3_step(st);
	*stacks = sqlite3_column_int64(st, 0);
	*events = sqlite3_column_int64(st, 1);
	sqlite3_finalize(st);
	return rc == SQLITE_ROW ? 0 : db_fail(db, rc, path, "cannot read", e);
}

/* The summary line: on stdout before text; on stderr, and only when
 * nothing matched, for folded and CSV, whose output is only their lines. */
static void print_summary(const char *path, const struct stacks_args *a,
			  int64_t stacks, int64_t events)
{
	FILE *out = a->format == STACKS_TEXT ? stdout : stderr;
	char min[32];

	fmt_dur(min, sizeof(min), a->min_dur_ns);
	if (events == 0)
		fprintf(out, "session %lld in '%s': no events (--kind %s) with a "
			"stack of at least %s%s; record with --stacks, or widen "
			"--kind, --min-duration, --tid\n", (long long)a->session,
			path, a->kind, min, a->tid >= 0 ? " for this thread" : "");
	else if (a->format == STACKS_TEXT)
		printf("session %lld in '%s': %lld distinct stacks over %lld "
		       "events (--kind %s) of at least %s; %s, frames innermost "
		       "first\n", (long long)a->session, path, (long long)stacks,
		       (long long)events, a->kind, min, a->sort->says);
}

/* JSON's members before "stacks": what was asked, what matched. */
static int json_head(const char *path, const struct stacks_args *a,
		     int64_t stacks, int64_t events, struct strbuf *sb)
{
	json_key(sb, "session", 1);
	json_int(sb, a->session);
	json_key(sb, "db", 0);
	json_cstring(sb, path);
	json_key(sb, "kind", 0);
	json_cstring(sb, a->kind);
	json_key(sb, "min_duration_ns", 0);
	json_int(sb, a->min_dur_ns > INT64_MAX ? INT64_MAX : (int64_t)a->min_dur_ns);
	json_key(sb, "tid", 0);
	if (a->tid >= 0)
		json_int(sb, a->tid);
	else
		strbuf_adds(sb, "null");
	json_key(sb, "sort", 0);
	json_cstring(sb, a->sort->name);
	json_key(sb, "distinct_stacks", 0);
	json_int(sb, stacks);
	json_key(sb, "events", 0);
	json_int(sb, events);
	return strbuf_error(sb) < 0 ? -ENOMEM : 0;
}

static int run(sqlite3 *db, const char *path, const struct stacks_args *a,
	       struct errmsg *e)
{
	struct stacks_out o;
	struct strbuf head;
	int64_t stacks = 0, events = 0;
	int err = count_events(db, path, a, &stacks, &events, e);

	if (err < 0)
		return err;
	print_summary(path, a, stacks, events);
	strbuf_init(&head);
	stacks_out_init(&o, a->format, stdout);
	if (json_head(path, a, stacks, events, &head) < 0) {
		strbuf_release(&head);
		return errmsg_set(e, ENOMEM, "out of memory");
	}
	stacks_out_begin(&o, strbuf_str(&head));
	if (events)
		err = write_stacks(db, path, a, &o, e);
	if (err == 0)
		stacks_out_end(&o);
	stacks_out_release(&o);
	strbuf_release(&head);
	return err;
}

static const char stacks_usage[] =
	"faultline stacks DB [-s N] [--min-duration DUR] [--tid TID]\n"
	"                        [--kind major|minor|blocked|all] [--limit N]\n"
	"                        [--sort time|count|max] [--folded]\n"
	"                        [-f text|folded|json|csv] [--schema NAME]";

static const char stacks_examples[] =
	"  faultline stacks run.db\n"
	"  faultline stacks run.db --kind major --min-duration 1ms --limit 3\n"
	"  faultline stacks run.db --tid 4242 --kind blocked\n"
	"  faultline stacks run.db --sort count\n"
	"  faultline stacks run.db --folded | flamegraph.pl > stalls.svg\n"
	"  faultline stacks run.db -f json --limit 1\n"
	"  faultline stacks 'postgresql://results@db1/perf' --session 41\n";

int cmd_stacks(int argc, char **argv)
{
	struct stacks_args a = { 0, 0, -1, "all", 0, &stack_orders[0], STACKS_TEXT };
	const struct opt opts[] = {
		{ 's', "session", "N", "the session to read (default: the latest)",
		  OPT_CALLBACK, &a.session, session_pick_parse },
		{ 0, "min-duration", "DUR", "only events at least this long "
		  "(default 0)", OPT_DURATION, &a.min_dur_ns, NULL },
		{ 0, "tid", "TID", "only this thread's events", OPT_CALLBACK,
		  &a.tid, opt_parse_tid },
		{ 0, "kind", "KIND", "major or minor faults, blocked intervals, "
		  "or all (default)", OPT_CALLBACK, &a.kind, parse_kind },
		{ 0, "limit", "N", "show the first N stacks (default "
		  FL_STR(DEFAULT_LIMIT) "; folded: all)", OPT_CALLBACK, &a.limit,
		  parse_limit },
		{ 0, "sort", "ORDER", "time (the most time in its events, the "
		  "default), count (the most events) or max (the longest event)",
		  OPT_CALLBACK, &a.sort, parse_sort },
		{ 'f', "format", "FORMAT", "text (default), folded (a line per "
		  "stack for flame graphs: its time in us, or its count with "
		  "--sort count), json or csv (a line per frame)", OPT_CALLBACK,
		  &a.format, parse_format },
		{ 0, "folded", NULL, "the same as --format folded", OPT_CALLBACK,
		  &a.format, set_folded },
		READER_SCHEMA_OPT(&a.schema),
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
	int64_t staged;		/* the session a results database gives */
	char shown[1024];	/* path as messages name it */
	struct errmsg e;
	int res = parse_db_args(&u, argc, argv, &path), err;

	if (res < 0)
		return res == OPT_HELP ? 0 : EXIT_USAGE;
	if (reader_check_schema("stacks", path, a.schema))
		return EXIT_USAGE;
	errmsg_init(&e);
	staged = a.session;
	err = reader_open_session("stacks", path, a.schema, &staged, 0, NULL, &db, &e);
	/* A URL's password goes no further (pg_shown). */
	path = pg_shown(path, shown, sizeof(shown));
	if (err == 0)
		err = session_pick(db, path, &a.session, &e);
	/* A file of an older faultline may lack them (schema/views.h). */
	if (err == 0)
		err = schema_stack_views_current(db, &e);
	if (err == 0)
		err = run(db, path, &a, &e);
	db_close(db);
	if (err < 0)
		return error("stacks", "%s", e.text), 1;
	return 0;
}
