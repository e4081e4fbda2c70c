#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../common/clock.h"
#include "../common/json.h"
#include "../common/term_text.h"
#include "pattern.h"
#include "render.h"

/* ts (CLOCK_REALTIME ns) as UTC with ns, as the canned queries write it. */
static void add_utc(struct strbuf *sb, int64_t ts)
{
	char buf[UTC_LEN];

	strbuf_adds(sb, utc_format(buf, sizeof(buf), ts));
}

static void add_ms(struct strbuf *sb, int64_t ns)
{
	strbuf_addf(sb, "%.3f ms", (double)ns / 1e6);
}

/* One remedy line: its "%s" (if any) stands for the detail. */
static void add_remedy(struct strbuf *sb, const char *line, size_t len,
		       const char *detail)
{
	const char *mark = memmem(line, len, "%s", 2);

	if (!mark) {
		strbuf_add(sb, line, len);
		return;
	}
	strbuf_add(sb, line, (size_t)(mark - line));
	strbuf_adds(sb, detail ? detail : "the function");
	strbuf_add(sb, mark + 2, len - (size_t)(mark - line) - 2);
}

/* Calls fn for each remedy line of p. */
static void each_remedy(const struct diag_pattern *p, const char *detail,
			struct strbuf *sb, const char *lead, const char *sep)
{
	const char *r = p->remedies;
	int first = 1;

	while (r && *r) {
		const char *nl = strchr(r, '\n');
		size_t len = nl ? (size_t)(nl - r) : strlen(r);

		strbuf_adds(sb, first ? lead : sep);
		add_remedy(sb, r, len, detail);
		first = 0;
		r += len + (nl != NULL);
	}
}

/* The finding's headline detail, when its pattern adds one. */
/* detail: f's, escaped for the terminal (text_finding). */
static void add_detail_line(struct strbuf *sb, const struct diag_finding *f,
			    const char *detail)
{
	if (!detail)
		return;
	if (!strcmp(diag_patterns[f->pattern]->name, "lazy-binding"))
		strbuf_addf(sb, "   binding:   %s (the function the call was "
			    "binding, from its PLT slot's relocation)\n", detail);
	else if (!strcmp(diag_patterns[f->pattern]->name, "cpu-quota"))
		strbuf_addf(sb, "   throttled: %s\n", detail);
	else if (!strcmp(diag_patterns[f->pattern]->name, "preemption"))
		strbuf_addf(sb, "   by:        %s\n", detail);
	else if (!strcmp(diag_patterns[f->pattern]->name, "futex"))
		strbuf_addf(sb, "   holder:    %s\n", detail);
	else if (!strcmp(diag_patterns[f->pattern]->name, "file-io"))
		strbuf_addf(sb, "   disk:      %s\n", detail);
	else if (!strcmp(diag_patterns[f->pattern]->name, "slow-wakeup"))
		strbuf_addf(sb, "   ran:       %s (on its CPU while it waited)\n",
			    detail);
	else
		strbuf_addf(sb, "   share:     %s\n", detail);
}

static void text_finding(const struct diag_request *req,
			 const struct diag_result *res, size_t n,
			 const struct diag_finding *f, struct strbuf *sb)
{
	const struct diag_pattern *p = diag_patterns[f->pattern];
	const struct diag_stall *s = &res->stalls[f->longest];
	/* Thread names, function names, the culprit and the evidence hold
	 * text the target's user chose: escaped for the terminal. */
	char *detail = term_text_dup(f->detail);

	strbuf_addf(sb, "\n%zu. %s\n", n, p->title);
	strbuf_adds(sb, "   thread:    ");
	term_text_add(sb, *f->comm ? f->comm : "?");
	strbuf_addf(sb, " (%" PRId64 ")\n", f->tid);
	strbuf_adds(sb, "   cause:     ");
	term_text_add(sb, f->culprit);
	strbuf_adds(sb, "\n");
	add_detail_line(sb, f, detail);
	strbuf_adds(sb, "   when:      ");
	add_utc(sb, f->first_ts);
	strbuf_addf(sb, ", %zu stall%s over ", f->nstalls, f->nstalls == 1 ? "" : "s");
	add_ms(sb, f->last_end_ts - f->first_ts);
	strbuf_adds(sb, "\n   lost:      ");
	add_ms(sb, f->lost_ns);
	strbuf_adds(sb, " (longest ");
	add_ms(sb, s->lost_ns);
	strbuf_adds(sb, ")");
	if (req->event)
		strbuf_addf(sb, "; preceded %zu '%s' event%s", f->events, req->event,
			    f->events == 1 ? "" : "s");
	if (req->event && f->events && f->near_ns != f->lost_ns) {
		strbuf_adds(sb, " (");
		add_ms(sb, f->near_ns);
		strbuf_adds(sb, " of it in the stalls before them)");
	}
	strbuf_adds(sb, "\n   evidence:  ");
	term_text_add(sb, s->evidence);
	strbuf_adds(sb, "\n");
	if (f->stack) {
		strbuf_adds(sb, "   stack:     ");
		term_text_add(sb, f->stack);
		strbuf_adds(sb, "\n");
	}
	each_remedy(p, detail, sb, "   you could: ", "\n          or: ");
	strbuf_adds(sb, "\n");
	free(detail);
}

/* The name a reason is shown by: preemption by the recorder apart. */
static const char *reason_label(const struct diag_reason *r)
{
	return r->by_recorder ? "preempted by faultline" : r->reason;
}

/* Does one of the first shown findings belong to tid? */
static int shown_thread(const struct diag_result *res, size_t shown, int64_t tid)
{
	for (size_t i = 0; i < shown; i++)
		if (res->findings[i].tid == tid)
			return 1;
	return 0;
}

/* Each thread with a finding shown: its time off the CPU by reason. */
static void text_threads(const struct diag_result *res, size_t shown,
			 struct strbuf *sb)
{
	if (!res->nthreads)
		return;
	strbuf_adds(sb, "\ntime off the CPU by reason, per thread with a finding "
		    "(thread_state_reason):\n");
	for (size_t i = 0; i < res->nthreads; i++) {
		const struct diag_thread *t = &res->threads[i];

		if (!shown_thread(res, shown, t->tid))
			continue;

		strbuf_adds(sb, "   ");
		term_text_add(sb, *t->comm ? t->comm : "?");
		strbuf_addf(sb, " (%" PRId64 "): ", t->tid);
		add_ms(sb, t->off_cpu_ns);
		strbuf_adds(sb, " off the CPU\n");
		for (size_t k = 0; k < t->nreasons; k++) {
			const struct diag_reason *r = &t->reasons[k];

			strbuf_addf(sb, "      %-24s %12.3f ms  %zu interval%s\n",
				    reason_label(r), (double)r->ns / 1e6, r->intervals,
				    r->intervals == 1 ? "" : "s");
		}
	}
}

/* "WHY: N NOUNs WHERE (X ms) TAIL": what no finding holds, and why;
 * nothing when n is 0. */
static void left_out(struct strbuf *sb, const char *why, int64_t n,
		     const char *noun, const char *where, int64_t ns,
		     const char *tail)
{
	if (n)
		strbuf_addf(sb, "%s: %lld %s%s%s (%.3f ms) %s\n", why, (long long)n,
			    noun, n == 1 ? "" : "s", where, (double)ns / 1e6, tail);
}

void diag_render_text(const struct diag_request *req,
		      const struct diag_result *res, size_t max,
		      struct strbuf *sb)
{
	size_t shown = max && max < res->nfindings ? max : res->nfindings;

	if (res->isolated_recorded[0])
		strbuf_addf(sb, "isolated CPUs: %s (the machine's when it recorded; "
			    "any preemption there is a finding)\n", res->isolated_recorded);
	if (res->no_wakers)
		strbuf_adds(sb, "recorded with --no-wakers: a wait for a CPU after "
			    "a wake-up counts as part of the sleep before it, and "
			    "no slow wake-up is found\n");
	if (res->no_wake_stacks)
		strbuf_adds(sb, "recorded with --no-wake-stacks: what issued a "
			    "wake-up (a timer, the disk, the network) is not "
			    "named, and a sleep woken by a disk completion counts "
			    "as idle unless its own stack (--stacks) says disk\n");
	if (res->samples_mistimed)
		strbuf_addf(sb, "mistimed: %lld fault sample%s carried another "
			    "recorder's clock (perf record without -k "
			    "CLOCK_MONOTONIC on the same threads): the faults "
			    "around them may be mistimed or unfinished, and "
			    "findings on them wrong; record with one recorder at "
			    "a time\n", (long long)res->samples_mistimed,
			    res->samples_mistimed == 1 ? "" : "s");
	left_out(sb, "not judged", res->uncertain_intervals, "interval", " off the CPU",
		 res->uncertain_ns, "that records were lost in, whose state may "
		 "be wrong (the lost table says when)");
	left_out(sb, "not named", res->unnamed_stalls, "stall", "", res->unnamed_ns,
		 "that no pattern explains ('faultline query DB longest-stalls "
		 "limit=N' lists the longest)");
	if (!res->nfindings) {
		strbuf_addf(sb, "no findings: no stall of a thread that had work "
			    "matched a pattern (intervals off the CPU of %.3f ms or "
			    "more, faults of %.3f ms or more)\n",
			    (double)req->min_dur_ns / 1e6, (double)req->min_fault_ns / 1e6);
		return;
	}
	strbuf_addf(sb, "%zu finding%s, worst first", res->nfindings,
		    res->nfindings == 1 ? "" : "s");
	if (req->event) {
		strbuf_addf(sb, " (by the '%s' events", req->event);
		if (req->has_min_value)
			strbuf_addf(sb, " of value %g or more", req->min_value);
		strbuf_adds(sb, " they preceded");
		if (req->after_ns)
			strbuf_addf(sb, ", or followed by at most %.3f ms",
				    (double)req->after_ns / 1e6);
		strbuf_addf(sb, ", %zu in all, then by time lost)", res->nevents);
	}
	else
		strbuf_adds(sb, " (by time lost)");
	strbuf_adds(sb, "\n");
	for (size_t i = 0; i < shown; i++)
		text_finding(req, res, i + 1, &res->findings[i], sb);
	if (shown < res->nfindings)
		strbuf_addf(sb, "\n... %zu more: faultline diagnose shows them all\n",
			    res->nfindings - shown);
	text_threads(res, shown, sb);
}

static void json_finding(const struct diag_request *req,
			 const struct diag_result *res,
			 const struct diag_finding *f, struct strbuf *sb)
{
	const struct diag_pattern *p = diag_patterns[f->pattern];
	const struct diag_stall *s = &res->stalls[f->longest];
	struct strbuf rem;

	strbuf_addc(sb, '{');
	json_key(sb, "pattern", 1);
	json_cstring(sb, p->name);
	json_key(sb, "title", 0);
	json_cstring(sb, p->title);
	json_key(sb, "tid", 0);
	json_int(sb, f->tid);
	json_key(sb, "comm", 0);
	json_cstring(sb, f->comm);
	json_key(sb, "cause", 0);
	json_cstring(sb, f->culprit);
	json_key(sb, "detail", 0);
	json_cstring_or_null(sb, f->detail);
	json_key(sb, "first_ts", 0);
	json_int(sb, f->first_ts);
	json_key(sb, "stalls", 0);
	json_int(sb, (int64_t)f->nstalls);
	json_key(sb, "lost_ns", 0);
	json_int(sb, f->lost_ns);
	json_key(sb, "lost_before_events_ns", 0);
	json_int(sb, f->near_ns);
	json_key(sb, "longest_ns", 0);
	json_int(sb, s->lost_ns);
	json_key(sb, "longest_ts", 0);
	json_int(sb, s->ts);
	json_key(sb, "events", 0);
	if (req->event)
		json_int(sb, (int64_t)f->events);
	else
		strbuf_adds(sb, "null");
	json_key(sb, "evidence", 0);
	json_cstring(sb, s->evidence);
	json_key(sb, "stack", 0);
	json_cstring_or_null(sb, f->stack);
	json_key(sb, "remedies", 0);
	strbuf_init(&rem);
	each_remedy(p, f->detail, &rem, "", "\n");
	strbuf_addc(sb, '[');
	for (const char *r = strbuf_str(&rem), *first = r; *r || r == first;) {
		const char *nl = strchr(r, '\n');
		size_t len = nl ? (size_t)(nl - r) : strlen(r);

		if (r != first)
			strbuf_addc(sb, ',');
		json_string(sb, r, len);
		if (!nl)
			break;
		r = nl + 1;
	}
	strbuf_addc(sb, ']');
	if (strbuf_error(&rem))
		sb->failed = 1;
	strbuf_release(&rem);
	strbuf_addc(sb, '}');
}

static void json_thread(const struct diag_thread *t, struct strbuf *sb)
{
	strbuf_addc(sb, '{');
	json_key(sb, "tid", 1);
	json_int(sb, t->tid);
	json_key(sb, "comm", 0);
	json_cstring(sb, t->comm);
	json_key(sb, "off_cpu_ns", 0);
	json_int(sb, t->off_cpu_ns);
	json_key(sb, "reasons", 0);
	strbuf_addc(sb, '[');
	for (size_t k = 0; k < t->nreasons; k++) {
		const struct diag_reason *r = &t->reasons[k];

		strbuf_adds(sb, k ? ",{" : "{");
		json_key(sb, "reason", 1);
		json_cstring(sb, r->reason);
		json_key(sb, "by_recorder", 0);
		strbuf_adds(sb, r->by_recorder ? "true" : "false");
		json_key(sb, "ns", 0);
		json_int(sb, r->ns);
		json_key(sb, "intervals", 0);
		json_int(sb, (int64_t)r->intervals);
		strbuf_addc(sb, '}');
	}
	strbuf_adds(sb, "]}");
}

void diag_render_json(const struct diag_request *req,
		      const struct diag_result *res, struct strbuf *sb)
{
	strbuf_addc(sb, '{');
	json_key(sb, "session", 1);
	json_int(sb, req->session_id);
	json_key(sb, "event", 0);
	json_cstring_or_null(sb, req->event);
	json_key(sb, "events", 0);
	json_int(sb, (int64_t)res->nevents);
	json_key(sb, "isolated_recorded", 0);
	json_cstring_or_null(sb, res->isolated_recorded[0] ? res->isolated_recorded : NULL);
	json_key(sb, "no_wakers", 0);
	strbuf_adds(sb, res->no_wakers ? "true" : "false");
	json_key(sb, "no_wake_stacks", 0);
	strbuf_adds(sb, res->no_wake_stacks ? "true" : "false");
	json_key(sb, "samples_mistimed", 0);
	json_int(sb, res->samples_mistimed);
	json_key(sb, "uncertain_intervals", 0);
	json_int(sb, res->uncertain_intervals);
	json_key(sb, "uncertain_ns", 0);
	json_int(sb, res->uncertain_ns);
	json_key(sb, "unnamed_stalls", 0);
	json_int(sb, res->unnamed_stalls);
	json_key(sb, "unnamed_ns", 0);
	json_int(sb, res->unnamed_ns);
	json_key(sb, "findings", 0);
	strbuf_addc(sb, '[');
	for (size_t i = 0; i < res->nfindings; i++) {
		if (i)
			strbuf_addc(sb, ',');
		json_finding(req, res, &res->findings[i], sb);
	}
	strbuf_addc(sb, ']');
	json_key(sb, "threads", 0);
	strbuf_addc(sb, '[');
	for (size_t i = 0; i < res->nthreads; i++) {
		if (i)
			strbuf_addc(sb, ',');
		json_thread(&res->threads[i], sb);
	}
	strbuf_adds(sb, "]}\n");
}
