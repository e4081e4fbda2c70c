/*
 * faultline plot: the page of a real recording (the demo) loaded by
 * headless Chromium, which must report no console message and no request
 * but the page, with lanes, fault marks and metric ticks in the DOM where
 * their times put them (tests/plot_check.py); the page's data against the
 * database, row for row; then the fixture of plot_fixture.h for exact
 * windows, merges, lost spans and names; the CPU lanes of a recording
 * where a target waits behind a busy loop, and a wake-up's arrow on
 * hover; then every message a user can cause, each leaving no file
 * behind.  The screenshots of the CPU lanes' views stay in
 * $BUILD/plot-shots (printed) for a person to look at.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include "plot_fixture.h"

/* json.dumps(EXPR) of the page's data, as tests/plot_check.py prints it. */
static const char *page_get(const char *page, const char *expr)
{
	static char out[4096];
	char *argv[] = { "/usr/bin/python3", "tests/plot_check.py", "get",
			 (char *)page, (char *)expr, NULL };
	struct run r;

	if (run_argv(&r, argv) != 0)
		fail_msg("plot_check.py get %s: %s", expr, r.err);
	snprintf(out, sizeof(out), "%s", r.out);
	out[strcspn(out, "\n")] = '\0';
	return out;
}

static void plot_ok(struct run *r, ...)
{
	char *argv[48];
	int n = 0;
	va_list ap;

	argv[n++] = (char *)faultline_bin();
	argv[n++] = "plot";
	va_start(ap, r);
	while (n < 47 && (argv[n] = va_arg(ap, char *)))
		n++;
	va_end(ap);
	argv[n] = NULL;
	if (run_argv(r, argv) != 0)
		fail_msg("faultline plot exited %d: %s", r->status, r->err);
}

/* The demo into db, as test_demo runs it. */
static void record_demo(const char *db)
{
	struct run r;

	run_demo(db, &r);
}

/*
 * --finding N plots diagnose's Nth finding: a window that holds its
 * stalls, its thread's lane alone; one past the last is refused with the
 * count, and nothing is written.
 */
static void finding_windows(const char *db)
{
	const char *svg = scratch_path("finding.svg");
	const char *nl;
	long long findings = 0;
	char last[24];
	struct run r;

	/* "faultline diagnose: session 1 of DB\n", lines of what no finding
	 * holds ("not named: ..."), then "N findings, worst first". */
	assert_int_equal(run_faultline(&r, "diagnose", db, NULL), 0);
	nl = strchr(r.out, '\n');
	while (nl && sscanf(nl + 1, "%lld finding", &findings) != 1)
		nl = strchr(nl + 1, '\n');
	assert_non_null(nl);
	assert_true(findings >= 1);
	unlink(svg);
	plot_ok(&r, db, "-o", svg, "--finding", "1", NULL);
	assert_non_null(strstr(r.err, "faultline plot: session 1 of"));
	assert_int_equal(access(svg, F_OK), 0);
	snprintf(last, sizeof(last), "%lld", findings + 1);
	unlink(svg);
	assert_int_equal(run_faultline(&r, "plot", db, "-o", svg, "--finding", last,
				       NULL), 1);
	assert_non_null(strstr(r.err, "no finding"));
	assert_int_equal(access(svg, F_OK), -1);
}

static void the_demo_draws_in_chromium_with_every_mark_where_its_time_puts_it(void **state)
{
	const char *db = scratch_path("demo.db"), *page = scratch_path("demo.html");
	char view[96];
	int64_t start, nak;
	struct run r;

	(void)state;
	record_demo(db);
	plot_ok(&r, db, "-o", page, NULL);
	assert_non_null(strstr(r.err, "faultline plot: session 1 of"));
	python_check(&r, "plot_check.py", "data", page, db, "1", NULL);
	python_check(&r, "plot_check.py", "browser", page, db, "1", "--png",
		     scratch_path("demo.png"), NULL);
	/* Zoomed in on the NAK, through the page's address: the stall's
	 * major faults, the NAK's tick, each where its time puts it. */
	start = db_int(db, "SELECT start_ts FROM session");
	nak = db_int(db, "SELECT min(m.ts) FROM metric m JOIN metric_series s "
		     "USING (series_id) WHERE s.name = 'nak'");
	if (nak == INT64_MIN)	/* no NAK this time (test_demo says why): the stall */
		nak = db_int(db, "SELECT ts + dur FROM fault ORDER BY dur DESC LIMIT 1");
	snprintf(view, sizeof(view), "%lld,%lld", (long long)(nak - start - 150000000),
		 (long long)(nak - start + 50000000));
	python_check(&r, "plot_check.py", "browser", page, db, "1", "--view", view, NULL);
	plot_ok(&r, db, "-o", scratch_path("demo.svg"), "-q", NULL);
	python_check(&r, "plot_check.py", "svg", scratch_path("demo.svg"), db, "1", NULL);
	finding_windows(db);
}

static void the_page_holds_every_row_once_and_each_long_fault_as_recorded(void **state)
{
	const char *page = scratch_path("fixture.html");
	struct run r;

	(void)state;
	plot_ok(&r, plot_fixture_db(), "--session", "2", "-o", page, NULL);
	python_check(&r, "plot_check.py", "data", page, plot_fixture_db(), "2", NULL);
	python_check(&r, "plot_check.py", "browser", page, plot_fixture_db(), "2", NULL);
	/* A lane for each thread with rows; the one without a name has "". */
	assert_string_equal(page_get(page, "[(t['tid'], t['comm']) for t in D['threads']]"),
			    "[[101, \"rx</script><!--\\\"\\\\\\u00e9\"], [102, \"worker\"], "
			    "[103, \"\"]]");
	/* The unfinished fault, kept, and the stack the major one names. */
	assert_string_equal(page_get(page, "[f[:4] for f in D['threads'][0]['f'] if f[2] == 2]"),
			    "[[6000000000, 0, 2, 1]]");
	assert_string_equal(page_get(page, "D['stacks']['1']"),
			    "\"_dl_fixup <- _dl_runtime_resolve <- main\"");
	/* The imported series as ticks, the sampled one as a line; the
	 * infinite value is not a point. */
	assert_string_equal(page_get(page, "[(m['name'], m['style'], len(m['p'])) "
				     "for m in D['metrics']]"),
			    "[[\"nak\", \"ticks\", 2], [\"udp_rx_queue_bytes\", \"line\", 7]]");
}

static void lost_records_shade_from_the_cpus_last_record_to_the_report(void **state)
{
	const char *page = scratch_path("lost.html");
	struct run r;

	(void)state;
	plot_ok(&r, plot_fixture_db(), "--session", "2", "-o", page, NULL);
	/* cpu 0: the last fault entry before +3s was at +2.5s, and nothing
	 * between +3s and +4s; cpu 1 was throttled from +3.5s to its next
	 * record, a tracepoint hit at +3.6s. */
	assert_string_equal(page_get(page, "D['lost']"),
			    "[[2500000000, 3000000000, 0, \"records\", 5], "
			    "[3500000000, 3600000000, 1, \"throttled\", 1], "
			    "[3000000000, 4000000000, 0, \"records\", 7]]");
	assert_string_equal(page_get(page, "D['counts']['lost_untimed']"), "1");
	/* The blocked interval built across a loss says so. */
	assert_string_equal(page_get(page, "[s[2:4] for s in D['threads'][0]['s'] "
				     "if s[3] & 1]"), "[[3, 1]]");
}

static void merges_say_what_they_hold(void **state)
{
	const char *page = scratch_path("merge.html");
	struct run r;

	(void)state;
	/* 200 px, no zoom: a column is 50 ms. */
	plot_ok(&r, plot_fixture_db(), "--session", "2", "-o", page, "--width", "200",
		"--zoom", "1", NULL);
	assert_string_equal(page_get(page, "D['quantum_ns']"), "50000000");
	/* The 200 faults of 1.5 us within 20 ms: one mark, count, longest,
	 * total. */
	assert_string_equal(page_get(page, "[f for f in D['threads'][0]['f'] if f[3] > 1]"),
			    "[[3000000000, 19901500, 0, 200, 1500, 300000]]");
	/* 102's 200 intervals of 10 us: one block of 2 ms, half running. */
	assert_string_equal(page_get(page, "[s for s in D['threads'][1]['s'] if s[3] & 4]"),
			    "[[2300000000, 2000000, 0, 4, 200, [1000000, 0, 1000000, 0, 0, 0, 0]]]");
	python_check(&r, "plot_check.py", "data", page, plot_fixture_db(), "2", NULL);
}

static void the_window_and_the_lanes_are_what_was_asked(void **state)
{
	const char *page = scratch_path("window.html");
	struct run r;

	(void)state;
	/* 200 ms around +2.2s: the major fault begun at +2.0s reaches in. */
	plot_ok(&r, plot_fixture_db(), "--session", "2", "-o", page, "--around",
		"+2200ms", "--window", "200ms", NULL);
	assert_string_equal(page_get(page, "[D['origin_ns'], D['span_ns']]"),
			    "[\"1700000002100000000\", 200000000]");
	assert_string_equal(page_get(page, "[t['tid'] for t in D['threads']]"), "[101, 102]");
	assert_string_equal(page_get(page, "D['threads'][0]['f'][0][:4]"),
			    "[-100000000, 150000000, 1, 1]");
	python_check(&r, "plot_check.py", "data", page, plot_fixture_db(), "2", NULL);
	/* A UTC time of day on the session's day, and a date and time. */
	plot_ok(&r, plot_fixture_db(), "--session", "2", "-o", page, "--from",
		"22:13:22", "--to", "2023-11-14T22:13:22.5Z", "--tid", "102",
		"--metric", "nak", "--metric", "udp_rx_queue_bytes=ticks", NULL);
	assert_string_equal(page_get(page, "[D['origin_ns'], D['span_ns']]"),
			    "[\"1700000002000000000\", 500000000]");
	assert_string_equal(page_get(page, "[t['tid'] for t in D['threads']]"), "[102]");
	assert_string_equal(page_get(page, "[(m['name'], m['style']) for m in D['metrics']]"),
			    "[[\"nak\", \"ticks\"], [\"udp_rx_queue_bytes\", \"ticks\"]]");
	python_check(&r, "plot_check.py", "browser", page, plot_fixture_db(), "2", NULL);
}

static void an_svg_picture_has_a_lane_per_busy_thread(void **state)
{
	const char *svg = scratch_path("fixture.svg");
	struct run r;

	(void)state;
	plot_ok(&r, plot_fixture_db(), "--session", "2", "-o", svg, NULL);
	python_check(&r, "plot_check.py", "svg", svg, plot_fixture_db(), "2", NULL);
}

/* The kernel keeps 15 bytes of a thread's name and may cut a UTF-8
 * character in two; the SVG stays well-formed XML (plot_check.py parses
 * it), the cut shown as U+FFFD, the rest of the name kept. */
static void an_svg_picture_stays_well_formed_with_a_name_cut_mid_character(void **state)
{
	const char *db = scratch_path("cut.db"), *svg = scratch_path("cut.svg");
	char sql[512], buf[1 << 16];
	sqlite3 *h = NULL;
	struct run r;

	(void)state;
	unlink(db);
	snprintf(sql, sizeof(sql), "VACUUM INTO '%s'", db);
	assert_int_equal(sqlite3_open(plot_fixture_db(), &h), SQLITE_OK);
	assert_int_equal(sqlite3_exec(h, sql, NULL, NULL, NULL), SQLITE_OK);
	sqlite3_close(h);
	assert_int_equal(sqlite3_open(db, &h), SQLITE_OK);
	/* "rx-\u65e5\u672c" cut after the first byte of U+672C, then an
	 * ESC, which XML 1.0 has no place for either. */
	assert_int_equal(sqlite3_exec(h, "UPDATE thread SET comm = CAST(x'72782de697a5e6'"
				      " AS TEXT) || char(27) WHERE session_id = 2", NULL,
				      NULL, NULL), SQLITE_OK);
	sqlite3_close(h);
	plot_ok(&r, db, "--session", "2", "-o", svg, NULL);
	python_check(&r, "plot_check.py", "svg", svg, db, "2", NULL);
	slurp(svg, buf, sizeof(buf));
	assert_non_null(strstr(buf, "rx-\xe6\x97\xa5\xef\xbf\xbd?"));
}

/* A copy of the fixture with two idle threads: 104 in process 100 ran,
 * slept woken by a thread (idle waiting) and waited 0.5 ms for a CPU
 * (runnable, but shorter than a stall worth a lane); 201, alone in
 * process 200, only slept.  Path in a static buffer. */
static const char *idle_fixture(void)
{
	static char db[256];
	char sql[512];
	sqlite3 *h = NULL;

	snprintf(db, sizeof(db), "%s", scratch_path("idle.db"));
	unlink(db);
	snprintf(sql, sizeof(sql), "VACUUM INTO '%s'", db);
	assert_int_equal(sqlite3_open(plot_fixture_db(), &h), SQLITE_OK);
	assert_int_equal(sqlite3_exec(h, sql, NULL, NULL, NULL), SQLITE_OK);
	sqlite3_close(h);
	assert_int_equal(sqlite3_open(db, &h), SQLITE_OK);
	assert_int_equal(sqlite3_exec(h,
		"INSERT INTO thread VALUES (2, 104, 100, 'idler', " T0 ", " T0 "+10000000000),"
		" (2, 201, 200, 'other', " T0 ", " T0 "+10000000000);"
		"INSERT INTO thread_state (session_id, tid, pid, ts, dur, state, cpu,"
		" waker_tid, waker_cpu, preempted, uncertain) VALUES"
		" (2, 104, 100, " T0 "+2000000000, 1000000000, 'running', 1, NULL, NULL, 0, 0),"
		" (2, 104, 100, " T0 "+3000000000, 2000000000, 'sleeping', NULL, 101, 0, 0, 0),"
		" (2, 104, 100, " T0 "+5000000000, 500000, 'runnable', NULL, NULL, NULL, 0, 0),"
		" (2, 201, 200, " T0 "+2000000000, 3000000000, 'sleeping', NULL, 101, 0, 0, 0);",
		NULL, NULL, NULL), SQLITE_OK);
	sqlite3_close(h);
	return db;
}

/*
 * The keys and the wheel move the view as the man page says, and the
 * window line and the address follow: + twice and Ctrl + wheel zoom in,
 * an arrow moves along; - past the whole window stops at it; so does a
 * move past its end.
 */
static void keys_and_the_wheel_zoom_and_move_the_view_and_the_address(void **state)
{
	const char *page = scratch_path("keys.html");
	struct run r;

	(void)state;
	plot_ok(&r, plot_fixture_db(), "--session", "2", "-o", page, "-q", NULL);
	python_check(&r, "plot_check.py", "browser", page, plot_fixture_db(), "2",
		     "--input", "+,+,ArrowRight,wheel:400:-300", "--png",
		     scratch_path("keys.png"), NULL);
	python_check(&r, "plot_check.py", "browser", page, plot_fixture_db(), "2",
		     "--view", "2000000000,3000000000", "--input", "-,-,-,-,a", NULL);
	python_check(&r, "plot_check.py", "browser", page, plot_fixture_db(), "2",
		     "--view", "2000000000,3000000000", "--input",
		     "d,d,d,d,d,d,d,d,d,d,d,d,d,d,d,d,d,d,d,d,d,d,d,d,d,d,d,d,d,d,d,d,d,d,d,d,d,d,d,d",
		     NULL);
}

/*
 * Threads come by process, each process under a header; a thread with
 * neither a fault nor a stall of 1 ms in the window gets no lane, and
 * its process counts it, unless --all-threads.  A fold closed through the
 * address hides its process's lanes and keeps its header.
 */
static void idle_threads_are_folded_away_and_counted(void **state)
{
	const char *db = idle_fixture(), *page = scratch_path("idle.html");
	const char *svg = scratch_path("idle.svg");
	struct run r;

	(void)state;
	plot_ok(&r, db, "--session", "2", "-o", page, "-q", NULL);
	assert_string_equal(page_get(page, "[t['tid'] for t in D['threads']]"),
			    "[101, 102, 103]");
	assert_string_equal(page_get(page, "[(p['pid'], p['threads'], p['idle']) "
				     "for p in D['processes']]"), "[[100, 3, 1], [200, 0, 1]]");
	assert_string_equal(page_get(page, "[D['idle_hidden'], D['all_threads']]"), "[2, 0]");
	python_check(&r, "plot_check.py", "data", page, db, "2", NULL);
	python_check(&r, "plot_check.py", "browser", page, db, "2", "--png",
		     scratch_path("idle.png"), NULL);
	python_check(&r, "plot_check.py", "browser", page, db, "2", "--view",
		     "2000000000,3000000000", "--fold", "100", "--png",
		     scratch_path("idle-folded.png"), NULL);
	plot_ok(&r, db, "--session", "2", "-o", svg, "-q", NULL);
	python_check(&r, "plot_check.py", "svg", svg, db, "2", NULL);

	plot_ok(&r, db, "--session", "2", "-o", page, "-q", "--all-threads", NULL);
	assert_string_equal(page_get(page, "[t['tid'] for t in D['threads']]"),
			    "[101, 102, 103, 104, 201]");
	assert_string_equal(page_get(page, "[(p['pid'], p['threads'], p['idle']) "
				     "for p in D['processes']]"), "[[100, 4, 0], [200, 1, 0]]");
	python_check(&r, "plot_check.py", "data", page, db, "2", NULL);
	plot_ok(&r, db, "--session", "2", "-o", svg, "-q", "--all-threads", NULL);
	python_check(&r, "plot_check.py", "svg", svg, db, "2", "--all-threads", NULL);
	/* A thread asked for by tid is drawn, idle or not. */
	plot_ok(&r, db, "--session", "2", "-o", page, "-q", "--tid", "201", NULL);
	assert_string_equal(page_get(page, "[[t['tid'] for t in D['threads']], "
				     "D['idle_hidden']]"), "[[201], 0]");
}

/* A path in $BUILD/plot-shots, which outlives the scratch directory:
 * the screenshots a person looks at.  Static buffer. */
static const char *shot_path(const char *name)
{
	static char path[512];
	const char *build = getenv("BUILD");

	snprintf(path, sizeof(path), "%s/plot-shots", build ? build : "build/release");
	mkdir(path, 0755);
	snprintf(path + strlen(path), sizeof(path) - strlen(path), "/%s", name);
	print_message("screenshot: %s\n", path);
	return path;
}

/* A copy of the fixture where 101's runnable wait of 0.5 ms at +2.1495 s
 * (it ran next on cpu 0) has what ran instead: 'hog' (999) 0.3 ms, the
 * idle task 0.15 ms; 0.05 ms of the wait is before the history kept.
 * Path in a static buffer. */
static const char *held_fixture(void)
{
	static char db[256];
	char sql[512];
	sqlite3 *h = NULL;

	snprintf(db, sizeof(db), "%s", scratch_path("held.db"));
	unlink(db);
	snprintf(sql, sizeof(sql), "VACUUM INTO '%s'", db);
	assert_int_equal(sqlite3_open(plot_fixture_db(), &h), SQLITE_OK);
	assert_int_equal(sqlite3_exec(h, sql, NULL, NULL, NULL), SQLITE_OK);
	sqlite3_close(h);
	assert_int_equal(sqlite3_open(db, &h), SQLITE_OK);
	assert_int_equal(sqlite3_exec(h,
		"INSERT INTO ran_instead VALUES"
		" (2, 101, " T0 "+2149500000, 0, 999, 'hog', 300000),"
		" (2, 101, " T0 "+2149500000, 0, 0, NULL, 150000);",
		NULL, NULL, NULL), SQLITE_OK);
	sqlite3_close(h);
	return db;
}

/*
 * A lane per CPU the targets ran on: their running intervals, and in a
 * wait the holders' shares, longest first, ending with the wait.
 * Hovering an interval a wake-up ended draws one arrow from the waker's
 * lane at the wake-up to where the thread next ran; the SVG draws the
 * CPU lanes too.  Screenshots: the whole page, a zoomed view with the
 * shares, a hover with its arrow.
 */
static void cpu_lanes_show_who_held_the_cpu_and_a_hover_draws_the_wake_up(void **state)
{
	const char *db = held_fixture(), *page = scratch_path("held.html");
	const char *svg = scratch_path("held.svg");
	struct run r;

	(void)state;
	plot_ok(&r, db, "--session", "2", "-o", page, "-q", "--around", "+2150ms",
		"--window", "10ms", NULL);
	assert_string_equal(page_get(page, "[(c['cpu'], [x[:4] for x in c['r']], c['h']) "
				     "for c in D['cpus']]"),
			    "[[0, [[5000000, 50000000, 1, 101]], "
			    "[[4550000, 300000, 1, 999, \"hog (999)\", 101, 4500000, 500000], "
			    "[4850000, 150000, 1, 0, \"idle\", 101, 4500000, 500000]]], "
			    "[1, [[-95000000, 250000000, 1, 102]], []]]");
	python_check(&r, "plot_check.py", "data", page, db, "2", NULL);
	/* The wait woken by 102 (on cpu 1): the arrow from 102's lane. */
	python_check(&r, "plot_check.py", "browser", page, db, "2", "--held", "0:999",
		     "--hover", "101:4500000", "--png", shot_path("cpu-zoomed.png"), NULL);
	/* The whole session: 102's sleep, woken by 101, and the CPUs folded. */
	plot_ok(&r, db, "--session", "2", "-o", page, "-q", NULL);
	python_check(&r, "plot_check.py", "data", page, db, "2", NULL);
	python_check(&r, "plot_check.py", "browser", page, db, "2", "--png",
		     shot_path("cpu-whole.png"), NULL);
	python_check(&r, "plot_check.py", "browser", page, db, "2", "--hover",
		     "102:1500000000", "--png", shot_path("cpu-hover.png"), NULL);
	python_check(&r, "plot_check.py", "browser", page, db, "2", "--fold", "cpus",
		     NULL);
	plot_ok(&r, db, "--session", "2", "-o", svg, "-q", NULL);
	python_check(&r, "plot_check.py", "svg", svg, db, "2", NULL);
}

/*
 * A recording where a shell loop pinned to a CPU waits behind a busy
 * loop on it (as test_ran_instead forces it): the page has that CPU's
 * lane, with the loop holding the CPU inside one of the shell's waits.
 */
static void a_busy_loop_holding_a_targets_cpu_shows_on_its_cpu_lane(void **state)
{
	const char *db = scratch_path("hog.db"), *page = scratch_path("hog.html");
	int cpu = (int)sysconf(_SC_NPROCESSORS_ONLN) - 1;
	char cpus[16], held[48];
	pid_t loop;
	struct run r;

	(void)state;
	snprintf(cpus, sizeof(cpus), "%d", cpu);
	loop = start_busy_loop_on(cpu);
	if (run_faultline(&r, "record", "-o", db, "--", "taskset", "-c", cpus,
			  "timeout", "0.5", "sh", "-c", "while :; do :; done",
			  NULL) != 0 && !strstr(r.err, "exited with status 124"))
		fail_msg("record failed: %s", r.err);
	kill_leftovers(NULL);
	plot_ok(&r, db, "-o", page, "-q", NULL);
	python_check(&r, "plot_check.py", "data", page, db, "1", NULL);
	snprintf(held, sizeof(held), "%d:%d", cpu, (int)loop);
	python_check(&r, "plot_check.py", "browser", page, db, "1", "--held", held,
		     "--png", shot_path("hog-whole.png"), NULL);
}

/* faultline plot ARGS... refused with status and one line holding says. */
#define assert_refused(status, says, ...) \
	assert_refused_with(status, says, "plot", __VA_ARGS__)

static void bad_input_gets_one_message_and_leaves_no_file(void **state)
{
	const char *db = plot_fixture_db(), *dir = scratch_path("badplot");
	const char *out = scratch_path("badplot/p.html"), *kept = scratch_path("badplot/k.html");
	char buf[64] = "";
	FILE *f;

	(void)state;
	mkdir(dir, 0755);
	assert_refused(1, "session 3 of '", db, "-o", out, NULL);
	assert_refused(1, "holds nothing to plot", db, "-o", out, NULL);
	assert_refused(1, "nothing recorded between 2023-11-14T22:13:28.500000000Z and "
		       "2023-11-14T22:13:29.000000000Z", db, "--session", "2", "-o", out,
		       "--from", "+8500ms", "--to", "+9s", NULL);
	assert_refused(1, "it ran from 2023-11-14T22:13:20.000000000Z", db, "--session",
		       "2", "-o", out, "--from", "+8500ms", "--to", "+9s", NULL);
	assert_refused(1, "no thread 999 in session 2 of '", db, "--session", "2", "-o",
		       out, "--tid", "999", NULL);
	assert_refused(1, "it recorded 101 (", db, "--session", "2", "-o", out, "--tid",
		       "999", NULL);
	assert_refused(1, "no metric 'latency' beside session 2", db, "--session", "2",
		       "-o", out, "--metric", "latency", NULL);
	assert_refused(1, "it has nak, udp_rx_queue_bytes", db, "--session", "2", "-o",
		       out, "--metric", "latency", NULL);
	assert_refused(2, "invalid --from '25:00:00'", db, "--session", "2", "-o", out,
		       "--from", "25:00:00", NULL);
	assert_refused(2, "the window is empty", db, "--session", "2", "-o", out,
		       "--from", "+3s", "--to", "+2s", NULL);
	assert_refused(2, "--around and --from/--to each choose the window", db, "-o",
		       out, "--around", "+1s", "--from", "+0s", NULL);
	assert_refused(2, "--window needs --around", db, "-o", out, "--window", "1s", NULL);
	assert_refused(2, "cannot tell the format of", db, "-o", scratch_path("p.png"), NULL);
	assert_refused(2, "no output given", db, NULL);
	assert_refused(2, "invalid --metric 'nak=bars'", db, "-o", out, "--metric",
		       "nak=bars", NULL);
	assert_refused(2, "is the database itself", db, "-o", db, NULL);
	assert_refused(1, "No such file or directory; create the directory first", db,
		       "--session", "2", "-o", scratch_path("badplot/no/p.html"), NULL);
	assert_false(dir_has(dir, "\\."));
	assert_false(dir_has(dir, "p.html"));
	/* A failed plot leaves an earlier file as it was. */
	f = fopen(kept, "w");
	assert_non_null(f);
	fputs("earlier\n", f);
	assert_int_equal(fclose(f), 0);
	assert_refused(1, "no thread 999", db, "--session", "2", "-o", kept, "--tid",
		       "999", NULL);
	slurp(kept, buf, sizeof(buf));
	assert_string_equal(buf, "earlier\n");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(the_demo_draws_in_chromium_with_every_mark_where_its_time_puts_it,
					  kill_leftovers),
		cmocka_unit_test(the_page_holds_every_row_once_and_each_long_fault_as_recorded),
		cmocka_unit_test(lost_records_shade_from_the_cpus_last_record_to_the_report),
		cmocka_unit_test(merges_say_what_they_hold),
		cmocka_unit_test(the_window_and_the_lanes_are_what_was_asked),
		cmocka_unit_test(an_svg_picture_has_a_lane_per_busy_thread),
		cmocka_unit_test(an_svg_picture_stays_well_formed_with_a_name_cut_mid_character),
		cmocka_unit_test(idle_threads_are_folded_away_and_counted),
		cmocka_unit_test(keys_and_the_wheel_zoom_and_move_the_view_and_the_address),
		cmocka_unit_test(cpu_lanes_show_who_held_the_cpu_and_a_hover_draws_the_wake_up),
		cmocka_unit_test_teardown(a_busy_loop_holding_a_targets_cpu_shows_on_its_cpu_lane,
					  kill_leftovers),
		cmocka_unit_test(bad_input_gets_one_message_and_leaves_no_file),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
