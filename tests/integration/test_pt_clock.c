/*
 * pt_clock on this kernel: calibration pairs are taken (a COMM record of
 * faultline's own thread, stamped in perf time, bracketed by
 * CLOCK_MONOTONIC), and the perf page's TSC conversion is read or
 * refused with the clocksource named.  Neither needs Intel PT.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stdarg.h>
#include <stddef.h>
#include <time.h>
#include <x86intrin.h>
#include <cmocka.h>

#include "../../collector/pt_clock.h"
#include "../../common/file.h"

static void spin_ms(uint64_t ms)
{
	struct timespec t = { 0, (long)(ms * 1000000) };

	/* Spacing between readings, not a wait for anything. */
	nanosleep(&t, NULL);
}

static void calibration_pairs_follow_both_clocks_forward(void **state)
{
	struct pt_calibrator c;
	struct pt_calib_pair p[4];
	struct pt_clock clk;
	struct errmsg e;
	int got = 0;

	(void)state;
	errmsg_init(&e);
	pt_calibrator_init(&c);
	if (pt_calibrator_open(&c, &e) < 0)
		fail_msg("%s", e.text);
	pt_clock_init(&clk, NULL);
	for (int i = 0; i < 4; i++) {
		/* A COMM record can be dropped (a full ring): try a few times. */
		int err = -EAGAIN;

		for (int k = 0; k < 5 && err == -EAGAIN; k++)
			err = pt_calibrator_take(&c, &p[i], &e);
		assert_int_equal(err, 0);
		assert_int_equal(pt_clock_add(&clk, &p[i]), 0);
		got++;
		spin_ms(20);
	}
	for (int i = 1; i < got; i++) {
		uint64_t dperf = p[i].perf_ns - p[i - 1].perf_ns;
		uint64_t dmono = p[i].mono_ns - p[i - 1].mono_ns;
		uint64_t slack = p[i].uncertainty_ns + p[i - 1].uncertainty_ns +
				 dperf / 1000;
		uint64_t mono;

		assert_true(p[i].perf_ns > p[i - 1].perf_ns);
		/* The perf clock and CLOCK_MONOTONIC run at one rate, to the
		 * brackets' width (and 0.1% for slewing). */
		if ((dperf > dmono ? dperf - dmono : dmono - dperf) > slack)
			fail_msg("pair %d: perf moved %llu ns, monotonic %llu ns", i,
				 (unsigned long long)dperf, (unsigned long long)dmono);
		/* A pair's own perf time converts to its own monotonic time. */
		assert_int_equal(pt_clock_perf_to_mono(&clk, p[i].perf_ns, &mono), 0);
		assert_int_equal(mono, p[i].mono_ns);
	}
	pt_clock_release(&clk);
	pt_calibrator_close(&c);
}

static void the_tsc_conversion_is_read_or_refused_naming_the_clocksource(void **state)
{
	struct pt_calibrator c;
	struct pt_tsc_conv conv;
	struct pt_calib_pair before, after;
	struct errmsg e;
	char *source = NULL, want[128];
	size_t len;
	int err;

	(void)state;
	errmsg_init(&e);
	pt_calibrator_init(&c);
	if (pt_calibrator_open(&c, &e) < 0)
		fail_msg("%s", e.text);
	err = pt_calibrator_conv(&c, "/", &conv, &e);
	if (err == -EOPNOTSUPP) {
		/* This machine (kvm-clock): no conversion, and the message says
		 * why, with the clocksource it found. */
		assert_non_null(strstr(e.text, "cannot record Intel PT: no usable TSC "
				       "conversion: the perf mmap page has "
				       "cap_user_time_zero = 0"));
		if (read_text_file("/sys/devices/system/clocksource/clocksource0/"
				   "current_clocksource", &source, &len, &e) == 0) {
			source[strcspn(source, "\n")] = '\0';
			snprintf(want, sizeof(want), "(clocksource '%s')", source);
			assert_non_null(strstr(e.text, want));
			free(source);
		}
	} else {
		uint64_t perf;

		/* A TSC machine: the TSC read between two pairs converts to a
		 * perf time between theirs. */
		assert_int_equal(err, 0);
		assert_true(conv.time_mult > 0);
		assert_int_equal(pt_calibrator_take(&c, &before, &e), 0);
		perf = pt_tsc_to_perf_ns(&conv, __rdtsc());
		assert_int_equal(pt_calibrator_take(&c, &after, &e), 0);
		assert_true(perf >= before.perf_ns && perf <= after.perf_ns);
	}
	pt_calibrator_close(&c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(calibration_pairs_follow_both_clocks_forward),
		cmocka_unit_test(the_tsc_conversion_is_read_or_refused_naming_the_clocksource),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
