/*
 * common/: the one growth idiom, the text buffer, and the one JSON
 * escaper every JSON text goes through.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "../../common/array.h"
#include "../../common/clock.h"
#include "../../common/demangle.h"
#include "../../common/edit_distance.h"
#include "../../common/json.h"
#include "../../common/sql_value.h"
#include "../../common/strbuf.h"
#include "../../common/term_text.h"
#include "../../common/utf8.h"
#include "../../decoder/tracepoint.h"
#include "records.h"

/* utc_format against libc's gmtime_r and strftime, as an oracle, over
 * days before and after 1970, leap days and century years. */
static void utc_format_writes_what_gmtime_says_to_the_ns(void **state)
{
	static const int64_t secs[] = { 0, -1, 59, 86399, 86400, 951782400,
		951868799, 4107456000ll, -2208988800ll, 1700000000, 1795474351,
		9223372036ll };
	char got[UTC_LEN], want[64];

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(secs); i++) {
		time_t t = (time_t)secs[i];
		struct tm tm;
		size_t k;

		assert_non_null(gmtime_r(&t, &tm));
		k = strftime(want, sizeof(want), "%Y-%m-%dT%H:%M:%S", &tm);
		snprintf(want + k, sizeof(want) - k, ".%09dZ", (int)(i * 7919));
		utc_format(got, sizeof(got), secs[i] * 1000000000 + (int64_t)(i * 7919));
		assert_string_equal(got, want);
	}
	assert_string_equal(utc_format(got, sizeof(got), -1),
			    "1969-12-31T23:59:59.999999999Z");
}

static void utc_parse_reads_rfc_3339_and_what_utc_format_writes(void **state)
{
	const char *ok[] = { "2023-11-14T22:13:20Z", "2023-11-14t22:13:20z",
			     "2023-11-14 22:13:20.000000000Z", "2023-11-14T23:13:20+01:00",
			     "2023-11-14T21:43:20-00:30", "2023-11-14T22:13:20.0000000004Z" };
	char buf[UTC_LEN];
	int64_t ns;

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(ok); i++) {
		assert_int_equal(utc_parse(ok[i], strlen(ok[i]), 0, &ns), 0);
		assert_int_equal(ns, 1700000000000000000ll);
	}
	/* What utc_format writes reads back as the same ns. */
	utc_format(buf, sizeof(buf), 1795474351237460456ll);
	assert_int_equal(utc_parse(buf, strlen(buf), 0, &ns), 0);
	assert_int_equal(ns, 1795474351237460456ll);
	/* No zone: UTC only where the caller says so. */
	assert_int_equal(utc_parse("2023-11-14T22:13:20.5", 21, 0, &ns), -EINVAL);
	assert_int_equal(utc_parse("2023-11-14T22:13:20.5", 21, UTC_ZONE_OPTIONAL, &ns), 0);
	assert_int_equal(ns, 1700000000500000000ll);
	/* Not read past len: the text need not end in a NUL. */
	assert_int_equal(utc_parse("2023-11-14T22:13:20Zjunk", 20, 0, &ns), 0);
	assert_int_equal(utc_parse("2023-02-29T00:00:00Z", 20, 0, &ns), -EINVAL);
	assert_int_equal(utc_parse("2024-02-29T00:00:00Z", 20, 0, &ns), 0);
	assert_int_equal(utc_parse("2023-11-14T24:00:00Z", 20, 0, &ns), -EINVAL);
	assert_int_equal(utc_parse("2023-11-14T22:13:20.Z", 21, 0, &ns), -EINVAL);
	assert_int_equal(utc_parse("2023-11-14T22:13:20+1:00", 24, 0, &ns), -EINVAL);
	assert_int_equal(utc_parse("1969-12-31T23:59:59Z", 20, 0, &ns), -ERANGE);
	assert_int_equal(utc_parse("2263-01-01T00:00:00Z", 20, 0, &ns), -ERANGE);
}

static void an_array_grows_by_doubling_and_keeps_its_contents(void **state)
{
	uint32_t *v = NULL;
	size_t cap = 0;

	(void)state;
	for (uint32_t i = 0; i < 1000; i++) {
		assert_int_equal(ARRAY_RESERVE(v, cap, i + 1), 0);
		assert_true(cap >= i + 1);
		v[i] = i * 7;
	}
	assert_int_equal(cap, 1024);
	for (uint32_t i = 0; i < 1000; i++)
		assert_int_equal(v[i], i * 7);
	free(v);
}

static void a_size_that_would_overflow_is_refused_and_the_array_kept(void **state)
{
	uint64_t *v = NULL;
	size_t cap = 0, bytes;

	(void)state;
	assert_int_equal(ARRAY_RESERVE(v, cap, 4), 0);
	v[3] = 42;
	assert_int_equal(ARRAY_RESERVE(v, cap, SIZE_MAX / 4), -ENOMEM);
	assert_int_equal(cap, 16);
	assert_int_equal(v[3], 42);
	assert_int_equal(array_bytes(SIZE_MAX / 2, 3, &bytes), -ENOMEM);
	assert_int_equal(array_bytes(1000, 8, &bytes), 0);
	assert_int_equal(bytes, 8000);
	free(v);
}

static void a_strbuf_formats_and_detaches(void **state)
{
	struct strbuf sb;
	char *s;

	(void)state;
	strbuf_init(&sb);
	assert_string_equal(strbuf_str(&sb), "");
	strbuf_adds(&sb, "abc");
	strbuf_addc(&sb, '-');
	/* Longer than the first guess of strbuf_addf: takes the second pass. */
	strbuf_addf(&sb, "%0100d|%s", 7, "end");
	assert_int_equal(sb.len, 4 + 100 + 4);
	assert_int_equal(strbuf_error(&sb), 0);
	s = strbuf_detach(&sb);
	assert_int_equal(strncmp(s, "abc-000", 7), 0);
	assert_string_equal(s + 104, "|end");
	assert_null(sb.buf);
	free(s);
}

static const char *escaped(struct strbuf *sb, const char *s, size_t len)
{
	strbuf_reset(sb);
	json_string(sb, s, len);
	assert_int_equal(strbuf_error(sb), 0);
	return strbuf_str(sb);
}

static void json_keeps_utf8_and_escapes_control_characters(void **state)
{
	struct strbuf sb;

	(void)state;
	strbuf_init(&sb);
	assert_string_equal(escaped(&sb, "caf\xc3\xa9", 5), "\"caf\xc3\xa9\"");
	assert_string_equal(escaped(&sb, "\xf0\x9f\x99\x82", 4), "\"\xf0\x9f\x99\x82\"");
	assert_string_equal(escaped(&sb, "a\"b\\c", 5), "\"a\\\"b\\\\c\"");
	assert_string_equal(escaped(&sb, "\n\t\r\b\f", 5), "\"\\n\\t\\r\\b\\f\"");
	assert_string_equal(escaped(&sb, "\x01\x1f\x7f", 3), "\"\\u0001\\u001f\\u007f\"");
	strbuf_release(&sb);
}

static void json_replaces_bytes_that_are_not_utf8(void **state)
{
	struct strbuf sb;

	(void)state;
	strbuf_init(&sb);
	/* Latin-1 é, a stray continuation byte, an overlong '/', a UTF-16
	 * surrogate, a sequence cut short by the end of the field. */
	assert_string_equal(escaped(&sb, "caf\xe9", 4), "\"caf\\ufffd\"");
	assert_string_equal(escaped(&sb, "\x80x", 2), "\"\\ufffdx\"");
	assert_string_equal(escaped(&sb, "\xc0\xaf", 2), "\"\\ufffd\\ufffd\"");
	assert_string_equal(escaped(&sb, "\xed\xa0\x80", 3), "\"\\ufffd\\ufffd\\ufffd\"");
	assert_string_equal(escaped(&sb, "\xc3\xa9", 1), "\"\\ufffd\"");
	strbuf_release(&sb);
}

/* A REAL is written as SQLite's own text writes it where the two can
 * differ in meaning: a whole number keeps ".0", and a zero has no sign,
 * whichever side of zero round() came from (PostgreSQL's round gives +0,
 * and a comparison of the two engines' answers must not see "-0.0"). */
static void a_real_is_written_as_sqlite_writes_it_and_zero_has_no_sign(void **state)
{
	static const char *const sql = "SELECT round(-0.0004, 3), -0.0, 5.0, 0.25, 1e-300 * -1e-300";
	static const char *const want[] = { "0.0", "0.0", "5.0", "0.25", "0.0" };
	struct strbuf sb;
	sqlite3_stmt *st;
	sqlite3 *db;

	(void)state;
	strbuf_init(&sb);
	assert_int_equal(sqlite3_open(":memory:", &db), SQLITE_OK);
	assert_int_equal(sqlite3_prepare_v2(db, sql, -1, &st, NULL), SQLITE_OK);
	assert_int_equal(sqlite3_step(st), SQLITE_ROW);
	for (int i = 0; i < 5; i++) {
		assert_int_equal(sqlite3_column_type(st, i), SQLITE_FLOAT);
		strbuf_reset(&sb);
		sql_value_csv(&sb, st, i);
		assert_string_equal(strbuf_str(&sb), want[i]);
		strbuf_reset(&sb);
		sql_value_json(&sb, st, i);
		assert_string_equal(strbuf_str(&sb), want[i]);
		assert_string_equal((const char *)sqlite3_column_text(st, i), want[i]);
	}
	strbuf_reset(&sb);
	json_real(&sb, -0.0);
	assert_string_equal(strbuf_str(&sb), "0");
	sqlite3_finalize(st);
	sqlite3_close(db);
	strbuf_release(&sb);
}

static void json_stops_a_fixed_size_string_at_its_nul(void **state)
{
	struct strbuf sb;
	const char comm[16] = "rx\0garbage";

	(void)state;
	strbuf_init(&sb);
	assert_string_equal(escaped(&sb, comm, sizeof(comm)), "\"rx\"");
	strbuf_release(&sb);
}

static void utf8_sequences_are_measured_by_rfc_3629(void **state)
{
	(void)state;
	assert_int_equal(utf8_seq_len((const unsigned char *)"a", 1), 1);
	assert_int_equal(utf8_seq_len((const unsigned char *)"\xc3\xa9", 2), 2);
	assert_int_equal(utf8_seq_len((const unsigned char *)"\xe2\x82\xac", 3), 3);
	assert_int_equal(utf8_seq_len((const unsigned char *)"\xf4\x8f\xbf\xbf", 4), 4);
	assert_int_equal(utf8_seq_len((const unsigned char *)"\xf4\x90\x80\x80", 4), 0);
	assert_int_equal(utf8_seq_len((const unsigned char *)"\xe0\x80\xaf", 3), 0);
	assert_int_equal(utf8_seq_len((const unsigned char *)"\xc3\xa9", 1), 0);
}

static void tracepoint_specs_parse_with_and_without_a_filter(void **state)
{
	struct tp_spec_list l;
	struct errmsg e;

	(void)state;
	tp_spec_list_init(&l);
	errmsg_init(&e);
	assert_int_equal(tp_spec_add(&l, "skb:kfree_skb", "-e", &e), 0);
	assert_int_equal(tp_spec_add(&l, "sched:sched_switch/prev_pid == 42/", "-e", &e), 0);
	assert_int_equal(l.n, 2);
	assert_string_equal(l.v[0].system, "skb");
	assert_string_equal(l.v[0].name, "kfree_skb");
	assert_null(l.v[0].filter);
	assert_string_equal(l.v[1].name, "sched_switch");
	assert_string_equal(l.v[1].filter, "prev_pid == 42");
	tp_spec_list_release(&l);
}

static void a_malformed_tracepoint_spec_names_the_option_and_the_form(void **state)
{
	static const char *const bad[] = {
		"kfree_skb", ":x", "skb:", "s-kb:x", "skb:kfree skb", "skb:x/",
		"skb:x//", "skb:x/len > 1", "skb:x/a/b", "",
	};
	struct tp_spec_list l;

	(void)state;
	tp_spec_list_init(&l);
	for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
		struct errmsg e;

		errmsg_init(&e);
		if (tp_spec_add(&l, bad[i], "--event", &e) != -EINVAL)
			fail_msg("'%s' was accepted", bad[i]);
		assert_non_null(strstr(e.text, "invalid --event"));
		assert_non_null(strstr(e.text, "SUBSYS:NAME"));
	}
	assert_int_equal(l.n, 0);
	tp_spec_list_release(&l);
}

static void terminal_text_shows_controls_and_bad_bytes_and_keeps_printable_utf8(void **state)
{
	static const struct {
		const char *in, *out;
	} cases[] = {
		{ "plain name", "plain name" },
		{ "\x1b]0;pwned\x07", "\\x1b]0;pwned\\x07" },
		{ "a\x1b[2Jb", "a\\x1b[2Jb" },
		{ "tab\there\nline\r", "tab\\x09here\\x0aline\\x0d" },
		{ "del\x7f", "del\\x7f" },
		{ "csi\xc2\x9b" "31m", "csi\\xc2\\x9b31m" },	/* C1 CSI */
		{ "caf\xc3\xa9 \xe6\x97\xa5\xf0\x9f\x98\x80", "caf\xc3\xa9 \xe6\x97\xa5\xf0\x9f\x98\x80" },
		{ "nbsp\xc2\xa0", "nbsp\xc2\xa0" },		/* U+00A0: printable */
		{ "cut\xe6\x97", "cut\\xe6\\x97" },		/* cut mid-character */
		{ "\xff\xc0\x80", "\\xff\\xc0\\x80" },	/* never UTF-8, overlong */
		{ "", "" },
	};
	struct strbuf sb;

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		char *t = term_text_dup(cases[i].in);

		assert_non_null(t);
		assert_string_equal(t, cases[i].out);
		free(t);
	}
	assert_null(term_text_dup(NULL));
	strbuf_init(&sb);
	strbuf_adds(&sb, "name: ");
	term_text_add(&sb, "x\x1b");
	assert_string_equal(strbuf_str(&sb), "name: x\\x1b");
	strbuf_release(&sb);
}

static void assert_demangles(const char *sym, const char *want)
{
	char *got = demangle(sym);

	if (!want) {
		assert_null(got);
		return;
	}
	assert_non_null(got);
	assert_string_equal(got, want);
	free(got);
}

/* Itanium C++, Rust legacy (its hash dropped) and Rust v0 names; a plain
 * C name, and one that only looks mangled, stay as they are. */
static void cxx_and_both_rust_manglings_demangle_and_c_names_stay(void **state)
{
	char *owned;

	(void)state;
	assert_demangles("_ZN3flt6Walker5touchEPcm", "flt::Walker::touch");
	assert_demangles("_ZNSt6vectorIiSaIiEE9push_backERKi",
			 "std::vector<int, std::allocator<int> >::push_back");
	assert_demangles("_ZN4core3fmt5write17h0123456789abcdefE", "core::fmt::write");
	assert_demangles("_ZN3std2rt10lang_start28_$u7b$$u7b$closure$u7d$$u7d$"
			 "17h1ff8f5b5e0b1e1c4E", "std::rt::lang_start::{{closure}}");
	assert_demangles("_RNvCs15kBYyAo9fc_7mycrate7example", "mycrate::example");
	assert_demangles("main", NULL);
	assert_demangles("_dl_runtime_resolve_xsavec", NULL);
	assert_demangles("_Zjunk", NULL);
	assert_string_equal(demangle_shown("main", &owned), "main");
	assert_null(owned);
}

/* Each edit counts 1, a swap of neighbours too; the closest name is
 * offered only when it is close and alone. */
static void edit_distance_counts_swaps_and_closest_needs_a_clear_winner(void **state)
{
	static const char *const cmds[] = {
		"record", "query", "report", "diagnose", "stacks", "pt", "plot",
		"export", "merge", "label", "import", "upgrade", "version",
	};

	(void)state;
	assert_int_equal(edit_distance("", ""), 0);
	assert_int_equal(edit_distance("abc", ""), 3);
	assert_int_equal(edit_distance("recrod", "record"), 1);
	assert_int_equal(edit_distance("kitten", "sitting"), 3);
	assert_int_equal(edit_distance("ca", "abc"), 3);	/* OSA, not full DL */
	assert_string_equal(edit_closest("recrod", cmds, 13), "record");
	assert_string_equal(edit_closest("stakcs", cmds, 13), "stacks");
	assert_string_equal(edit_closest("diag", cmds, 13), "diagnose");
	assert_null(edit_closest("xyzzy", cmds, 13));
	/* "pl" is one edit from "pt" and a prefix of "plot": neither wins
	 * by distance (2 * 1 >= 2), the prefix is alone. */
	assert_string_equal(edit_closest("pl", cmds, 13), "plot");
	/* "re": a prefix of three, and no name close enough. */
	assert_null(edit_closest("re", cmds, 13));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(an_array_grows_by_doubling_and_keeps_its_contents),
		cmocka_unit_test(a_size_that_would_overflow_is_refused_and_the_array_kept),
		cmocka_unit_test(a_strbuf_formats_and_detaches),
		cmocka_unit_test(json_keeps_utf8_and_escapes_control_characters),
		cmocka_unit_test(json_replaces_bytes_that_are_not_utf8),
		cmocka_unit_test(json_stops_a_fixed_size_string_at_its_nul),
		cmocka_unit_test(a_real_is_written_as_sqlite_writes_it_and_zero_has_no_sign),
		cmocka_unit_test(utf8_sequences_are_measured_by_rfc_3629),
		cmocka_unit_test(terminal_text_shows_controls_and_bad_bytes_and_keeps_printable_utf8),
		cmocka_unit_test(tracepoint_specs_parse_with_and_without_a_filter),
		cmocka_unit_test(a_malformed_tracepoint_spec_names_the_option_and_the_form),
		cmocka_unit_test(cxx_and_both_rust_manglings_demangle_and_c_names_stay),
		cmocka_unit_test(edit_distance_counts_swaps_and_closest_needs_a_clear_winner),
		cmocka_unit_test(utc_format_writes_what_gmtime_says_to_the_ns),
		cmocka_unit_test(utc_parse_reads_rfc_3339_and_what_utc_format_writes),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
