/*
 * pt_time: a TSC value reaches CLOCK_MONOTONIC by the perf mmap page's
 * formula, then by the calibration pairs, with exact numbers.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include "../../decoder/pt_time.h"

/* A 3 GHz TSC as the kernel describes it: ns = tsc * mult >> shift with
 * mult / 2^shift = 1/3; the expected values were worked out apart. */
static const struct pt_tsc_conv three_ghz = {
	.time_zero = 123456789, .time_mult = 715827883, .time_shift = 31,
};

static void a_tsc_value_becomes_perf_time_by_the_pages_formula(void **state)
{
	(void)state;
	assert_int_equal(pt_tsc_to_perf_ns(&three_ghz, 0), 123456789);
	assert_int_equal(pt_tsc_to_perf_ns(&three_ghz, 3000000000ull), 1123456789);
	/* Past 2^32 the split into quotient and remainder keeps it exact. */
	assert_int_equal(pt_tsc_to_perf_ns(&three_ghz, (1ull << 40) + 12345),
			 366627337000ull);
	assert_int_equal(pt_tsc_to_perf_ns(&three_ghz, (1ull << 63) + 7),
			 3074457347173371159ull);
}

static void a_short_tsc_is_extended_by_time_cycles_and_mask_first(void **state)
{
	struct pt_tsc_conv c = { .time_zero = 0, .time_mult = 1, .time_shift = 0,
				 .cap_short = 1, .time_cycles = 0x1000,
				 .time_mask = 0xffff };

	(void)state;
	/* 0x1000 + ((0x12345 - 0x1000) & 0xffff) */
	assert_int_equal(pt_tsc_to_perf_ns(&c, 0x12345), 0x2345);
}

static void a_bracketed_reading_is_its_midpoint_with_half_its_width(void **state)
{
	struct pt_calib_pair p = pt_calib_bracket(100, 7777, 131);

	(void)state;
	assert_int_equal(p.perf_ns, 7777);
	assert_int_equal(p.mono_ns, 115);
	assert_int_equal(p.uncertainty_ns, 16);	/* 15.5, rounded up */
}

static void perf_time_between_pairs_is_interpolated(void **state)
{
	struct pt_clock c;
	struct pt_calib_pair a = { 1000, 5000, 10 }, b = { 2000, 6010, 10 };
	uint64_t mono;

	(void)state;
	pt_clock_init(&c, &three_ghz);
	assert_int_equal(pt_clock_perf_to_mono(&c, 1500, &mono), -ENOENT);
	assert_int_equal(pt_clock_add(&c, &b), 0);
	assert_int_equal(pt_clock_add(&c, &a), 0);	/* kept sorted */
	assert_int_equal(pt_clock_perf_to_mono(&c, 1500, &mono), 0);
	assert_int_equal(mono, 5505);	/* 5000 + 500 * 1010 / 1000 */
	assert_int_equal(pt_clock_perf_to_mono(&c, 1000, &mono), 0);
	assert_int_equal(mono, 5000);
	/* Outside the pairs: the nearest pair's offset. */
	assert_int_equal(pt_clock_perf_to_mono(&c, 900, &mono), 0);
	assert_int_equal(mono, 4900);
	assert_int_equal(pt_clock_perf_to_mono(&c, 2500, &mono), 0);
	assert_int_equal(mono, 6510);
	pt_clock_release(&c);
}

static void a_pair_against_the_order_of_the_others_is_refused(void **state)
{
	struct pt_clock c;
	struct pt_calib_pair a = { 1000, 5000, 10 }, b = { 2000, 6000, 10 };
	struct pt_calib_pair back = { 1500, 4000, 1 }, same = { 1000, 5001, 1 };

	(void)state;
	pt_clock_init(&c, &three_ghz);
	assert_int_equal(pt_clock_add(&c, &a), 0);
	assert_int_equal(pt_clock_add(&c, &b), 0);
	assert_int_equal(pt_clock_add(&c, &back), -EINVAL);
	assert_int_equal(pt_clock_add(&c, &same), -EINVAL);
	assert_int_equal(c.n, 2);
	pt_clock_release(&c);
}

static void a_tsc_value_reaches_monotonic_time_through_both_steps(void **state)
{
	struct pt_clock c;
	struct pt_calib_pair p = { 1123456789, 40000000000ull, 50 };
	uint64_t mono;

	(void)state;
	pt_clock_init(&c, &three_ghz);
	assert_int_equal(pt_clock_add(&c, &p), 0);
	/* tsc 3e9 is perf 1123456789, the pair's own time. */
	assert_int_equal(pt_clock_tsc_to_mono(&c, 3000000000ull, &mono), 0);
	assert_int_equal(mono, 40000000000ull);
	/* 3000 cycles later is 1000 ns later. */
	assert_int_equal(pt_clock_tsc_to_mono(&c, 3000003000ull, &mono), 0);
	assert_int_equal(mono, 40000001000ull);
	pt_clock_release(&c);
}

static void a_time_before_monotonic_zero_is_refused(void **state)
{
	struct pt_clock c;
	struct pt_calib_pair p = { 1000000, 10, 0 };
	uint64_t mono = 99;

	(void)state;
	pt_clock_init(&c, NULL);
	assert_int_equal(pt_clock_add(&c, &p), 0);
	assert_int_equal(pt_clock_perf_to_mono(&c, 10, &mono), -ERANGE);
	assert_int_equal(mono, 99);
	pt_clock_release(&c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(a_tsc_value_becomes_perf_time_by_the_pages_formula),
		cmocka_unit_test(a_short_tsc_is_extended_by_time_cycles_and_mask_first),
		cmocka_unit_test(a_bracketed_reading_is_its_midpoint_with_half_its_width),
		cmocka_unit_test(perf_time_between_pairs_is_interpolated),
		cmocka_unit_test(a_pair_against_the_order_of_the_others_is_refused),
		cmocka_unit_test(a_tsc_value_reaches_monotonic_time_through_both_steps),
		cmocka_unit_test(a_time_before_monotonic_zero_is_refused),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
