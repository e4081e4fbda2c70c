/*
 * opt: the checked parsers behind every numeric option.  Every refusal's
 * message names the option and the text given; a refused duration or size
 * leaves the option as it was.
 */
#include <errno.h>

#include "../../cli/opt.h"
#include "records.h"

#define UNTOUCHED 0x5a5a5a5a5a5a5a5aull

typedef int (*parse_fn)(const char *s, const char *opt_name, uint64_t *out,
			struct errmsg *e);

static void assert_parses(parse_fn parse, const char *s, uint64_t want)
{
	struct errmsg e;
	uint64_t v = UNTOUCHED;

	errmsg_init(&e);
	if (parse(s, "--opt", &v, &e) != 0)
		fail_msg("'%s' refused: %s", s, e.text);
	if (v != want)
		fail_msg("'%s' gave %llu, want %llu", s, (unsigned long long)v,
			 (unsigned long long)want);
	assert_string_equal(e.text, "");
}

/* The value refused with -err, the message naming opt_name and s. */
static uint64_t refused_value(parse_fn parse, const char *opt_name,
			      const char *s, int err)
{
	struct errmsg e;
	uint64_t v = UNTOUCHED;
	char quoted[128];
	int got;

	errmsg_init(&e);
	got = parse(s, opt_name, &v, &e);
	if (got != -err)
		fail_msg("'%s' gave %d, want %d", s, got, -err);
	snprintf(quoted, sizeof(quoted), "'%s'", s);
	if (!strstr(e.text, opt_name) || !strstr(e.text, quoted))
		fail_msg("message for '%s' does not name %s and the value: %s",
			 s, opt_name, e.text);
	return v;
}

/* Refused, and the option keeps the value it had. */
static void assert_refused(parse_fn parse, const char *opt_name, const char *s,
			   int err)
{
	assert_int_equal(refused_value(parse, opt_name, s, err), UNTOUCHED);
}

/* ---- durations --------------------------------------------------------------- */

static void durations_take_a_unit_and_give_exact_nanoseconds(void **state)
{
	(void)state;
	assert_parses(opt_parse_duration, "0", 0);
	assert_parses(opt_parse_duration, "10ns", 10);
	assert_parses(opt_parse_duration, "5us", 5000);
	assert_parses(opt_parse_duration, "10ms", 10000000);
	assert_parses(opt_parse_duration, "2s", 2000000000ull);
	assert_parses(opt_parse_duration, "3m", 180000000000ull);
	assert_parses(opt_parse_duration, "1h", 3600000000000ull);
	assert_parses(opt_parse_duration, "0ms", 0);
	assert_parses(opt_parse_duration, "007us", 7000);
	assert_parses(opt_parse_duration, "18446744073709551615ns", UINT64_MAX);
	assert_parses(opt_parse_duration, "5124095h", 5124095ull * 3600000000000ull);
}

static void a_duration_without_a_unit_or_with_garbage_is_refused(void **state)
{
	static const char *const bad[] = {
		"", "10", "-1ms", "10 ms", "10msx", "ms", " 10ms", "+10ms",
		"10ms ", "1e3ns", "0x10ms", "10sec", "1h30m", "1.5", "0.0",
		"-1.5s", "+1.5s", "1,5s", "1.5.5s", "1..5s", "1. 5s", "1.5 s",
		"1.5e3ns", "0x1.8p1s",
	};

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		assert_refused(opt_parse_duration, "--min-duration", bad[i], EINVAL);
}

static void a_decimal_duration_is_exact_to_the_nanosecond(void **state)
{
	(void)state;
	assert_parses(opt_parse_duration, "1.5s", 1500000000ull);
	assert_parses(opt_parse_duration, "0.25ms", 250000);
	assert_parses(opt_parse_duration, "2.5us", 2500);
	/* 0.1 has no exact binary fraction: a double would give 99999999 or
	 * 100000001 here, depending on how it rounds. */
	assert_parses(opt_parse_duration, "0.1s", 100000000);
	assert_parses(opt_parse_duration, "0.3s", 300000000);
	assert_parses(opt_parse_duration, "0.000000001s", 1);
	assert_parses(opt_parse_duration, "1.5m", 90000000000ull);
	assert_parses(opt_parse_duration, "0.1h", 360000000000ull);
	assert_parses(opt_parse_duration, "0.00000000005m", 3);
	assert_parses(opt_parse_duration, "2.0ns", 2);
	assert_parses(opt_parse_duration, "0.0s", 0);
	assert_parses(opt_parse_duration, "007.500ms", 7500000);
}

static void trailing_zeros_of_a_fraction_change_nothing_however_many(void **state)
{
	(void)state;
	assert_parses(opt_parse_duration, "1.5000000000000000000000000000s",
		      1500000000ull);
	assert_parses(opt_parse_duration, "3.000000000000000000000000000000ns", 3);
}

static void a_fraction_of_a_nanosecond_is_refused_with_its_reason(void **state)
{
	static const char *const bad[] = {
		"1.5ns", "0.1ns", "0.0000000001s", "1.0000000005us",
		"0.00000000001m", "0.000000000000000000001h",
		"1.00000000000000000000000000001s",
	};
	struct errmsg e;
	uint64_t v = UNTOUCHED;

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		assert_refused(opt_parse_duration, "--window", bad[i], EINVAL);
	errmsg_init(&e);
	assert_int_equal(opt_parse_duration("1.5ns", "--window", &v, &e), -EINVAL);
	assert_string_equal(e.text, "invalid --window '1.5ns': not a whole number "
			    "of nanoseconds, the finest a duration can be");
}

static void a_point_needs_a_digit_on_each_side(void **state)
{
	struct errmsg e;
	uint64_t v = UNTOUCHED;

	(void)state;
	assert_refused(opt_parse_duration, "--window", ".5s", EINVAL);
	assert_refused(opt_parse_duration, "--window", "5.s", EINVAL);
	assert_refused(opt_parse_duration, "--window", ".s", EINVAL);
	assert_refused(opt_parse_duration, "--window", "5.", EINVAL);
	errmsg_init(&e);
	assert_int_equal(opt_parse_duration(".5s", "--window", &v, &e), -EINVAL);
	assert_string_equal(e.text, "invalid --window '.5s': expected a number "
			    "with a unit (ns, us, ms, s, m, h), e.g. 10ms or 1.5s");
}

static void a_decimal_duration_past_64_bits_is_out_of_range(void **state)
{
	(void)state;
	/* The largest: UINT64_MAX ns is 18446744073.709551615 s. */
	assert_parses(opt_parse_duration, "18446744073.709551615s", UINT64_MAX);
	assert_refused(opt_parse_duration, "--duration", "18446744073.709551616s",
		       ERANGE);
	assert_parses(opt_parse_duration, "5124095.5h", 18446743800000000000ull);
	assert_refused(opt_parse_duration, "--duration", "5124095.6h", ERANGE);
	assert_refused(opt_parse_duration, "--duration",
		       "99999999999999999999.5ms", ERANGE);
}

static void a_duration_past_the_largest_count_of_its_unit_is_out_of_range(void **state)
{
	(void)state;
	assert_refused(opt_parse_duration, "--min-duration", "5124096h", ERANGE);
	assert_refused(opt_parse_duration, "--min-duration", "307445735m",
		       ERANGE);
	assert_refused(opt_parse_duration, "--min-duration", "18446744074s",
		       ERANGE);
}

static void a_duration_with_more_digits_than_64_bits_hold_is_out_of_range(void **state)
{
	(void)state;
	assert_refused(opt_parse_duration, "--min-duration", "99999999999999999999h",
		       ERANGE);
	assert_refused(opt_parse_duration, "--min-duration", "18446744073709551616ns",
		       ERANGE);
}

/* ---- sizes --------------------------------------------------------------------- */

static void sizes_take_an_optional_binary_unit_and_give_exact_bytes(void **state)
{
	(void)state;
	assert_parses(opt_parse_size, "0", 0);
	assert_parses(opt_parse_size, "4096", 4096);
	assert_parses(opt_parse_size, "64K", 65536);
	assert_parses(opt_parse_size, "8M", 8388608);
	assert_parses(opt_parse_size, "1G", 1073741824);
	assert_parses(opt_parse_size, "4KiB", 4096);
	assert_parses(opt_parse_size, "2MiB", 2097152);
	assert_parses(opt_parse_size, "3GiB", 3221225472ull);
	assert_parses(opt_parse_size, "1T", 1099511627776ull);
	assert_parses(opt_parse_size, "2TiB", 2199023255552ull);
	assert_parses(opt_parse_size, "18446744073709551615", UINT64_MAX);
	assert_parses(opt_parse_size, "17179869183G", UINT64_MAX - (1ull << 30) + 1);
}

static void a_size_with_a_sign_fraction_or_unknown_unit_is_refused(void **state)
{
	static const char *const bad[] = {
		"", "-1", "1.5M", "8MB", "K", "8 M", "8KB", "8Mi", "8P", "+8M",
		"8M ", "0x1000", "0.5M", "1.0K", "4096.0", ".5M",
	};

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		assert_refused(opt_parse_size, "--ring-size", bad[i], EINVAL);
}

static void a_size_past_the_largest_count_of_its_unit_is_out_of_range(void **state)
{
	(void)state;
	assert_refused(opt_parse_size, "--ring-size", "17179869184G", ERANGE);
	assert_refused(opt_parse_size, "--ring-size", "17592186044416MiB", ERANGE);
	assert_refused(opt_parse_size, "--ring-size", "18014398509481984K", ERANGE);
}

static void a_size_with_more_digits_than_64_bits_hold_is_out_of_range(void **state)
{
	(void)state;
	assert_refused(opt_parse_size, "--ring-size", "18446744073709551616", ERANGE);
	assert_refused(opt_parse_size, "--ring-size", "99999999999999999999K", ERANGE);
}

/* ---- plain integers -------------------------------------------------------------- */

static void integers_parse_exactly_up_to_the_largest_u64(void **state)
{
	(void)state;
	assert_parses(opt_parse_u64, "0", 0);
	assert_parses(opt_parse_u64, "42", 42);
	assert_parses(opt_parse_u64, "0042", 42);
	assert_parses(opt_parse_u64, "18446744073709551615", UINT64_MAX);
}

static void an_integer_with_a_sign_unit_or_overflow_is_refused(void **state)
{
	static const char *const bad[] = {
		"", "-1", "+1", "1x", " 1", "1 ", "1.0", "0x10", "1K",
		"18446744073709551616", "99999999999999999999",
	};

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		refused_value(opt_parse_u64, "--pid", bad[i], EINVAL);
}

/* ---- ranges and lists ------------------------------------------------------------ */

#define PORTS "UDP ports from 1 to 65535"

/* Collects what opt_parse_u64_list hands over. */
struct list {
	uint64_t v[8];
	size_t n;
	int fail_at;		/* add fails with -ENOMEM at this item; -1 never */
};

static int list_add(void *ctx, uint64_t v)
{
	struct list *l = ctx;

	if ((int)l->n == l->fail_at)
		return -ENOMEM;
	if (l->n == 8)
		fail_msg("more than 8 items");
	l->v[l->n++] = v;
	return 0;
}

static int parse_ports(const char *s, struct list *l, struct errmsg *e)
{
	memset(l, 0, sizeof(*l));
	l->fail_at = -1;
	errmsg_init(e);
	return opt_parse_u64_list(s, "--udp-port", 1, 65535, PORTS, list_add, l, e);
}

static void a_list_gives_each_item_in_order_within_its_range(void **state)
{
	struct errmsg e;
	struct list l;

	(void)state;
	assert_int_equal(parse_ports("9000", &l, &e), 0);
	assert_int_equal(l.n, 1);
	assert_int_equal(l.v[0], 9000);
	assert_int_equal(parse_ports("9001,1,65535,09000", &l, &e), 0);
	assert_int_equal(l.n, 4);
	assert_int_equal(l.v[0], 9001);
	assert_int_equal(l.v[1], 1);
	assert_int_equal(l.v[2], 65535);
	assert_int_equal(l.v[3], 9000);
	assert_string_equal(e.text, "");
}

static void a_list_with_any_bad_item_is_refused_whole(void **state)
{
	static const char *const bad[] = {
		"", ",", "0", "65536", "9000,", ",9000", "9000,,9001", "9000,x",
		"9000 ,9001", "9000;9001", "-1", "+9000", "9000,0",
		"18446744073709551616",
	};
	struct errmsg e;
	struct list l;
	char want[128];

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		if (parse_ports(bad[i], &l, &e) != -EINVAL)
			fail_msg("'%s' accepted", bad[i]);
		assert_int_equal(l.n, 0);	/* not even the good items */
		snprintf(want, sizeof(want), "invalid --udp-port '%s': expected "
			 PORTS, bad[i]);
		assert_string_equal(e.text, want);
	}
}

static void a_failing_add_stops_the_list_with_its_error(void **state)
{
	struct errmsg e;
	struct list l;

	(void)state;
	memset(&l, 0, sizeof(l));
	l.fail_at = 1;
	errmsg_init(&e);
	assert_int_equal(opt_parse_u64_list("1,2,3", "--udp-port", 1, 65535, PORTS,
					    list_add, &l, &e), -ENOMEM);
	assert_int_equal(l.n, 1);
}

static int parse_inode(const char *s, const char *opt_name, uint64_t *out,
		       struct errmsg *e)
{
	return opt_parse_u64_in(s, opt_name, 1, UINT64_MAX, "an inode", out, e);
}

static void an_integer_in_a_range_says_what_was_expected(void **state)
{
	static const char *const bad[] = {
		"0", "", "1,2", "-1", "x", "18446744073709551616",
	};
	struct errmsg e;
	uint64_t v = UNTOUCHED;

	(void)state;
	assert_parses(parse_inode, "1", 1);
	assert_parses(parse_inode, "18446744073709551615", UINT64_MAX);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		assert_refused(parse_inode, "--socket", bad[i], EINVAL);
	errmsg_init(&e);
	assert_int_equal(opt_parse_u64_in("70000", "--port", 1, 65535, "a port",
					  &v, &e), -EINVAL);
	assert_string_equal(e.text, "invalid --port '70000': expected a port");
	assert_int_equal(v, UNTOUCHED);
}

static void a_number_is_finite_and_whole_or_refused(void **state)
{
	static const char *const bad[] = { "", " 1", "1x", "inf", "nan", "1e999",
					   "0x", "--1" };
	struct errmsg e;
	double d = 0;

	(void)state;
	errmsg_init(&e);
	assert_int_equal(opt_parse_double("20", "--min-value", &d, &e), 0);
	assert_true(d == 20.0);
	assert_int_equal(opt_parse_double("-1.5", "--min-value", &d, &e), 0);
	assert_true(d == -1.5);
	assert_int_equal(opt_parse_double("2e3", "--min-value", &d, &e), 0);
	assert_true(d == 2000.0);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		assert_int_equal(opt_parse_double(bad[i], "--min-value", &d, &e), -EINVAL);
		assert_non_null(strstr(e.text, "invalid --min-value '"));
		assert_non_null(strstr(e.text, "': expected a number"));
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(durations_take_a_unit_and_give_exact_nanoseconds),
		cmocka_unit_test(a_duration_without_a_unit_or_with_garbage_is_refused),
		cmocka_unit_test(a_decimal_duration_is_exact_to_the_nanosecond),
		cmocka_unit_test(trailing_zeros_of_a_fraction_change_nothing_however_many),
		cmocka_unit_test(a_fraction_of_a_nanosecond_is_refused_with_its_reason),
		cmocka_unit_test(a_point_needs_a_digit_on_each_side),
		cmocka_unit_test(a_decimal_duration_past_64_bits_is_out_of_range),
		cmocka_unit_test(a_duration_past_the_largest_count_of_its_unit_is_out_of_range),
		cmocka_unit_test(a_duration_with_more_digits_than_64_bits_hold_is_out_of_range),
		cmocka_unit_test(sizes_take_an_optional_binary_unit_and_give_exact_bytes),
		cmocka_unit_test(a_size_with_a_sign_fraction_or_unknown_unit_is_refused),
		cmocka_unit_test(a_size_past_the_largest_count_of_its_unit_is_out_of_range),
		cmocka_unit_test(a_size_with_more_digits_than_64_bits_hold_is_out_of_range),
		cmocka_unit_test(integers_parse_exactly_up_to_the_largest_u64),
		cmocka_unit_test(an_integer_with_a_sign_unit_or_overflow_is_refused),
		cmocka_unit_test(a_list_gives_each_item_in_order_within_its_range),
		cmocka_unit_test(a_list_with_any_bad_item_is_refused_whole),
		cmocka_unit_test(a_failing_add_stops_the_list_with_its_error),
		cmocka_unit_test(an_integer_in_a_range_says_what_was_expected),
		cmocka_unit_test(a_number_is_finite_and_whole_or_refused),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
