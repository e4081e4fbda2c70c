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

static int by_tid_ts(const void *a, const void *b)
{
	const struct diag_stall *x = a, *y = b;

	if (x->tid != y->tid)
		return x->tid < y->tid ? -1 : 1;
	if (x->ts != y->ts)
		return x->ts < y->ts ? -1 : 1;
	return x->pattern < y->pattern ? -1 : x->pattern > y->pattern;
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
 * are one stall).  res->stalls sorted by (tid, ts) first.
 */
static void count_once(struct diag_result *res)
{
	size_t i = 0, out = 0;

	while (i < res->nstalls) {
		size_t j = i + 1, best = res->stalls[i].pattern;
		int64_t end = res->stalls[i].ts + res->stalls[i].dur_ns;

		while (j < res->nstalls && res->stalls[j].tid == res->stalls[i].tid &&
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
		f->lost_ns += s->dur_ns;
		if (s->ev_hi > s->ev_lo)
			f->near_ns += s->dur_ns;
		if (s->ts + s->dur_ns > f->last_end_ts)
			f->last_end_ts = s->ts + s->dur_ns;
		if (f->nstalls == 1 || s->dur_ns > res->stalls[f->longest].dur_ns)
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
		qsort(res->stalls, res->nstalls, sizeof(*res->stalls), by_tid_ts);
	count_once(res);
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
