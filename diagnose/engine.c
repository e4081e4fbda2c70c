/*
 * The engine's first half: the session's facts (recorder, events) and
 * each pattern's fingerprint run into stalls.  group.c counts each stall
 * once and makes findings of them.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../common/array.h"
#include "../common/cpulist.h"
#include "../schema/views.h"
#include "engine.h"
#include "pattern.h"

void diag_request_init(struct diag_request *r)
{
	memset(r, 0, sizeof(*r));
	r->window_ns = 200000000;	/* stalls-near's default window */
	r->min_dur_ns = 1000000;	/* a CFS slice is a few ms: shorter waits
					 * for a CPU are the machine's normal */
	r->min_fault_ns = 20000;	/* ten times a minor fault here */
}

void diag_result_init(struct diag_result *res)
{
	memset(res, 0, sizeof(*res));
}

void diag_result_release(struct diag_result *res)
{
	for (size_t i = 0; i < res->nstalls; i++) {
		free(res->stalls[i].culprit);
		free(res->stalls[i].evidence);
		free(res->stalls[i].file);
	}
	for (size_t i = 0; i < res->nfindings; i++) {
		free(res->findings[i].comm);
		free(res->findings[i].culprit);
		free(res->findings[i].detail);
		free(res->findings[i].stack);
	}
	for (size_t i = 0; i < res->nthreads; i++) {
		for (size_t k = 0; k < res->threads[i].nreasons; k++)
			free(res->threads[i].reasons[k].reason);
		free(res->threads[i].reasons);
		free(res->threads[i].comm);
	}
	free(res->threads);
	free(res->stalls);
	free(res->findings);
	free(res->event_ts);
	diag_result_init(res);
}

int diag_sql_fail(sqlite3 *db, const char *what, struct errmsg *e)
{
	if (sqlite3_errcode(db) == SQLITE_NOMEM)
		return -ENOMEM;
	return errmsg_set(e, EIO, "cannot run %s: %s", what, sqlite3_errmsg(db));
}

/* session.recorder_pid (schema 5); 0 in an older file or when NULL. */
static int64_t recorder_pid(sqlite3 *db, int64_t session)
{
	sqlite3_stmt *st = NULL;
	int64_t pid = 0;

	if (sqlite3_prepare_v2(db, "SELECT recorder_pid FROM session WHERE "
			       "session_id = ?", -1, &st, NULL) == SQLITE_OK) {
		sqlite3_bind_int64(st, 1, session);
		if (sqlite3_step(st) == SQLITE_ROW)
			pid = sqlite3_column_int64(st, 0);
	}
	sqlite3_finalize(st);
	return pid;
}

/* The times of req->event's points in the session (imported series, and
 * those the session sampled), sorted, into res->event_ts. */
static int load_events(sqlite3 *db, const struct diag_request *req,
		       struct diag_result *res, struct errmsg *e)
{
	static const char sql[] =
		"SELECT m.ts FROM session s, metric_series ms"
		" JOIN metric m ON m.series_id = ms.series_id"
		" WHERE s.session_id = ?1 AND ms.name = ?2"
		"   AND (ms.session_id IS NULL OR ms.session_id = s.session_id)"
		"   AND m.ts >= s.start_ts - ?4"
		"   AND m.ts <= coalesce(s.end_ts, 1 << 62) + ?3"
		"   AND (?5 IS NULL OR m.value >= ?5)"
		" ORDER BY m.ts";
	sqlite3_stmt *st = NULL;
	int rc, err = 0;

	if (!req->event)
		return 0;
	rc = sqlite3_prepare_v2(db, "SELECT 1 FROM metric_series WHERE name = ?",
				-1, &st, NULL);
	if (rc == SQLITE_OK && sqlite3_bind_text(st, 1, req->event, -1,
						 SQLITE_STATIC) == SQLITE_OK)
		rc = sqlite3_step(st);
	sqlite3_finalize(st);
	if (rc == SQLITE_DONE)
		return errmsg_set(e, ENOENT, "no metric named '%s'; 'faultline "
				  "query DB metrics' lists those there", req->event);
	if (rc != SQLITE_ROW || sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK)
		return diag_sql_fail(db, "the event query", e);
	sqlite3_bind_int64(st, 1, req->session_id);
	sqlite3_bind_text(st, 2, req->event, -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 3, (int64_t)req->window_ns);
	sqlite3_bind_int64(st, 4, (int64_t)req->after_ns);
	if (req->has_min_value)
		sqlite3_bind_double(st, 5, req->min_value);
	while (err == 0 && (rc = sqlite3_step(st)) == SQLITE_ROW) {
		err = ARRAY_RESERVE(res->event_ts, res->events_cap, res->nevents + 1);
		if (err == 0)
			res->event_ts[res->nevents++] = sqlite3_column_int64(st, 0);
	}
	if (err == 0 && rc != SQLITE_DONE)
		err = diag_sql_fail(db, "the event query", e);
	sqlite3_finalize(st);
	return err;
}

int diag_wanted(const struct diag_request *req, int64_t tid)
{
	if (!req->ntids)
		return 1;
	for (size_t i = 0; i < req->ntids; i++)
		if (req->tids[i] == tid)
			return 1;
	return 0;
}

/* Binds the parameters pattern p's fingerprint names (pattern.h). */
static void bind_params(sqlite3_stmt *st, const struct diag_request *req,
			int64_t rec_pid)
{
	int i;

	if ((i = sqlite3_bind_parameter_index(st, ":session")))
		sqlite3_bind_int64(st, i, req->session_id);
	if ((i = sqlite3_bind_parameter_index(st, ":min_dur")))
		sqlite3_bind_int64(st, i, (int64_t)req->min_dur_ns);
	if ((i = sqlite3_bind_parameter_index(st, ":min_fault")))
		sqlite3_bind_int64(st, i, (int64_t)req->min_fault_ns);
	if ((i = sqlite3_bind_parameter_index(st, ":recorder_pid")) && rec_pid)
		sqlite3_bind_int64(st, i, rec_pid);
	if ((i = sqlite3_bind_parameter_index(st, ":isolated")) && req->isolated)
		sqlite3_bind_text(st, i, req->isolated, -1, SQLITE_STATIC);
}

static char *column_dup(sqlite3_stmt *st, int col)
{
	const char *s = (const char *)sqlite3_column_text(st, col);

	return s ? strdup(s) : NULL;
}

/* One fingerprint row into a stall. */
static int add_stall(struct diag_result *res, sqlite3_stmt *st, size_t pattern)
{
	struct diag_stall *s;

	if (ARRAY_RESERVE(res->stalls, res->stalls_cap, res->nstalls + 1) < 0)
		return -ENOMEM;
	s = &res->stalls[res->nstalls];
	memset(s, 0, sizeof(*s));
	s->tid = sqlite3_column_int64(st, 0);
	s->ts = sqlite3_column_int64(st, 1);
	s->dur_ns = sqlite3_column_int64(st, 2);
	s->lost_ns = s->dur_ns;	/* less its waits for a CPU: group.c */
	s->pattern = pattern;
	s->culprit = column_dup(st, 3);
	s->evidence = column_dup(st, 4);
	s->stack_id = sqlite3_column_int64(st, 5);
	s->file = column_dup(st, 6);
	s->file_offset = sqlite3_column_type(st, 7) == SQLITE_NULL ? -1 :
			 sqlite3_column_int64(st, 7);
	res->nstalls++;
	if (!s->culprit && !(s->culprit = strdup("")))
		return -ENOMEM;
	if (!s->evidence && !(s->evidence = strdup("")))
		return -ENOMEM;
	return 0;
}

/* Runs pattern k's fingerprint, adding the stalls of wanted threads. */
static int run_pattern(sqlite3 *db, const struct diag_request *req,
		       size_t k, struct diag_result *res, struct errmsg *e)
{
	const struct diag_pattern *p = diag_patterns[k];
	sqlite3_stmt *st = NULL;
	int rc, err = 0;

	if (sqlite3_prepare_v2(db, p->sql, -1, &st, NULL) != SQLITE_OK)
		return diag_sql_fail(db, p->name, e);
	bind_params(st, req, res->recorder_pid);
	while (err == 0 && (rc = sqlite3_step(st)) == SQLITE_ROW)
		if (diag_wanted(req, sqlite3_column_int64(st, 0)))
			err = add_stall(res, st, k);
	if (err == 0 && rc != SQLITE_DONE)
		err = diag_sql_fail(db, p->name, e);
	sqlite3_finalize(st);
	return err;
}

/*
 * The CPUs isolated when the session was recorded (the kernel's isolcpus
 * list, as record read it into session_env), into res and, as ",2,3,"
 * (the request's form), into out.  0 when there were none or the file
 * predates the environment.
 */
static int recorded_isolated(sqlite3 *db, int64_t session,
			     struct diag_result *res, char *out, size_t n)
{
	sqlite3_stmt *st = NULL;
	const char *list;
	cpu_set_t set;
	size_t len = 1;
	int found = 0;

	if (sqlite3_prepare_v2(db, "SELECT value FROM session_env WHERE session_id = ?"
			       " AND key = 'cpu.isolated'", -1, &st, NULL) != SQLITE_OK)
		return 0;
	sqlite3_bind_int64(st, 1, session);
	if (sqlite3_step(st) == SQLITE_ROW &&
	    (list = (const char *)sqlite3_column_text(st, 0)) && *list &&
	    strlen(list) < sizeof(res->isolated_recorded) &&
	    cpulist_parse(list, &set) == 0 && CPU_COUNT(&set)) {
		strcpy(res->isolated_recorded, list);
		strcpy(out, ",");
		for (int c = 0; c < CPU_SETSIZE && len + 8 < n; c++)
			if (CPU_ISSET(c, &set))
				len += (size_t)snprintf(out + len, n - len, "%d,", c);
		found = 1;
	}
	sqlite3_finalize(st);
	return found;
}

/* Was the session's thread timeline recorded without sched_waking
 * (record --no-wakers), or with it but without the wake-ups' stacks
 * (--no-wake-stacks)?  The options say so; older files do not. */
static void recorded_without_wake_parts(sqlite3 *db, int64_t session,
					struct diag_result *res)
{
	sqlite3_stmt *st = NULL;

	if (sqlite3_prepare_v2(db, "SELECT json_extract(options, '$.thread_states')"
			       " = 1 AND json_extract(options, '$.wakers') = 0,"
			       " json_extract(options, '$.thread_states') = 1 AND"
			       " json_extract(options, '$.wakers') = 1 AND"
			       " json_extract(options, '$.wake_stacks') = 0"
			       " FROM session WHERE session_id = ?", -1, &st,
			       NULL) != SQLITE_OK)
		return;
	sqlite3_bind_int64(st, 1, session);
	if (sqlite3_step(st) == SQLITE_ROW) {
		res->no_wakers = sqlite3_column_int(st, 0) == 1;
		res->no_wake_stacks = sqlite3_column_int(st, 1) == 1;
	}
	sqlite3_finalize(st);
}

/* How many of the session's fault samples carried another recorder's
 * clock; 0 in a session recorded before schema 10 (NULL). */
static void mistimed_samples(sqlite3 *db, int64_t session,
			     struct diag_result *res)
{
	sqlite3_stmt *st = NULL;

	if (sqlite3_prepare_v2(db, "SELECT coalesce(samples_mistimed, 0) FROM "
			       "session WHERE session_id = ?", -1, &st,
			       NULL) != SQLITE_OK)
		return;
	sqlite3_bind_int64(st, 1, session);
	if (sqlite3_step(st) == SQLITE_ROW)
		res->samples_mistimed = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
}

/* The intervals off the CPU of the session's target threads that records
 * were lost in: their state may be wrong, and no pattern judges them. */
static int uncertain_time(sqlite3 *db, int64_t session, struct diag_result *res,
			  struct errmsg *e)
{
	sqlite3_stmt *st = NULL;

	if (sqlite3_prepare_v2(db, "SELECT count(*), coalesce(sum(dur), 0)"
			       " FROM thread_state WHERE session_id = ?1"
			       " AND state != 'running' AND uncertain = 1",
			       -1, &st, NULL) != SQLITE_OK)
		return diag_sql_fail(db, "the uncertain intervals", e);
	sqlite3_bind_int64(st, 1, session);
	if (sqlite3_step(st) == SQLITE_ROW) {
		res->uncertain_intervals = sqlite3_column_int64(st, 0);
		res->uncertain_ns = sqlite3_column_int64(st, 1);
	}
	sqlite3_finalize(st);
	return 0;
}

int diag_run(sqlite3 *db, const struct diag_request *asked,
	     struct diag_result *res, struct errmsg *e)
{
	struct diag_request with = *asked;
	const struct diag_request *req = asked;
	char isolated[512];
	int err;

	/* A CPU kept for the target when it ran: any preemption there is a
	 * finding, as with --isolated. */
	if (!asked->isolated &&
	    recorded_isolated(db, asked->session_id, res, isolated, sizeof(isolated))) {
		with.isolated = isolated;
		req = &with;
	}
	res->recorder_pid = recorder_pid(db, req->session_id);
	recorded_without_wake_parts(db, req->session_id, res);
	mistimed_samples(db, req->session_id, res);
	/* A file of an older faultline may lack them (schema/views.h). */
	err = schema_view_current(db, "frame_wait_class", e);
	if (err == 0)
		err = schema_view_current(db, "wait_in_call", e);
	if (err == 0)
		err = schema_wake_views_current(db, req->session_id, e);
	if (err == 0)
		err = schema_stack_views_current(db, e);
	if (err == 0)
		err = uncertain_time(db, req->session_id, res, e);
	if (err == 0)
		err = load_events(db, req, res, e);
	for (size_t k = 0; err == 0 && k < diag_npatterns; k++)
		err = run_pattern(db, req, k, res, e);
	if (err == 0)
		err = diag_group(db, req, res, e);
	if (err == 0)
		err = diag_unnamed(db, req, res, e);
	if (err == 0)
		err = diag_thread_reasons(db, req->session_id, res, e);
	return err;
}
