/*
 * faultline stacks' outputs, parsed back by real parsers
 * (tests/stacks_check.py: flamegraph.pl's reading of folded lines,
 * python3's json and csv) and held to the database, on a recording of a
 * C++ program built here (tests/fixtures/cxx/walker.cc): its mangled
 * names shown demangled, and the frames a walk through data makes up
 * cut, at recording and when read; and report's JSON.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <sqlite3.h>

#include "plot_fixture.h"

/* python_check on what r's run wrote: r's paths change as it runs. */
#define check_output(r, ...) do {					\
		char out_[256];						\
		snprintf(out_, sizeof(out_), "%s", (r)->outpath);	\
		python_check((r), "stacks_check.py", __VA_ARGS__);	\
	} while (0)

/* The walker recorded with a stack on every fault, once per process. */
static const char *walker_db(void)
{
	static int recorded;
	const char *db = scratch_path("walker.db");
	const char *build = getenv("BUILD");
	char walker[256];
	struct run r;

	if (recorded)
		return db;
	snprintf(walker, sizeof(walker), "%s/tests/cxx_walker",
		 build ? build : "build/release");
	assert_int_equal(run_faultline(&r, "record", "-q", "-o", db, "--stacks=fp",
				       "--stacks-on=faults", "--", walker, NULL), 0);
	recorded = 1;
	return db;
}

static void folded_lines_add_up_to_the_events_and_their_time(void **state)
{
	const char *db = walker_db();
	struct run r;

	(void)state;
	assert_int_equal(run_faultline(&r, "stacks", db, "--folded", "--sort",
				       "count", NULL), 0);
	assert_string_equal(r.err, "");
	check_output(&r, "folded", out_, db, "1", "count", NULL);
	assert_int_equal(run_faultline(&r, "stacks", db, "-f", "folded", NULL), 0);
	check_output(&r, "folded", out_, db, "1", "time", NULL);
}

static void json_and_csv_hold_the_stacks_with_names_demangled(void **state)
{
	const char *db = walker_db();
	struct run r;

	(void)state;
	assert_int_equal(run_faultline(&r, "stacks", db, "-f", "json", "--limit",
				       "1000", NULL), 0);
	check_output(&r, "json", out_, db, "1",
		     "_ZN3flt6Walker5touchEPcm=flt::Walker::touch", NULL);
	assert_int_equal(run_faultline(&r, "stacks", db, "-s", "1", "-f", "csv",
				       "--limit", "1000", NULL), 0);
	check_output(&r, "csv", out_, db, "1", NULL);
	/* The text names it as its source does; SQL keeps the file's name. */
	assert_int_equal(run_faultline(&r, "stacks", db, "--sort", "count", NULL), 0);
	assert_non_null(strstr(r.out, "flt::Walker::touch+0x"));
	assert_null(strstr(r.out, "_ZN3flt"));
	assert_true(db_int(db, "SELECT count(*) FROM symbol WHERE function = "
			   "'_ZN3flt6Walker5touchEPcm'") > 0);
}

/* The walker's faults through data: the kernel's walk read "/jvm/jav" as
 * a return address.  Recording ends those stacks at the faulting
 * function, cut short, and the address is nowhere among the frames. */
static void a_return_address_no_process_maps_is_cut_when_recording(void **state)
{
	const char *db = walker_db();
	struct run r;

	(void)state;
	assert_int_equal(db_int(db, "SELECT count(*) FROM frame WHERE addr = "
				"0x76616a2f6d766a2f"), 0);
	assert_int_equal(db_int(db, "SELECT count(*) FROM stack s JOIN "
				"stack_frame_name n USING (session_id, stack_id) WHERE "
				"s.truncated LIKE '%%0x76616a2f6d766a2f%%' AND "
				"n.depth = 0 AND n.function = 'touch_through_data' AND "
				"s.depth = 1"), 1);
	assert_int_equal(run_faultline(&r, "stacks", db, "--sort", "count",
				       "--limit", "2", NULL), 0);
	assert_non_null(strstr(r.out, "the user part ends early: return address "
			       "0x76616a2f6d766a2f"));
}

/* A stack whose walk went on from mapped code to an address in no
 * mapping (0x1000000, made here on a copy) shows its frames up to that
 * address, cut short, in every output. */
static void a_return_address_in_no_mapping_cuts_the_stack_when_read(void **state)
{
	const char *db = scratch_path("walker-cut.db");
	char cmd[1024];
	struct run r;
	int64_t sid, depth;

	(void)state;
	snprintf(cmd, sizeof(cmd), "cp %s %s", walker_db(), db);
	assert_int_equal(system(cmd), 0);
	sid = db_int(db, "SELECT min(stack_id) FROM stack_frame_name WHERE "
		     "function = '_ZN3flt6Walker5touchEPcm'");
	depth = db_int(db, "SELECT depth FROM stack WHERE stack_id = %lld",
		       (long long)sid);
	snprintf(cmd, sizeof(cmd), "sqlite3 %s \"INSERT INTO frame VALUES (1, 999001,"
		 " 0, 16777216, 0, 1, NULL, NULL, NULL, 'no-mapping'); INSERT INTO"
		 " stack_frame SELECT 1, %lld, %lld, 999001; INSERT INTO stack_frame"
		 " SELECT 1, %lld, %lld + 1, frame_id FROM stack_frame WHERE stack_id"
		 " = %lld AND depth = 0; UPDATE stack SET depth = depth + 2 WHERE"
		 " stack_id = %lld\"", db, (long long)sid, (long long)depth,
		 (long long)sid, (long long)depth, (long long)sid, (long long)sid);
	assert_int_equal(system(cmd), 0);
	assert_int_equal(db_int(db, "SELECT count(*) FROM stack_frame_name WHERE "
				"stack_id = %lld AND depth >= %lld", (long long)sid,
				(long long)depth), 0);
	assert_int_equal(db_int(db, "SELECT truncated LIKE 'return address 0x1000000 "
				"is in no code%%' FROM stack_shown WHERE stack_id = %lld",
				(long long)sid), 1);
	assert_int_equal(run_faultline(&r, "stacks", db, "-f", "json", "--limit",
				       "1000", NULL), 0);
	check_output(&r, "json", out_, db, "1", NULL);
	assert_int_equal(run_faultline(&r, "stacks", db, "--folded", "--sort",
				       "count", NULL), 0);
	assert_non_null(strstr(r.out, "[cut short];__libc_start_call_main;main;"
			       "flt::Walker::touch 64\n"));
	check_output(&r, "folded", out_, db, "1", "count", NULL);
}

/* report -f json is one document: the findings and every section. */
static void the_report_as_json_parses_with_its_findings_and_sections(void **state)
{
	const char *db = walker_db();
	char out[256], rows[256];
	struct run r;

	(void)state;
	assert_int_equal(run_faultline(&r, "query", db, "longest-stalls", "-f",
				       "json", NULL), 0);
	snprintf(rows, sizeof(rows), "%s.rows", r.outpath);
	assert_int_equal(rename(r.outpath, rows), 0);
	assert_int_equal(run_faultline(&r, "report", db, "-f", "json", NULL), 0);
	snprintf(out, sizeof(out), "%s", r.outpath);
	{
		/* The longest-stalls section holds the query's own rows. */
		char *argv[] = { "/usr/bin/python3", "-c",
			"import json, sys\n"
			"d = json.load(open(sys.argv[1]))\n"
			"assert d['session'] == 1 and d['findings']['session'] == 1\n"
			"q = [s['query'] for s in d['sections']]\n"
			"assert q[:3] == ['sessions', 'fault-latency', 'longest-stalls'], q\n"
			"want = json.load(open(sys.argv[2]))\n"
			"assert d['sections'][2]['rows'] == want, (len(want), d['sections'][2]['rows'])\n"
			"print('ok')\n", out, rows, NULL };

		if (run_argv(&r, argv) != 0)
			fail_msg("the report's JSON: %s", r.err);
	}
	unlink(rows);
	assert_non_null(strstr(r.out, "ok"));
}

static void bad_formats_are_usage_errors_that_say_what_is_allowed(void **state)
{
	(void)state;
	assert_refused_with(2, "invalid --format 'svg': expected text, folded, "
			    "json or csv", "stacks", walker_db(), "-f", "svg", NULL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(folded_lines_add_up_to_the_events_and_their_time, kill_leftovers),
		cmocka_unit_test_teardown(json_and_csv_hold_the_stacks_with_names_demangled, kill_leftovers),
		cmocka_unit_test_teardown(a_return_address_no_process_maps_is_cut_when_recording, kill_leftovers),
		cmocka_unit_test_teardown(a_return_address_in_no_mapping_cuts_the_stack_when_read, kill_leftovers),
		cmocka_unit_test_teardown(the_report_as_json_parses_with_its_findings_and_sections, kill_leftovers),
		cmocka_unit_test_teardown(bad_formats_are_usage_errors_that_say_what_is_allowed, kill_leftovers),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
