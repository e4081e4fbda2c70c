/*
 * faultline export: the Trace Event JSON and the CSV files, parsed back
 * by real parsers (tests/export_check.py: python3's json and csv) and
 * compared with the database they came from, for a real recording and
 * for the fixture of plot_fixture.h; then every message a user can
 * cause, each leaving no file behind.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include "plot_fixture.h"

static void a_real_recording_exports_to_a_trace_and_csv_that_match_its_database(void **state)
{
	const char *db = scratch_path("real.db"), *trace = scratch_path("real.json");
	const char *dir = scratch_path("real-csv");
	struct run r;

	(void)state;
	assert_int_equal(run_faultline(&r, "record", "-q", "-o", db, "--",
				       workload_bin(), "--pages", "300", NULL), 0);
	assert_true(db_int(db, "SELECT count(*) FROM fault WHERE dur IS NOT NULL") >= 300);
	assert_int_equal(run_faultline(&r, "export", db, "--format", "chrome-trace",
				       "-o", trace, NULL), 0);
	assert_non_null(strstr(r.err, "faultline export: session 1 of"));
	python_check(&r, "export_check.py", "chrome-trace", trace, db, "1", NULL);
	assert_int_equal(run_faultline(&r, "export", db, "--format", "csv", "-o", dir,
				       "-q", NULL), 0);
	assert_string_equal(r.err, "");
	python_check(&r, "export_check.py", "csv", dir, db, "1", NULL);
}

static void the_trace_holds_every_row_exactly_on_two_nested_tracks_a_thread(void **state)
{
	const char *trace = scratch_path("fixture.json");
	struct run r;

	(void)state;
	assert_int_equal(run_faultline(&r, "export", plot_fixture_db(), "--session", "2",
				       "--format", "chrome-trace", "-o", trace, NULL), 0);
	python_check(&r, "export_check.py", "chrome-trace", trace, plot_fixture_db(),
		     "2", NULL);
	/* The fault-only thread's track is named, the infinite metric value
	 * and the untimed loss are left out, and both are said. */
	assert_int_equal(run_faultline(&r, "export", plot_fixture_db(), "--session", "2",
				       "--format", "chrome-trace", "-o", trace, NULL), 0);
	assert_non_null(strstr(r.err, "warning: 1 loss reports have no time"));
	assert_non_null(strstr(r.err, "warning: 1 metric values are not finite"));
	/* Imported series are counters too (7 sampled points, 2 imported);
	 * three wake-ups by a recorded thread; two stacks that share main,
	 * so four frames. */
	assert_non_null(strstr(r.err, "2 threads, 208 state intervals, 207 faults, "
			       "4 tracepoint hits, 9 counter points, 3 losses, "
			       "3 wake-up arrows, 2 stacks (4 frames)"));
}

/*
 * A session whose 100,000 faults each carry one of 20 stacks 60 frames
 * deep, named as a JVM's are (long names, the outer 50 frames shared):
 * written once each, the trace stays within a few times the database's
 * size, where a stack's text on every event made it a hundred times
 * larger.
 */
static const char deep_sql[] =
	"INSERT INTO session (session_id, start_ts, end_ts, status, host, kernel,"
	" command_line, options, faultline_version, start_realtime_ns,"
	" start_monotonic_ns, min_fault_dur, buffer_bytes, cpus) VALUES"
	" (1, " T0 ", " T0 "+12000000000, 'complete', 'h', 'k', 'java -jar app.jar',"
	"  '', '0.1.0', 0, 0, 0, 4096, 2);"
	"INSERT INTO thread VALUES (1, 201, 200, 'java', " T0 ", " T0 "+12000000000);"
	"INSERT INTO frame WITH RECURSIVE c(n) AS (SELECT 1 UNION ALL SELECT n + 1"
	" FROM c WHERE n < 310) SELECT 1, n, 200, 4096 * n, 0, 0,"
	" '/usr/lib/jvm/lib/server/libjvm.so', 4096 * n, NULL, 'ok' FROM c;"
	"INSERT INTO symbol SELECT 1, frame_id, 0,"
	" 'org.example.server.pipeline.RequestHandler$Stage' || frame_id ||"
	" '.process(Lorg/example/server/Request;)V', 16, 200, NULL, NULL, 0 FROM frame;"
	"INSERT INTO stack WITH RECURSIVE c(n) AS (SELECT 1 UNION ALL SELECT n + 1"
	" FROM c WHERE n < 20) SELECT 1, n, 200, 60, 'fp', NULL FROM c;"
	"INSERT INTO stack_frame SELECT 1, s.stack_id, d.n,"
	" CASE WHEN d.n >= 10 THEN d.n + 1 ELSE 100 + s.stack_id * 10 + d.n END"
	" FROM stack s, (WITH RECURSIVE c(n) AS (SELECT 0 UNION ALL SELECT n + 1"
	" FROM c WHERE n < 59) SELECT n FROM c) d;"
	"INSERT INTO fault (session_id, ts, dur, tid, pid, cpu, exit_cpu, kind, addr, ip,"
	" stack_id) WITH RECURSIVE c(n) AS (SELECT 0 UNION ALL SELECT n + 1 FROM c"
	" WHERE n < 99999) SELECT 1, " T0 " + n * 100000, 1500 + n % 977, 201, 200,"
	" n % 2, n % 2, 'minor', 140000000000000 + n * 4096, 140000000004096 + n % 20,"
	" n % 20 + 1 FROM c;";

static void deep_stacks_are_written_once_and_the_trace_stays_near_the_databases_size(void **state)
{
	const char *db = scratch_path("deep.db"), *trace = scratch_path("deep.json");
	struct errmsg e;
	struct stat dbs, trs;
	sqlite3 *h = NULL;
	struct run r;

	(void)state;
	errmsg_init(&e);
	if (db_open_write(db, &h, &e) < 0)
		fail_msg("%s", e.text);
	if (sqlite3_exec(h, deep_sql, NULL, NULL, NULL) != SQLITE_OK)
		fail_msg("deep fixture: %s", sqlite3_errmsg(h));
	if (db_build_indexes(h, db, &e) < 0)
		fail_msg("%s", e.text);
	db_close(h);
	assert_int_equal(run_faultline(&r, "export", db, "--format", "chrome-trace",
				       "-o", trace, NULL), 0);
	assert_non_null(strstr(r.err, "100000 faults, "));
	if (!strstr(r.err, "20 stacks (250 frames)"))
		fail_msg("expected 20 stacks of 250 frames: %s", r.err);
	python_check(&r, "export_check.py", "chrome-trace", trace, db, "1", NULL);
	assert_int_equal(stat(db, &dbs), 0);
	assert_int_equal(stat(trace, &trs), 0);
	if (trs.st_size > 3 * dbs.st_size)
		fail_msg("the trace is %lld bytes, over 3 times the database's %lld",
			 (long long)trs.st_size, (long long)dbs.st_size);
}

static void a_threshold_leaves_the_short_faults_out_and_says_so(void **state)
{
	const char *trace = scratch_path("long.json");
	struct run r;

	(void)state;
	assert_int_equal(run_faultline(&r, "export", plot_fixture_db(), "--session", "2",
				       "--format", "chrome-trace", "--min-fault-duration",
				       "1ms", "-o", trace, NULL), 0);
	/* 150, 3, 300 and 5 ms, and the one that never completed. */
	assert_non_null(strstr(r.err, " 5 faults, "));
	python_check(&r, "export_check.py", "chrome-trace", trace, plot_fixture_db(),
		     "2", "1000000", NULL);
}

static void the_trace_names_the_origin_and_keeps_hostile_names_valid_json(void **state)
{
	const char *trace = scratch_path("origin.json");
	char *argv[] = { "/usr/bin/python3", "-c",
		"import json, sys; d = json.load(open(sys.argv[1]));"
		" o = d['otherData'];"
		" n = [e['args']['name'] for e in d['traceEvents'] if e['ph'] == 'M'"
		"      and e['name'] == 'thread_name' and e['tid'] == 101][0];"
		" print(o['origin_realtime_ns'], o['origin_utc'], o['clock'], n == sys.argv[2])",
		(char *)trace, FIXTURE_RX_NAME, NULL };
	struct run r;

	(void)state;
	assert_int_equal(run_faultline(&r, "export", plot_fixture_db(), "--session", "2",
				       "--format", "chrome-trace", "-o", trace, "-q", NULL), 0);
	assert_int_equal(run_argv(&r, argv), 0);
	assert_string_equal(r.out, T0 " 2023-11-14T22:13:20.000000000Z CLOCK_REALTIME True\n");
}

/* "N files", N the tables of db (one file each). */
static void assert_one_file_per_table(const char *err, const char *db)
{
	char want[32];

	snprintf(want, sizeof(want), "%lld files", (long long)db_int(db,
		 "SELECT count(*) FROM sqlite_schema WHERE type = 'table' "
		 "AND name NOT LIKE 'sqlite_%%'"));
	if (!strstr(err, want))
		fail_msg("expected '%s' in: %s", want, err);
}

static void the_csv_files_read_back_as_the_sessions_rows(void **state)
{
	const char *dir = scratch_path("fixture-csv");
	struct run r;

	(void)state;
	assert_int_equal(run_faultline(&r, "export", plot_fixture_db(), "--session", "2",
				       "--format", "csv", "-o", dir, NULL), 0);
	assert_one_file_per_table(r.err, plot_fixture_db());
	python_check(&r, "export_check.py", "csv", dir, plot_fixture_db(), "2", NULL);
	/* Again into the same directory: the files are replaced. */
	assert_int_equal(run_faultline(&r, "export", plot_fixture_db(), "--session", "2",
				       "--format", "csv", "-o", dir, "-q", NULL), 0);
	python_check(&r, "export_check.py", "csv", dir, plot_fixture_db(), "2", NULL);
	assert_false(dir_has(dir, "\\."));
}

/* A table a later schema adds, which this build does not know, is in the
 * export too: the session's rows, or all when it has no session_id. */
static void a_table_this_build_does_not_know_is_exported_too(void **state)
{
	const char *db = scratch_path("newer.db"), *dir = scratch_path("newer-csv");
	char *cp[] = { "/bin/cp", (char *)plot_fixture_db(), (char *)db, NULL };
	sqlite3 *h = NULL;
	struct run r;

	(void)state;
	assert_int_equal(run_argv(&r, cp), 0);
	assert_int_equal(sqlite3_open(db, &h), SQLITE_OK);
	assert_int_equal(sqlite3_exec(h, "CREATE TABLE later (session_id INTEGER, x TEXT);"
				      "INSERT INTO later VALUES (1, 'a'), (2, 'b,\"c\"');"
				      "CREATE TABLE \"odd name\" (y INTEGER);"
				      "INSERT INTO \"odd name\" VALUES (7);", NULL, NULL, NULL),
			 SQLITE_OK);
	sqlite3_close(h);
	assert_int_equal(run_faultline(&r, "export", db, "--session", "2", "--format",
				       "csv", "-o", dir, NULL), 0);
	assert_one_file_per_table(r.err, db);
	python_check(&r, "export_check.py", "csv", dir, db, "2", NULL);
}

/* faultline export ARGS... refused with status and one line holding says. */
#define assert_refused(status, says, ...) \
	assert_refused_with(status, says, "export", __VA_ARGS__)

static void bad_input_gets_one_message_and_leaves_no_file(void **state)
{
	const char *db = plot_fixture_db(), *out = scratch_path("bad/trace.json");
	const char *dir = scratch_path("bad");
	struct stat sb;

	(void)state;
	mkdir(dir, 0755);
	/* The latest session recorded nothing. */
	assert_refused(1, "session 3 of '", db, "--format", "chrome-trace", "-o", out, NULL);
	assert_refused(1, "holds nothing to export", db, "--format", "csv", "-o",
		       scratch_path("bad/csv"), NULL);
	assert_refused(1, "no session 9 in", db, "--session", "9", "--format",
		       "chrome-trace", "-o", out, NULL);
	assert_refused(2, "no destination given: add --format", db, "-o", out, NULL);
	assert_refused(2, "invalid --format 'perf': expected chrome-trace or csv", db,
		       "--format", "perf", "-o", out, NULL);
	assert_refused(2, "--format csv needs -o PATH: the directory", db, "--format",
		       "csv", NULL);
	assert_refused(2, "--min-fault-duration applies to --format chrome-trace", db,
		       "--format", "csv", "--min-fault-duration", "1ms", "-o", out, NULL);
	assert_refused(2, "is the database itself", db, "--format", "chrome-trace",
		       "-o", db, NULL);
	assert_refused(1, "No such file or directory; create the directory first", db,
		       "--session", "2", "--format", "chrome-trace", "-o",
		       scratch_path("bad/no/such/dir/trace.json"), NULL);
	assert_refused(1, "cannot create directory", db, "--session", "2", "--format",
		       "csv", "-o", scratch_path("bad/no/such/dir"), NULL);
	assert_refused(1, "no such file", scratch_path("nothing.db"), "--format", "csv",
		       "-o", dir, NULL);
	/* A file where the CSV directory should be. */
	assert_int_equal(close(open(scratch_path("bad/file"), O_CREAT | O_WRONLY, 0644)), 0);
	assert_refused(1, "it is a file, and --format csv writes a directory", db,
		       "--session", "2", "--format", "csv", "-o", scratch_path("bad/file"),
		       NULL);
	assert_false(dir_has(dir, "\\."));
	assert_false(dir_has(dir, "trace.json"));
	assert_int_equal(stat(scratch_path("bad/file"), &sb), 0);
	assert_true(S_ISREG(sb.st_mode));
	assert_false(dir_has(dir, "csv"));
}

/* A 16 KiB tmpfs cannot hold the trace: the write fails with the disk
 * full, the earlier trace there stays as it was, and no temporary file
 * is left. */
static void a_full_disk_fails_the_export_and_keeps_the_earlier_file(void **state)
{
	const char *mnt = scratch_path("small"), *out = scratch_path("small/trace.json");
	char buf[64] = "";
	FILE *f;

	(void)state;
	mkdir(mnt, 0755);
	if (mount("faultline-test", mnt, "tmpfs", 0, "size=16k") != 0)
		fail_msg("cannot mount a small tmpfs at %s: %s", mnt, strerror(errno));
	f = fopen(out, "w");
	assert_non_null(f);
	fputs("earlier\n", f);
	assert_int_equal(fclose(f), 0);
	assert_refused(1, "No space left on device; free some space or write elsewhere",
		       plot_fixture_db(), "--session", "2", "--format", "chrome-trace",
		       "-o", out, NULL);
	slurp(out, buf, sizeof(buf));
	assert_string_equal(buf, "earlier\n");
	assert_false(dir_has(mnt, "\\.trace"));
	umount(mnt);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(a_real_recording_exports_to_a_trace_and_csv_that_match_its_database,
					  kill_leftovers),
		cmocka_unit_test(the_trace_holds_every_row_exactly_on_two_nested_tracks_a_thread),
		cmocka_unit_test(deep_stacks_are_written_once_and_the_trace_stays_near_the_databases_size),
		cmocka_unit_test(a_threshold_leaves_the_short_faults_out_and_says_so),
		cmocka_unit_test(the_trace_names_the_origin_and_keeps_hostile_names_valid_json),
		cmocka_unit_test(the_csv_files_read_back_as_the_sessions_rows),
		cmocka_unit_test(a_table_this_build_does_not_know_is_exported_too),
		cmocka_unit_test(bad_input_gets_one_message_and_leaves_no_file),
		cmocka_unit_test(a_full_disk_fails_the_export_and_keeps_the_earlier_file),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
