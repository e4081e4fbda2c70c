/*
 * The engine's second half: each stall counted once, lined up with the
 * events it preceded, grouped into findings, ranked by harm.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "../common/array.h"
#include "../common/strbuf.h"
#include "by_directory.h"
#include "engine.h"
#include "pattern.h"

static int waits_for_cpu(const struct diag_stall *s)
{
	return diag_patterns[s->pattern]->waits_for_cpu;
}

static int by_tid_ts(const void *a, const void *b)
{
	const struct diag_stall *x = a, *y = b;

	if (x->tid != y->tid)
		return x->tid < y->tid ? -1 : 1;
	if (x->ts != y->ts)
		return x->ts < y->ts ? -1 : 1;
	return x->pattern < y->pattern ? -1 : x->pattern > y->pattern;
}

/* The waits for a CPU apart from the other stalls, each in (tid, ts). */
static int by_kind_tid_ts(const void *a, const void *b)
{
	int x = waits_for_cpu(a), y = waits_for_cpu(b);

	return x != y ? x - y : by_tid_ts(a, b);
}

static void stall_release(struct diag_stall *s)
{
	free(s->culprit);
	free(s->evidence);
	free(s->file);
}

/*
 * Keeps, of each run of overlapping stalls of one thread, those of the
 * pattern registered first (a fault and the blocked interval inside it
 * are one stall).  The waits for a CPU run apart: a runnable interval
 * inside a fault or a call is the CPU's stall, and the fault or the call
 * stays one too, less that time (cpu_waits_out).  res->stalls sorted by
 * by_kind_tid_ts first; left in that order.
 */
static void count_once(struct diag_result *res)
{
	size_t i = 0, out = 0;

	while (i < res->nstalls) {
		size_t j = i + 1, best = res->stalls[i].pattern;
		int64_t end = res->stalls[i].ts + res->stalls[i].dur_ns;

		while (j < res->nstalls && res->stalls[j].tid == res->stalls[i].tid &&
		       waits_for_cpu(&res->stalls[j]) == waits_for_cpu(&res->stalls[i]) &&
		       res->stalls[j].ts < end) {
			if (res->stalls[j].ts + res->stalls[j].dur_ns > end)
				end = res->stalls[j].ts + res->stalls[j].dur_ns;
			if (res->stalls[j].pattern < best)
				best = res->stalls[j].pattern;
			j++;
		}
		for (size_t k = i; k < j; k++) {
			if (res->stalls[k].pattern == best)
				res->stalls[out++] = res->stalls[k];
			else
				stall_release(&res->stalls[k]);
		}
		i = j;
	}
	res->nstalls = out;
}

/* Says in s's evidence how long it waited for a CPU: 0 or -ENOMEM. */
static int say_cpu_wait(struct diag_stall *s, int64_t wait_ns)
{
	struct strbuf sb;
	char *text;

	strbuf_init(&sb);
	strbuf_adds(&sb, s->evidence);
	strbuf_addf(&sb, "; %.3f ms of it waiting for a CPU", (double)wait_ns / 1e6);
	text = strbuf_error(&sb) ? NULL : strbuf_detach(&sb);
	strbuf_release(&sb);
	if (!text)
		return -ENOMEM;
	free(s->evidence);
	s->evidence = text;
	return 0;
}

/*
 * A fault's or a call's time waiting for a CPU inside it (runnable, the
 * state known) is not lost to its pattern but to the CPU: the waits'
 * patterns hold it, where a wait is long enough to be a stall.  On
 * PostgreSQL under pgbench with its backends on one CPU, fdatasync calls
 * of 7.5 ms spent 7.2 ms of it runnable after the disk had answered;
 * counted whole as waits for the disk, they came before what held the
 * CPU.  A thread runs when it enters a call or takes a fault, so each
 * such wait begins inside the stall.
 */
static int cpu_waits_out(sqlite3 *db, int64_t session, struct diag_result *res,
			 struct errmsg *e)
{
	static const char sql[] =
		"SELECT coalesce(sum(min(ts + dur, ?4) - ts), 0) FROM thread_state"
		" WHERE session_id = ?1 AND tid = ?2 AND ts >= ?3 AND ts < ?4"
		"   AND state = 'runnable' AND uncertain = 0";
	sqlite3_stmt *st = NULL;
	int err = 0;

	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK)
		return diag_sql_fail(db, "the waits for a CPU", e);
	for (size_t i = 0; err == 0 && i < res->nstalls; i++) {
		struct diag_stall *s = &res->stalls[i];
		int64_t wait;

		if (waits_for_cpu(s) || s->dur_ns <= 0)
			continue;
		sqlite3_bind_int64(st, 1, session);
		sqlite3_bind_int64(st, 2, s->tid);
		sqlite3_bind_int64(st, 3, s->ts);
		sqlite3_bind_int64(st, 4, s->ts + s->dur_ns);
		if (sqlite3_step(st) != SQLITE_ROW) {
			err = diag_sql_fail(db, "the waits for a CPU", e);
			break;
		}
		wait = sqlite3_column_int64(st, 0);
		sqlite3_reset(st);
		if (wait <= 0)
			continue;
		s->lost_ns = s->dur_ns - (wait < s->dur_ns ? wait : s->dur_ns);
		err = say_cpu_wait(s, wait);
	}
	sqlite3_finalize(st);
	return err;
}

/* The index of the first event after t. */
static size_t first_after(const struct diag_result *res, int64_t t)
{
	size_t lo = 0, hi = res->nevents;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (res->event_ts[mid] <= t)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* The events each stall preceded: from after_ns before its start (0:
 * after it), up to window after its end. */
static void line_up(const struct diag_request *req, struct diag_result *res)
{
	for (size_t i = 0; i < res->nstalls; i++) {
		struct diag_stall *s = &res->stalls[i];

		s->ev_lo = first_after(res, s->ts - (int64_t)req->after_ns);
		s->ev_hi = first_after(res, s->ts + s->dur_ns + (int64_t)req->window_ns);
	}
}

static struct diag_finding *finding_of(struct diag_result *res,
				       const struct diag_stall *s)
{
	for (size_t i = 0; i < res->nfindings; i++) {
		struct diag_finding *f = &res->findings[i];

		if (f->pattern == s->pattern && f->tid == s->tid &&
		    !strcmp(f->culprit, s->culprit))
			return f;
	}
	if (ARRAY_RESERVE(res->findings, res->findings_cap, res->nfindings + 1) < 0)
		return NULL;
	struct diag_finding *f = &res->findings[res->nfindings];

	memset(f, 0, sizeof(*f));
	if (!(f->culprit = strdup(s->culprit)))
		return NULL;
	res->nfindings++;
	f->pattern = s->pattern;
	f->tid = s->tid;
	f->first_ts = s->ts;
	return f;
}

/*
 * Groups the stalls into findings.  Stalls are in (tid, ts) order, so
 * the events a finding's stalls preceded come in ranges whose starts do
 * not decrease: counting what each adds past the furthest end so far
 * counts each event once.  ev_end: that furthest end, per finding.
 */
static int make_findings(struct diag_result *res)
{
	size_t *ev_end = NULL, cap = 0;
	int err = 0;

	for (size_t i = 0; i < res->nstalls && err == 0; i++) {
		const struct diag_stall *s = &res->stalls[i];
		struct diag_finding *f = finding_of(res, s);
		size_t k, lo;

		if (!f || ARRAY_RESERVE(ev_end, cap, res->nfindings) < 0) {
			err = -ENOMEM;
			break;
		}
		k = (size_t)(f - res->findings);
		if (f->nstalls++ == 0)
			ev_end[k] = 0;
		f->lost_ns += s->lost_ns;
		if (s->ev_hi > s->ev_lo)
			f->near_ns += s->lost_ns;
		if (s->ts + s->dur_ns > f->last_end_ts)
			f->last_end_ts = s->ts + s->dur_ns;
		if (f->nstalls == 1 || s->lost_ns > res->stalls[f->longest].lost_ns)
			f->longest = i;
		lo = s->ev_lo > ev_end[k] ? s->ev_lo : ev_end[k];
		if (s->ev_hi > lo)
			f->events += s->ev_hi - lo;
		if (s->ev_hi > ev_end[k])
			ev_end[k] = s->ev_hi;
	}
	free(ev_end);
	return err;
}

/*
 * Harm: the events preceded; then the time lost in the stalls that
 * preceded them (a thread held up 25 ms just before a NAK outranks one
 * whose many short waits spread over the run touched the same NAK once);
 * then all the time lost; then the earlier.
 */
static int by_harm(const void *a, const void *b)
{
	const struct diag_finding *x = a, *y = b;

	if (x->events != y->events)
		return x->events > y->events ? -1 : 1;
	if (x->near_ns != y->near_ns)
		return x->near_ns > y->near_ns ? -1 : 1;
	if (x->lost_ns != y->lost_ns)
		return x->lost_ns > y->lost_ns ? -1 : 1;
	return x->first_ts < y->first_ts ? -1 : x->first_ts > y->first_ts;
}

int diag_group(sqlite3 *db, const struct diag_request *req,
	       struct diag_result *res, struct errmsg *e)
{
	const struct diag_ctx c = { req->session_id, res->recorder_pid,
				    req->min_dur_ns, res };
	int err;

	if (res->nstalls)
		qsort(res->stalls, res->nstalls, sizeof(*res->stalls), by_kind_tid_ts);
	count_once(res);
	if (res->nstalls)
		qsort(res->stalls, res->nstalls, sizeof(*res->stalls), by_tid_ts);
	err = cpu_waits_out(db, req->session_id, res, e);
	if (err < 0)
		return err;
	line_up(req, res);
	err = diag_by_directory(res);
	if (err == 0)
		err = make_findings(res);
	for (size_t i = 0; err == 0 && i < res->nfindings; i++) {
		struct diag_finding *f = &res->findings[i];
		const struct diag_pattern *p = diag_patterns[f->pattern];

		err = diag_describe(db, req->session_id, &res->stalls[f->longest], f, e);
		if (err == 0 && p->refine)
			err = p->refine(db, &c, &res->stalls[f->longest], f, e);
	}
	if (err == 0 && res->nfindings)
		qsort(res->findings, res->nfindings, sizeof(*res->findings), by_harm);
	return err;
}
