/*
 * faultline diagnose: names the cause of a session's stalls (diagnose/):
 * the pattern, the thread, when, how long, the events it preceded, the
 * evidence and what could be changed.  Glue: options, the engine, output.
 * Reads only (db_open_read).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../common/array.h"
#include "../common/cpulist.h"
#include "../common/strbuf.h"
#include "../diagnose/diagnose.h"
#include "../diagnose/render.h"
#include "../export/pg_conn.h"
#include "../schema/db.h"
#include "commands.h"
#include "diagnose_cli.h"
#include "opt.h"
#include "session_pick.h"
#include "reader.h"
#include "usage.h"

struct diagnose_args {
	int64_t session;	/* 0: the latest that recorded something */
	int64_t *tids;		/* owned */
	size_t ntids, tids_cap;
	const char *event;	/* borrowed from argv */
	int json;
	char isolated[512];	/* ",0,3,": --isolated, "" when not given */
	const char *schema;	/* borrowed: --schema, NULL: not given */
	struct diag_request req;
};

static int add_tid(void *ctx, uint64_t v)
{
	struct diagnose_args *a = ctx;

	if (ARRAY_RESERVE(a->tids, a->tids_cap, a->ntids + 1) < 0)
		return -ENOMEM;
	a->tids[a->ntids++] = (int64_t)v;
	return 0;
}

static int set_tids(void *value, const char *arg, const char *opt,
		    struct errmsg *e)
{
	return opt_parse_u64_list(arg, opt, 1, INT32_MAX, "thread ids, e.g. "
				  "4242 or 4242,4243", add_tid, value, e);
}

static int set_format(void *value, const char *arg, const char *opt,
		      struct errmsg *e)
{
	int *json = value;

	if (strcmp(arg, "text") && strcmp(arg, "json"))
		return errmsg_set(e, EINVAL, "invalid %s '%s': expected text or "
				  "json", opt, arg);
	*json = !strcmp(arg, "json");
	return 0;
}

static int set_isolated(void *value, const char *arg, const char *opt,
			struct errmsg *e)
{
	char *out = value;
	cpu_set_t set;
	size_t n = 1;

	if (cpulist_parse(arg, &set) < 0)
		return errmsg_set(e, EINVAL, "invalid %s '%s': expected CPU numbers "
				  "and ranges, e.g. 3 or 2-3", opt, arg);
	strcpy(out, ",");
	for (int c = 0; c < CPU_SETSIZE && n + 8 < 512; c++)
		if (CPU_ISSET(c, &set))
			n += (size_t)snprintf(out + n, 512 - n, "%d,", c);
	return 0;
}

static int set_min_value(void *value, const char *arg, const char *opt,
			 struct errmsg *e)
{
	struct diag_request *req = value;

	if (opt_parse_double(arg, opt, &req->min_value, e) < 0)
		return -EINVAL;
	req->has_min_value = 1;
	return 0;
}

static const char diagnose_usage[] =
	"faultline diagnose DB [--session N] [--tid TID...] [--event METRIC]\n"
	"       [--window DUR] [--after DUR] [--min-value X] [--min-duration DUR]\n"
	"       [--min-fault DUR] [--isolated CPUS] [--format text|json]\n"
	"       [--schema NAME]";

static const char diagnose_examples[] =
	"  faultline diagnose run.db\n"
	"  faultline diagnose run.db --event nak --tid 4242\n"
	"  faultline diagnose run.db --event lat --after 1ms --min-value 20000\n"
	"  faultline diagnose run.db --isolated 2-3 --format json\n"
	"  faultline diagnose 'postgresql://results@db1/perf' --session 41\n";

/* Runs the engine on the session picked and prints what it found. */
static int diagnose(sqlite3 *db, struct diagnose_args *a, int64_t id)
{
	struct diag_result res;
	struct strbuf sb;
	struct errmsg e;
	int err;

	errmsg_init(&e);
	diag_result_init(&res);
	strbuf_init(&sb);
	a->req.session_id = id;
	err = diag_run(db, &a->req, &res, &e);
	if (err == 0 && a->json)
		diag_render_json(&a->req, &res, &sb);
	else if (err == 0)
		diag_render_text(&a->req, &res, 0, &sb);
	if (err == 0 && strbuf_error(&sb))
		err = -ENOMEM;
	if (err == 0)
		fputs(strbuf_str(&sb), stdout);
	strbuf_release(&sb);
	diag_result_release(&res);
	if (err == -ENOMEM)
		return error("diagnose", "out of memory");
	return err < 0 ? error("diagnose", "%s", e.text) : 0;
}

int cmd_diagnose(int argc, char **argv)
{
	struct diagnose_args a = { 0 };
	const struct opt opts[] = {
		{ 's', "session", "N", "the session to diagnose (default: the "
		  "latest that recorded something)", OPT_CALLBACK, &a.session,
		  session_pick_parse },
		{ 't', "tid", "TID[,TID]", "only these threads (may be repeated)",
		  OPT_CALLBACK, &a, set_tids },
		{ 'e', "event", "METRIC", "line stalls up with this metric's events "
		  "(default: the one imported metric, if there is one)",
		  OPT_STRING, &a.event, NULL },
		{ 'w', "window", "DUR", "an event this long after a stall still "
		  "counts as preceded by it (default 200ms)", OPT_DURATION,
		  &a.req.window_ns, NULL },
		{ 0, "after", "DUR", "an event this long before a stall's start "
		  "counts too: a sample stamped at a request's start (default 0)",
		  OPT_DURATION, &a.req.after_ns, NULL },
		{ 0, "min-value", "X", "only the events whose value is X or more "
		  "(a latency over 20 ms: 20000 in us)", OPT_CALLBACK, &a.req,
		  set_min_value },
		{ 'm', "min-duration", "DUR", "the shortest time off the CPU "
		  "considered (default 1ms)", OPT_DURATION, &a.req.min_dur_ns, NULL },
		{ 0, "min-fault", "DUR", "the shortest fault considered (default "
		  "20us)", OPT_DURATION, &a.req.min_fault_ns, NULL },
		{ 0, "isolated", "CPUS", "CPUs kept for the target: any preemption "
		  "there is a finding", OPT_CALLBACK, a.isolated, set_isolated },
		{ 'f', "format", "FORMAT", "text (default) or json", OPT_CALLBACK,
		  &a.json, set_format },
		READER_SCHEMA_OPT(&a.schema),
		{ 0 },
	};
	const struct cmd_usage u = {
		"diagnose", diagnose_usage,
		"Name the cause of a session's stalls: the pattern, the thread, "
		"the events it preceded,\nthe evidence and the usual remedies. "
		"Reads only.",
		diagnose_examples, opts,
	};
	struct session_choice c;
	const char *path = NULL;
	sqlite3 *db = NULL;
	int64_t staged;		/* the session a results database gives */
	char shown[1024];	/* path as messages name it */
	struct errmsg e;
	int err;

	diag_request_init(&a.req);
	err = parse_db_args(&u, argc, argv, &path);
	if (err < 0) {
		free(a.tids);
		return err == OPT_HELP ? 0 : EXIT_USAGE;
	}
	if (reader_check_schema("diagnose", path, a.schema)) {
		free(a.tids);
		return EXIT_USAGE;
	}
	a.req.tids = a.tids;
	a.req.ntids = a.ntids;
	a.req.isolated = a.isolated[0] ? a.isolated : NULL;
	errmsg_init(&e);
	staged = a.session;
	err = reader_open_session("diagnose", path, a.schema, &staged, 1, NULL, &db, &e);
	/* A URL's password goes no further (pg_shown). */
	path = pg_shown(path, shown, sizeof(shown));
	if (err == 0)
		err = session_pick_recorded(db, path, a.session, &c, &e);
	if (err == 0)
		err = diag_default_event(db, a.event, &a.req.event, &e);
	if (err < 0) {
		db_close(db);
		free(a.tids);
		return error("diagnose", "%s", e.text), 1;
	}
	if (!a.json)
		printf("faultline diagnose: session %" PRId64 " of %s\n", c.id, path);
	err = diagnose(db, &a, c.id);
	free((char *)(a.event ? NULL : a.req.event));
	db_close(db);
	free(a.tids);
	return err < 0 ? 1 : 0;
}
