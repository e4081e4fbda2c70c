/*
 * clock_map: the one conversion from the recording's monotonic clock to
 * the stored wall-clock ts, through the session's anchors.
 */
#include <errno.h>
#include <stdint.h>

#include "../../decoder/clock_map.h"
#include "records.h"

#define SEC 1000000000ull
#define EPOCH (1795000000ull * SEC)	/* an offset: realtime - mono */

static struct clock_anchor anchor(uint64_t mono, int64_t off, uint64_t unc)
{
	struct clock_anchor a = { mono, (uint64_t)((int64_t)mono + off), unc };

	return a;
}

static void add(struct clock_map *m, struct clock_anchor a, int want)
{
	struct clock_step s;

	assert_int_equal(clock_map_add(m, &a, &s), want);
}

static void a_time_takes_the_offset_of_the_anchors_before_it(void **state)
{
	struct clock_map m;

	(void)state;
	clock_map_init(&m);
	add(&m, anchor(10 * SEC, (int64_t)EPOCH, 20), 0);
	assert_int_equal(clock_map_realtime(&m, 10 * SEC + 5), EPOCH + 10 * SEC + 5);
	/* Before the first anchor: the first anchor's offset. */
	assert_int_equal(clock_map_realtime(&m, 3 * SEC), EPOCH + 3 * SEC);
	clock_map_release(&m);
}

/* The offset moves only at a step: anchors that measure it within their
 * uncertainty do not move it, so a thread's intervals meet exactly. */
static void anchors_within_their_uncertainty_keep_one_offset(void **state)
{
	struct clock_map m;
	uint64_t a, b;

	(void)state;
	clock_map_init(&m);
	add(&m, anchor(10 * SEC, (int64_t)EPOCH, 30), 0);
	add(&m, anchor(10 * SEC + SEC / 10, (int64_t)EPOCH + 45, 30), 0);
	add(&m, anchor(10 * SEC + SEC / 5, (int64_t)EPOCH - 900, 30), 0);
	a = clock_map_realtime(&m, 10 * SEC + SEC / 20);
	b = clock_map_realtime(&m, 10 * SEC + SEC / 4);
	assert_int_equal(b - a, SEC / 4 - SEC / 20);
	assert_int_equal(m.steps, 0);
	clock_map_release(&m);
}

static void a_step_is_reported_and_moves_later_times_only(void **state)
{
	struct clock_map m;
	struct clock_step s;
	struct clock_anchor back = anchor(11 * SEC, (int64_t)EPOCH - 5 * (int64_t)SEC, 25);

	(void)state;
	clock_map_init(&m);
	add(&m, anchor(10 * SEC, (int64_t)EPOCH, 25), 0);
	assert_int_equal(clock_map_add(&m, &back, &s), 1);
	assert_int_equal(s.from_mono_ns, 10 * SEC);
	assert_int_equal(s.to_mono_ns, 11 * SEC);
	assert_int_equal(s.step_ns, -5 * (int64_t)SEC);
	assert_int_equal(m.steps, 1);
	/* Between the anchors: the old offset (where the step fell is not
	 * known); from the second on: the new one. */
	assert_int_equal(clock_map_realtime(&m, 10 * SEC + 7), EPOCH + 10 * SEC + 7);
	assert_int_equal(clock_map_realtime(&m, 11 * SEC + 7),
			 EPOCH - 5 * SEC + 11 * SEC + 7);
	/* Going back to a time before the step still gives the old offset. */
	assert_int_equal(clock_map_realtime(&m, 10 * SEC + 9), EPOCH + 10 * SEC + 9);
	/* And the clock stepped forward again is a second step. */
	add(&m, anchor(12 * SEC, (int64_t)EPOCH, 25), 1);
	assert_int_equal(m.steps, 2);
	clock_map_release(&m);
}

/* A step smaller than the two anchors' uncertainty plus 1 us is noise. */
static void a_move_below_the_readings_noise_is_no_step(void **state)
{
	struct clock_map m;

	(void)state;
	clock_map_init(&m);
	add(&m, anchor(SEC, 0, 400), 0);
	add(&m, anchor(2 * SEC, 1800, 400), 0);	/* 1800 <= 400 + 400 + 1000 */
	add(&m, anchor(3 * SEC, 1801 + 1000, 400), 1);
	clock_map_release(&m);
}

static void an_anchor_not_after_the_last_is_refused(void **state)
{
	struct clock_map m;

	(void)state;
	clock_map_init(&m);
	add(&m, anchor(SEC, 0, 10), 0);
	add(&m, anchor(SEC, 0, 10), -EINVAL);
	add(&m, anchor(SEC - 1, 0, 10), -EINVAL);
	assert_int_equal(m.n, 1);
	clock_map_release(&m);
}

/* Rows are converted mostly in order (the hint), sometimes not (a
 * binary search): both give the same answer. */
static void conversions_in_any_order_agree(void **state)
{
	struct clock_map m;
	uint64_t in_order[1000];

	(void)state;
	clock_map_init(&m);
	for (uint64_t i = 0; i < 100; i++)
		add(&m, anchor(SEC + i * (SEC / 10), (int64_t)EPOCH +
			       (i >= 50 ? 3 * (int64_t)SEC : 0), 20), i == 50);
	for (uint64_t i = 0; i < 1000; i++)
		in_order[i] = clock_map_realtime(&m, SEC + i * (SEC / 100));
	for (uint64_t k = 0; k < 1000; k++) {
		uint64_t i = (k * 7919) % 1000;

		assert_int_equal(clock_map_realtime(&m, SEC + i * (SEC / 100)),
				 in_order[i]);
	}
	assert_int_equal(in_order[499], EPOCH + SEC + 499 * (SEC / 100));
	assert_int_equal(in_order[500], EPOCH + 3 * SEC + SEC + 500 * (SEC / 100));
	clock_map_release(&m);
}

static void an_anchor_brackets_a_realtime_reading(void **state)
{
	struct clock_anchor a;
	uint64_t before, after;

	(void)state;
	before = monotonic_ns();
	clock_anchor_take(&a);
	after = monotonic_ns();
	assert_true(a.mono_ns >= before && a.mono_ns <= after);
	assert_true(a.uncertainty_ns <= after - before);
	assert_true(a.realtime_ns > 1600000000ull * SEC);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(a_time_takes_the_offset_of_the_anchors_before_it),
		cmocka_unit_test(anchors_within_their_uncertainty_keep_one_offset),
		cmocka_unit_test(a_step_is_reported_and_moves_later_times_only),
		cmocka_unit_test(a_move_below_the_readings_noise_is_no_step),
		cmocka_unit_test(an_anchor_not_after_the_last_is_refused),
		cmocka_unit_test(conversions_in_any_order_agree),
		cmocka_unit_test(an_anchor_brackets_a_realtime_reading),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
