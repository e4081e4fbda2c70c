/*
 * The plot's reduction (plot/reduce.c), its reading of wall-clock times
 * (plot/when.c) and the numbers the exports write (common/json.c): pure
 * functions, driven with rows made here and a sink that records what it
 * is handed.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "../../common/json.h"
#include "../../plot/reduce.h"
#include "../../plot/when.h"

/* ---- a sink that keeps what it gets ------------------------------------ */

struct got {
	struct plot_state s[64];
	struct plot_fault f[64];
	struct plot_event e[64];
	struct plot_point p[64];
	struct plot_cpu_span c[64];
	char ev_names[64][32], c_names[64][32];
	int ns, nf, ne, np, nc;
};

static int g_state(void *w, const struct plot_state *s)
{
	struct got *g = w;

	g->s[g->ns++] = *s;
	return 0;
}

static int g_fault(void *w, const struct plot_fault *f)
{
	struct got *g = w;

	g->f[g->nf++] = *f;
	return 0;
}

static int g_event(void *w, const struct plot_event *ev)
{
	struct got *g = w;

	snprintf(g->ev_names[g->ne], sizeof(g->ev_names[0]), "%s", ev->name);
	g->e[g->ne++] = *ev;
	return 0;
}

static int g_point(void *w, const struct plot_point *p)
{
	struct got *g = w;

	g->p[g->np++] = *p;
	return 0;
}

static int g_cpu(void *w, const struct plot_cpu_span *c)
{
	struct got *g = w;

	snprintf(g->c_names[g->nc], sizeof(g->c_names[0]), "%s", c->name);
	g->c[g->nc++] = *c;
	return 0;
}

static const struct plot_sink_ops got_ops = {
	NULL, NULL, g_state, g_fault, g_event, g_point, g_cpu, NULL, NULL, NULL,
};

static struct plot_state state(int64_t ts, int64_t dur, enum plot_state_kind k)
{
	struct plot_state s;

	memset(&s, 0, sizeof(s));
	s.ts = ts;
	s.dur_ns = dur;
	s.state = k;
	s.n = 1;
	s.cpu = s.waker_tid = s.next_tid = s.stack_id = -1;
	return s;
}

static struct plot_fault fault(int64_t ts, int64_t dur, enum plot_fault_kind k)
{
	struct plot_fault f;

	memset(&f, 0, sizeof(f));
	f.ts = ts;
	f.dur_ns = dur;
	f.kind = k;
	f.n = 1;
	f.max_ns = f.total_ns = dur;
	f.addr = 4096;
	f.ip = f.cpu = f.exit_cpu = f.stack_id = -1;
	return f;
}

/* ---- CPU spans ---------------------------------------------------------- */

static struct plot_cpu_span cpu_span(int64_t ts, int64_t dur, enum plot_cpu_kind k,
				     int64_t tid, const char *name)
{
	struct plot_cpu_span c;

	memset(&c, 0, sizeof(c));
	c.ts = ts;
	c.dur_ns = dur;
	c.kind = k;
	c.n = 1;
	c.busy_ns = dur;
	c.tid = tid;
	c.name = name;
	c.wait_tid = c.wait_ts = c.wait_dur_ns = -1;
	return c;
}

/* Column 1000: three short runs merge (named after the longest, its
 * name copied: the caller's buffer is gone), a long one stays as it is,
 * and a held span merges apart from the runs beside it. */
static void cpu_spans_merge_per_kind_named_after_the_longest(void **st)
{
	struct got g = { 0 };
	struct plot_counts n = { 0 };
	struct plot_reduce r;
	struct plot_cpu_span c;
	char name[32];

	(void)st;
	plot_reduce_init(&r, 1000, 0, &got_ops, &g, &n);
	snprintf(name, sizeof(name), "a (1)");
	c = cpu_span(0, 100, PC_RAN, 1, name);
	assert_int_equal(plot_reduce_cpu(&r, &c), 0);
	snprintf(name, sizeof(name), "b (2)");
	c = cpu_span(100, 300, PC_RAN, 2, name);
	assert_int_equal(plot_reduce_cpu(&r, &c), 0);
	c = cpu_span(150, 200, PC_HELD, 9, "hog (9)");
	c.wait_tid = 1;
	assert_int_equal(plot_reduce_cpu(&r, &c), 0);
	snprintf(name, sizeof(name), "c (3)");
	c = cpu_span(400, 50, PC_RAN, 3, name);
	assert_int_equal(plot_reduce_cpu(&r, &c), 0);
	memset(name, 0, sizeof(name));
	c = cpu_span(500, 5000, PC_RAN, 4, "long (4)");
	assert_int_equal(plot_reduce_cpu(&r, &c), 0);
	assert_int_equal(plot_reduce_flush(&r), 0);
	assert_int_equal(g.nc, 3);
	assert_int_equal(g.c[0].n, 3);
	assert_int_equal(g.c[0].ts, 0);
	assert_int_equal(g.c[0].dur_ns, 450);
	assert_int_equal(g.c[0].busy_ns, 450);
	assert_int_equal(g.c[0].tid, 2);
	assert_string_equal(g.c_names[0], "b (2)");
	assert_int_equal(g.c[1].n, 1);
	assert_int_equal(g.c[1].dur_ns, 5000);
	assert_int_equal(g.c[2].kind, PC_HELD);
	assert_int_equal(g.c[2].n, 1);
	assert_int_equal(g.c[2].wait_tid, 1);
	assert_int_equal(n.cpu_in[PC_RAN], 4);
	assert_int_equal(n.cpu_out[PC_RAN], 2);
	assert_int_equal(n.cpu_in[PC_HELD], 1);
	plot_reduce_release(&r);
}

/* ---- states ------------------------------------------------------------- */

static void short_intervals_merge_into_a_block_that_says_how_long_each_state_lasted(void **st)
{
	struct got g = { 0 };
	struct plot_counts n = { 0 };
	struct plot_reduce r;
	struct plot_state s;

	(void)st;
	plot_reduce_init(&r, 100, 1000, &got_ops, &g, &n);
	/* 30 running + 20 sleeping, 30 running, 40 blocked: the block ends
	 * once it spans a column (100). */
	s = state(0, 30, PS_RUNNING);
	assert_int_equal(plot_reduce_state(&r, &s), 0);
	s = state(30, 20, PS_SLEEPING);
	s.flags = PLOT_UNCERTAIN;
	assert_int_equal(plot_reduce_state(&r, &s), 0);
	s = state(50, 30, PS_RUNNING);
	assert_int_equal(plot_reduce_state(&r, &s), 0);
	assert_int_equal(g.ns, 0);
	s = state(80, 40, PS_BLOCKED);
	assert_int_equal(plot_reduce_state(&r, &s), 0);
	assert_int_equal(g.ns, 1);
	assert_int_equal(g.s[0].ts, 0);
	assert_int_equal(g.s[0].dur_ns, 120);
	assert_int_equal(g.s[0].n, 4);
	assert_int_equal(g.s[0].state, PS_RUNNING);	/* 60 of 120 */
	assert_int_equal(g.s[0].ns[PS_RUNNING], 60);
	assert_int_equal(g.s[0].ns[PS_SLEEPING], 20);
	assert_int_equal(g.s[0].ns[PS_BLOCKED], 40);
	assert_int_equal(g.s[0].flags, PLOT_UNCERTAIN);
	assert_int_equal(g.s[0].cpu, -1);
	assert_int_equal(n.states_in, 4);
	assert_int_equal(n.states_out, 1);
	plot_reduce_release(&r);
}

static void an_interval_a_column_long_stays_as_recorded_between_merges(void **st)
{
	struct got g = { 0 };
	struct plot_counts n = { 0 };
	struct plot_reduce r;
	struct plot_state s;

	(void)st;
	plot_reduce_init(&r, 100, 1000, &got_ops, &g, &n);
	s = state(0, 10, PS_RUNNING);
	plot_reduce_state(&r, &s);
	s = state(10, 10, PS_RUNNABLE);
	plot_reduce_state(&r, &s);
	s = state(20, 500, PS_BLOCKED);
	s.waker_tid = 42;
	s.waker = "waker";
	assert_int_equal(plot_reduce_state(&r, &s), 0);
	/* A block of one interval is that interval, its fields kept. */
	s = state(520, 5, PS_RUNNING);
	s.waker = "copied";
	s.cpu = 3;
	plot_reduce_state(&r, &s);
	s.waker = "gone";	/* the row's memory is reused */
	assert_int_equal(plot_reduce_flush(&r), 0);
	assert_int_equal(g.ns, 3);
	assert_int_equal(g.s[0].n, 2);
	assert_int_equal(g.s[0].dur_ns, 20);
	assert_int_equal(g.s[1].n, 1);
	assert_int_equal(g.s[1].state, PS_BLOCKED);
	assert_int_equal(g.s[1].waker_tid, 42);
	assert_int_equal(g.s[2].n, 1);
	assert_int_equal(g.s[2].cpu, 3);
	assert_string_equal(g.s[2].waker, "copied");
	plot_reduce_release(&r);
}

/* ---- faults ------------------------------------------------------------- */

static void every_fault_over_the_threshold_is_kept_however_many(void **st)
{
	struct got g = { 0 };
	struct plot_counts n = { 0 };
	struct plot_reduce r;
	struct plot_fault f;

	(void)st;
	plot_reduce_init(&r, 1000000, 50, &got_ops, &g, &n);
	for (int i = 0; i < 20; i++) {
		f = fault(i * 100, 60, PF_MAJOR);
		f.stack_id = 7;
		assert_int_equal(plot_reduce_fault(&r, &f), 0);
	}
	f = fault(5000, 0, PF_UNFINISHED);	/* never completed: kept too */
	plot_reduce_fault(&r, &f);
	assert_int_equal(plot_reduce_flush(&r), 0);
	assert_int_equal(g.nf, 21);
	for (int i = 0; i < 20; i++) {
		assert_int_equal(g.f[i].n, 1);
		assert_int_equal(g.f[i].ts, i * 100);
		assert_int_equal(g.f[i].stack_id, 7);
	}
	assert_int_equal(g.f[20].kind, PF_UNFINISHED);
	assert_int_equal(n.faults_kept, 21);
	assert_int_equal(n.fault_merges, 0);
	plot_reduce_release(&r);
}

static void short_faults_merge_per_kind_and_a_merge_of_one_is_the_fault(void **st)
{
	struct got g = { 0 };
	struct plot_counts n = { 0 };
	struct plot_reduce r;
	struct plot_fault f;

	(void)st;
	plot_reduce_init(&r, 100, 1000, &got_ops, &g, &n);
	f = fault(0, 2, PF_MINOR);
	plot_reduce_fault(&r, &f);
	f = fault(10, 7, PF_MAJOR);
	plot_reduce_fault(&r, &f);
	f = fault(20, 3, PF_MINOR);
	plot_reduce_fault(&r, &f);
	f = fault(99, 5, PF_MINOR);
	plot_reduce_fault(&r, &f);
	/* A column after the first minor: a new merge. */
	f = fault(100, 1, PF_MINOR);
	plot_reduce_fault(&r, &f);
	assert_int_equal(plot_reduce_flush(&r), 0);
	assert_int_equal(g.nf, 3);
	assert_int_equal(g.f[0].kind, PF_MINOR);
	assert_int_equal(g.f[0].n, 3);
	assert_int_equal(g.f[0].dur_ns, 104);	/* 0 to 99 + 5 */
	assert_int_equal(g.f[0].max_ns, 5);
	assert_int_equal(g.f[0].total_ns, 10);
	assert_int_equal(g.f[0].addr, -1);
	assert_int_equal(g.f[1].kind, PF_MINOR);
	assert_int_equal(g.f[1].n, 1);
	assert_int_equal(g.f[1].ts, 100);
	assert_int_equal(g.f[1].addr, 4096);
	assert_int_equal(g.f[2].kind, PF_MAJOR);	/* never mixed in */
	assert_int_equal(g.f[2].n, 1);
	assert_int_equal(n.faults_in, 5);
	assert_int_equal(n.faults_kept, 2);
	assert_int_equal(n.fault_merges, 1);
	plot_reduce_release(&r);
}

/* ---- events and points ------------------------------------------------- */

static void events_and_points_merge_per_column_and_say_what_they_hold(void **st)
{
	struct got g = { 0 };
	struct plot_counts n = { 0 };
	struct plot_reduce r;
	struct plot_event ev = { 0, 0, 1, 0, "a", "{}" };
	struct plot_point p;
	double v[] = { 5, -2, 9, 4 };

	(void)st;
	plot_reduce_init(&r, 100, 1000, &got_ops, &g, &n);
	plot_reduce_event(&r, &ev);
	ev.ts = 50;
	ev.name = "b";
	plot_reduce_event(&r, &ev);
	ev.ts = 300;
	ev.fields = "{\"x\":1}";
	plot_reduce_event(&r, &ev);
	for (int i = 0; i < 4; i++) {
		memset(&p, 0, sizeof(p));
		p.ts = i * 40;
		p.n = 1;
		p.min = p.max = p.first = p.last = v[i];
		plot_reduce_point(&r, &p);
	}
	assert_int_equal(plot_reduce_flush(&r), 0);
	assert_int_equal(g.ne, 2);
	assert_int_equal(g.e[0].n, 2);
	assert_int_equal(g.e[0].span_ns, 50);
	assert_true(g.e[0].names_differ);
	assert_string_equal(g.ev_names[0], "a");
	assert_int_equal(g.e[1].n, 1);
	assert_string_equal(g.ev_names[1], "b");
	assert_int_equal(g.np, 2);
	assert_int_equal(g.p[0].n, 3);	/* 0, 40, 80 */
	assert_true(g.p[0].min == -2 && g.p[0].max == 9);
	assert_true(g.p[0].first == 5 && g.p[0].last == 9);
	assert_int_equal(g.p[1].n, 1);
	assert_true(g.p[1].last == 4);
	plot_reduce_release(&r);
}

/* ---- times ---------------------------------------------------------------- */

#define DAY 86400000000000ll
#define S 1000000000ll

static void wall_clock_times_read_in_every_form_the_man_page_names(void **st)
{
	/* A session from 23:59:50 to 00:00:30 the next day (UTC). */
	int64_t day = 1700000000ll / 86400 * 86400 * S, start = day + DAY - 10 * S;
	int64_t end = start + 40 * S, ts;
	struct errmsg e;

	(void)st;
	errmsg_init(&e);
	assert_int_equal(plot_when_parse("1700000000123456789", "--from", start, end,
					 &ts, &e), 0);
	assert_int_equal(ts, 1700000000123456789ll);
	assert_int_equal(plot_when_parse("2023-11-14T22:13:20.5Z", "--from", start, end,
					 &ts, &e), 0);
	assert_int_equal(ts, 1700000000500000000ll);
	assert_int_equal(plot_when_parse("2023-11-14 22:13:20.000000001", "--from", start,
					 end, &ts, &e), 0);
	assert_int_equal(ts, 1700000000000000001ll);
	/* A time of day on the session's first day, or on the next when only
	 * that one falls inside the session. */
	assert_int_equal(plot_when_parse("23:59:55", "--from", start, end, &ts, &e), 0);
	assert_int_equal(ts, start + 5 * S);
	assert_int_equal(plot_when_parse("00:00:10.25", "--from", start, end, &ts, &e), 0);
	assert_int_equal(ts, day + DAY + 10 * S + S / 4);
	assert_int_equal(plot_when_parse("12:00:00", "--from", start, end, &ts, &e), 0);
	assert_int_equal(ts, day + 12 * 3600 * S);
	/* Not times. */
	assert_int_equal(plot_when_parse("24:00:00", "--to", start, end, &ts, &e), -EINVAL);
	assert_non_null(strstr(e.text, "invalid --to '24:00:00': expected a UTC time"));
	assert_int_equal(plot_when_parse("2023-02-31T00:00:00", "--to", start, end, &ts, &e),
			 -EINVAL);
	assert_int_equal(plot_when_parse("12:00:00.1234567890", "--to", start, end, &ts, &e),
			 -EINVAL);
	assert_int_equal(plot_when_parse("12:00", "--to", start, end, &ts, &e), -EINVAL);
	assert_int_equal(plot_when_parse("99999999999999999999", "--to", start, end, &ts, &e),
			 -EINVAL);
}

/* ---- numbers ------------------------------------------------------------- */

static void exported_numbers_are_exact(void **st)
{
	struct strbuf sb;

	(void)st;
	strbuf_init(&sb);
	json_thousandths(&sb, 1234567);
	strbuf_addc(&sb, ' ');
	json_thousandths(&sb, -5);
	strbuf_addc(&sb, ' ');
	json_thousandths(&sb, 0);
	strbuf_addc(&sb, ' ');
	json_int(&sb, INT64_MIN);
	strbuf_addc(&sb, ' ');
	json_real(&sb, 0.1);
	strbuf_addc(&sb, ' ');
	json_real(&sb, 212992.0);
	strbuf_addc(&sb, ' ');
	json_real(&sb, 1.0 / 0.0);
	strbuf_addc(&sb, ' ');
	json_real(&sb, 1e300);
	assert_string_equal(strbuf_str(&sb), "1234.567 -0.005 0.000 -9223372036854775808 "
			    "0.1 212992 null 1e+300");
	strbuf_release(&sb);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(short_intervals_merge_into_a_block_that_says_how_long_each_state_lasted),
		cmocka_unit_test(an_interval_a_column_long_stays_as_recorded_between_merges),
		cmocka_unit_test(every_fault_over_the_threshold_is_kept_however_many),
		cmocka_unit_test(short_faults_merge_per_kind_and_a_merge_of_one_is_the_fault),
		cmocka_unit_test(events_and_points_merge_per_column_and_say_what_they_hold),
		cmocka_unit_test(cpu_spans_merge_per_kind_named_after_the_longest),
		cmocka_unit_test(wall_clock_times_read_in_every_form_the_man_page_names),
		cmocka_unit_test(exported_numbers_are_exact),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
