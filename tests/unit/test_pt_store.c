/*
 * pt_store, pt_replay: a session's raw trace is stored with its clock
 * and linked to the major fault that carried it; decoding it from the
 * database gives pt_call rows with names and wall-clock ts made from the
 * session's anchors, and gaps; decoding again (after a file turns up)
 * replaces them.  No PT hardware: the trace is libipt-encoded (pt_db.h).
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <unistd.h>
#include <cmocka.h>

/* See test_pt_decode.c: records.h and gcc 12's false positives. */
#pragma GCC diagnostic ignored "-Warray-bounds"
#pragma GCC diagnostic ignored "-Wstringop-overflow"
#include "../tmpdir.h"
#include "../integration/run.h"
#include "records.h"
#include "pt_db.h"

static char dir[128];

static const char *db_path(const char *name)
{
	static char p[256];

	snprintf(p, sizeof(p), "%s/%s", dir, name);
	return p;
}

static sqlite3 *open_db(const char *path)
{
	sqlite3 *db = NULL;
	struct errmsg e;

	errmsg_init(&e);
	if (db_open_write(path, &db, &e) < 0)
		fail_msg("%s", e.text);
	return db;
}

static int64_t one_int(sqlite3 *db, const char *sql)
{
	sqlite3_stmt *st = NULL;
	int64_t v = -1;

	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK)
		fail_msg("%s: %s", sql, sqlite3_errmsg(db));
	if (sqlite3_step(st) == SQLITE_ROW)
		v = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	return v;
}

/* The wall-clock ts the session's anchors give mono: its clock_anchor
 * rows through a clock map, as the loader converts every row. */
static uint64_t wall_of(sqlite3 *db, uint64_t mono)
{
	struct clock_map m;
	struct clock_step step;
	struct clock_anchor a = {
		(uint64_t)one_int(db, "SELECT mono_ns FROM clock_anchor"),
		(uint64_t)one_int(db, "SELECT realtime_ns FROM clock_anchor"),
		0,
	};
	uint64_t ts;

	clock_map_init(&m);
	clock_map_add(&m, &a, &step);
	ts = clock_map_realtime(&m, mono);
	clock_map_release(&m);
	return ts;
}

static int replay(sqlite3 *db, const char *path, int64_t session,
		  struct pt_replay_stats *st)
{
	struct errmsg e;
	int err;

	errmsg_init(&e);
	err = pt_replay_session(db, path, session, NULL, st, &e);
	if (err < 0 && err != -ENOENT)
		fail_msg("replay: %s", e.text);
	return err;
}

static void a_faults_trace_decodes_into_the_path_that_led_into_it(void **state)
{
	const char *path = db_path("fault.db");
	struct pt_replay_stats st;
	struct ptdb d;
	sqlite3 *db;
	sqlite3_stmt *q = NULL;
	static const struct { const char *kind, *symbol; int depth; } want[] = {
		{ "enable", "pt_top", 0 }, { "call", "pt_middle", 1 },
		{ "call", "pt_leaf", 2 }, { "disable", "pt_leaf", 2 },
	};
	int n = 0;

	(void)state;
	assert_int_equal(ptdb_build(&d, path, 1), 0);
	db = open_db(path);
	/* Linked: the trace's fault_ts is its fault's ts. */
	assert_int_equal(one_int(db, "SELECT count(*) FROM pt_trace t JOIN fault f"
				 " ON f.tid = t.tid AND f.ts = t.fault_ts"), 1);
	assert_int_equal(replay(db, path, d.session, &st), 0);
	assert_int_equal(st.traces, 1);
	assert_int_equal(st.rows, 4);
	assert_int_equal(st.gaps, 0);
	assert_int_equal(sqlite3_prepare_v2(db, "SELECT kind, symbol, depth, ts, tid"
					    " FROM pt_call ORDER BY seq", -1, &q,
					    NULL), SQLITE_OK);
	while (sqlite3_step(q) == SQLITE_ROW) {
		assert_true(n < 4);
		assert_string_equal(sqlite3_column_text(q, 0), want[n].kind);
		if (!sqlite3_column_text(q, 1))
			fail_msg("row %d (%s) names nothing, want %s", n,
				 sqlite3_column_text(q, 0), want[n].symbol);
		assert_string_equal(sqlite3_column_text(q, 1), want[n].symbol);
		assert_int_equal(sqlite3_column_int(q, 2), want[n].depth);
		/* Every row is at TSC 1000: start + 1500 ns, on wall clock. */
		assert_int_equal(sqlite3_column_int64(q, 3), wall_of(db, d.row_mono));
		assert_int_equal(sqlite3_column_int64(q, 4), PTDB_TID);
		n++;
	}
	sqlite3_finalize(q);
	assert_int_equal(n, 4);
	/* The pt_fault view joins them. */
	assert_int_equal(one_int(db, "SELECT count(*) FROM pt_fault WHERE"
				 " trace_id = 1 AND kind = 'major'"), 1);
	db_close(db);
}

static void decoding_again_replaces_the_rows_it_made_before(void **state)
{
	const char *path = db_path("again.db");
	struct pt_replay_stats st;
	struct ptdb d;
	sqlite3 *db;

	(void)state;
	assert_int_equal(ptdb_build(&d, path, 1), 0);
	db = open_db(path);
	assert_int_equal(replay(db, path, d.session, &st), 0);
	assert_int_equal(replay(db, path, d.session, &st), 0);
	assert_int_equal(one_int(db, "SELECT count(*) FROM pt_call"), 4);
	db_close(db);
}

/* The file was not there at the first decode: a gap that names it.  Once
 * it is (the path fixed here), decoding again gives the flow. */
static void a_file_found_later_decodes_on_the_next_replay(void **state)
{
	const char *path = db_path("later.db");
	struct pt_replay_stats st;
	struct ptdb d;
	sqlite3 *db;
	char sql[1024];

	(void)state;
	assert_int_equal(ptdb_build(&d, path, 1), 0);
	db = open_db(path);
	assert_int_equal(sqlite3_exec(db, "UPDATE mapping SET path ="
				      " '/gone/libptcode.so'", NULL, NULL, NULL),
			 SQLITE_OK);
	assert_int_equal(replay(db, path, d.session, &st), 0);
	assert_int_equal(st.gaps, 1);
	assert_int_equal(one_int(db, "SELECT count(*) FROM pt_gap WHERE reason ="
				 " 'nomap' AND message LIKE '%/gone/libptcode.so%'"), 1);
	snprintf(sql, sizeof(sql), "UPDATE mapping SET path = '%s'", ptfix_path());
	assert_int_equal(sqlite3_exec(db, sql, NULL, NULL, NULL), SQLITE_OK);
	assert_int_equal(replay(db, path, d.session, &st), 0);
	assert_int_equal(st.gaps, 0);
	assert_int_equal(one_int(db, "SELECT count(*) FROM pt_gap"), 0);
	assert_int_equal(one_int(db, "SELECT count(*) FROM pt_call"), 4);
	db_close(db);
}

/* Decoding reads the traced code's file (libipt maps it, the names come
 * from its symbols): what was not cached before is not cached after. */
static void decoding_leaves_the_traced_code_s_file_as_cold_as_it_found_it(void **state)
{
	const char *path = db_path("cold.db");
	struct pt_replay_stats st;
	struct ptdb d;
	char sql[1024], buf[4096], lib[256];
	int in, out;
	ssize_t n;
	long left;
	sqlite3 *db;

	(void)state;
	snprintf(lib, sizeof(lib), "%s/libptcode.so", dir);
	in = open(ptfix_path(), O_RDONLY);
	out = open(lib, O_WRONLY | O_CREAT | O_TRUNC, 0755);
	assert_true(in >= 0 && out >= 0);
	while ((n = read(in, buf, sizeof(buf))) > 0)
		assert_int_equal(write(out, buf, (size_t)n), n);
	close(in);
	assert_int_equal(close(out), 0);
	if ((left = file_evict(lib)) != 0)
		skip_msg("%ld pages of %s stayed cached after POSIX_FADV_DONTNEED",
			 left, lib);
	assert_int_equal(ptdb_build(&d, path, 1), 0);
	db = open_db(path);
	snprintf(sql, sizeof(sql), "UPDATE mapping SET path = '%s'", lib);
	assert_int_equal(sqlite3_exec(db, sql, NULL, NULL, NULL), SQLITE_OK);
	assert_int_equal(replay(db, path, d.session, &st), 0);
	assert_int_equal(st.gaps, 0);
	assert_int_equal(one_int(db, "SELECT count(*) FROM pt_call WHERE symbol ="
				 " 'pt_leaf'"), 2);
	db_close(db);
	if ((left = file_resident(lib)) != 0)
		fail_msg("%ld pages of %s left cached", left, lib);
}

static void a_session_without_intel_pt_says_so(void **state)
{
	const char *path = db_path("nopt.db");
	struct pt_replay_stats st;
	struct ptdb d;
	struct errmsg e;
	sqlite3 *db;

	(void)state;
	assert_int_equal(ptdb_build(&d, path, 0), 0);
	db = open_db(path);
	errmsg_init(&e);
	assert_int_equal(pt_replay_session(db, path, d.session, NULL, &st, &e),
			 -ENOENT);
	assert_non_null(strstr(e.text, "has no Intel PT trace: it was recorded "
			       "without --pt"));
	db_close(db);
}

static int make_dir(void **state)
{
	(void)state;
	return mkdtemp(tmp_template(dir, sizeof(dir), "fl-pt-store")) ? 0 : -1;
}

static int remove_dir(void **state)
{
	char cmd[300];

	(void)state;
	if (getenv("FAULTLINE_KEEP_SCRATCH"))
		return 0;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	return system(cmd);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(a_faults_trace_decodes_into_the_path_that_led_into_it),
		cmocka_unit_test(decoding_again_replaces_the_rows_it_made_before),
		cmocka_unit_test(a_file_found_later_decodes_on_the_next_replay),
		cmocka_unit_test(decoding_leaves_the_traced_code_s_file_as_cold_as_it_found_it),
		cmocka_unit_test(a_session_without_intel_pt_says_so),
	};

	return cmocka_run_group_tests(tests, make_dir, remove_dir);
}
