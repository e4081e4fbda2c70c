/*
 * faultline runs on a synthetic fleet of 30 runs: real short recordings
 * of one command, labelled run=1..30 role=rx, LD_BIND_NOW=1 set for the
 * recordings from run 18 on.  A receiver thread's lazy-binding stalls
 * (a major fault in the dynamic linker's resolver, 140 to 156 ms) and its
 * NAKs are added to runs 1 to 17 only, as rows a recording of that
 * receiver would hold; a second metric is noise with no change.
 *
 * The change point of the lazy-binding stall time (and of the NAKs) is
 * run 18, and its environment diff names LD_BIND_NOW; the noise gives
 * none; the chart of runs draws 30 blocks in headless Chromium.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include "../integration/run.h"
#include "plot_fixture.h"

#define RUNS 30
#define CHANGE 18

static const char *fleet;

/* Rows of a receiver thread that stalled in lazy binding, for session S
 * at its start T0; D the fault's duration. */
static const char stall_rows[] =
	"INSERT INTO thread VALUES (%1$d, 990001, 990001, 'lbm-rx', %2$lld,"
	" %2$lld + 1000000000);"
	"INSERT INTO stack VALUES (%1$d, 99001, 990001, 2, 'fp', NULL);"
	"INSERT INTO frame VALUES (%1$d, 99001, 990001, 4096, 0, 0,"
	" '/lib64/ld-linux-x86-64.so.2', 4096, NULL, 'ok'),"
	" (%1$d, 99002, 990001, 8192, 0, 1, '/opt/lbm/liblbm.so', 8192, NULL, 'ok');"
	"INSERT INTO symbol VALUES (%1$d, 99001, 0, '_dl_runtime_resolve_xsavec',"
	" 0, 100, NULL, NULL, 0), (%1$d, 99002, 0, 'on_packet', 16, 200, NULL, NULL, 0);"
	"INSERT INTO stack_frame VALUES (%1$d, 99001, 0, 99001), (%1$d, 99001, 1, 99002);"
	"INSERT INTO fault (session_id, ts, dur, tid, pid, cpu, kind, addr, ip,"
	" stack_id) VALUES (%1$d, %2$lld + 1000000, %3$lld, 990001, 990001, 0,"
	" 'major', 4096, 4096, 99001);";

static void exec_sql(const char *path, const char *sql)
{
	sqlite3 *db = NULL;
	char *err = NULL;

	assert_int_equal(sqlite3_open(path, &db), SQLITE_OK);
	if (sqlite3_exec(db, sql, NULL, NULL, &err) != SQLITE_OK)
		fail_msg("%s: %s", sql, err);
	sqlite3_close(db);
}

static uint64_t lcg(uint64_t *s)
{
	*s = *s * 6364136223846793005ull + 1442695040888963407ull;
	return *s >> 33;
}

/* A point of a metric CSV, within session s (T0 its start): ts, value. */
static void point(FILE *f, long long t0, long long off_ns, int value)
{
	long long ts = t0 + off_ns;

	fprintf(f, "%lld.%09lld,%d\n", ts / 1000000000, ts % 1000000000, value);
}

static int make_fleet(void **state)
{
	const char *naks = scratch_path("naks.csv"), *lat = scratch_path("lat.csv");
	uint64_t seed = 42;
	FILE *fn, *fl;
	struct run r;

	(void)state;
	fleet = strdup(scratch_path("fleet.db"));
	for (int i = 1; i <= RUNS; i++) {
		char label[32];

		snprintf(label, sizeof(label), "run=%d", i);
		if (i == CHANGE)
			setenv("LD_BIND_NOW", "1", 1);
		if (run_faultline(&r, "record", "-q", "-o", fleet, "--label", label,
				  "--label", "role=rx", "--", "/bin/true", NULL) != 0)
			fail_msg("record %d: %s", i, r.err);
	}
	unsetenv("LD_BIND_NOW");
	fn = fopen(naks, "w");
	fl = fopen(lat, "w");
	assert_non_null(fn);
	assert_non_null(fl);
	fprintf(fn, "ts,value\n");
	fprintf(fl, "ts,value\n");
	for (int s = 1; s <= RUNS; s++) {
		long long t0 = db_int(fleet, "SELECT start_ts FROM session WHERE"
				      " session_id = %d", s);
		char sql[4096];

		/* 140 to 156 ms of lazy binding, 4 to 8 NAKs, before the change */
		if (s < CHANGE) {
			snprintf(sql, sizeof(sql), stall_rows, s, t0,
				 140000000ll + (long long)(lcg(&seed) % 17) * 1000000);
			exec_sql(fleet, sql);
			for (uint64_t k = 0, n = 4 + lcg(&seed) % 5; k < n; k++)
				point(fn, t0, 100000 * ((long long)k + 1), 1);
		}
		/* 8 to 12 latency samples in every run: noise, no change */
		for (uint64_t k = 0, n = 8 + lcg(&seed) % 5; k < n; k++)
			point(fl, t0, 50000 * ((long long)k + 1), (int)(lcg(&seed) % 100));
	}
	fclose(fn);
	fclose(fl);
	if (run_faultline(&r, "import", fleet, naks, "--metric", "nak", "-q", NULL) != 0 ||
	    run_faultline(&r, "import", fleet, lat, "--metric", "lat", "-q", NULL) != 0)
		fail_msg("import: %s", r.err);
	return 0;
}

/* The lines of out holding all of the words given (NULL-terminated). */
static int lines_with(const char *out, ...)
{
	int n = 0;

	for (const char *line = out; line && *line;) {
		const char *end = strchr(line, '\n');
		size_t len = end ? (size_t)(end - line) : strlen(line);
		char buf[2048];
		const char *w;
		int all = 1;
		va_list ap;

		snprintf(buf, sizeof(buf), "%.*s", (int)len, line);
		va_start(ap, out);
		while ((w = va_arg(ap, const char *)))
			all &= strstr(buf, w) != NULL;
		va_end(ap);
		n += all;
		line = end ? end + 1 : NULL;
	}
	return n;
}

static void the_lazy_binding_change_point_is_run_18_and_names_ld_bind_now(void **state)
{
	static char out[1 << 16];	/* the whole of stdout: r.out is cut */
	struct run r;

	(void)state;
	assert_int_equal(run_faultline(&r, "runs", fleet, "--metric", "nak", NULL), 0);
	slurp(r.outpath, out, sizeof(out));
	assert_non_null(strstr(out, "Runs (30, oldest first)\n"));
	/* one lazy-binding change, at run 18, LD_BIND_NOW named */
	assert_int_equal(lines_with(out, "lazy-binding stall time", NULL), 1);
	if (lines_with(out, "run 18 (session 18)", "lazy-binding stall time of lbm-rx fell",
		       "to 0 ns", "LD_BIND_NOW=1 set", "build ids unchanged", NULL) != 1)
		fail_msg("no change point at run 18 naming LD_BIND_NOW:\n%s", out);
	/* the NAKs stop there too */
	if (lines_with(out, "run 18 (session 18)", "nak events fell", "to 0.0",
		       "LD_BIND_NOW=1 set", NULL) != 1)
		fail_msg("no NAK change point at run 18:\n%s", out);
	assert_int_equal(lines_with(out, "nak events", NULL), 1);
}

static void a_series_of_noise_without_change_gives_none(void **state)
{
	static char out[1 << 16];
	struct run r;

	(void)state;
	assert_int_equal(run_faultline(&r, "runs", fleet, "--metric", "lat", NULL), 0);
	slurp(r.outpath, out, sizeof(out));
	/* the metric is counted in every run, and its series is tested */
	assert_int_equal(lines_with(out, " role=rx ", NULL), RUNS);
	assert_int_equal(lines_with(out, "lat events", NULL), 0);
	assert_int_equal(lines_with(out, "lazy-binding stall time", "run 18", NULL), 1);
}

static void json_and_csv_carry_the_runs_and_the_change_points(void **state)
{
	char *py[] = { "/usr/bin/python3", "-c",
		"import json,sys; d=json.load(open(sys.argv[1]));"
		"assert len(d['runs']) == 30, len(d['runs']);"
		"assert [r['run'] for r in d['runs']] == list(range(1, 31));"
		"c=[x for x in d['change_points'] if x['series'].startswith('lazy-binding')];"
		"assert len(c) == 1 and c[0]['run'] == 18 and c[0]['session'] == 18, c;"
		"assert c[0]['direction'] == 'fell' and c[0]['after'] == 0, c;"
		"assert 140 <= c[0]['before'] <= 156 and c[0]['p'] <= 0.001, c;"
		"assert 'LD_BIND_NOW=1 set' in c[0]['environment'], c;"
		"assert all(r['lazy_binding_ms'] > 0 for r in d['runs'][:17]);"
		"assert all(r['lazy_binding_ms'] == 0 for r in d['runs'][17:]);"
		"assert sum(r['nak'] for r in d['runs'][17:]) == 0;"
		"assert all(4 <= r['nak'] <= 8 for r in d['runs'][:17]);"
		"assert all(r['p99_fault_us'] > 0 and r['lost'] >= 0 for r in d['runs']);"
		"print('ok')", NULL, NULL };
	struct run r, p;

	(void)state;
	assert_int_equal(run_faultline(&r, "runs", fleet, "--metric", "nak", "-f", "json",
				       NULL), 0);
	py[3] = r.outpath;
	if (run_argv(&p, py) != 0)
		fail_msg("the JSON: %s", p.err);
	assert_int_equal(run_faultline(&r, "runs", fleet, "-f", "csv", "--label",
				       "role=rx", NULL), 0);
	assert_true(strncmp(r.out, "run,session,time,labels,lazy_binding_ms,", 40) == 0);
	assert_non_null(strstr(r.out, "\r\n\r\nrun,session,time,series,direction,"));
}

static void the_chart_of_runs_draws_30_blocks_in_chromium(void **state)
{
	const char *page = scratch_path("runs.html");
	struct run r;

	(void)state;
	assert_int_equal(run_faultline(&r, "runs", fleet, "--metric", "nak", "-o", page,
				       NULL), 0);
	assert_non_null(strstr(r.err, "wrote"));
	python_check(&r, "runs_check.py", page, fleet, "30", "18", "--png",
		     scratch_path("runs.png"), NULL);
}

static void what_names_nothing_is_refused(void **state)
{
	(void)state;
	assert_refused_with(2, "no metric 'naks'", "runs", fleet, "--metric", "naks", NULL);
	assert_refused_with(2, "it has: lat, nak", "runs", fleet, "--metric", "naks", NULL);
	assert_refused_with(2, "no session of", "runs", fleet, "--label", "role=tx", NULL);
	assert_refused_with(2, "give one database", "runs", NULL);
	assert_refused_with(2, "--label", "runs", fleet, "--label", "role", NULL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(the_lazy_binding_change_point_is_run_18_and_names_ld_bind_now),
		cmocka_unit_test(a_series_of_noise_without_change_gives_none),
		cmocka_unit_test(json_and_csv_carry_the_runs_and_the_change_points),
		cmocka_unit_test(the_chart_of_runs_draws_30_blocks_in_chromium),
		cmocka_unit_test(what_names_nothing_is_refused),
	};

	return cmocka_run_group_tests(tests, make_fleet, NULL);
}
