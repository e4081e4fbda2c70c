/*
 * cpu_runs: who held a CPU over a span, from switch-ins; the history
 * bounded in time and in entries.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include "../../decoder/cpu_runs.h"

static void shares_are_clipped_to_the_span_and_sorted(void **state)
{
	struct cpu_runs r;
	struct cpu_share out[CPU_SHARES_MAX + 1];

	(void)state;
	cpu_runs_init(&r);
	assert_int_equal(cpu_runs_switch_in(&r, 3, 10, 100), 0);
	assert_int_equal(cpu_runs_switch_in(&r, 3, 11, 200), 0);
	assert_int_equal(cpu_runs_switch_in(&r, 3, 10, 250), 0);
	assert_int_equal(cpu_runs_switch_in(&r, 3, 10, 260), 0);	/* no change */
	/* [150, 400): 10 for 50 + 150, 11 for 50. */
	assert_int_equal(cpu_runs_shares(&r, 3, 150, 400, 99, out), 2);
	assert_int_equal(out[0].tid, 10);
	assert_int_equal(out[0].ns, 200);
	assert_int_equal(out[1].tid, 11);
	assert_int_equal(out[1].ns, 50);
	assert_string_equal(out[0].comm, "");
	/* The waiting thread itself is never among them. */
	assert_int_equal(cpu_runs_shares(&r, 3, 150, 400, 10, out), 1);
	assert_int_equal(out[0].tid, 11);
	/* A CPU never seen, an empty span, a span before any record. */
	assert_int_equal(cpu_runs_shares(&r, 2, 150, 400, 99, out), 0);
	assert_int_equal(cpu_runs_shares(&r, 3, 400, 400, 99, out), 0);
	assert_int_equal(cpu_runs_shares(&r, 3, 10, 90, 99, out), 0);
	/* Only the part the history covers counts: [50, 150) is 10 for 50. */
	assert_int_equal(cpu_runs_shares(&r, 3, 50, 150, 99, out), 1);
	assert_int_equal(out[0].ns, 50);
	cpu_runs_release(&r);
}

static void threads_past_the_kept_ones_are_summed_as_others(void **state)
{
	struct cpu_runs r;
	struct cpu_share out[CPU_SHARES_MAX + 1];
	uint64_t t = 0;

	(void)state;
	cpu_runs_init(&r);
	/* Thread 100 + i holds the CPU for 10 * (i + 1) ns. */
	for (uint32_t i = 0; i < CPU_SHARES_MAX + 3; i++) {
		assert_int_equal(cpu_runs_switch_in(&r, 0, 100 + i, t), 0);
		t += 10 * (i + 1);
	}
	assert_int_equal(cpu_runs_shares(&r, 0, 0, t, 1, out), CPU_SHARES_MAX + 1);
	assert_int_equal(out[0].tid, 100 + CPU_SHARES_MAX + 2);
	assert_int_equal(out[CPU_SHARES_MAX].tid, -1);
	assert_int_equal(out[CPU_SHARES_MAX].ns, 10 + 20 + 30);
	cpu_runs_release(&r);
}

/* Under a storm the history keeps the last CPU_RUNS_MAX entries, and
 * nothing older than the horizon. */
/* A long history, a short wait inside it: only the wait's entries
 * count, whichever way they alternate, and a wait over more entries than
 * a small buffer holds sums the same way. */
static void a_wait_inside_a_long_history_reads_only_its_span(void **state)
{
	struct cpu_runs r;
	struct cpu_share out[CPU_SHARES_MAX + 1];
	uint64_t total = 0;
	size_t n;

	(void)state;
	cpu_runs_init(&r);
	for (uint32_t i = 0; i < 50000; i++)	/* 300 tids taking turns, 10 ns each */
		assert_int_equal(cpu_runs_switch_in(&r, 0, 1 + i % 300, 1000 + 10ull * i), 0);
	/* [1000 + 10 * 40000 + 5, + 30): the ends of two, two whole. */
	n = cpu_runs_shares(&r, 0, 401005, 401035, 0, out);
	assert_int_equal(n, 4);
	assert_int_equal(out[0].tid, 1 + 40001 % 300);
	assert_int_equal(out[0].ns, 10);
	assert_int_equal(out[1].ns, 10);
	assert_int_equal(out[2].tid, 1 + 40000 % 300);
	assert_int_equal(out[2].ns, 5);
	assert_int_equal(out[3].ns, 5);
	/* 2000 entries: every tid of the 300, so 8 kept and the others. */
	n = cpu_runs_shares(&r, 0, 201000, 221000, 0, out);
	assert_int_equal(n, CPU_SHARES_MAX + 1);
	assert_int_equal(out[CPU_SHARES_MAX].tid, -1);
	for (size_t i = 0; i < n; i++)
		total += out[i].ns;
	assert_int_equal(total, 20000);
	cpu_runs_release(&r);
}

static void the_history_is_bounded(void **state)
{
	struct cpu_runs r;
	struct cpu_share out[CPU_SHARES_MAX + 1];
	uint64_t t;

	(void)state;
	cpu_runs_init(&r);
	for (t = 0; t < 3 * CPU_RUNS_MAX; t++)
		assert_int_equal(cpu_runs_switch_in(&r, 0, (uint32_t)(t % 2) + 1, t), 0);
	assert_true(r.cpu[0].n - r.cpu[0].head <= CPU_RUNS_MAX + 1);
	assert_true(r.cpu[0].cap <= 4 * CPU_RUNS_MAX);
	/* What is kept is the newest. */
	assert_int_equal(cpu_runs_shares(&r, 0, t - 10, t, 9, out), 2);
	assert_int_equal(out[0].ns + out[1].ns, 10);
	assert_int_equal(cpu_runs_switch_in(&r, 0, 5, t + 10 * CPU_RUNS_HORIZON_NS), 0);
	assert_int_equal(r.cpu[0].n - r.cpu[0].head, 2);
	cpu_runs_release(&r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(shares_are_clipped_to_the_span_and_sorted),
		cmocka_unit_test(threads_past_the_kept_ones_are_summed_as_others),
		cmocka_unit_test(the_history_is_bounded),
		cmocka_unit_test(a_wait_inside_a_long_history_reads_only_its_span),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
