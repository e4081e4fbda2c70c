/*
 * faultline compare: two real recordings, the second of a command
 * started with LD_BIND_NOW=1: the measures side by side, then the
 * environment section names LD_BIND_NOW, set on one side only; a run
 * compared with itself has the same environment; a side that names no
 * session is refused with one message.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include "../integration/run.h"

static const char *db;

static int make_runs(void **state)
{
	struct run r;

	(void)state;
	db = strdup(scratch_path("cmp.db"));
	if (run_faultline(&r, "record", "-q", "-o", db, "--label", "run=41", "--",
			  "/bin/true", NULL) != 0)
		fail_msg("record: %s", r.err);
	setenv("LD_BIND_NOW", "1", 1);
	if (run_faultline(&r, "record", "-q", "-o", db, "--label", "run=42", "--",
			  "/bin/true", NULL) != 0)
		fail_msg("record: %s", r.err);
	unsetenv("LD_BIND_NOW");
	/* run=42 again, without it: that side now disagrees */
	if (run_faultline(&r, "record", "-q", "-o", db, "--label", "run=42", "--",
			  "/bin/true", NULL) != 0)
		fail_msg("record: %s", r.err);
	return 0;
}

static void the_environment_section_names_what_one_run_set(void **state)
{
	static char json[1 << 16];	/* the whole of stdout: r.out is cut */
	const char *env;
	struct run r;

	(void)state;
	assert_int_equal(run_faultline(&r, "compare", db, "1", "2", NULL), 0);
	assert_non_null(strstr(r.out, "Measures (a: 1, b: 2)"));
	assert_non_null(strstr(r.out, "minor faults"));
	env = strstr(r.out, "Environment: what differs\n");
	assert_non_null(env);
	/* set in b only: a's cell is empty */
	if (!strstr(env, "env.LD_BIND_NOW     1\n") && !strstr(env, "env.LD_BIND_NOW  1\n"))
		fail_msg("no LD_BIND_NOW row:\n%s", env);
	/* kernel and machine: the same two runs */
	assert_null(strstr(env, "kernel.release"));
	/* by label value, in JSON */
	assert_int_equal(run_faultline(&r, "compare", db, "1", "2", "-f", "json", NULL), 0);
	slurp(r.outpath, json, sizeof(json));
	assert_non_null(strstr(json, ",\"environment\":[\n{\"key\": \"env.LD_BIND_NOW\", "
			       "\"a\": null, \"b\": \"1\"}\n]\n}\n"));
	assert_true(strncmp(json, "{\"measures\":[", 13) == 0);
	/* one JSON document */
	{
		char *py[] = { "/usr/bin/python3", "-c", "import json,sys;"
			       "json.load(open(sys.argv[1]))", r.outpath, NULL };
		struct run p;

		assert_int_equal(run_argv(&p, py), 0);
	}
}

/* By label: run=42 is two sessions, one with LD_BIND_NOW=1, one without. */
static void a_side_whose_runs_disagree_says_so(void **state)
{
	struct run r;

	(void)state;
	assert_int_equal(run_faultline(&r, "compare", db, "41", "42", "--label", "run",
				       "-f", "csv", NULL), 0);
	assert_non_null(strstr(r.out, "\r\n\r\nkey,a,b\r\nenv.LD_BIND_NOW,,1 (in 1 of 2 runs)\r\n"));
}

static void a_run_compared_with_itself_has_the_same_environment(void **state)
{
	struct run r;

	(void)state;
	assert_int_equal(run_faultline(&r, "compare", db, "2", "2", NULL), 0);
	assert_non_null(strstr(r.out, "(the same environment)"));
}

static void a_side_without_a_session_is_refused(void **state)
{
	(void)state;
	assert_refused_with(2, "no session 9 in", "compare", db, "1", "9", NULL);
	assert_refused_with(2, "has the label run=7", "compare", db, "7", "42",
			    "--label", "run", NULL);
	assert_refused_with(2, "give a database and the two sides", "compare", db,
			    "1", NULL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(the_environment_section_names_what_one_run_set),
		cmocka_unit_test(a_side_whose_runs_disagree_says_so),
		cmocka_unit_test(a_run_compared_with_itself_has_the_same_environment),
		cmocka_unit_test(a_side_without_a_session_is_refused),
	};

	return cmocka_run_group_tests(tests, make_runs, NULL);
}
