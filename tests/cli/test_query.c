/*
 * faultline query and faultline report on a database of known contents:
 * made through the real schema (db_open_write, then the indexes), filled
 * with rows whose answers are worked out by hand below, so each canned
 * query's rows are compared exactly.  Then every message a user can
 * cause: one line, cause and fix, non-zero exit.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include "../../schema/db.h"
#include "../../schema/query_def.h"
#include "../integration/run.h"

/* 2023-11-14T22:13:20Z, in ns: the fixture's session 2 starts here. */
#define T0 "1700000000000000000"

/*
 * Session 1 ran 100 s before session 2 and holds one long fault.
 * Session 2 (the latest), threads 101 (named init, then rx from T0+1s)
 * and 102 (worker):
 *   101 faults: major 150 ms at +2.0s (stack 1), minor 2 us at +2.5s,
 *       minor 3 ms at +5s
 *   102 faults: major 300 ms at +1.7s (ends at +2.0s), minor 5 ms at +2.1s
 *   101 states: running +1.9s 100.5ms, blocked +2.0005s 149ms (stack 2,
 *       whose middle frame has no name and no file offset),
 *       runnable 0.5ms (woken by 102, its name only in the thread table),
 *       running 50ms, sleeping +2.2s 50ms (woken by tid 0 on CPU 1,
 *       recorded before schema 6: an interrupt on an idle CPU), running
 *       to +8s
 *   102 states: sleeping +1.5s 550ms (woken by 101, named rx-main by the
 *       wake-up), running to +2.3s
 *   histograms: 101 minor 90 + 9 + 1 (the longest 2.5 ms) and major 1
 *       (150 ms); 102 major 1 (300 ms) and minor 1 (5 ms); 103 and 104,
 *       threads without a name, 500 and 50 minor faults of 1.5 us at most
 *   nak events (imported): +2.2s value 12, +6s value 3, and one in
 *       session 1's span; socket depth sampled every 50 ms +1.95s..+2.25s
 */
static const char fixture_sql[] =
	"INSERT INTO session (session_id, start_ts, end_ts, status, host, kernel,"
	" command_line, options, faultline_version, start_realtime_ns,"
	" start_monotonic_ns, min_fault_dur, buffer_bytes, cpus, faults_total,"
	" faults_stored, faults_unfinished, faults_unpaired_exit, records_lost,"
	" samples_lost) VALUES"
	" (1, " T0 "-100000000000, " T0 "-90000000000, 'complete', 'h', 'k',"
	"  'faultline record -p 100', '', '0.1.0', 0, 0, 0, 4096, 2, 1, 1, 0, 0, 0, 0),"
	" (2, " T0 ", " T0 "+10000000000, 'complete', 'h', 'k',"
	"  'faultline record -o t.db -p 100', '', '0.1.0', 0, 0, 1000, 4096, 2,"
	"  107, 6, 2, 0, 12, 0);"
	"INSERT INTO thread VALUES (1, 101, 100, 'old-rx', " T0 "-100000000000, " T0 "-90000000000),"
	" (2, 101, 100, 'init', " T0 ", " T0 "+1000000000),"
	" (2, 101, 100, 'rx', " T0 "+1000000000, " T0 "+8000000000),"
	" (2, 102, 100, 'worker', " T0 ", " T0 "+2300000000);"
	"INSERT INTO fault (session_id, ts, dur, tid, pid, cpu, exit_cpu, kind, addr, ip,"
	" stack_id) VALUES"
	" (1, " T0 "-95000000000, 100000000, 101, 100, 0, 0, 'major', 4096, 8192, NULL),"
	" (2, " T0 "+2000000000, 150000000, 101, 100, 0, 1, 'major', 4096, 8192, 1),"
	" (2, " T0 "+2500000000, 2000, 101, 100, 0, 0, 'minor', 8192, 8192, NULL),"
	" (2, " T0 "+5000000000, 3000000, 101, 100, 0, 0, 'minor', 8192, 8192, NULL),"
	" (2, " T0 "+1700000000, 300000000, 102, 100, 1, 1, 'major', 4096, 8192, NULL),"
	" (2, " T0 "+2100000000, 5000000, 102, 100, 1, 1, 'minor', 4096, 8192, NULL);"
	"INSERT INTO thread_state (session_id, tid, pid, ts, dur, state, cpu, waker_tid,"
	" waker_cpu, preempted, uncertain, stack_id, waker_comm) VALUES"
	" (2, 101, 100, " T0 "+1900000000, 100500000, 'running', 0, NULL, NULL, 0, 0, NULL, NULL),"
	" (2, 101, 100, " T0 "+2000500000, 149000000, 'blocked', 0, NULL, NULL, 0, 0, 2, NULL),"
	" (2, 101, 100, " T0 "+2149500000, 500000, 'runnable', 0, 102, 1, 0, 0, NULL, NULL),"
	" (2, 101, 100, " T0 "+2150000000, 50000000, 'running', 0, NULL, NULL, 0, 0, NULL, NULL),"
	" (2, 101, 100, " T0 "+2200000000, 50000000, 'sleeping', 0, 0, 1, 0, 0, NULL,"
	"  'swapper/1'),"
	" (2, 101, 100, " T0 "+2250000000, 5750000000, 'running', 0, NULL, NULL, 0, 0, NULL, NULL),"
	" (2, 102, 100, " T0 "+1500000000, 550000000, 'sleeping', 1, 101, 0, 0, 0, NULL,"
	"  'rx-main'),"
	" (2, 102, 100, " T0 "+2050000000, 250000000, 'running', 1, NULL, NULL, 0, 0, NULL, NULL);"
	"INSERT INTO fault_histogram (session_id, tid, kind, lo_ns, hi_ns, count, max_ns)"
	" VALUES (2, 101, 'minor', 1024, 2048, 90, NULL),"
	" (2, 101, 'minor', 2048, 4096, 9, NULL), (2, 101, 'minor', 2097152, 4194304, 1, 2500000),"
	" (2, 101, 'major', 134217728, 268435456, 1, 150000000),"
	" (2, 102, 'major', 268435456, 536870912, 1, 300000000),"
	" (2, 102, 'minor', 4194304, 8388608, 1, 5000000),"
	" (2, 103, 'minor', 1024, 2048, 500, 1500), (2, 104, 'minor', 1024, 2048, 50, 1500);"
	"INSERT INTO lost VALUES (2, " T0 "+3000000000, 0, 'records', 5),"
	" (2, " T0 "+4000000000, 0, 'records', 7),"
	" (2, " T0 "+3500000000, 1, 'throttled', 1);"
	"INSERT INTO stack VALUES (2, 1, 100, 4, 'fp', NULL), (2, 2, 100, 3, 'fp', NULL);"
	"INSERT INTO stack_frame VALUES (2, 1, 0, 10), (2, 1, 1, 11), (2, 1, 2, 12),"
	" (2, 1, 3, 13), (2, 2, 0, 20), (2, 2, 1, 14), (2, 2, 2, 13);"
	"INSERT INTO frame VALUES (2, 10, 100, 4096, 0, 0, '/lib/ld.so', 4096, NULL, 'ok'),"
	" (2, 11, 100, 8192, 0, 1, '/lib/ld.so', 8192, NULL, 'ok'),"
	" (2, 12, 100, 12288, 0, 1, '/usr/bin/rx', 4660, NULL, 'no-symbol'),"
	" (2, 13, 100, 16384, 0, 1, '/usr/bin/rx', 8192, NULL, 'ok'),"
	" (2, 14, 100, 2147352576, 0, 1, '[stack]', NULL, NULL, 'no-symbol'),"
	" (2, 15, 100, 20480, 0, 1, NULL, NULL, NULL, NULL),"
	" (2, 20, -1, -4096, 1, 0, '[kernel.kallsyms]', NULL, NULL, 'ok');"
	"INSERT INTO symbol VALUES (2, 10, 0, 'do_lookup_x', 0, NULL, NULL, NULL, 1),"
	" (2, 10, 1, '_dl_fixup', 16, 200, NULL, NULL, 0),"
	" (2, 11, 0, '_dl_runtime_resolve', 8, 100, NULL, NULL, 0),"
	" (2, 13, 0, 'main', 32, 300, 'rx.c', 12, 0),"
	" (2, 20, 0, 'io_schedule', 4, 50, NULL, NULL, 0);"
	"INSERT INTO metric_series VALUES (1, NULL, 'nak', '{}', NULL, 'naks.csv', 0),"
	" (2, 2, 'udp_rx_queue_bytes', '{\"port\":9000,\"inode\":77}', 'bytes', 'sampler', 0);"
	"INSERT INTO metric VALUES (1, " T0 "+2200000000, 12), (1, " T0 "+6000000000, 3),"
	" (1, " T0 "-94950000000, 1),"
	" (2, " T0 "+1950000000, 0), (2, " T0 "+2000000000, 1000),"
	" (2, " T0 "+2050000000, 50000), (2, " T0 "+2100000000, 120000),"
	" (2, " T0 "+2150000000, 212992), (2, " T0 "+2200000000, 100),"
	" (2, " T0 "+2250000000, 0);";

static const char *fixture_db(void)
{
	/* Its own copy: scratch_path's buffers are reused after eight. */
	static char buf[256];
	static const char *path;
	struct errmsg e;
	sqlite3 *db = NULL;

	if (path)
		return path;
	snprintf(buf, sizeof(buf), "%s", scratch_path("fixture.db"));
	path = buf;
	errmsg_init(&e);
	if (db_open_write(path, &db, &e) < 0)
		fail_msg("%s", e.text);
	if (sqlite3_exec(db, fixture_sql, NULL, NULL, NULL) != SQLITE_OK)
		fail_msg("fixture: %s", sqlite3_errmsg(db));
	if (db_build_indexes(db, path, &e) < 0)
		fail_msg("%s", e.text);
	db_close(db);
	return path;
}

/* The whole of a run's stdout (r.out holds only the first 4 KiB). */
static char *full_stdout(const struct run *r)
{
	static char buf[1 << 16];

	slurp(r->outpath, buf, sizeof(buf));
	return buf;
}

/* Writes text to a new file at path. */
static void write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	fputs(text, f);
	assert_int_equal(fclose(f), 0);
}

/* A copy of the fixture as scratch file name, with sql (or NULL) run on
 * it: for a test that adds or changes rows. */
static const char *fixture_copy(const char *name, const char *sql)
{
	const char *db = scratch_path(name);
	char vacuum[512];
	sqlite3 *h = NULL;

	unlink(db);
	snprintf(vacuum, sizeof(vacuum), "VACUUM INTO '%s'", db);
	assert_int_equal(sqlite3_open(fixture_db(), &h), SQLITE_OK);
	assert_int_equal(sqlite3_exec(h, vacuum, NULL, NULL, NULL), SQLITE_OK);
	sqlite3_close(h);
	if (sql) {
		assert_int_equal(sqlite3_open(db, &h), SQLITE_OK);
		if (sqlite3_exec(h, sql, NULL, NULL, NULL) != SQLITE_OK)
			fail_msg("%s: %s", name, sqlite3_errmsg(h));
		sqlite3_close(h);
	}
	return db;
}

/* Runs 'faultline query FIXTURE NAME args... -f csv' and compares. */
static void assert_csv(const char *want, const char *name, ...)
{
	char *argv[32];
	int n = 0;
	struct run r;
	va_list ap;

	argv[n++] = (char *)faultline_bin();
	argv[n++] = "query";
	argv[n++] = (char *)fixture_db();
	argv[n++] = (char *)name;
	va_start(ap, name);
	while (n < 28 && (argv[n] = va_arg(ap, char *)))
		n++;
	va_end(ap);
	argv[n++] = "--format";
	argv[n++] = "csv";
	argv[n] = NULL;
	run_argv(&r, argv);
	if (r.status != 0)
		fail_msg("query %s exited %d: %s", name, r.status, r.err);
	assert_string_equal(full_stdout(&r), want);
}

#define E1 "2023-11-14T22:13:22.200000000Z"
#define STACK1 "do_lookup_x <- _dl_fixup <- _dl_runtime_resolve <- /usr/bin/rx+0x1234 <- main"

static void stalls_near_lists_what_reached_into_the_window_before_each_event(void **state)
{
	(void)state;
	assert_csv("tid,comm,stall,start_utc,dur_ms,waker_tid,waker,events,first_event_utc,before_ms,event_values,stack\r\n"
		   "101,rx,major fault,2023-11-14T22:13:22.000000000Z,150.0,,,1," E1 ",200.0,12.0,"
		   STACK1 "\r\n"
		   "101,rx,blocked,2023-11-14T22:13:22.000500000Z,149.0,,,1," E1 ",199.5,12.0,"
		   "io_schedule <- 0x7ffe0000 <- main\r\n"
		   "102,worker,minor fault,2023-11-14T22:13:22.100000000Z,5.0,,,1," E1 ",100.0,12.0,\r\n",
		   "stalls-near", "metric=nak", "window=200ms", "min_dur=1ms", NULL);
}

static void stalls_near_takes_a_thread_a_session_and_any_duration_unit(void **state)
{
	(void)state;
	assert_csv("tid,comm,stall,start_utc,dur_ms,waker_tid,waker,events,first_event_utc,before_ms,event_values,stack\r\n"
		   "101,rx,major fault,2023-11-14T22:13:22.000000000Z,150.0,,,1," E1 ",200.0,12.0,"
		   STACK1 "\r\n",
		   "stalls-near", "metric=nak", "tid=101", "min_dur=149500us", NULL);
	/* A decimal, exact: 0.1495s keeps the 150 ms fault and drops the
	 * 149 ms block, as 149500us does. */
	assert_csv("tid,comm,stall,start_utc,dur_ms,waker_tid,waker,events,first_event_utc,before_ms,event_values,stack\r\n"
		   "101,rx,major fault,2023-11-14T22:13:22.000000000Z,150.0,,,1," E1 ",200.0,12.0,"
		   STACK1 "\r\n",
		   "stalls-near", "metric=nak", "tid=101", "min_dur=0.1495s",
		   "window=0.2s", NULL);
	assert_csv("tid,comm,stall,start_utc,dur_ms,waker_tid,waker,events,first_event_utc,before_ms,event_values,stack\r\n"
		   "101,old-rx,major fault,2023-11-14T22:11:45.000000000Z,100.0,,,1,"
		   "2023-11-14T22:11:45.050000000Z,50.0,1.0,\r\n",
		   "stalls-near", "session=1", "metric=nak", NULL);
	/* In the 40 ms before each event, thread 102 ran. */
	assert_csv("tid,comm,stall,start_utc,dur_ms,waker_tid,waker,events,first_event_utc,before_ms,event_values,stack\r\n",
		   "stalls-near", "metric=nak", "window=40ms", "min_dur=1ms", "tid=102", NULL);
}

/*
 * A sample stamped when a request began, with the stall just after it:
 * matched with after=, and only the samples over min_value count.  The
 * fixture with one more stall: thread 102 blocked 20 ms from 10 ms after
 * the nak at +6s (value 3).
 */
static void stalls_near_looks_after_an_event_too_and_filters_by_value(void **state)
{
	const char *db = fixture_copy("after.db", "INSERT INTO thread_state (session_id, tid,"
				      " pid, ts, dur, state, preempted, uncertain) VALUES"
				      " (2, 102, 100, " T0 "+6010000000, 20000000,"
				      " 'blocked', 0, 0)");
	char *argv[] = { (char *)faultline_bin(), "query", (char *)db, "stalls-near",
			 "metric=nak", "window=0", "after=20ms", "-f", "csv", NULL,
			 NULL };
	struct run r;

	(void)state;
	assert_int_equal(run_argv(&r, argv), 0);
	assert_string_equal(r.out, "tid,comm,stall,start_utc,dur_ms,waker_tid,waker,"
			    "events,first_event_utc,before_ms,event_values,stack\r\n"
			    "102,worker,blocked,2023-11-14T22:13:26.010000000Z,20.0,,,1,"
			    "2023-11-14T22:13:26.000000000Z,-10.0,3.0,\r\n");
	/* The nak at +6s has value 3: under min_value=5, nothing. */
	argv[9] = "min_value=5";
	assert_int_equal(run_argv(&r, argv), 0);
	assert_string_equal(r.out, "tid,comm,stall,start_utc,dur_ms,waker_tid,waker,"
			    "events,first_event_utc,before_ms,event_values,stack\r\n");
	/* Without after=, a stall that began after the event is not its. */
	argv[6] = "after=0";
	argv[9] = NULL;
	assert_int_equal(run_argv(&r, argv), 0);
	assert_string_equal(r.out, "tid,comm,stall,start_utc,dur_ms,waker_tid,waker,"
			    "events,first_event_utc,before_ms,event_values,stack\r\n");
	/* diagnose takes the same two: of the two naks (values 12 and 3)
	 * only the first is 5 or more. */
	assert_int_equal(run_faultline(&r, "diagnose", fixture_db(), "--event", "nak",
				       "--min-value", "5", NULL), 0);
	assert_non_null(strstr(r.out, "(by the 'nak' events of value 5 or more they "
			       "preceded, 1 in all, then by time lost)"));
	assert_int_equal(run_faultline(&r, "diagnose", fixture_db(), "--event", "nak",
				       "--after", "20ms", NULL), 0);
	assert_non_null(strstr(r.out, "they preceded, or followed by at most 20.000 ms"));
	assert_int_equal(run_faultline(&r, "diagnose", fixture_db(), "--min-value",
				       "lots", NULL), 2);
	assert_string_equal(r.err, "faultline diagnose: invalid --min-value 'lots': "
			    "expected a number\n");
}

/*
 * Ranking: of findings that preceded the same NAK, the one whose stalls
 * lost more time just before it comes first, whatever the other lost in
 * all.  Thread 105 is preempted 10 ms every 50 ms from +0.3 s to +2.19 s:
 * 380 ms in all, about 40 ms of it in the 200 ms before the NAK at
 * +2.2 s; worker's and rx's major faults lost 300 and 150 ms, all of it
 * just before.
 */
static void findings_that_preceded_an_event_rank_by_the_time_lost_just_before_it(void **state)
{
	char sql[8192], *p = sql;
	const char *db, *first, *second, *third;
	struct run r;

	(void)state;
	p += sprintf(p, "INSERT INTO thread VALUES (2, 105, 100, 'diffuse', " T0 ", "
		     T0 "+8000000000); INSERT INTO thread_state (session_id, tid, pid,"
		     " ts, dur, state, preempted, uncertain, next_tid, next_comm) VALUES ");
	for (int k = 0; k < 38; k++)
		p += sprintf(p, "%s(2, 105, 100, " T0 "+%lld, 10000000, 'runnable', 1,"
			     " 0, 104, 'hog')", k ? ", " : "", 300000000LL + k * 50000000LL);
	db = fixture_copy("diffuse.db", sql);
	assert_int_equal(run_faultline(&r, "diagnose", db, "--event", "nak", "-f", "json",
				       NULL), 0);
	first = strstr(r.out, "\"tid\":102,");
	second = strstr(r.out, "\"tid\":101,");
	third = strstr(r.out, "\"tid\":105,");
	assert_true(first && second && third);
	assert_true(first < second && second < third);
	assert_non_null(strstr(third, "\"lost_ns\":380000000,"));
	assert_non_null(strstr(third, "\"events\":1,"));
}

/* stacks --sort: by time (default), by count, by the longest event.
 * Stack 1: one 150 ms fault; stack 2: the 149 ms block and three more
 * faults of 0.1 ms (149.3 ms in four events). */
static void stacks_rank_by_time_count_or_longest_event(void **state)
{
	const char *db = fixture_copy("sort.db", "INSERT INTO fault (session_id, ts, dur, tid,"
				      " pid, cpu, exit_cpu, kind, addr, ip, stack_id) VALUES"
				      " (2, " T0 "+3000000000, 100000, 101, 100, 0, 0,"
				      " 'minor', 4096, 8192, 2),"
				      " (2, " T0 "+3100000000, 100000, 101, 100, 0, 0,"
				      " 'minor', 4096, 8192, 2),"
				      " (2, " T0 "+3200000000, 100000, 101, 100, 0, 0,"
				      " 'minor', 4096, 8192, 2)");
	struct run r;

	(void)state;
	assert_int_equal(run_faultline(&r, "stacks", db, NULL), 0);
	assert_non_null(strstr(r.out, "; the most time first, frames innermost first\n"));
	assert_non_null(strstr(r.out, "\n#1  stack 1: 1 events, total 150.0 ms (50.1% of all)"));
	assert_non_null(strstr(r.out, "\n#2  stack 2: 4 events, total 149.3 ms"));
	assert_int_equal(run_faultline(&r, "stacks", db, "--sort", "count", NULL), 0);
	assert_non_null(strstr(r.out, "; the most frequent first,"));
	assert_non_null(strstr(r.out, "\n#1  stack 2: 4 events"));
	assert_int_equal(run_faultline(&r, "stacks", db, "--sort", "max", NULL), 0);
	assert_non_null(strstr(r.out, "; the longest event first,"));
	assert_non_null(strstr(r.out, "\n#1  stack 1: 1 events"));
	assert_int_equal(run_faultline(&r, "stacks", db, "--sort", "size", NULL), 2);
	assert_string_equal(r.err, "faultline stacks: invalid --sort 'size': expected "
			    "time, count or max\n");
}

/* A thread may name itself with terminal escapes (prctl PR_SET_NAME),
 * a JIT's perf map may name code so: a terminal shows them as \\x1b,
 * never acts on them; CSV and JSON keep the bytes in their own quoting. */
static void names_with_escape_sequences_are_shown_escaped_on_a_terminal(void **state)
{
	const char *db = fixture_copy("escapes.db", "UPDATE thread SET comm = 'rx' || char(27) ||"
				      " ']0;owned' || char(7) WHERE session_id = 2 AND"
				      " comm = 'rx'; UPDATE symbol SET function = 'main'"
				      " || char(27) || '[2J' WHERE session_id = 2 AND"
				      " function = 'main'; UPDATE session SET host ="
				      " 'h' || char(27) || '[31m' WHERE session_id = 2");
	struct run r;

	(void)state;
	assert_int_equal(run_faultline(&r, "query", db, "longest-faults", NULL), 0);
	assert_null(strchr(full_stdout(&r), 27));
	assert_non_null(strstr(full_stdout(&r), "rx\\x1b]0;owned\\x07"));
	assert_int_equal(run_faultline(&r, "report", db, NULL), 0);
	assert_null(strchr(full_stdout(&r), 27));
	assert_non_null(strstr(full_stdout(&r), "rx\\x1b]0;owned\\x07"));
	assert_non_null(strstr(full_stdout(&r), ", host h\\x1b[31m, labels "));
	assert_int_equal(run_faultline(&r, "stacks", db, NULL), 0);
	assert_null(strchr(full_stdout(&r), 27));
	assert_non_null(strstr(full_stdout(&r), "main\\x1b[2J+0x20"));
	assert_int_equal(run_faultline(&r, "diagnose", db, NULL), 0);
	assert_null(strchr(full_stdout(&r), 27));
	assert_non_null(strstr(full_stdout(&r), "thread:    rx\\x1b]0;owned\\x07 (101)"));
	/* CSV keeps the name as it is: a file, not a terminal. */
	assert_int_equal(run_faultline(&r, "query", db, "longest-faults", "-f", "csv",
				       NULL), 0);
	assert_non_null(strstr(full_stdout(&r), "rx\x1b]0;owned\x07"));
}

/* A spreadsheet runs a cell that begins with =, +, - or @: a TEXT value
 * so written gets a single quote first, in query -f csv and in export's
 * CSV alike; a number (-4096) stays a number. */
static void csv_text_that_begins_like_a_formula_is_neutralised_and_numbers_kept(void **state)
{
	const char *db = fixture_copy("formula.db", "UPDATE thread SET comm = '@SUM(A1)' WHERE"
				      " session_id = 2 AND comm = 'rx'; UPDATE thread"
				      " SET comm = '-x' WHERE comm = 'worker'");
	const char *dir = scratch_path("formula-csv");
	char path[512], buf[8192];
	struct run r;

	(void)state;
	assert_int_equal(run_faultline(&r, "query", db, "longest-faults", "-f", "csv",
				       NULL), 0);
	assert_non_null(strstr(full_stdout(&r), ",'@SUM(A1),"));
	assert_non_null(strstr(full_stdout(&r), ",'-x,"));
	assert_null(strstr(full_stdout(&r), ",@SUM"));
	/* The table is for a terminal, not a spreadsheet: as it is. */
	assert_int_equal(run_faultline(&r, "query", db, "longest-faults", NULL), 0);
	assert_non_null(strstr(full_stdout(&r), "  @SUM(A1)"));
	assert_int_equal(run_faultline(&r, "export", db, "--session", "2", "--format",
				       "csv", "-o", dir, "-q", NULL), 0);
	snprintf(path, sizeof(path), "%s/thread.csv", dir);
	slurp(path, buf, sizeof(buf));
	assert_non_null(strstr(buf, ",'@SUM(A1),"));
	assert_non_null(strstr(buf, ",'-x,"));
	snprintf(path, sizeof(path), "%s/frame.csv", dir);
	slurp(path, buf, sizeof(buf));
	assert_non_null(strstr(buf, "2,20,-1,-4096,"));
}

/* One value is written one way wherever it goes (common/sql_value.h):
 * query -f csv and export's CSV print the same line for the same row,
 * and query -f json has the same numbers, null for an infinity. */
static void query_csv_and_export_csv_write_a_value_alike(void **state)
{
	const char *db = fixture_copy("values.db", "CREATE TABLE later (r REAL, inf REAL,"
				      " ninf REAL, b BLOB, n INTEGER, i INTEGER, t TEXT);"
				      " INSERT INTO later VALUES (0.1, 1e999, -1e999, x'0a1b',"
				      " NULL, 12, 'a,\"b\"')");
	const char *sql = scratch_path("later.sql"), *dir = scratch_path("values-csv");
	static const char line[] = "0.1,inf,-inf,x'0a1b',,12,\"a,\"\"b\"\"\"\r\n";
	char path[512], buf[4096];
	FILE *f = fopen(sql, "w");
	struct run r;

	(void)state;
	assert_non_null(f);
	fputs("-- Every row of the later table.\nSELECT * FROM later\n", f);
	assert_int_equal(fclose(f), 0);
	assert_int_equal(run_faultline(&r, "query", db, sql, "-f", "csv", NULL), 0);
	assert_non_null(strstr(full_stdout(&r), line));
	assert_int_equal(run_faultline(&r, "export", db, "--session", "2", "--format",
				       "csv", "-o", dir, "-q", NULL), 0);
	snprintf(path, sizeof(path), "%s/later.csv", dir);
	slurp(path, buf, sizeof(buf));
	assert_non_null(strstr(buf, line));
	assert_int_equal(run_faultline(&r, "query", db, sql, "-f", "json", NULL), 0);
	assert_non_null(strstr(full_stdout(&r), "{\"r\": 0.1, \"inf\": null, \"ninf\": null,"
			       " \"b\": \"x'0a1b'\", \"n\": null, \"i\": 12,"
			       " \"t\": \"a,\\\"b\\\"\"}"));
}

/* Lazy binding reads the caller's file at its recorded path to name the
 * function bound; whoever owns that directory can put a FIFO there.
 * diagnose ends at once, the finding without the name. */
static void diagnose_reads_no_fifo_planted_at_a_caller_s_path(void **state)
{
	const char *db = fixture_copy("fifo-caller.db", NULL);
	const char *fifo = scratch_path("rx-fifo");
	char sql[512];
	sqlite3 *h = NULL;
	struct run r;
	char *argv[] = { (char *)faultline_bin(), "diagnose", (char *)db, NULL };
	int st = 0, waited_ms = 0;
	pid_t got;

	(void)state;
	assert_int_equal(mkfifo(fifo, 0666), 0);
	snprintf(sql, sizeof(sql), "UPDATE frame SET dso = '%s' WHERE session_id = 2"
		 " AND dso = '/usr/bin/rx'", fifo);
	assert_int_equal(sqlite3_open(db, &h), SQLITE_OK);
	assert_int_equal(sqlite3_exec(h, sql, NULL, NULL, NULL), SQLITE_OK);
	sqlite3_close(h);
	run_start_as(&r, -1, argv);
	while ((got = waitpid(r.pid, &st, WNOHANG)) == 0 && waited_ms < 30000) {
		sleep_ms(50);
		waited_ms += 50;
	}
	if (got == 0) {
		kill(r.pid, SIGKILL);
		run_wait(&r);
		unlink(fifo);
		fail_msg("diagnose still waiting on a FIFO after 30 s");
	}
	forget_started(r.pid);
	unlink(fifo);
	assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	slurp(r.outpath, r.out, sizeof(r.out));
	assert_non_null(strstr(r.out, "lazy binding: the first call of a function"));
}

/* report lines its findings up with the one imported metric and says so;
 * with two it picks neither, and says how to pick one. */
static void report_says_which_metric_its_findings_are_lined_up_with(void **state)
{
	const char *db = fixture_copy("two.db", "INSERT INTO metric_series VALUES (3, NULL,"
				      " 'lat', '{}', 'us', 'lat.csv', 0); INSERT INTO"
				      " metric VALUES (3, " T0 "+2100000000, 25000)");
	struct run r;

	(void)state;
	assert_int_equal(run_faultline(&r, "report", fixture_db(), NULL), 0);
	assert_non_null(strstr(full_stdout(&r), "\n(lined up with 'nak', the one "
			       "imported metric)\n"));
	assert_int_equal(run_faultline(&r, "report", db, NULL), 0);
	assert_non_null(strstr(full_stdout(&r), "(the imported metrics lat, nak: "
			       "the findings are ranked by time lost, lined up with "
			       "none; 'faultline diagnose "));
	assert_non_null(strstr(full_stdout(&r), " --event NAME' lines them up with one)"));
	assert_non_null(strstr(full_stdout(&r), "worst first (by time lost)"));
}

static void socket_depth_around_shows_the_queue_filling_during_the_fault(void **state)
{
	(void)state;
#define F1 "2023-11-14T22:13:22.000000000Z,101,major,150.0,\"{\"\"port\"\":9000,\"\"inode\"\":77}\","
	assert_csv("fault_utc,tid,kind,dur_ms,labels,sample_utc,offset_ms,during,value\r\n"
		   F1 "2023-11-14T22:13:21.950000000Z,-50.0,0,0.0\r\n"
		   F1 "2023-11-14T22:13:22.000000000Z,0.0,1,1000.0\r\n"
		   F1 "2023-11-14T22:13:22.050000000Z,50.0,1,50000.0\r\n"
		   F1 "2023-11-14T22:13:22.100000000Z,100.0,1,120000.0\r\n"
		   F1 "2023-11-14T22:13:22.150000000Z,150.0,1,212992.0\r\n"
		   F1 "2023-11-14T22:13:22.200000000Z,200.0,0,100.0\r\n",
		   "socket-depth-around", "tid=101", "min_dur=100ms", NULL);
#undef F1
}

/* Buckets and percentiles by their upper bound, each percentile no more
 * than the exact longest fault, the worst thread first. */
static void fault_latency_names_buckets_by_upper_bound_beside_the_exact_max(void **state)
{
	(void)state;
	assert_csv("tid,comm,kind,faults,p50_us,p90_us,p99_us,max_us,histogram\r\n"
		   "102,worker,major,1,300000.0,300000.0,300000.0,300000.0,<536.871ms:1\r\n"
		   "102,worker,minor,1,5000.0,5000.0,5000.0,5000.0,<8.38861ms:1\r\n"
		   "101,rx,major,1,150000.0,150000.0,150000.0,150000.0,<268.435ms:1\r\n"
		   "101,rx,minor,100,2.048,2.048,4.096,2500.0,"
		   "<2.048us:90 <4.096us:9 <4.1943ms:1\r\n"
		   "103,,minor,500,1.5,1.5,1.5,1.5,<2.048us:500\r\n"
		   "104,,minor,50,1.5,1.5,1.5,1.5,<2.048us:50\r\n",
		   "fault-latency", NULL);
	/* The most harmful threads: longest fault, then most faults. */
	assert_csv("tid,comm,kind,faults,p50_us,p90_us,p99_us,max_us,histogram\r\n"
		   "102,worker,major,1,300000.0,300000.0,300000.0,300000.0,<536.871ms:1\r\n"
		   "102,worker,minor,1,5000.0,5000.0,5000.0,5000.0,<8.38861ms:1\r\n",
		   "fault-latency", "limit=1", NULL);
	assert_csv("tid,comm,kind,faults,p50_us,p90_us,p99_us,max_us,histogram\r\n"
		   "103,,minor,500,1.5,1.5,1.5,1.5,<2.048us:500\r\n",
		   "fault-latency", "limit=3", "tid=103", NULL);
}

static void off_cpu_splits_a_threads_time_by_state_and_waker(void **state)
{
	(void)state;
	assert_csv("tid,comm,state,waker_tid,waker,intervals,total_ms,max_ms,pct_of_thread\r\n"
		   "101,rx,blocked,,,1,149.0,149.0,2.44\r\n"
		   "101,rx,sleeping,0,interrupt on idle CPU 1,1,50.0,50.0,0.82\r\n"
		   "101,rx,runnable,102,worker (102),1,0.5,0.5,0.01\r\n",
		   "off-cpu", "tid=101", NULL);
	/* The name the wake-up recorded wins over the thread table's. */
	assert_csv("tid,comm,state,waker_tid,waker,intervals,total_ms,max_ms,pct_of_thread\r\n"
		   "102,worker,sleeping,101,rx-main (101),1,550.0,550.0,68.75\r\n",
		   "off-cpu", "tid=102", NULL);
}

static void lost_says_what_and_on_which_cpu(void **state)
{
	(void)state;
	assert_csv("what,cpu,reports,count,first_utc,last_utc\r\n"
		   "records,0,2,12,2023-11-14T22:13:23.000000000Z,2023-11-14T22:13:24.000000000Z\r\n"
		   "throttled,1,1,1,2023-11-14T22:13:23.500000000Z,2023-11-14T22:13:23.500000000Z\r\n"
		   "unfinished faults,,,2,,\r\n",
		   "lost", NULL);
}

static void an_empty_answer_still_shows_its_columns(void **state)
{
	struct run r;

	(void)state;
	assert_csv("what,cpu,reports,count,first_utc,last_utc\r\n", "lost", "session=1", NULL);
	assert_int_equal(run_faultline(&r, "query", fixture_db(), "lost", "session=1",
				       "-f", "json", NULL), 0);
	assert_string_equal(r.out, "[]\n");
	assert_int_equal(run_faultline(&r, "query", fixture_db(), "lost", "session=1", NULL), 0);
	assert_string_equal(r.out, "what  cpu  reports  count  first_utc  last_utc\n"
			    "----  ---  -------  -----  ---------  --------\n(no rows)\n");
	assert_string_equal(r.err, "");
}

static void longest_stalls_come_with_their_states_and_stacks(void **state)
{
	(void)state;
	/* The 3 longest faults and the 3 longest intervals off the CPU that
	 * were stalls: the sleeps (a 550 ms wait woken by a thread, a 50 ms
	 * one by an interrupt) are idle, with no stack to show a lock. */
	assert_csv("start_utc,dur_ms,tid,comm,stall,states,stack\r\n"
		   "2023-11-14T22:13:21.700000000Z,300.0,102,worker,major fault,sleeping 300.0ms,\r\n"
		   "2023-11-14T22:13:22.000000000Z,150.0,101,rx,major fault,"
		   "\"blocked 149.0ms, runnable 0.5ms\","
		   STACK1 "\r\n"
		   "2023-11-14T22:13:22.000500000Z,149.0,101,rx,blocked,,io_schedule <- 0x7ffe0000 <- main\r\n"
		   "2023-11-14T22:13:22.100000000Z,5.0,102,worker,minor fault,on cpu,\r\n"
		   "2023-11-14T22:13:22.149500000Z,0.5,101,rx,runnable,"
		   "after a wake-up by an unseen waker,\r\n",
		   "longest-stalls", "limit=3", NULL);
}

static void idle_waits_keep_the_sleeps_that_are_no_stall_by_what_they_waited_on(void **state)
{
	(void)state;
	assert_csv("tid,comm,waited_on,sleeps,total_ms,max_ms,longest_utc\r\n"
		   "102,worker,thread,1,550.0,550.0,2023-11-14T22:13:21.500000000Z\r\n"
		   "101,rx,interrupt,1,50.0,50.0,2023-11-14T22:13:22.200000000Z\r\n",
		   "idle-waits", NULL);
	assert_csv("tid,comm,waited_on,sleeps,total_ms,max_ms,longest_utc\r\n",
		   "idle-waits", "session=1", NULL);
}

/* 'faultline query DB NAME --format csv': its output, owned. */
static char *query_csv(const char *db, const char *name)
{
	char *argv[] = { (char *)faultline_bin(), "query", (char *)db,
			 (char *)name, "--format", "csv", NULL };
	struct run r;
	char *out;

	run_argv(&r, argv);
	if (r.status != 0)
		fail_msg("query %s exited %d: %s", name, r.status, r.err);
	assert_non_null(out = strdup(full_stdout(&r)));
	return out;
}

/*
 * A file of an older faultline of this schema version holds its views
 * as they were; readers answer with this faultline's.  Planted here, an
 * older sleep_wait that called every sleep a wait on a lock: the file's
 * own stall view, which reads it, then counts both sleeps as stalls.
 */
static void readers_use_this_faultlines_wake_views_over_a_files_older_ones(void **state)
{
	const char *older = fixture_copy("older-views.db",
		"DROP VIEW sleep_wait;"
		"CREATE VIEW sleep_wait AS SELECT session_id, rowid AS state_id, tid,"
		" ts, dur, stack_id, 'lock' AS waited_on, 0 AS idle FROM thread_state"
		" WHERE state = 'sleeping';");
	const char *queries[] = { "idle-waits", "longest-stalls", "off-cpu" };

	(void)state;
	assert_int_equal(db_int(older, "SELECT count(*) FROM stall"
				" WHERE stall = 'sleeping'"), 2);
	for (size_t i = 0; i < sizeof(queries) / sizeof(queries[0]); i++) {
		char *want = query_csv(fixture_db(), queries[i]);
		char *got = query_csv(older, queries[i]);

		assert_string_equal(got, want);
		free(want);
		free(got);
	}
}

static void sessions_metrics_and_longest_faults_answer_too(void **state)
{
	(void)state;
	assert_csv("session,status,ended,start_utc,seconds,command_line,threshold_ms,faults,"
		   "stored,lost,error\r\n"
		   "2,complete,,2023-11-14T22:13:20.000000000Z,10.0,faultline record -o t.db -p 100,"
		   "0.001,107,6,12,\r\n", "sessions", "session=2", NULL);
	assert_csv("name,labels,unit,imported,points,first_utc,last_utc\r\n"
		   "nak,{},,1,2," E1 ",2023-11-14T22:13:26.000000000Z\r\n"
		   "udp_rx_queue_bytes,\"{\"\"port\"\":9000,\"\"inode\"\":77}\",bytes,0,7,"
		   "2023-11-14T22:13:21.950000000Z,2023-11-14T22:13:22.250000000Z\r\n",
		   "metrics", NULL);
	assert_csv("time_utc,dur_ms,kind,tid,comm,addr,file\r\n"
		   "2023-11-14T22:11:45.000000000Z,100.0,major,101,old-rx,0x1000,\r\n",
		   "longest-faults", "session=1", "limit=1", NULL);
}

static void json_and_table_output_keep_types_and_align(void **state)
{
	struct run r;

	(void)state;
	assert_int_equal(run_faultline(&r, "query", fixture_db(), "off-cpu", "tid=101",
				       "-f", "json", NULL), 0);
	assert_string_equal(r.out,
		"[\n{\"tid\": 101, \"comm\": \"rx\", \"state\": \"blocked\", \"waker_tid\": null, "
		"\"waker\": null, \"intervals\": 1, \"total_ms\": 149.0, \"max_ms\": 149.0, "
		"\"pct_of_thread\": 2.44},\n"
		"{\"tid\": 101, \"comm\": \"rx\", \"state\": \"sleeping\", \"waker_tid\": 0, "
		"\"waker\": \"interrupt on idle CPU 1\", \"intervals\": 1, \"total_ms\": 50.0, "
		"\"max_ms\": 50.0, "
		"\"pct_of_thread\": 0.82},\n"
		"{\"tid\": 101, \"comm\": \"rx\", \"state\": \"runnable\", \"waker_tid\": 102, "
		"\"waker\": \"worker (102)\", \"intervals\": 1, \"total_ms\": 0.5, \"max_ms\": 0.5, "
		"\"pct_of_thread\": 0.01}\n]\n");
	assert_int_equal(run_faultline(&r, "query", "--format", "table", fixture_db(),
				       "lost", NULL), 0);
	assert_string_equal(r.out,
		"what               cpu  reports  count  first_utc                       last_utc\n"
		"-----------------  ---  -------  -----  ------------------------------  ------------------------------\n"
		"records              0        2     12  2023-11-14T22:13:23.000000000Z  2023-11-14T22:13:24.000000000Z\n"
		"throttled            1        1      1  2023-11-14T22:13:23.500000000Z  2023-11-14T22:13:23.500000000Z\n"
		"unfinished faults                    2\n");
}

static void a_sql_file_runs_with_its_header_parameters(void **state)
{
	const char *path = scratch_path("mine.sql");
	struct run r;

	(void)state;
	write_file(path, "-- Faults of one thread longer than a duration.\n--\n"
		   "-- Parameters:\n--   :tid  INTEGER  the thread\n"
		   "--   :over DURATION = 1ms  shortest\n"
		   "SELECT count(*) AS n FROM fault WHERE tid = :tid AND dur > :over;\n");
	assert_int_equal(run_faultline(&r, "query", fixture_db(), path, "tid=101",
				       "-f", "csv", NULL), 0);
	assert_string_equal(r.out, "n\r\n3\r\n");
	assert_int_equal(run_faultline(&r, "query", fixture_db(), path, "tid=101",
				       "over=0.004s", "-f", "csv", NULL), 0);
	assert_string_equal(r.out, "n\r\n2\r\n");
	assert_int_equal(run_faultline(&r, "query", fixture_db(), path, "tid=101",
				       "over=0.5ns", "-f", "csv", NULL), 2);
	assert_non_null(strstr(r.err, "invalid over '0.5ns'"));
	/* The same with CR LF line ends. */
	write_file(path, "-- Faults of one thread longer than a duration.\r\n--\r\n"
		   "-- Parameters:\r\n--   :tid  INTEGER  the thread\r\n"
		   "--   :over DURATION = 1ms  shortest\r\n"
		   "SELECT count(*) AS n FROM fault WHERE tid = :tid AND dur > :over;\r\n");
	assert_int_equal(run_faultline(&r, "query", fixture_db(), path, "tid=101",
				       "over=4ms", "-f", "csv", NULL), 0);
	assert_string_equal(r.out, "n\r\n2\r\n");
}

/* One line on stderr, "faultline CMD: ...want...". */
static void assert_one_message(const struct run *r, const char *cmd, const char *want)
{
	const char *nl = strchr(r->err, '\n');
	char prefix[32];

	snprintf(prefix, sizeof(prefix), "faultline %s: ", cmd);
	if (!strstr(r->err, want) || strncmp(r->err, prefix, strlen(prefix)) ||
	    !nl || nl[1] != '\0')
		fail_msg("expected one line containing '%s', got: %s", want, r->err);
}

static void query_mistakes_are_usage_errors_that_say_what_to_do(void **state)
{
	struct run r;
	const char *db = fixture_db();

	(void)state;
	assert_int_equal(run_faultline(&r, "query", db, "stall-near", NULL), 2);
	assert_one_message(&r, "query", "no query named 'stall-near'; 'faultline query --list'");
	assert_int_equal(run_faultline(&r, "query", db, "stalls-near", NULL), 2);
	assert_one_message(&r, "query", "query 'stalls-near' needs metric=TEXT");
	assert_int_equal(run_faultline(&r, "query", db, "stalls-near", "metric=nak",
				       "windw=1s", NULL), 2);
	assert_one_message(&r, "query", "query 'stalls-near' has no parameter 'windw'");
	assert_int_equal(run_faultline(&r, "query", db, "stalls-near", "metric=nak",
				       "window=soon", NULL), 2);
	assert_one_message(&r, "query", "invalid window 'soon': expected a number with a unit");
	/* No unit is no guess (ns? ms?): refused, as record and stacks do. */
	assert_int_equal(run_faultline(&r, "query", db, "stalls-near", "metric=nak",
				       "window=200", NULL), 2);
	assert_one_message(&r, "query", "invalid window '200': expected a number with a unit");
	assert_int_equal(run_faultline(&r, "query", db, "stalls-near", "metric=nak",
				       "min_dur=1.5ns", NULL), 2);
	assert_one_message(&r, "query", "invalid min_dur '1.5ns': not a whole "
			   "number of nanoseconds");
	assert_int_equal(run_faultline(&r, "query", db, "stalls-near", "metric=nak",
				       "window=.2s", NULL), 2);
	assert_one_message(&r, "query", "invalid window '.2s': expected a number "
			   "with a unit");
	assert_int_equal(run_faultline(&r, "query", db, "off-cpu", "tid=12ab", NULL), 2);
	assert_one_message(&r, "query", "invalid tid '12ab': expected an integer");
	assert_int_equal(run_faultline(&r, "query", db, "off-cpu", "tid", NULL), 2);
	assert_one_message(&r, "query", "invalid argument 'tid': expected NAME=VALUE");
	assert_int_equal(run_faultline(&r, "query", db, "lost", "-f", "xml", NULL), 2);
	assert_one_message(&r, "query", "invalid --format 'xml': expected table, csv or json");
}

static void a_database_that_is_not_faultlines_or_lacks_the_session_is_refused(void **state)
{
	const char *other = scratch_path("other.db");
	const char *text = scratch_path("notes.txt");
	const char *bare = scratch_path("bare.db");
	sqlite3 *db = NULL;
	struct errmsg e;
	struct run r;

	(void)state;
	write_file(text, "not a database\n");
	assert_int_equal(sqlite3_open(other, &db), SQLITE_OK);
	assert_int_equal(sqlite3_exec(db, "CREATE TABLE customers (id INTEGER)", NULL,
				      NULL, NULL), SQLITE_OK);
	sqlite3_close(db);
	assert_int_equal(run_faultline(&r, "query", other, "lost", NULL), 1);
	assert_one_message(&r, "query", "it is a SQLite database, but not faultline's");
	assert_int_equal(run_faultline(&r, "query", text, "lost", NULL), 1);
	assert_one_message(&r, "query", "not a SQLite database");
	assert_int_equal(run_faultline(&r, "report", other, NULL), 1);
	assert_one_message(&r, "report", "it is a SQLite database, but not faultline's");
	assert_int_equal(run_faultline(&r, "query", fixture_db(), "lost", "session=7", NULL), 1);
	assert_one_message(&r, "query", "no session 7 in");
	assert_non_null(strstr(r.err, "it holds sessions 1 to 2"));
	assert_int_equal(run_faultline(&r, "query", scratch_path("none.db"), "lost", NULL), 1);
	assert_one_message(&r, "query", "no such file");
	/* A misspelt metric is named with those there, not an empty answer. */
	assert_int_equal(run_faultline(&r, "query", fixture_db(), "stalls-near",
				       "metric=naks", NULL), 1);
	assert_one_message(&r, "query", "no metric 'naks' in ");
	assert_non_null(strstr(r.err, "it holds nak, udp_rx_queue_bytes; 'faultline query "));
	assert_string_equal(r.out, "");
	errmsg_init(&e);
	assert_int_equal(db_open_write(bare, &db, &e), 0);
	db_close(db);
	assert_int_equal(run_faultline(&r, "query", bare, "stalls-near", "metric=nak",
				       NULL), 1);
	assert_one_message(&r, "query", "it holds no metric; load the application's "
			   "with 'faultline import ");
}

static void a_sql_file_that_writes_or_holds_two_statements_or_a_bad_header_is_refused(void **state)
{
	static const struct {
		const char *sql, *want;
	} bad[] = {
		{ "-- Two.\nSELECT 1; SELECT 2;\n", "holds more than one statement" },
		{ "-- Writes.\nDELETE FROM fault;\n", "would change the database" },
		{ "-- Bad type.\n--\n-- Parameters:\n--   :x  NUMBER  what\nSELECT :x;\n",
		  "header line 4 is not ':name TYPE [= DEFAULT] what'" },
		{ "-- Undeclared.\nSELECT :x;\n", "uses :x, which its header does not declare" },
	};
	const char *path = scratch_path("bad.sql");
	struct run r;

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		write_file(path, bad[i].sql);
		assert_int_equal(run_faultline(&r, "query", fixture_db(), path, NULL), 1);
		assert_one_message(&r, "query", bad[i].want);
	}
	assert_int_equal(db_int(fixture_db(), "SELECT count(*) FROM fault"), 6);
}

static void list_shows_each_query_with_its_parameters(void **state)
{
	struct run r;
	char *out;

	(void)state;
	assert_int_equal(run_faultline(&r, "query", "--list", NULL), 0);
	out = full_stdout(&r);
	for (size_t i = 0; i < n_embedded_queries; i++) {
		char line[64];

		snprintf(line, sizeof(line), "\n%s\n  ", embedded_queries[i].name);
		if (!strstr(out, line) && strncmp(out, line + 1, strlen(line) - 1))
			fail_msg("--list does not show %s:\n%s", embedded_queries[i].name, out);
	}
	assert_non_null(strstr(out, "\nstalls-near\n  The long stalls of the recorded threads"));
	assert_non_null(strstr(out, "    metric=TEXT            the metric's name, e.g. nak (required)\n"
				    "    window=DURATION        how far before each event to look (default 200ms)\n"));
	assert_int_equal(run_faultline(&r, "query", "--list", "x.db", NULL), 2);
	assert_one_message(&r, "query", "--list takes no other arguments");
}

static void report_summarises_the_latest_session(void **state)
{
	struct run r;
	char *out, *worst, *next, *idle, *line;

	(void)state;
	assert_int_equal(run_faultline(&r, "report", fixture_db(), NULL), 0);
	out = full_stdout(&r);
	assert_non_null(strstr(out, "faultline report: session 2 of "));
	assert_non_null(strstr(out, " (the latest; the database holds sessions 1 to 2: "
			       "--session N picks another)\n"));
	assert_non_null(strstr(out, "faultline record -o t.db -p 100"));
	/* A session without an error shows none. */
	assert_null(strstr(out, "\nerror"));
	/* fault-latency, the worst thread first, with the convention said;
	 * the longest stall with its stack, the stalls before the NAK, and
	 * the lost records. */
	assert_non_null(strstr(out, "bucket and percentile values are upper bounds"));
	worst = strstr(out, "  102  worker  major ");
	next = strstr(out, "  101  rx      minor ");
	assert_true(worst && next && worst < next);
	assert_non_null(strstr(out, "<2.048us:90 <4.096us:9 <4.1943ms:1"));
	assert_null(strstr(out, "more thread"));
	/* A long cell is cut so a row fits a terminal; --wide shows it. */
	line = strstr(out, "  major fault  blocked 149.0ms, runnable 0.5ms  ");
	assert_non_null(line);
	assert_non_null(strstr(line, "  do_lookup_x <- _dl_fixup <- _dl_runtime_resolve "
			       "<- /usr/bin/rx+0x1234...\n"));
	assert_true(strstr(line, "...\n") < strchr(line, '\n') + 1);
	/* Idle sleeps in a section of their own, not among the stalls. */
	idle = strstr(out, "== Idle: time asleep with nothing to do");
	assert_non_null(idle);
	assert_non_null(strstr(idle, "\n101  rx      interrupt       1      50.0    50.0"));
	assert_null(strstr(out, "sleeping     woken by"));
	assert_non_null(strstr(out, "(1 stack frames are not symbolized yet: 'faultline symbolize "));
	assert_non_null(strstr(out, "== Stalls of 1 ms or more in the 200 ms before each 'nak' event"));
	assert_non_null(strstr(out, "\n101  rx      major fault  2023-11-14T22:13:22.000000000Z"));
	/* The findings come first, before the tables they are drawn from. */
	assert_true(strstr(out, "== Findings") < strstr(out, "== Fault latency"));
	assert_non_null(strstr(out, "lazy binding: the first call of a function through the PLT"));
	assert_non_null(strstr(out, "records              0        2     12"));
	assert_string_equal(r.err, "");
	assert_int_equal(run_faultline(&r, "report", "--session", "1", fixture_db(), NULL), 0);
	out = full_stdout(&r);
	assert_non_null(strstr(out, "faultline report: session 1 of "));
	assert_null(strstr(out, "the latest"));
	assert_non_null(strstr(out, "== Lost\n\n(nothing was lost)\n"));
	assert_null(strstr(out, "not symbolized"));
	assert_int_equal(run_faultline(&r, "report", fixture_db(), "--session", "3", NULL), 1);
	assert_one_message(&r, "report", "no session 3 in");
	assert_int_equal(run_faultline(&r, "report", "--wide", fixture_db(), NULL), 0);
	line = strstr(full_stdout(&r), "  major fault  blocked 149.0ms, runnable 0.5ms  ");
	assert_non_null(line);
	assert_true(strstr(line, "  " STACK1 "\n") &&
		    strstr(line, "  " STACK1 "\n") < strchr(line, '\n'));
}

/* The fixture, then session 3, which failed before it recorded anything,
 * and twelve more threads in session 2's histogram. */
static const char *fixture_with_failed_session(void)
{
	const char *path = scratch_path("failed.db");
	struct errmsg e;
	sqlite3 *db = NULL;

	errmsg_init(&e);
	unlink(path);
	if (db_open_write(path, &db, &e) < 0)
		fail_msg("%s", e.text);
	if (sqlite3_exec(db, fixture_sql, NULL, NULL, NULL) != SQLITE_OK ||
	    sqlite3_exec(db, "INSERT INTO session (session_id, start_ts, end_ts, status,"
			 " host, kernel, command_line, options, faultline_version,"
			 " start_realtime_ns, start_monotonic_ns, min_fault_dur,"
			 " buffer_bytes, cpus, error) VALUES (3, " T0 "+60000000000, NULL,"
			 " 'failed', 'h', 'k', 'faultline record -p 4242', '', '0.1.0', 0, 0,"
			 " 0, 4096, 2, 'cannot open ''major-faults'' for pid 4242: no such"
			 " process');"
			 "WITH RECURSIVE n(tid) AS (SELECT 201 UNION ALL SELECT tid + 1 FROM n"
			 " WHERE tid < 212) INSERT INTO fault_histogram SELECT 2, tid,"
			 " 'minor', 1024, 2048, 3, 1100 FROM n;", NULL, NULL, NULL) != SQLITE_OK)
		fail_msg("fixture: %s", sqlite3_errmsg(db));
	if (db_build_indexes(db, path, &e) < 0 || db_end_write(db, path, &e) < 0)
		fail_msg("%s", e.text);
	db_close(db);
	return path;
}

static void report_skips_a_last_session_that_recorded_nothing_and_says_so(void **state)
{
	const char *db = fixture_with_failed_session();
	char want[512];
	struct run r;
	char *out;

	(void)state;
	assert_int_equal(run_faultline(&r, "report", db, NULL), 0);
	out = full_stdout(&r);
	snprintf(want, sizeof(want), "faultline report: session 2 of %s (the latest that "
		 "recorded something: the 1 after it recorded nothing; --session N "
		 "picks another)\n", db);
	assert_non_null(strstr(out, want));
	assert_non_null(strstr(out, "picks another)\n(session 3 failed: cannot open "
			       "'major-faults' for pid 4242: no such process)\n"));
	/* 16 threads: the 10 worst shown, the rest counted, and how to see them. */
	snprintf(want, sizeof(want), "\n... 6 more threads: faultline query %s "
		 "fault-latency session=2\n", db);
	assert_non_null(strstr(out, want));
	assert_null(strstr(out, "  212  "));
	/* The failed session, asked for, shows why it failed. */
	assert_int_equal(run_faultline(&r, "report", db, "--session", "3", NULL), 0);
	out = full_stdout(&r);
	assert_non_null(strstr(out, "\nstatus        failed\n"));
	assert_non_null(strstr(out, "\nerror         cannot open 'major-faults' for pid 4242: "
			       "no such process\n"));
	assert_non_null(strstr(out, "(no histogram: the session did not end normally"));
}

static void every_canned_query_returns_the_columns_its_header_declares(void **state)
{
	sqlite3 *db = NULL;
	struct errmsg e;

	(void)state;
	errmsg_init(&e);
	assert_int_equal(db_open_read(fixture_db(), &db, &e), 0);
	assert_true(n_embedded_queries >= 8);
	for (size_t i = 0; i < n_embedded_queries; i++) {
		struct query_def q;
		sqlite3_stmt *st = NULL;

		query_def_init(&q);
		if (query_def_parse(embedded_queries[i].name, embedded_queries[i].sql,
				    &q, &e) < 0)
			fail_msg("%s", e.text);
		if (sqlite3_prepare_v2(db, q.sql, -1, &st, NULL) != SQLITE_OK)
			fail_msg("%s: %s", q.name, sqlite3_errmsg(db));
		if ((size_t)sqlite3_column_count(st) != q.ncolumns)
			fail_msg("%s: %d columns, header declares %zu", q.name,
				 sqlite3_column_count(st), q.ncolumns);
		for (size_t c = 0; c < q.ncolumns; c++)
			if (strcmp(sqlite3_column_name(st, (int)c), q.columns[c].name))
				fail_msg("%s: column %zu is %s, header says %s", q.name,
					 c, sqlite3_column_name(st, (int)c), q.columns[c].name);
		/* Each declared parameter is used, each used one declared. */
		if ((size_t)sqlite3_bind_parameter_count(st) != q.nparams)
			fail_msg("%s: uses %d parameters, header declares %zu", q.name,
				 sqlite3_bind_parameter_count(st), q.nparams);
		for (size_t p = 0; p < q.nparams; p++) {
			char name[64];

			snprintf(name, sizeof(name), ":%s", q.params[p].name);
			if (!sqlite3_bind_parameter_index(st, name))
				fail_msg("%s: declares %s but does not use it", q.name, name);
		}
		sqlite3_finalize(st);
		query_def_release(&q);
	}
	db_close(db);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(stalls_near_lists_what_reached_into_the_window_before_each_event),
		cmocka_unit_test(stalls_near_takes_a_thread_a_session_and_any_duration_unit),
		cmocka_unit_test(stalls_near_looks_after_an_event_too_and_filters_by_value),
		cmocka_unit_test(report_says_which_metric_its_findings_are_lined_up_with),
		cmocka_unit_test(stacks_rank_by_time_count_or_longest_event),
		cmocka_unit_test(findings_that_preceded_an_event_rank_by_the_time_lost_just_before_it),
		cmocka_unit_test(socket_depth_around_shows_the_queue_filling_during_the_fault),
		cmocka_unit_test(fault_latency_names_buckets_by_upper_bound_beside_the_exact_max),
		cmocka_unit_test(off_cpu_splits_a_threads_time_by_state_and_waker),
		cmocka_unit_test(idle_waits_keep_the_sleeps_that_are_no_stall_by_what_they_waited_on),
		cmocka_unit_test(readers_use_this_faultlines_wake_views_over_a_files_older_ones),
		cmocka_unit_test(lost_says_what_and_on_which_cpu),
		cmocka_unit_test(an_empty_answer_still_shows_its_columns),
		cmocka_unit_test(longest_stalls_come_with_their_states_and_stacks),
		cmocka_unit_test(sessions_metrics_and_longest_faults_answer_too),
		cmocka_unit_test(json_and_table_output_keep_types_and_align),
		cmocka_unit_test(a_sql_file_runs_with_its_header_parameters),
		cmocka_unit_test(query_mistakes_are_usage_errors_that_say_what_to_do),
		cmocka_unit_test(a_database_that_is_not_faultlines_or_lacks_the_session_is_refused),
		cmocka_unit_test(a_sql_file_that_writes_or_holds_two_statements_or_a_bad_header_is_refused),
		cmocka_unit_test(list_shows_each_query_with_its_parameters),
		cmocka_unit_test(report_summarises_the_latest_session),
		cmocka_unit_test(names_with_escape_sequences_are_shown_escaped_on_a_terminal),
		cmocka_unit_test(csv_text_that_begins_like_a_formula_is_neutralised_and_numbers_kept),
		cmocka_unit_test(query_csv_and_export_csv_write_a_value_alike),
		cmocka_unit_test_teardown(diagnose_reads_no_fifo_planted_at_a_caller_s_path,
					  kill_leftovers),
		cmocka_unit_test(report_skips_a_last_session_that_recorded_nothing_and_says_so),
		cmocka_unit_test(every_canned_query_returns_the_columns_its_header_declares),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
