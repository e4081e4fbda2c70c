/*
 * hist: the log2 latency histogram every fault is counted in.  Bucket 0
 * holds 0 ns, bucket b holds [2^(b-1), 2^b) ns.
 */
#include "../../decoder/hist.h"
#include "records.h"

static void buckets_split_at_powers_of_two(void **state)
{
	(void)state;
	assert_int_equal(hist_bucket(0), 0);
	assert_int_equal(hist_bucket(1), 1);
	assert_int_equal(hist_bucket(2), 2);
	assert_int_equal(hist_bucket(3), 2);
	assert_int_equal(hist_bucket(4), 3);
	assert_int_equal(hist_bucket(1023), 10);
	assert_int_equal(hist_bucket(1024), 11);
	assert_int_equal(hist_bucket(999999), 20);
	assert_int_equal(hist_bucket((1ull << 63) - 1), 63);
	assert_int_equal(hist_bucket(1ull << 63), 64);
	assert_int_equal(hist_bucket(UINT64_MAX), 64);
}

static void bucket_bounds_tile_the_whole_range(void **state)
{
	(void)state;
	assert_int_equal(hist_bucket_lo(0), 0);
	assert_int_equal(hist_bucket_hi(0), 1);
	assert_int_equal(hist_bucket_lo(1), 1);
	assert_int_equal(hist_bucket_hi(64), UINT64_MAX);
	for (unsigned b = 0; b < 64; b++)
		assert_int_equal(hist_bucket_hi(b), hist_bucket_lo(b + 1));
}

static void assert_in_its_bucket(uint64_t v)
{
	unsigned b = hist_bucket(v);

	assert_true(b < HIST_BUCKETS);
	if (hist_bucket_lo(b) > v)
		fail_msg("%llu is below bucket %u's lower bound",
			 (unsigned long long)v, b);
	if (b < 64 && v >= hist_bucket_hi(b))
		fail_msg("%llu is not below bucket %u's upper bound",
			 (unsigned long long)v, b);
}

static void every_value_lies_within_its_buckets_bounds(void **state)
{
	uint64_t x = 0x9e3779b97f4a7c15ull;

	(void)state;
	for (unsigned k = 0; k < 64; k++) {
		uint64_t p = 1ull << k;

		assert_in_its_bucket(p - 1);
		assert_in_its_bucket(p);
		assert_in_its_bucket(p + 1);
		assert_int_equal(hist_bucket(p), k + 1);
	}
	for (int i = 0; i < 100000; i++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		assert_in_its_bucket(x >> (i % 64));
	}
	assert_in_its_bucket(UINT64_MAX);
}

/* 90 faults of 100 ns, 9 of 1000 ns, 1 of 1 ms. */
static void fill_known(struct log2_hist *h)
{
	memset(h, 0, sizeof(*h));
	for (int i = 0; i < 90; i++)
		hist_add(h, 100);
	for (int i = 0; i < 9; i++)
		hist_add(h, 1000);
	hist_add(h, 1000000);
}

static void quantiles_name_the_upper_bound_of_their_bucket(void **state)
{
	struct log2_hist h;

	(void)state;
	fill_known(&h);
	assert_int_equal(h.total, 100);
	assert_int_equal(h.count[7], 90);
	assert_int_equal(h.count[10], 9);
	assert_int_equal(h.count[20], 1);
	assert_int_equal(hist_quantile_hi(&h, 0.001), 128);
	assert_int_equal(hist_quantile_hi(&h, 0.5), 128);
	assert_int_equal(hist_quantile_hi(&h, 0.9), 128);
	assert_int_equal(hist_quantile_hi(&h, 0.91), 1024);
	assert_int_equal(hist_quantile_hi(&h, 0.99), 1024);
	assert_int_equal(hist_quantile_hi(&h, 0.999), 1048576);
	assert_int_equal(hist_quantile_hi(&h, 1.0), 1048576);
}

/* The bucket says "less than 2^b"; the longest fault itself is kept,
 * however short, as the loader stores it (fault_histogram.max_ns). */
static void the_longest_duration_is_kept_exactly(void **state)
{
	struct log2_hist h;

	(void)state;
	memset(&h, 0, sizeof(h));
	assert_int_equal(h.max_ns, 0);
	hist_add(&h, 575800);
	hist_add(&h, 3);
	hist_add(&h, 524289);
	assert_int_equal(h.max_ns, 575800);
	assert_int_equal(hist_quantile_hi(&h, 1.0), 1048576);
	fill_known(&h);
	assert_int_equal(h.max_ns, 1000000);
	hist_add(&h, UINT64_MAX);
	assert_int_equal(h.max_ns, UINT64_MAX);
}

static void an_empty_histogram_has_no_quantile(void **state)
{
	struct log2_hist h;

	(void)state;
	memset(&h, 0, sizeof(h));
	assert_int_equal(hist_quantile_hi(&h, 0.5), 0);
	assert_int_equal(hist_quantile_hi(&h, 1.0), 0);
}

static void the_extreme_durations_have_bounded_quantiles(void **state)
{
	struct log2_hist h;

	(void)state;
	memset(&h, 0, sizeof(h));
	hist_add(&h, 0);
	assert_int_equal(hist_quantile_hi(&h, 1.0), 1);
	hist_add(&h, UINT64_MAX);
	assert_int_equal(h.count[0], 1);
	assert_int_equal(h.count[64], 1);
	assert_int_equal(hist_quantile_hi(&h, 0.5), 1);
	assert_int_equal(hist_quantile_hi(&h, 1.0), UINT64_MAX);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(buckets_split_at_powers_of_two),
		cmocka_unit_test(bucket_bounds_tile_the_whole_range),
		cmocka_unit_test(every_value_lies_within_its_buckets_bounds),
		cmocka_unit_test(quantiles_name_the_upper_bound_of_their_bucket),
		cmocka_unit_test(the_longest_duration_is_kept_exactly),
		cmocka_unit_test(an_empty_histogram_has_no_quantile),
		cmocka_unit_test(the_extreme_durations_have_bounded_quantiles),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
