/*
 * faultline import, run for real: each format lands in metric_series and
 * metric, a million lines come through whole, and each kind of bad input
 * gives one message naming file, line and reason, exit status 1, and a
 * database that is exactly as it was.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include "../../common/sha256.h"
#include "../integration/run.h"

/* Writes text to a scratch file; returns its path (scratch_path's). */
static const char *write_file(const char *name, const char *text)
{
	const char *path = scratch_path(name);
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	fputs(text, f);
	assert_int_equal(fclose(f), 0);
	return path;
}

/* The SHA-256 of text, as import stamps a source with it.  Static. */
static const char *digest_of(const char *text)
{
	static char hex[SHA256_HEX_LEN + 1];
	struct sha256 sha;

	sha256_init(&sha);
	sha256_update(&sha, text, strlen(text));
	sha256_hex(&sha, hex);
	return hex;
}

/* Runs faultline with stdin read from in_path. */
static int run_with_stdin(struct run *r, const char *in_path, char *const argv[])
{
	int saved = dup(STDIN_FILENO), fd = open(in_path, O_RDONLY), status;

	assert_true(saved >= 0 && fd >= 0);
	dup2(fd, STDIN_FILENO);
	close(fd);
	status = run_argv(r, argv);
	dup2(saved, STDIN_FILENO);
	close(saved);
	return status;
}

/* One line on stderr, starting "faultline import: " and containing want. */
static void assert_one_message(const struct run *r, const char *want)
{
	const char *nl = strchr(r->err, '\n');

	if (!strstr(r->err, want) || strncmp(r->err, "faultline import: ", 18) ||
	    !nl || nl[1] != '\0')
		fail_msg("expected one line containing '%s', got: %s", want, r->err);
}

/* Everything the metric tables hold, as one number that changes with any
 * row: a database "exactly as it was" keeps it. */
static int64_t metric_digest(const char *db)
{
	return db_int(db, "SELECT (SELECT count(*) FROM metric_series) * 1000003 + "
		      "(SELECT count(*) + coalesce(sum(ts %% 1000003 + series_id), 0) "
		      "+ coalesce(sum(CAST(value AS INTEGER)), 0) FROM metric)");
}

static void each_format_lands_in_metric_series_and_metric(void **state)
{
	static const char csv_text[] = "ts,value,host\n"
		"1795000000.5,12,rx1\n1795000001,13,rx2\n1795000002,14,rx1\n";
	const char *db = scratch_path("formats.db");
	const char *csv = write_file("naks.csv", csv_text);
	const char *tsv = write_file("queue.tsv", "time\tvalue\n1795000000000\t4096\n");
	const char *jsonl = write_file("lat.jsonl",
				       "{\"ts\":\"2026-11-22T15:41:18.014+01:00\","
				       "\"value\":3.5,\"metric\":\"lat\",\"port\":9000}\n"
				       "{\"ts\":\"2026-11-22T14:41:19Z\",\"value\":4,"
				       "\"metric\":\"lat\",\"port\":9000}");
	const char *plain = write_file("depth.dat", "# depth\n1795000000123456 7\n");
	struct run r;

	(void)state;
	assert_int_equal(run_faultline(&r, "import", db, csv, "--metric", "naks",
				       "--unit", "packets", NULL), 0);
	assert_non_null(strstr(r.err, "naks.csv: 2 series, 3 rows, "
			       "2026-11-18T11:06:40.500000000Z to "
			       "2026-11-18T11:06:42.000000000Z"));
	assert_int_equal(run_faultline(&r, "import", "-m", "rx_queue", db, tsv, NULL), 0);
	assert_int_equal(run_faultline(&r, "import", db, jsonl, "-q", NULL), 0);
	assert_string_equal(r.err, "");
	assert_int_equal(run_faultline(&r, "import", db, "--label", "host=rx1",
				       "-m", "depth", plain, NULL), 0);

	assert_int_equal(db_int(db, "SELECT count(*) FROM metric_series"), 5);
	assert_int_equal(db_int(db, "SELECT count(*) FROM metric_series WHERE "
				"session_id IS NULL AND imported_ts > 0"), 5);
	assert_int_equal(db_int(db, "SELECT count(*) FROM metric_series WHERE "
				"name = 'naks' AND unit = 'packets' AND source = '%s sha256:%s' "
				"AND labels IN ('{\"host\":\"rx1\"}', '{\"host\":\"rx2\"}')",
				csv, digest_of(csv_text)), 2);
	assert_int_equal(db_int(db, "SELECT sum(m.value) FROM metric m JOIN "
				"metric_series s USING (series_id) WHERE s.name = 'naks' "
				"AND s.labels = '{\"host\":\"rx1\"}'"), 26);
	assert_int_equal(db_int(db, "SELECT min(ts) FROM metric JOIN metric_series "
				"USING (series_id) WHERE name = 'naks'"),
			 1795000000500000000ll);
	assert_int_equal(db_int(db, "SELECT ts FROM metric JOIN metric_series "
				"USING (series_id) WHERE name = 'rx_queue' AND value = 4096"),
			 1795000000000000000ll);
	assert_int_equal(db_int(db, "SELECT min(ts) FROM metric JOIN metric_series "
				"USING (series_id) WHERE name = 'lat' AND "
				"labels = '{\"port\":\"9000\"}' AND unit IS NULL"),
			 1795358478014000000ll);
	assert_int_equal(db_int(db, "SELECT count(*) FROM metric JOIN metric_series "
				"USING (series_id) WHERE name = 'lat'"), 2);
	assert_int_equal(db_int(db, "SELECT ts FROM metric JOIN metric_series "
				"USING (series_id) WHERE name = 'depth' AND value = 7 "
				"AND labels = '{\"host\":\"rx1\"}'"), 1795000000123456000ll);
	assert_int_equal(db_int(db, "SELECT count(*) FROM sqlite_master WHERE "
				"name IN ('metric_by_series', 'metric_series_by_name')"), 2);
}

static void a_dash_reads_standard_input(void **state)
{
	const char *db = scratch_path("stdin.db");
	const char *in = write_file("stdin.txt", "1795000000123 5\n1795000000124 6\n");
	char *argv[] = { (char *)faultline_bin(), "import", (char *)db, "-",
			 "-m", "drops", "--ts-unit", "ms", NULL };
	struct run r;

	(void)state;
	assert_int_equal(run_with_stdin(&r, in, argv), 0);
	assert_non_null(strstr(r.err, "stdin: 1 series, 2 rows"));
	assert_int_equal(db_int(db, "SELECT count(*) FROM metric JOIN metric_series "
				"USING (series_id) WHERE source LIKE '- sha256:%%' AND "
				"name = 'drops'"), 2);
	assert_int_equal(db_int(db, "SELECT max(ts) FROM metric"), 1795000000124000000ll);
}

static void a_million_line_file_comes_through_whole(void **state)
{
	const char *db = scratch_path("million.db");
	const char *csv = scratch_path("million.csv");
	FILE *f = fopen(csv, "w");
	struct run r;

	(void)state;
	assert_non_null(f);
	fputs("ts,value,host\n", f);
	for (long i = 0; i < 1000000; i++)
		fprintf(f, "%ld.%03ld,%ld,rx%ld\n", 1795000000 + i / 1000, i % 1000,
			i % 1000, i % 3);
	assert_int_equal(fclose(f), 0);
	assert_int_equal(run_faultline(&r, "import", db, csv, "-m", "naks", NULL), 0);
	assert_non_null(strstr(r.err, "3 series, 1000000 rows"));
	assert_int_equal(db_int(db, "SELECT count(*) FROM metric"), 1000000);
	assert_int_equal(db_int(db, "SELECT sum(value) FROM metric"), 499500000);
	assert_int_equal(db_int(db, "SELECT min(ts) FROM metric"), 1795000000000000000ll);
	assert_int_equal(db_int(db, "SELECT max(ts) FROM metric"), 1795000999999000000ll);
	assert_int_equal(db_int(db, "SELECT count(*) FROM metric JOIN metric_series "
				"USING (series_id) WHERE labels = '{\"host\":\"rx1\"}'"),
			 333333);
	unlink(csv);
}

/* Imports good.csv, then name with text: refused with want, exit 1, and
 * the database exactly as after good.csv. */
static void assert_bad_file(const char *name, const char *text, const char *want)
{
	const char *db = scratch_path("bad.db");
	const char *good = write_file("good.csv", "ts,value\n1795000000,1\n");
	const char *bad = write_file(name, text);
	struct run r;
	int64_t before;

	unlink(db);
	assert_int_equal(run_faultline(&r, "import", db, good, "-m", "m", "-q", NULL), 0);
	before = metric_digest(db);
	assert_int_equal(run_faultline(&r, "import", db, bad, "-m", "m", NULL), 1);
	assert_one_message(&r, want);
	assert_int_equal(metric_digest(db), before);
	assert_int_equal(db_int(db, "SELECT count(*) FROM metric"), 1);
}

static void a_missing_column_names_it_and_the_option(void **state)
{
	(void)state;
	assert_bad_file("nocol.csv", "ts,val\n1795000000,1\n",
			"/nocol.csv:1: no value column 'value' in the header "
			"(it has ts, val); name it with --value-column; nothing of ");
}

static void a_value_that_is_not_a_number_is_refused_with_its_line(void **state)
{
	(void)state;
	assert_bad_file("naks.csv", "ts,value\n1795000000,1\n1795000001,2\n1795000002,abc\n",
			"naks.csv:4: value 'abc' in column 'value' is not a number");
}

static void a_timestamp_out_of_range_is_refused(void **state)
{
	(void)state;
	assert_bad_file("range.csv", "ts,value\n1795000000,1\n99999999999999999999,2\n",
			"range.csv:3: timestamp '99999999999999999999' in column 'ts' is "
			"out of range");
}

static void mixed_timestamp_units_are_refused_naming_both_lines(void **state)
{
	(void)state;
	assert_bad_file("mixed.csv", "ts,value\n1795000000,1\n1795000000500,2\n",
			"mixed.csv:3: mixed units: timestamp '1795000000500' in column "
			"'ts' reads as ms, line 2's as s");
}

static void an_empty_file_is_refused(void **state)
{
	(void)state;
	assert_bad_file("empty.csv", "", "empty.csv: the file is empty: nothing to import");
	assert_bad_file("header.csv", "ts,value\n", "no rows after the header");
}

static void a_last_line_cut_short_is_refused(void **state)
{
	(void)state;
	assert_bad_file("cut.csv", "ts,value,host\n1795000000,1,a\n1795000001,2",
			"cut.csv:3: 2 fields, the header has 3: the line is cut short");
	assert_bad_file("cut.jsonl", "{\"ts\":1795000000,\"value\":1}\n"
			"{\"ts\":1795000001,\"value\":2", "cut.jsonl:2: JSON object not closed");
}

static void bytes_that_are_not_utf8_are_refused(void **state)
{
	(void)state;
	assert_bad_file("latin1.csv", "ts,value,host\n1795000000,1,r\xe9x\n",
			"latin1.csv:2: byte 0xe9 at column 15 is not UTF-8");
}

static void a_failed_file_keeps_the_files_before_it_and_names_them(void **state)
{
	const char *db = scratch_path("partial.db");
	const char *a = write_file("a.csv", "ts,value\n1795000000,1\n");
	const char *b = write_file("b.csv", "ts,value\n1795000001,2\n");
	const char *c = write_file("c.csv", "ts,value\n1795000002,x\n");
	const char *d = write_file("d.csv", "ts,value\n1795000003,4\n");
	char want[512];
	struct run r;

	(void)state;
	assert_int_equal(run_faultline(&r, "import", "-q", db, a, b, c, d, "-m", "m",
				       NULL), 1);
	snprintf(want, sizeof(want), "nothing of %s is kept (imported before it: "
		 "%s, %s)", c, a, b);
	assert_one_message(&r, want);
	assert_int_equal(db_int(db, "SELECT count(*) FROM metric"), 2);
	assert_int_equal(db_int(db, "SELECT sum(value) FROM metric"), 3);
	assert_int_equal(db_int(db, "SELECT count(*) FROM sqlite_master WHERE "
				"name = 'metric_by_series'"), 1);
}

static void usage_errors_exit_2_and_say_what_to_give(void **state)
{
	const char *db = scratch_path("usage.db");
	struct run r;

	(void)state;
	assert_int_equal(run_faultline(&r, "import", NULL), 2);
	assert_one_message(&r, "no database: give DB FILE...");
	assert_int_equal(run_faultline(&r, "import", db, NULL), 2);
	assert_one_message(&r, "no file to import");
	assert_int_equal(run_faultline(&r, "import", db, "x.csv", "-m", "a",
				       "--metric-column", "b", NULL), 2);
	assert_one_message(&r, "give --metric or --metric-column, not both");
	assert_int_equal(run_faultline(&r, "import", db, "x.csv", "--labels", "a,b",
				       "--label-column", "a", NULL), 2);
	assert_one_message(&r, "label column 'a' is given twice");
	assert_int_equal(run_faultline(&r, "import", db, "x.csv", "-f", "xml", NULL), 2);
	assert_one_message(&r, "invalid --format");
	assert_int_equal(run_faultline(&r, "import", db, "x.csv", "--ts-unit", "min",
				       NULL), 2);
	assert_one_message(&r, "invalid --ts-unit");
	assert_int_equal(run_faultline(&r, "import", db, "x.csv", "--label", "=v",
				       NULL), 2);
	assert_one_message(&r, "invalid --label '=v': no key");
	assert_int_equal(access(db, F_OK), -1);
}

static void a_file_that_cannot_be_opened_is_named(void **state)
{
	const char *db = scratch_path("noent.db");
	struct run r;

	(void)state;
	assert_int_equal(run_faultline(&r, "import", db, scratch_path("nope.csv"),
				       "-m", "m", NULL), 1);
	assert_one_message(&r, "nope.csv: cannot open: No such file or directory");
	assert_true(db_opens(db));
}

/* A database with one recorded session, from T0 s to T0 + 10 s. */
#define T0 1795000000
static const char *db_with_a_session(const char *name)
{
	const char *db = scratch_path(name);
	sqlite3 *h = NULL;
	struct run r;

	unlink(db);
	assert_int_equal(run_faultline(&r, "import", "-q", db,
				       write_file("seed.csv", "ts,value\n1795000005,0\n"),
				       "-m", "seed", NULL), 0);
	assert_int_equal(sqlite3_open(db, &h), SQLITE_OK);
	assert_int_equal(sqlite3_exec(h, "INSERT INTO session (session_id, start_ts,"
		" end_ts, status, host, kernel, command_line, options, faultline_version,"
		" start_realtime_ns, start_monotonic_ns, min_fault_dur, buffer_bytes,"
		" cpus) VALUES (1, 1795000000000000000, 1795000010000000000, 'complete',"
		" 'h', 'k', 'faultline record', '', '0.1.0', 0, 0, 0, 4096, 2);"
		"PRAGMA journal_mode=DELETE", NULL, NULL, NULL), SQLITE_OK);
	sqlite3_close(h);
	return db;
}

static void points_outside_every_session_are_refused_unless_any_time(void **state)
{
	const char *db = db_with_a_session("outside.db");
	const char *rel = write_file("relative.csv", "ts,value\n12.5,1\n13,2\n");
	const char *some = write_file("some.csv", "ts,value\n1795000001,1\n1795000020,2\n");
	struct run r;
	int64_t before = metric_digest(db);

	(void)state;
	/* Seconds since the program started read as 1970: nothing lines up. */
	assert_int_equal(run_faultline(&r, "import", db, rel, "-m", "lat", NULL), 1);
	assert_one_message(&r, "relative.csv: all 2 points lie outside every recorded "
			   "session (they run from 1970-01-01T00:00:12.500000000Z to "
			   "1970-01-01T00:00:13.000000000Z, the sessions from "
			   "2026-11-18T11:06:40.000000000Z to 2026-11-18T11:06:50.000000000Z): "
			   "relative times, or a wrong --ts-unit? --any-time imports them "
			   "anyway; nothing of ");
	assert_int_equal(metric_digest(db), before);
	assert_int_equal(run_faultline(&r, "import", db, rel, "-m", "lat", "--any-time",
				       NULL), 0);
	assert_non_null(strstr(r.err, "relative.csv: 1 series, 2 rows, "));
	assert_non_null(strstr(r.err, "; 2 of them outside every recorded session\n"));
	assert_int_equal(db_int(db, "SELECT count(*) FROM metric JOIN metric_series "
				"USING (series_id) WHERE name = 'lat'"), 2);
	/* Some inside, some not: imported, and counted. */
	assert_int_equal(run_faultline(&r, "import", db, some, "-m", "q", NULL), 0);
	assert_non_null(strstr(r.err, "some.csv: 1 series, 2 rows, "));
	assert_non_null(strstr(r.err, "; 1 of them outside every recorded session\n"));
}

static void points_before_2000_in_a_database_without_sessions_get_a_warning(void **state)
{
	const char *db = scratch_path("nosession.db");
	const char *rel = write_file("early.csv", "ts,value\n12.5,1\n");
	struct run r;

	(void)state;
	assert_int_equal(run_faultline(&r, "import", "-q", db, rel, "-m", "lat", NULL), 0);
	assert_one_message(&r, "early.csv: its points lie before 2000 "
			   "(1970-01-01T00:00:12.500000000Z to 1970-01-01T00:00:12.500000000Z)"
			   ": relative times, or a wrong --ts-unit? the database holds no "
			   "session to line them up with");
	assert_int_equal(db_int(db, "SELECT count(*) FROM metric"), 1);
}

static void the_same_content_imported_again_is_skipped_unless_again(void **state)
{
	static const char text[] = "ts,value\n1795000001,1\n1795000002,2\n";
	const char *db = db_with_a_session("again.db");
	const char *a = write_file("first.csv", text);
	const char *b = write_file("copy.csv", text);
	char *argv[] = { (char *)faultline_bin(), "import", (char *)db, "-", "-m", "n",
			 NULL };
	char want[512];
	struct run r;
	int64_t before;

	(void)state;
	assert_int_equal(run_faultline(&r, "import", db, a, "-m", "n", NULL), 0);
	before = metric_digest(db);
	/* The same bytes under another name, and on stdin: skipped, with
	 * what was imported and when, exit 0. */
	assert_int_equal(run_faultline(&r, "import", db, b, "-m", "n", NULL), 0);
	snprintf(want, sizeof(want), "warning: %s: skipped: the same content was "
		 "imported on ", b);
	assert_one_message(&r, want);
	snprintf(want, sizeof(want), ", as '%s'; --again imports it again\n", a);
	assert_non_null(strstr(r.err, want));
	assert_int_equal(run_with_stdin(&r, b, argv), 0);
	assert_one_message(&r, "warning: stdin: skipped: the same content");
	assert_int_equal(metric_digest(db), before);
	/* --again: imported once more. */
	assert_int_equal(run_faultline(&r, "import", db, b, "-m", "n", "--again", NULL), 0);
	assert_int_equal(db_int(db, "SELECT count(*) FROM metric JOIN metric_series "
				"USING (series_id) WHERE name = 'n'"), 4);
	assert_int_equal(db_int(db, "SELECT count(*) FROM metric_series WHERE "
				"source LIKE '%% sha256:%s'", digest_of(text)), 2);
	/* One byte more is other content. */
	assert_int_equal(run_faultline(&r, "import", db, write_file("more.csv",
				       "ts,value\n1795000001,1\n1795000002,2\n\n"), "-m", "n",
				       NULL), 0);
	assert_null(strstr(r.err, "skipped"));
}

static void a_missing_time_column_lists_the_names_looked_for(void **state)
{
	const char *db = scratch_path("names.db");
	struct run r;

	(void)state;
	assert_int_equal(run_faultline(&r, "import", db, write_file("when.csv",
				       "when,value\n1795000001,1\n"), "-m", "n", NULL), 1);
	assert_one_message(&r, "when.csv:1: no time column in the header (it has when, "
			   "value): faultline looks for ts, time or timestamp, alone or "
			   "with a unit: _s, _ms, _us or _ns (ts_ms holds milliseconds); "
			   "name it with --time-column");
	assert_int_equal(run_faultline(&r, "import", db, write_file("us.csv",
				       "ts_us,value\n1795000001000000,1\n"), "-m", "n",
				       "-q", NULL), 0);
	assert_int_equal(db_int(db, "SELECT ts FROM metric"), 1795000001000000000ll);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(each_format_lands_in_metric_series_and_metric, kill_leftovers),
		cmocka_unit_test_teardown(a_dash_reads_standard_input, kill_leftovers),
		cmocka_unit_test_teardown(a_million_line_file_comes_through_whole, kill_leftovers),
		cmocka_unit_test_teardown(a_missing_column_names_it_and_the_option, kill_leftovers),
		cmocka_unit_test_teardown(a_value_that_is_not_a_number_is_refused_with_its_line, kill_leftovers),
		cmocka_unit_test_teardown(a_timestamp_out_of_range_is_refused, kill_leftovers),
		cmocka_unit_test_teardown(mixed_timestamp_units_are_refused_naming_both_lines, kill_leftovers),
		cmocka_unit_test_teardown(an_empty_file_is_refused, kill_leftovers),
		cmocka_unit_test_teardown(a_last_line_cut_short_is_refused, kill_leftovers),
		cmocka_unit_test_teardown(bytes_that_are_not_utf8_are_refused, kill_leftovers),
		cmocka_unit_test_teardown(a_failed_file_keeps_the_files_before_it_and_names_them, kill_leftovers),
		cmocka_unit_test_teardown(usage_errors_exit_2_and_say_what_to_give, kill_leftovers),
		cmocka_unit_test_teardown(a_file_that_cannot_be_opened_is_named, kill_leftovers),
		cmocka_unit_test_teardown(points_outside_every_session_are_refused_unless_any_time, kill_leftovers),
		cmocka_unit_test_teardown(points_before_2000_in_a_database_without_sessions_get_a_warning, kill_leftovers),
		cmocka_unit_test_teardown(the_same_content_imported_again_is_skipped_unless_again, kill_leftovers),
		cmocka_unit_test_teardown(a_missing_time_column_lists_the_names_looked_for, kill_leftovers),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
