/*
 * edivisive: E-Divisive means on synthetic series.  A step is found at
 * its index, for every seed of the noise around it; two steps give both;
 * a constant series and pure noise give none: over many seeds of noise,
 * false change points come about as often as the significance level says
 * (0.05), and no more.
 */
#include <errno.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "../../runs/edivisive.h"

#define N 30

/* A normal deviate (Box-Muller) from a xorshift generator. */
static double gauss(uint64_t *s)
{
	double u1, u2;

	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	u1 = ((double)(*s >> 11) + 1) / 9007199254740993.0;
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	u2 = (double)(*s >> 11) / 9007199254740992.0;
	return sqrt(-2 * log(u1)) * cos(2 * M_PI * u2);
}

static size_t find(const double *x, size_t n, struct edm_change *out)
{
	struct edm_params p;
	size_t k;

	edm_params_init(&p);
	assert_int_equal(edm_find(x, n, &p, out, N, &k), 0);
	return k;
}

/* 148 +- 10 before run 18 (index 17), 0 +- 10 after, as lazy binding's
 * stall time falls when LD_BIND_NOW is set. */
static void a_step_is_found_at_its_index_for_every_seed(void **state)
{
	struct edm_change out[N];
	double x[N];

	(void)state;
	for (uint64_t seed = 1; seed <= 40; seed++) {
		uint64_t s = seed * 0x9e3779b97f4a7c15ull;
		size_t k;

		for (size_t i = 0; i < N; i++)
			x[i] = (i < 17 ? 148 : 0) + 10 * gauss(&s);
		k = find(x, N, out);
		assert_true(k >= 1);
		/* the step, found, whatever else the noise gives */
		for (size_t i = 0; i < k && out[i].index != 17; i++)
			if (i + 1 == k)
				fail_msg("seed %llu: no change at 17 (first at %zu)",
					 (unsigned long long)seed, out[0].index);
		for (size_t i = 0; i < k; i++)
			if (out[i].index == 17)
				assert_true(out[i].p <= 0.001 + 1e-12);
	}
}

static void two_steps_give_both(void **state)
{
	struct edm_change out[N];
	double x[N];
	uint64_t s = 7;
	size_t k;

	(void)state;
	for (size_t i = 0; i < N; i++)
		x[i] = (i < 10 ? 0 : i < 20 ? 50 : 10) + 2 * gauss(&s);
	k = find(x, N, out);
	assert_true(k >= 2);
	assert_int_equal(out[0].index, 10);
	assert_int_equal(out[1].index, 20);
}

static void a_constant_series_has_none(void **state)
{
	struct edm_change out[N];
	double x[N];

	(void)state;
	for (size_t i = 0; i < N; i++)
		x[i] = 5;
	assert_int_equal(find(x, N, out), 0);
	for (size_t i = 0; i < N; i++)
		x[i] = 0;
	assert_int_equal(find(x, N, out), 0);
}

/* 200 series of pure noise: at 0.05, about 10 give a false change
 * point; more than twice that means the test of significance is wrong. */
static void pure_noise_gives_none_but_at_the_significance_level(void **state)
{
	struct edm_change out[N];
	double x[N];
	unsigned with_change = 0;

	(void)state;
	for (uint64_t seed = 1; seed <= 200; seed++) {
		uint64_t s = seed * 0xd1b54a32d192ed03ull;

		for (size_t i = 0; i < N; i++)
			x[i] = 100 + 10 * gauss(&s);
		if (find(x, N, out) > 0)
			with_change++;
	}
	print_message("noise: %u of 200 series with a false change point\n",
		      with_change);
	assert_true(with_change <= 20);
}

static void too_short_a_series_and_bad_parameters(void **state)
{
	struct edm_change out[N];
	struct edm_params p;
	double x[5] = { 0, 0, 100, 100, 100 };
	size_t k = 9;

	(void)state;
	edm_params_init(&p);
	/* 5 < 2 * min_size: no split to test */
	assert_int_equal(edm_find(x, 5, &p, out, N, &k), 0);
	assert_int_equal(k, 0);
	p.alpha = 2;
	assert_int_equal(edm_find(x, 5, &p, out, N, &k), -EINVAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(a_step_is_found_at_its_index_for_every_seed),
		cmocka_unit_test(two_steps_give_both),
		cmocka_unit_test(a_constant_series_has_none),
		cmocka_unit_test(pure_noise_gives_none_but_at_the_significance_level),
		cmocka_unit_test(too_short_a_series_and_bad_parameters),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
