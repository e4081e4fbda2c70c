/*
 * metric_parse: metric files (csv, tsv, jsonl, plain) to rows, and every
 * way a line can be refused; and record --flight's live metric lines
 * (metric_line) and --metric-udp's address.  Each line is handed over in a buffer of its
 * exact size, so ASan sees any read past it.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>

#include "../../collector/metric_feed.h"
#include "../../decoder/metric_line.h"
#include "../../decoder/metric_parse.h"
#include "records.h"

#define MAX_ROWS 16

struct got {
	int64_t ts;
	double value;
	char name[64];
	char labels[256];
};

struct result {
	int err;		/* 0, or the first error */
	unsigned long line;	/* the line of the error */
	size_t nrows;
	struct got rows[MAX_ROWS];
	struct errmsg e;
};

/* Feeds text line by line, as cli/import.c does, then finishes. */
static void parse_text(const struct metric_spec *spec, const char *text,
		       struct result *r)
{
	struct metric_parser p;
	const char *s = text;

	memset(r, 0, sizeof(*r));
	errmsg_init(&r->e);
	r->err = metric_parser_init(&p, spec, &r->e);
	while (r->err == 0 && *s) {
		const char *nl = strchr(s, '\n');
		size_t len = nl ? (size_t)(nl - s) : strlen(s);
		char *line = malloc(len ? len : 1);
		struct metric_row row;
		int got;

		memcpy(line, s, len);
		got = metric_parse_line(&p, line, len, &row, &r->e);
		if (got < 0) {
			r->err = got;
			r->line = p.line;
		} else if (got == 1) {
			struct got *g = &r->rows[r->nrows++];

			assert_true(r->nrows <= MAX_ROWS);
			g->ts = row.ts;
			g->value = row.value;
			snprintf(g->name, sizeof(g->name), "%.*s", (int)row.name_len,
				 row.name);
			snprintf(g->labels, sizeof(g->labels), "%.*s",
				 (int)row.labels_len, row.labels);
		}
		free(line);
		s = nl ? nl + 1 : s + len;
	}
	if (r->err == 0)
		r->err = metric_parse_finish(&p, &r->e);
	metric_parser_release(&p);
}

static void assert_rows(const struct metric_spec *spec, const char *text,
			size_t want)
{
	struct result r;

	parse_text(spec, text, &r);
	if (r.err)
		fail_msg("refused at line %lu: %s", r.line, r.e.text);
	assert_int_equal(r.nrows, want);
}

/* Refused at line `line` (0: by finish) with a message containing want. */
static void assert_refused(const struct metric_spec *spec, const char *text,
			   unsigned long line, const char *want)
{
	struct result r;

	parse_text(spec, text, &r);
	if (!r.err)
		fail_msg("accepted '%s', expected '%s'", text, want);
	if (r.line != line || !strstr(r.e.text, want))
		fail_msg("line %lu: '%s'; expected line %lu with '%s'", r.line,
			 r.e.text, line, want);
}

static int64_t ts_of(const char *s, enum ts_kind unit, enum ts_kind *kind)
{
	int64_t ns = -1;
	enum ts_kind k = TS_AUTO;
	int err = metric_parse_ts(s, strlen(s), unit, &ns, &k);

	if (err)
		fail_msg("'%s' refused (%d)", s, err);
	if (kind)
		*kind = k;
	return ns;
}

static void csv_rows_take_the_named_columns_and_the_others_as_labels(void **state)
{
	struct metric_spec sp = { .metric = "naks" };
	struct result r;

	(void)state;
	parse_text(&sp, "ts,value,host,port\n"
		   "1795000000.25,12,rx1,9000\n"
		   "1795000001,-3.5,rx2,9001\n", &r);
	assert_int_equal(r.err, 0);
	assert_int_equal(r.nrows, 2);
	assert_int_equal(r.rows[0].ts, 1795000000250000000ll);
	assert_true(r.rows[0].value == 12.0);
	assert_string_equal(r.rows[0].name, "naks");
	assert_string_equal(r.rows[0].labels, "{\"host\":\"rx1\",\"port\":\"9000\"}");
	assert_int_equal(r.rows[1].ts, 1795000001000000000ll);
	assert_true(r.rows[1].value == -3.5);
	assert_string_equal(r.rows[1].labels, "{\"host\":\"rx2\",\"port\":\"9001\"}");
}

/* Every value is stored as the text it was (common/labels.h): a number
 * is not made a JSON number, so "007" and "1e3" keep their spelling and
 * a port is the same text whoever wrote it. */
static void every_label_value_is_text_as_written(void **state)
{
	struct metric_spec sp = { .metric = "m" };
	struct result r;

	(void)state;
	parse_text(&sp, "ts,value,a,b,c,d,e,f\n"
		   "1795000000,1,-12,007,-0,1234567890123456789,1e3,0\n", &r);
	assert_int_equal(r.err, 0);
	assert_string_equal(r.rows[0].labels, "{\"a\":\"-12\",\"b\":\"007\","
			    "\"c\":\"-0\",\"d\":\"1234567890123456789\","
			    "\"e\":\"1e3\",\"f\":\"0\"}");
}

static void a_quoted_csv_field_holds_commas_and_doubled_quotes(void **state)
{
	struct metric_spec sp = { .metric = "m" };
	struct result r;

	(void)state;
	parse_text(&sp, "\"ts\",\"value\",\"topic\"\n"
		   "\"1795000000\",\" 7 \",\"a,\"\"b\"\"\"\n", &r);
	assert_int_equal(r.err, 0);
	assert_int_equal(r.nrows, 1);
	assert_true(r.rows[0].value == 7.0);
	assert_string_equal(r.rows[0].labels, "{\"topic\":\"a,\\\"b\\\"\"}");
	assert_refused(&sp, "ts,value\n\"1795000000\"x,1\n", 2, "text after its closing quote");
}

static void tsv_rows_split_at_tabs_only(void **state)
{
	struct metric_spec sp = { .metric = "q", .format = METRIC_FMT_TSV };
	struct result r;

	(void)state;
	parse_text(&sp, "time\tvalue\tsock\n1795000000000\t4096\tudp, 9000\n", &r);
	assert_int_equal(r.err, 0);
	assert_int_equal(r.rows[0].ts, 1795000000000000000ll);
	assert_true(r.rows[0].value == 4096.0);
	assert_string_equal(r.rows[0].labels, "{\"sock\":\"udp, 9000\"}");
}

static void jsonl_keys_are_the_columns_in_any_order(void **state)
{
	struct metric_spec sp = { 0 };
	struct result r;

	(void)state;
	parse_text(&sp, "{\"metric\":\"lat\",\"ts\":1795000000.5,\"value\":3,"
		   "\"host\":\"r\\u00e9x\\n\",\"port\":9000,\"gone\":null}\n"
		   " { \"value\" : \"4e2\" , \"port\":true, \"host\":\"\\ud83d\\ude00\","
		   "\"ts\":\"1795000001\", \"metric\":\"lat\"} \n", &r);
	if (r.err)
		fail_msg("%s", r.e.text);
	assert_int_equal(r.nrows, 2);
	assert_string_equal(r.rows[0].name, "lat");
	assert_int_equal(r.rows[0].ts, 1795000000500000000ll);
	assert_string_equal(r.rows[0].labels,
			    "{\"host\":\"r\xc3\xa9x\\n\",\"port\":\"9000\"}");
	assert_true(r.rows[1].value == 400.0);
	assert_string_equal(r.rows[1].labels,
			    "{\"host\":\"\xf0\x9f\x98\x80\",\"port\":\"true\"}");
}

static void jsonl_refuses_nesting_duplicates_and_bad_escapes(void **state)
{
	struct metric_spec sp = { .metric = "m" };

	(void)state;
	assert_refused(&sp, "{\"ts\":1795000000,\"value\":1,\"tags\":{\"a\":1}}", 1,
		       "key 'tags' holds a nested object");
	assert_refused(&sp, "{\"ts\":1795000000,\"value\":[1]}", 1,
		       "key 'value' holds a nested array");
	assert_refused(&sp, "{\"ts\":1795000000,\"value\":1,\"value\":2}", 1,
		       "key 'value' appears twice");
	assert_refused(&sp, "{\"ts\":1795000000,\"value\":1,\"h\":\"\\x\"}", 1,
		       "bad escape");
	assert_refused(&sp, "{\"ts\":1795000000,\"value\":1,\"h\":\"\\ud800\"}", 1,
		       "bad \\u escape");
	assert_refused(&sp, "[1795000000, 1]", 1, "not a JSON object");
	assert_refused(&sp, "{\"ts\":1795000000,\"value\":1} x", 1,
		       "text after the JSON object");
	assert_refused(&sp, "{\"ts\":1795000000,\"value\":bogus}", 1,
		       "not a JSON value");
}

static void plain_lines_are_timestamp_and_value_with_comments_skipped(void **state)
{
	struct metric_spec sp = { .metric = "depth", .format = METRIC_FMT_PLAIN };
	struct metric_label host = { "host", "rx1" };
	struct result r;

	(void)state;
	sp.labels = &host;
	sp.nlabels = 1;
	parse_text(&sp, "# depth of the rx queue\n\n1795000000123456 10\r\n"
		   "  1795000000123457\t 11  \n", &r);
	assert_int_equal(r.err, 0);
	assert_int_equal(r.nrows, 2);
	assert_int_equal(r.rows[0].ts, 1795000000123456000ll);
	assert_int_equal(r.rows[1].ts, 1795000000123457000ll);
	assert_true(r.rows[1].value == 11.0);
	assert_string_equal(r.rows[1].labels, "{\"host\":\"rx1\"}");
	sp.metric = NULL;
	assert_refused(&sp, "1795000000 1\n", 1, "give --metric NAME");
}

static void epoch_units_are_told_apart_by_magnitude(void **state)
{
	enum ts_kind k;

	(void)state;
	assert_int_equal(ts_of("1795000000", TS_AUTO, &k), 1795000000000000000ll);
	assert_int_equal(k, TS_S);
	assert_int_equal(ts_of("1795000000.123456789123", TS_AUTO, &k),
			 1795000000123456789ll);
	assert_int_equal(ts_of("1795000000123", TS_AUTO, &k), 1795000000123000000ll);
	assert_int_equal(k, TS_MS);
	assert_int_equal(ts_of("1795000000123.5", TS_AUTO, &k), 1795000000123500000ll);
	assert_int_equal(ts_of("1795000000123456", TS_AUTO, &k), 1795000000123456000ll);
	assert_int_equal(k, TS_US);
	assert_int_equal(ts_of("1795000000123456789", TS_AUTO, &k),
			 1795000000123456789ll);
	assert_int_equal(k, TS_NS);
	assert_int_equal(ts_of("0", TS_AUTO, &k), 0);
	assert_int_equal(k, TS_S);
}

static void ts_unit_overrides_the_magnitude(void **state)
{
	enum ts_kind k;
	int64_t ns;

	(void)state;
	assert_int_equal(ts_of("1795000000", TS_MS, &k), 1795000000000000ll);
	assert_int_equal(k, TS_MS);
	assert_int_equal(ts_of("1795000000123", TS_US, &k), 1795000000123000ll);
	assert_int_equal(ts_of("12.5", TS_NS, &k), 12);
	assert_int_equal(metric_parse_ts("1795000000123", 13, TS_S, &ns, &k), -ERANGE);
}

/* The first row's timestamp of text parsed with spec. */
static int64_t first_ts(const struct metric_spec *spec, const char *text)
{
	struct result r;

	parse_text(spec, text, &r);
	if (r.err)
		fail_msg("refused at line %lu: %s", r.line, r.e.text);
	assert_true(r.nrows > 0);
	return r.rows[0].ts;
}

static void a_time_columns_name_may_carry_its_unit(void **state)
{
	struct metric_spec sp = { .metric = "m" };

	(void)state;
	/* By magnitude 12500 would be seconds; the name says ms. */
	assert_int_equal(first_ts(&sp, "ts_ms,value\n12500,1\n"), 12500000000ll);
	assert_int_equal(first_ts(&sp, "time_ns,value\n5,1\n"), 5);
	assert_int_equal(first_ts(&sp, "value,timestamp_us\n1,1795000000\n"),
			 1795000000000ll);
	assert_int_equal(first_ts(&sp, "{\"value\":1,\"timestamp_s\":12.5}\n"),
			 12500000000ll);
	assert_int_equal(first_ts(&sp, "{\"time_ms\":null,\"ts_us\":7,\"value\":1}\n"),
			 7000);
	/* A plain name is preferred to one with a unit. */
	assert_int_equal(first_ts(&sp, "time_ms,ts,value\n5,1795000000,1\n"),
			 1795000000000000000ll);
	/* A named column's suffix counts too; --ts-unit wins over a name. */
	sp.time_col = "sent_at_us";
	assert_int_equal(first_ts(&sp, "sent_at_us,value\n1795000000,1\n"),
			 1795000000000ll);
	sp.time_col = NULL;
	sp.ts_unit = TS_S;
	assert_int_equal(first_ts(&sp, "ts_ms,value\n12500,1\n"), 12500000000000ll);
	sp.ts_unit = TS_AUTO;
	/* Without one, every accepted name is listed. */
	assert_refused(&sp, "when_ms,value\n1,2\n", 1,
		       "no time column in the header (it has when_ms, value): "
		       "faultline looks for ts, time or timestamp, alone or with a "
		       "unit: _s, _ms, _us or _ns (ts_ms holds milliseconds); name "
		       "it with --time-column");
	assert_refused(&sp, "{\"when\":1,\"value\":2}\n", 1,
		       "no time key: faultline looks for ts, time or timestamp, "
		       "alone or with a unit");
	/* The name's unit holds for every row: magnitude is not asked. */
	assert_rows(&sp, "ts_ms,value\n1795000000123,1\n1795000000,2\n", 2);
}

static void rfc3339_with_an_offset_gives_utc_ns(void **state)
{
	enum ts_kind k;
	int64_t ns;

	(void)state;
	/* 2026-11-22T14:41:18.014Z is 1795358478.014 s. */
	assert_int_equal(ts_of("2026-11-22T15:41:18.014+01:00", TS_AUTO, &k),
			 1795358478014000000ll);
	assert_int_equal(k, TS_RFC3339);
	assert_int_equal(ts_of("2026-11-22T14:41:18.014Z", TS_AUTO, NULL),
			 1795358478014000000ll);
	assert_int_equal(ts_of("2026-11-22 09:11:18.014-05:30", TS_AUTO, NULL),
			 1795358478014000000ll);
	assert_int_equal(ts_of("2026-11-22t14:41:18.014000000z", TS_MS, NULL),
			 1795358478014000000ll);
	assert_int_equal(ts_of("1970-01-01T00:00:00Z", TS_AUTO, NULL), 0);
	assert_int_equal(ts_of("2024-02-29T00:00:00Z", TS_AUTO, NULL),
			 1709164800000000000ll);
	assert_int_equal(ts_of("2262-04-11T23:47:16.854775807Z", TS_AUTO, NULL),
			 INT64_MAX);
	assert_int_equal(metric_parse_ts("2026-11-22T15:41:18", 19, TS_AUTO, &ns, &k),
			 -EINVAL);
	assert_int_equal(metric_parse_ts("2026-02-29T00:00:00Z", 20, TS_AUTO, &ns, &k),
			 -EINVAL);
	assert_int_equal(metric_parse_ts("2026-11-22T24:00:00Z", 20, TS_AUTO, &ns, &k),
			 -EINVAL);
	assert_int_equal(metric_parse_ts("1969-12-31T23:59:59Z", 20, TS_AUTO, &ns, &k),
			 -ERANGE);
	assert_int_equal(metric_parse_ts("2262-04-11T23:47:16.854775808Z", 30, TS_AUTO,
					 &ns, &k), -ERANGE);
}

static void a_row_whose_unit_differs_from_the_first_is_mixed_units(void **state)
{
	struct metric_spec sp = { .metric = "m" };

	(void)state;
	assert_refused(&sp, "ts,value\n1795000000,1\n1795000001,2\n1795000002000,3\n",
		       4, "reads as ms, line 2's as s");
	assert_refused(&sp, "{\"ts\":\"2026-11-22T15:41:18Z\",\"value\":1}\n"
		       "{\"ts\":1795358478,\"value\":1}\n", 2,
		       "reads as s, line 1's as RFC 3339");
	sp.ts_unit = TS_MS;
	assert_rows(&sp, "ts,value\n1795000000,1\n1795000000000,2\n", 2);
}

static void timestamps_before_1970_or_after_2262_are_out_of_range(void **state)
{
	struct metric_spec sp = { .metric = "m" };

	(void)state;
	assert_refused(&sp, "ts,value\n-5,1\n", 2, "out of range");
	assert_refused(&sp, "ts,value\n99999999999999999999,1\n", 2,
		       "timestamp '99999999999999999999' in column 'ts' is out of range");
	assert_refused(&sp, "ts,value\n1e9,1\n", 2, "is neither epoch");
	assert_refused(&sp, "ts,value\n,1\n", 2, "is neither epoch");
	sp.ts_unit = TS_S;
	assert_refused(&sp, "ts,value\n9300000000,1\n", 2, "check --ts-unit");
}

static void a_missing_column_or_key_names_it_and_the_option(void **state)
{
	struct metric_spec sp = { .metric = "m" };
	const char *const labels[] = { "host" };

	(void)state;
	assert_refused(&sp, "ts,val\n1,2\n", 1,
		       "no value column 'value' in the header (it has ts, val); "
		       "name it with --value-column");
	assert_refused(&sp, "when,value\n1,2\n", 1, "--time-column");
	sp.time_col = "when";
	assert_rows(&sp, "when,value\n1,2\n", 1);
	sp.label_cols = labels;
	sp.nlabel_cols = 1;
	assert_refused(&sp, "when,value\n1,2\n", 1, "no label column 'host'");
	assert_refused(&sp, "{\"when\":1,\"value\":2}", 1,
		       "no label key 'host'; name it with --label-column");
	sp.metric = NULL;
	assert_refused(&sp, "{\"when\":1,\"value\":2,\"host\":\"a\"}", 1,
		       "no metric key 'metric'");
	assert_refused(&sp, "when,value,host\n1,2,a\n", 1, "give the name with --metric");
	assert_refused(&sp, "ts,value,ts\n1,2,3\n", 1, "column 'ts' appears twice");
}

static void a_value_must_be_a_finite_decimal_number(void **state)
{
	static const char *const bad[] = {
		"abc", "", "nan", "inf", "-", ".", "1.2.3", "0x10", "1e", "1e+",
		"12abc", "1 2",
	};
	struct metric_spec sp = { .metric = "m" };
	double v;

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		if (metric_parse_value(bad[i], strlen(bad[i]), &v) != -EINVAL)
			fail_msg("'%s' accepted", bad[i]);
	assert_int_equal(metric_parse_value("1e999", 5, &v), -ERANGE);
	assert_int_equal(metric_parse_value("-.5e-1", 6, &v), 0);
	assert_true(v == -0.05);
	assert_int_equal(metric_parse_value("+123456789012345", 16, &v), 0);
	assert_true(v == 123456789012345.0);
	assert_int_equal(metric_parse_value("12345678901234567890", 20, &v), 0);
	assert_true(v == 12345678901234567890.0);
	assert_refused(&sp, "ts,value\n1795000000,1\n1795000001,abc\n", 3,
		       "value 'abc' in column 'value' is not a number");
	assert_refused(&sp, "{\"ts\":1795000000,\"value\":false}", 1,
		       "value 'false' in key 'value' is not a number");
}

static void a_line_cut_short_is_refused_but_a_complete_last_line_is_not(void **state)
{
	struct metric_spec sp = { .metric = "m" };
	struct metric_spec plain = { .metric = "m", .format = METRIC_FMT_PLAIN };

	(void)state;
	assert_rows(&sp, "ts,value,host\n1795000000,1,a\n1795000001,2,b", 2);
	assert_rows(&sp, "{\"ts\":1795000000,\"value\":1}", 1);
	assert_rows(&plain, "1795000000 1\n1795000001 2", 2);
	assert_refused(&sp, "ts,value,host\n1795000000,1,a\n1795000001,2", 3,
		       "2 fields, the header has 3: the line is cut short");
	assert_refused(&sp, "ts,value,host\n1795000000,1,a,b\n", 2,
		       "4 fields, the header has 3: quote a field");
	assert_refused(&sp, "ts,value,host\n1795000000,1,\"rx", 2,
		       "quote not closed");
	assert_refused(&sp, "{\"ts\":1795000000,\"value\":1", 1,
		       "JSON object not closed");
	assert_refused(&sp, "{\"ts\":1795000000,\"value\":1,\"host\":\"r", 1,
		       "JSON string not closed");
	assert_refused(&sp, "{\"ts\":1795000000,\"val", 1, "not closed");
	assert_refused(&plain, "1795000000 1\n1795000001", 2, "the line is cut short");
}

static void bytes_that_are_not_utf8_are_refused_with_their_column(void **state)
{
	struct metric_spec sp = { .metric = "m" };

	(void)state;
	assert_rows(&sp, "ts,value,host\n1795000000,1,r\xc3\xa9x \xe2\x82\xac \xf0\x9f\x98\x80\n", 1);
	assert_refused(&sp, "ts,value,host\n1795000000,1,r\xe9x\n", 2,
		       "byte 0xe9 at column 15 is not UTF-8");
	assert_refused(&sp, "ts,value,host\n1795000000,1,\xc0\xaf\n", 2, "byte 0xc0");
	assert_refused(&sp, "ts,value,host\n1795000000,1,\xed\xa0\x80\n", 2, "byte 0xed");
	assert_refused(&sp, "ts,value,host\n1795000000,1,\xe2\x82", 2, "byte 0xe2");
	assert_refused(&sp, "ts,value,host\n1795000000,1,\xf4\x90\x80\x80\n", 2, "byte 0xf4");
	assert_refused(&sp, "\xff\xfets,value\n", 1, "byte 0xff at column 1");
}

static void a_nul_byte_means_not_a_text_file(void **state)
{
	struct metric_spec sp = { .metric = "m" };
	struct metric_parser p;
	struct metric_row row;
	struct errmsg e;

	(void)state;
	errmsg_init(&e);
	assert_int_equal(metric_parser_init(&p, &sp, &e), 0);
	assert_int_equal(metric_parse_line(&p, "ts,value", 8, &row, &e), 0);
	assert_int_equal(metric_parse_line(&p, "1795000000,\0", 12, &row, &e), -EINVAL);
	assert_non_null(strstr(e.text, "NUL byte at column 12"));
	metric_parser_release(&p);
}

static void an_empty_file_or_one_without_rows_is_refused(void **state)
{
	struct metric_spec sp = { .metric = "m" };
	struct metric_spec plain = { .metric = "m", .format = METRIC_FMT_PLAIN };

	(void)state;
	assert_refused(&sp, "", 0, "the file is empty");
	assert_refused(&sp, "\n\r\n  \n", 0, "the file is empty");
	assert_refused(&sp, "ts,value\n", 0, "no rows after the header");
	assert_refused(&plain, "# nothing yet\n", 0, "the file is empty");
}

static void labels_are_sorted_escaped_and_may_be_chosen(void **state)
{
	const char *const cols[] = { "topic", "host" };
	const char *const twice[] = { "host", "topic", "host" };
	const struct metric_label consts[] = { { "dc", "ams" }, { "z", "q\"\\" } };
	struct metric_spec sp = { .metric = "m", .labels = consts, .nlabels = 2 };
	struct result r;

	(void)state;
	parse_text(&sp, "value,topic,ts,host,port\n1,md,1795000000,rx1,9000\n", &r);
	assert_int_equal(r.err, 0);
	assert_string_equal(r.rows[0].labels, "{\"dc\":\"ams\",\"host\":\"rx1\","
			    "\"port\":\"9000\",\"topic\":\"md\",\"z\":\"q\\\"\\\\\"}");
	sp.label_cols = cols;
	sp.nlabel_cols = 2;
	parse_text(&sp, "value,topic,ts,host,port\n1,md,1795000000,rx1,9000\n", &r);
	assert_int_equal(r.err, 0);
	assert_string_equal(r.rows[0].labels, "{\"dc\":\"ams\",\"host\":\"rx1\","
			    "\"topic\":\"md\",\"z\":\"q\\\"\\\\\"}");
	parse_text(&sp, "{\"ts\":1795000000,\"value\":1,\"host\":\"a\",\"topic\":\"t\","
		   "\"port\":1}", &r);
	assert_int_equal(r.err, 0);
	assert_string_equal(r.rows[0].labels, "{\"dc\":\"ams\",\"host\":\"a\","
			    "\"topic\":\"t\",\"z\":\"q\\\"\\\\\"}");
	sp.label_cols = twice;
	sp.nlabel_cols = 3;
	assert_refused(&sp, "{\"ts\":1,\"value\":1,\"host\":\"a\"}", 0,
		       "label column 'host' is given twice");
	sp.label_cols = NULL;
	sp.nlabel_cols = 0;
	assert_refused(&sp, "ts,value,topic,host,dc\n1,2,a,b,c\n", 1,
		       "label 'dc' is both a --label and a column");
	sp.nlabels = 0;
	parse_text(&sp, "ts,value\n1795000000,1\n", &r);
	assert_string_equal(r.rows[0].labels, "{}");
}

static void a_metric_column_names_each_rows_metric(void **state)
{
	struct metric_spec sp = { .metric_col = "name" };
	struct result r;

	(void)state;
	parse_text(&sp, "ts,name,value\n1795000000,naks,1\n1795000000,drops,2\n", &r);
	assert_int_equal(r.err, 0);
	assert_string_equal(r.rows[0].name, "naks");
	assert_string_equal(r.rows[1].name, "drops");
	assert_string_equal(r.rows[1].labels, "{}");
	assert_refused(&sp, "ts,name,value\n1795000000,,1\n", 2,
		       "the metric name in column 'name' is empty");
	sp.metric = "x";
	assert_refused(&sp, "ts,name,value\n", 0, "not both");
}

static void the_format_comes_from_the_extension_or_the_first_line(void **state)
{
	struct metric_spec sp = { .metric = "m" };
	struct result r;

	(void)state;
	assert_int_equal(metric_format_from_path("a/naks.CSV"), METRIC_FMT_CSV);
	assert_int_equal(metric_format_from_path("q.tsv"), METRIC_FMT_TSV);
	assert_int_equal(metric_format_from_path("l.ndjson"), METRIC_FMT_JSONL);
	assert_int_equal(metric_format_from_path("-"), METRIC_FMT_AUTO);
	assert_int_equal(metric_format_from_path("x.log"), METRIC_FMT_AUTO);
	/* A byte-order mark and CRLF line ends. */
	parse_text(&sp, "\xef\xbb\xbfts\tvalue\r\n1795000000\t5\r\n", &r);
	assert_int_equal(r.err, 0);
	assert_int_equal(r.nrows, 1);
	assert_true(r.rows[0].value == 5.0);
	assert_rows(&sp, "1795000000 5\n1795000001 6\n", 2);
	assert_rows(&sp, "  {\"ts\":1795000000,\"value\":5}\n", 1);
}

/* One live line, in a buffer of its exact size: 0 with name and value,
 * or the error. */
static int live_line(const char *text, char *name, double *v)
{
	size_t len = strlen(text), nlen = 0;
	char *copy = malloc(len ? len : 1);
	const char *n = NULL;
	int err;

	memcpy(copy, text, len);
	err = metric_line_parse(copy, len, &n, &nlen, v);
	if (err == 0) {
		memcpy(name, n, nlen);
		name[nlen] = '\0';
	}
	free(copy);
	return err;
}

static void a_live_metric_line_is_a_name_and_a_number(void **state)
{
	char name[METRIC_NAME_MAX];
	double v;

	(void)state;
	assert_int_equal(live_line("nak 1", name, &v), 0);
	assert_string_equal(name, "nak");
	assert_true(v == 1.0);
	assert_int_equal(live_line("\t lat_ms  -2.5e1 \r", name, &v), 0);
	assert_string_equal(name, "lat_ms");
	assert_true(v == -25.0);
	assert_int_equal(live_line("rx.q-depth 0.125", name, &v), 0);
	assert_string_equal(name, "rx.q-depth");
	assert_true(v == 0.125);
	/* No value, two values, not a number, not finite, no name. */
	assert_int_equal(live_line("nak", name, &v), -EINVAL);
	assert_int_equal(live_line("nak ", name, &v), -EINVAL);
	assert_int_equal(live_line("nak 1 2", name, &v), -EINVAL);
	assert_int_equal(live_line("nak one", name, &v), -EINVAL);
	assert_int_equal(live_line("nak inf", name, &v), -EINVAL);
	assert_true(live_line("nak 1e999", name, &v) < 0);
	assert_int_equal(live_line("", name, &v), -EINVAL);
	assert_int_equal(live_line(" 5", name, &v), -EINVAL);
	/* A name with a control byte, or with the '>' of --trigger. */
	assert_int_equal(live_line("n\x01k 1", name, &v), -EINVAL);
	assert_int_equal(live_line("a>b 1", name, &v), -EINVAL);
	/* Names up to METRIC_NAME_MAX - 1 bytes. */
	assert_true(metric_name_valid("0123456789012345678901234567890123456789"
				      "01234567890123456789012", 63));
	assert_false(metric_name_valid("0123456789012345678901234567890123456789"
				       "012345678901234567890123", 64));
}

static void metric_udp_binds_loopback_unless_an_address_is_named(void **state)
{
	struct sockaddr_storage sa;
	struct sockaddr_in *v4 = (struct sockaddr_in *)&sa;
	struct sockaddr_in6 *v6 = (struct sockaddr_in6 *)&sa;
	socklen_t len;

	(void)state;
	assert_int_equal(metric_udp_parse("9125", &sa, &len), 0);
	assert_int_equal(sa.ss_family, AF_INET);
	assert_int_equal(ntohl(v4->sin_addr.s_addr), INADDR_LOOPBACK);
	assert_int_equal(ntohs(v4->sin_port), 9125);
	assert_int_equal(metric_udp_parse("0.0.0.0:7", &sa, &len), 0);
	assert_int_equal(v4->sin_addr.s_addr, htonl(INADDR_ANY));
	assert_int_equal(ntohs(v4->sin_port), 7);
	assert_int_equal(metric_udp_parse("[::1]:65535", &sa, &len), 0);
	assert_int_equal(sa.ss_family, AF_INET6);
	assert_int_equal(len, sizeof(*v6));
	assert_true(IN6_IS_ADDR_LOOPBACK(&v6->sin6_addr));
	assert_int_equal(ntohs(v6->sin6_port), 65535);
	assert_int_equal(metric_udp_parse("0", &sa, &len), -EINVAL);
	assert_int_equal(metric_udp_parse("65536", &sa, &len), -EINVAL);
	assert_int_equal(metric_udp_parse("+9", &sa, &len), -EINVAL);
	assert_int_equal(metric_udp_parse("::1:9", &sa, &len), -EINVAL);
	assert_int_equal(metric_udp_parse("host:9", &sa, &len), -EINVAL);
	assert_int_equal(metric_udp_parse("1.2.3.4:", &sa, &len), -EINVAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(csv_rows_take_the_named_columns_and_the_others_as_labels),
		cmocka_unit_test(every_label_value_is_text_as_written),
		cmocka_unit_test(a_quoted_csv_field_holds_commas_and_doubled_quotes),
		cmocka_unit_test(tsv_rows_split_at_tabs_only),
		cmocka_unit_test(jsonl_keys_are_the_columns_in_any_order),
		cmocka_unit_test(jsonl_refuses_nesting_duplicates_and_bad_escapes),
		cmocka_unit_test(plain_lines_are_timestamp_and_value_with_comments_skipped),
		cmocka_unit_test(epoch_units_are_told_apart_by_magnitude),
		cmocka_unit_test(ts_unit_overrides_the_magnitude),
		cmocka_unit_test(a_time_columns_name_may_carry_its_unit),
		cmocka_unit_test(rfc3339_with_an_offset_gives_utc_ns),
		cmocka_unit_test(a_row_whose_unit_differs_from_the_first_is_mixed_units),
		cmocka_unit_test(timestamps_before_1970_or_after_2262_are_out_of_range),
		cmocka_unit_test(a_missing_column_or_key_names_it_and_the_option),
		cmocka_unit_test(a_value_must_be_a_finite_decimal_number),
		cmocka_unit_test(a_line_cut_short_is_refused_but_a_complete_last_line_is_not),
		cmocka_unit_test(bytes_that_are_not_utf8_are_refused_with_their_column),
		cmocka_unit_test(a_nul_byte_means_not_a_text_file),
		cmocka_unit_test(an_empty_file_or_one_without_rows_is_refused),
		cmocka_unit_test(labels_are_sorted_escaped_and_may_be_chosen),
		cmocka_unit_test(a_metric_column_names_each_rows_metric),
		cmocka_unit_test(the_format_comes_from_the_extension_or_the_first_line),
		cmocka_unit_test(a_live_metric_line_is_a_name_and_a_number),
		cmocka_unit_test(metric_udp_binds_loopback_unless_an_address_is_named),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
