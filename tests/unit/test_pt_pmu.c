/*
 * pt_pmu, pt_config: the intel_pt PMU is read from sysfs files as the
 * kernel writes them (tests/fixtures/pt: arch/x86/events/intel/pt.c's
 * format strings and caps of a Skylake and a Broadwell client), and every
 * config term is held against those caps the way the kernel's
 * pt_event_valid() holds it, a refusal naming the term and the cap.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include "../tmpdir.h"
#include "../../collector/pt_config.h"
#include "../../collector/pt_pmu.h"

#define FIX "tests/fixtures/pt/"

static struct pt_pmu read_pmu(const char *root)
{
	struct pt_pmu p;
	struct errmsg e;

	errmsg_init(&e);
	if (pt_pmu_read(&p, root, &e) < 0)
		fail_msg("reading %s: %s", root, e.text);
	return p;
}

static void assert_contains(const char *text, const char *want)
{
	if (!strstr(text, want))
		fail_msg("expected '%s' in: %s", want, text);
}

static void the_pmu_is_read_from_its_type_format_and_caps_files(void **state)
{
	struct pt_pmu p = read_pmu(FIX "skylake");
	const struct pt_format *f;
	uint32_t v;

	(void)state;
	assert_int_equal(p.type, 8);
	assert_int_equal(p.max_nonturbo_ratio, 34);
	assert_int_equal(p.tsc_art_num, 284);
	assert_int_equal(p.tsc_art_den, 2);
	f = pt_pmu_format(&p, "mtc_period");
	assert_non_null(f);
	assert_int_equal(f->word, 0);
	assert_int_equal(f->lo, 14);
	assert_int_equal(f->hi, 17);
	f = pt_pmu_format(&p, "notnt");
	assert_non_null(f);
	assert_int_equal(f->lo, 55);
	assert_int_equal(f->hi, 55);
	/* caps are hexadecimal (pt_cap_show prints "%x"). */
	assert_int_equal(pt_pmu_cap(&p, "mtc_periods", &v), 0);
	assert_int_equal(v, 0x249);
	assert_int_equal(pt_pmu_cap(&p, "cycle_thresholds", &v), 0);
	assert_int_equal(v, 0x3fff);
	assert_int_equal(pt_pmu_cap(&p, "no_such_cap", &v), -ENOENT);
}

static uint64_t config_of(const char *root, enum pt_mode mode, uint64_t size,
			  const char *terms)
{
	struct pt_pmu p = read_pmu(root);
	struct pt_settings s = { mode, size, terms, 0 };
	struct errmsg e;
	uint64_t config = 0;

	errmsg_init(&e);
	if (pt_config_build(&p, &s, &config, &e) < 0)
		fail_msg("config '%s': %s", terms ? terms : "", e.text);
	return config;
}

static void fault_mode_takes_tsc_mtc_noretcomp_and_a_psb_period_that_fits(void **state)
{
	(void)state;
	/* tsc (10), mtc (9) with mtc_period 3 (14-17; bit 3 of 0x249), noretcomp
	 * (11), psb_period 2 (24-27): PSB every 8 KiB, a quarter of 32 KiB. */
	assert_int_equal(config_of(FIX "skylake", PT_MODE_FAULT, 32 << 10, NULL),
			 (1ull << 10) | (1ull << 9) | (3ull << 14) | (1ull << 11) |
			 (2ull << 24));
	/* Full mode: returns compressed, PSB every 16 KiB. */
	assert_int_equal(config_of(FIX "skylake", PT_MODE_FULL, 4 << 20, NULL),
			 (1ull << 10) | (1ull << 9) | (3ull << 14) | (3ull << 24));
	/* A CPU without MTC or a settable PSB period gets neither. */
	assert_int_equal(config_of(FIX "broadwell", PT_MODE_FAULT, 32 << 10, NULL),
			 (1ull << 10) | (1ull << 11));
}

static void the_users_terms_go_on_top_of_the_defaults(void **state)
{
	(void)state;
	assert_int_equal(config_of(FIX "skylake", PT_MODE_FULL, 4 << 20,
				   "cyc,cyc_thresh=2,psb_period=1,mtc=0"),
			 (1ull << 10) | (1ull << 1) | (2ull << 19) | (1ull << 24) |
			 (3ull << 14));
	/* branch given: the pass-through bit 0 goes with it. */
	assert_int_equal(config_of(FIX "broadwell", PT_MODE_FULL, 4 << 20, "branch"),
			 (1ull << 10) | (1ull << 13) | 1ull);
}

static void assert_refused(const char *root, const char *terms, const char *want)
{
	struct pt_pmu p = read_pmu(root);
	struct pt_settings s = { PT_MODE_FAULT, 32 << 10, terms, 0 };
	struct errmsg e;
	uint64_t config;

	errmsg_init(&e);
	assert_int_equal(pt_config_build(&p, &s, &config, &e), -EINVAL);
	assert_contains(e.text, want);
}

static void a_term_whose_cap_is_missing_names_the_cap(void **state)
{
	(void)state;
	assert_refused(FIX "broadwell", "cyc", "'cyc' needs the psb_cyc "
		       "capability, which this CPU lacks (caps/psb_cyc is 0");
	assert_refused(FIX "broadwell", "mtc", "'mtc' needs the mtc capability");
	assert_refused(FIX "broadwell", "psb_period=1", "'psb_period' needs the "
		       "psb_cyc capability");
	assert_refused(FIX "skylake", "ptw", "'ptw' needs the ptwrite capability");
	assert_refused(FIX "skylake", "pwr_evt", "power_event_trace");
	assert_refused(FIX "skylake", "event", "'event' needs the event_trace");
}

static void a_value_the_cpu_does_not_offer_is_refused(void **state)
{
	(void)state;
	/* 0x249 has bits 0, 3, 6, 9. */
	assert_refused(FIX "skylake", "mtc_period=1", "mtc_period=1 is not one "
		       "this CPU offers (caps/mtc_periods is 249");
	assert_refused(FIX "skylake", "mtc_period=16", "mtc_period takes at most "
		       "15 (4 bits)");
	assert_refused(FIX "skylake", "cyc,cyc_thresh=14", "cyc_thresh=14 is not "
		       "one this CPU offers");
}

static void a_term_this_kernel_lacks_or_faultline_needs_is_refused(void **state)
{
	(void)state;
	/* The Broadwell tree is an older kernel's: no notnt term. */
	assert_refused(FIX "broadwell", "notnt", "invalid --pt-config term "
		       "'notnt': this kernel's intel_pt PMU has no such term");
	assert_refused(FIX "skylake", "frobnicate", "has no such term (it has ");
	assert_refused(FIX "skylake", "tsc=0", "tsc=0 leaves the trace without "
		       "timestamps");
	assert_refused(FIX "skylake", "branch=0", "turns off the control flow");
	assert_refused(FIX "skylake", "cyc=x", "'x' is not a number");
	assert_refused(FIX "skylake", "=1", "expected NAME or NAME=VALUE");
}

static void the_pt_event_is_user_only_on_the_perf_clock_with_switches(void **state)
{
	struct pt_pmu p = read_pmu(FIX "skylake");
	struct pt_settings full = { PT_MODE_FULL, 4 << 20, NULL, 0 };
	struct pt_settings fault = { PT_MODE_FAULT, 32 << 10, NULL, 0 };
	struct perf_event_attr a;

	(void)state;
	assert_int_equal(pt_aux_bytes(&full, 4096), 4 << 20);
	assert_int_equal(pt_aux_bytes(&fault, 4096), 128 << 10);
	pt_attr_fill(&p, 0x400, &full, 4 << 20, &a);
	assert_int_equal(a.type, 8);
	assert_int_equal(a.config, 0x400);
	assert_int_equal(a.exclude_kernel, 1);
	assert_int_equal(a.disabled, 1);
	assert_int_equal(a.context_switch, 1);
	assert_int_equal(a.use_clockid, 0);	/* intel_pt refuses a clockid */
	assert_int_equal(a.sample_id_all, 1);
	assert_int_equal(a.sample_type, PT_SAMPLE_TYPE);
	assert_int_equal(a.aux_watermark, 1 << 20);
	pt_attr_fill(&p, 0x400, &fault, 128 << 10, &a);
	assert_int_equal(a.aux_watermark, 0);	/* overwrite: no wake-ups */
}

static void the_fault_carrier_samples_aux_on_the_perf_clock(void **state)
{
	struct perf_event_attr a;

	(void)state;
	memset(&a, 0, sizeof(a));
	a.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TIME;
	a.use_clockid = 1;
	a.clockid = 1;
	pt_attr_aux_sample(&a, 32 << 10);
	assert_true(a.sample_type & PERF_SAMPLE_AUX);
	assert_true(a.sample_type & PERF_SAMPLE_TIME);
	assert_int_equal(a.aux_sample_size, 32 << 10);
	assert_int_equal(a.use_clockid, 0);
}

static void assert_absent(const char *root, const char *want)
{
	struct pt_pmu p;
	struct errmsg e;

	errmsg_init(&e);
	assert_int_equal(pt_pmu_read(&p, root, &e), -ENODEV);
	assert_contains(e.text, "cannot record Intel PT: there is no intel_pt PMU");
	assert_contains(e.text, want);
}

static void a_machine_without_the_pmu_is_told_why(void **state)
{
	(void)state;
	assert_absent(FIX "amd-vm", "this CPU is 'AMD EPYC' (AuthenticAMD), and "
		      "Intel PT needs an Intel CPU");
	assert_absent(FIX "intel-vm", "this is a virtual machine whose hypervisor "
		      "does not pass Intel PT through");
	assert_absent(FIX "intel-nopt", "has no Intel PT (no intel_pt flag");
	assert_absent(FIX "intel-nodriver", "the kernel was built without it");
	assert_absent(FIX "no-such-root", "record without --pt");
}

static void a_format_file_the_kernel_could_not_write_is_named(void **state)
{
	char root[256], path[512];
	const char *dirs[] = { "sys", "sys/bus", "sys/bus/event_source",
			       "sys/bus/event_source/devices", PT_PMU_DIR,
			       PT_PMU_DIR "/format", PT_PMU_DIR "/caps" };
	struct pt_pmu p;
	struct errmsg e;
	FILE *f;

	(void)state;
	assert_non_null(mkdtemp(tmp_template(root, sizeof(root), "fl-pt-pmu")));
	for (size_t i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++) {
		snprintf(path, sizeof(path), "%s/%s", root, dirs[i]);
		assert_int_equal(mkdir(path, 0755), 0);
	}
	snprintf(path, sizeof(path), "%s/%s/type", root, PT_PMU_DIR);
	f = fopen(path, "w");
	fputs("9\n", f);
	fclose(f);
	snprintf(path, sizeof(path), "%s/%s/format/tsc", root, PT_PMU_DIR);
	f = fopen(path, "w");
	fputs("config:ten\n", f);
	fclose(f);
	errmsg_init(&e);
	assert_int_equal(pt_pmu_read(&p, root, &e), -EINVAL);
	assert_contains(e.text, "format/tsc");
	assert_contains(e.text, "is not a format the kernel writes");
	unlink(path);
	snprintf(path, sizeof(path), "rm -r '%s'", root);
	assert_int_equal(system(path), 0);
}

static void the_cpu_signature_comes_from_cpuinfo(void **state)
{
	uint32_t family, model, stepping;

	(void)state;
	pt_cpu_signature(FIX "skylake", &family, &model, &stepping);
	assert_int_equal(family, 6);
	assert_int_equal(model, 94);
	assert_int_equal(stepping, 3);
	pt_cpu_signature(FIX "amd-vm", &family, &model, &stepping);
	assert_int_equal(family, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(the_pmu_is_read_from_its_type_format_and_caps_files),
		cmocka_unit_test(fault_mode_takes_tsc_mtc_noretcomp_and_a_psb_period_that_fits),
		cmocka_unit_test(the_users_terms_go_on_top_of_the_defaults),
		cmocka_unit_test(a_term_whose_cap_is_missing_names_the_cap),
		cmocka_unit_test(a_value_the_cpu_does_not_offer_is_refused),
		cmocka_unit_test(a_term_this_kernel_lacks_or_faultline_needs_is_refused),
		cmocka_unit_test(the_pt_event_is_user_only_on_the_perf_clock_with_switches),
		cmocka_unit_test(the_fault_carrier_samples_aux_on_the_perf_clock),
		cmocka_unit_test(a_machine_without_the_pmu_is_told_why),
		cmocka_unit_test(a_format_file_the_kernel_could_not_write_is_named),
		cmocka_unit_test(the_cpu_signature_comes_from_cpuinfo),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
