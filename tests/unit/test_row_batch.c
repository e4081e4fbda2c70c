/*
 * row_batch (schema/row_batch.h): rows held and written as one INSERT
 * go in whole, in the order taken, with their NULLs and texts; a failure
 * says how many went in; and the loader's rows, held so, are all in the
 * database once it commits.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <cmocka.h>

#include "../integration/run.h"
#include "../../schema/db.h"
#include "../../schema/loader.h"
#include "../../schema/row_batch.h"

static sqlite3 *memory_db(const char *table)
{
	sqlite3 *db = NULL;

	assert_int_equal(sqlite3_open(":memory:", &db), SQLITE_OK);
	assert_int_equal(sqlite3_exec(db, table, NULL, NULL, NULL), SQLITE_OK);
	return db;
}

static int64_t int_of(sqlite3 *db, const char *sql)
{
	sqlite3_stmt *st = NULL;
	int64_t v = -1;

	assert_int_equal(sqlite3_prepare_v2(db, sql, -1, &st, NULL), SQLITE_OK);
	if (sqlite3_step(st) == SQLITE_ROW)
		v = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	return v;
}

/* Row i: (i, NULL for odd i, 'r' followed by i), and its values for
 * columns past those. */
static struct row_value *take_row(struct row_batch *b, int i)
{
	struct row_value *v = row_batch_next(b);
	char s[16];

	snprintf(s, sizeof(s), "r%d", i);
	row_int(&v[0], i);
	row_opt(&v[1], i % 2 ? -1 : i * 10);
	row_text(b, &v[2], s);
	return v;
}

/* Two full batches and a part of one: every row, in order. */
static void rows_go_in_whole_and_in_order(void **state)
{
	sqlite3 *db = memory_db("CREATE TABLE t (a INTEGER, b INTEGER, c TEXT,"
				" d REAL)");
	struct row_batch b;
	uint64_t written = 0;
	int n = 2 * ROW_BATCH_ROWS + 5;

	(void)state;
	assert_int_equal(row_batch_prepare(&b, db, "t (a, b, c, d)", 4),
			 SQLITE_OK);
	for (int i = 0; i < n; i++) {
		row_real(&take_row(&b, i)[3], i + 0.25);
		if (row_batch_full(&b))
			assert_int_equal(row_batch_flush(&b, &written), SQLITE_DONE);
	}
	assert_int_equal(int_of(db, "SELECT count(*) FROM t"), 2 * ROW_BATCH_ROWS);
	assert_int_equal(row_batch_flush(&b, &written), SQLITE_DONE);
	assert_int_equal(written, n);
	assert_int_equal(int_of(db, "SELECT count(*) FROM t"), n);
	/* rowid order is the order taken; NULL where absent; the texts. */
	assert_int_equal(int_of(db, "SELECT count(*) FROM t WHERE a = rowid - 1"
				" AND (b IS NULL) = (a % 2 = 1)"
				" AND (b IS NULL OR b = a * 10)"
				" AND c = 'r' || a AND d = a + 0.25"), n);
	row_batch_release(&b);
	sqlite3_close(db);
}

/* A row SQLite refuses: the rows before it go in, and are counted, in
 * a full batch as in one flushed a row at a time. */
static void a_refused_row_says_how_many_went_in(void **state)
{
	sqlite3 *db = memory_db("CREATE TABLE t (a INTEGER, b INTEGER NOT NULL,"
				" c TEXT)");
	struct row_batch b;
	uint64_t written = 0;

	(void)state;
	assert_int_equal(row_batch_prepare(&b, db, "t (a, b, c)", 3),
			 SQLITE_OK);
	for (int i = 0; i < ROW_BATCH_ROWS; i++)
		take_row(&b, i * 2 + (i == 7));	/* row 7: b NULL */
	assert_true(row_batch_full(&b));
	assert_int_equal(row_batch_flush(&b, &written), SQLITE_CONSTRAINT);
	assert_int_equal(written, 7);
	assert_int_equal(int_of(db, "SELECT count(*) FROM t"), 7);
	assert_int_equal(b.n, 0);

	for (int i = 0; i < 5; i++)
		take_row(&b, i * 2 + (i == 3));
	assert_int_equal(row_batch_flush(&b, &written), SQLITE_CONSTRAINT);
	assert_int_equal(written, 10);
	assert_int_equal(int_of(db, "SELECT count(*) FROM t"), 10);
	row_batch_release(&b);
	sqlite3_close(db);
}

/* A text longer than a batch holds is refused, never cut short. */
static void a_text_too_long_is_refused(void **state)
{
	sqlite3 *db = memory_db("CREATE TABLE t (a INTEGER, b INTEGER, c TEXT)");
	char longer[ROW_BATCH_TEXT + 1];
	struct row_batch b;
	struct row_value *v;
	uint64_t written = 0;

	(void)state;
	memset(longer, 'x', ROW_BATCH_TEXT);
	longer[ROW_BATCH_TEXT] = '\0';
	assert_int_equal(row_batch_prepare(&b, db, "t (a, b, c)", 3),
			 SQLITE_OK);
	take_row(&b, 1);
	v = row_batch_next(&b);
	row_int(&v[0], 2);
	row_text(&b, &v[2], longer);
	assert_int_equal(row_batch_flush(&b, &written), SQLITE_TOOBIG);
	assert_int_equal(written, 0);
	assert_int_equal(int_of(db, "SELECT count(*) FROM t"), 0);
	/* The next batch starts clean. */
	take_row(&b, 3);
	assert_int_equal(row_batch_flush(&b, &written), SQLITE_DONE);
	assert_int_equal(int_of(db, "SELECT count(*) FROM t WHERE c = 'r3'"), 1);
	row_batch_release(&b);
	sqlite3_close(db);
}

/* The loader's batched rows (faults, intervals, the threads that ran
 * instead): held ones are in the file once it commits, as another
 * connection reads it. */
static void the_loaders_rows_are_in_after_a_commit(void **state)
{
	const char *path = scratch_path("batch.db");
	struct session_info si = { .host = "testhost", .kernel = "6.18",
				   .command_line = "faultline record",
				   .options = "{}", .version = "test",
				   .cpus = 2 };
	int n = ROW_BATCH_ROWS + 3;
	struct clock_step step;
	struct clock_map map;
	struct loader l;
	struct errmsg e;
	sqlite3 *db = NULL;

	(void)state;
	errmsg_init(&e);
	clock_anchor_take(&si.start);
	clock_map_init(&map);
	assert_int_equal(clock_map_add(&map, &si.start, &step), 0);
	assert_int_equal(db_open_write(path, &db, &e), 0);
	assert_int_equal(loader_begin(&l, db, path, &si, &map, &e), 0);
	for (int i = 0; i < n; i++) {
		struct fault f = { .mono_ts = si.start.mono_ns + (uint64_t)i,
				   .dur_ns = 1000 + (uint64_t)i, .tid = 7,
				   .pid = 7, .cpu = 1, .addr = 4096u * (uint64_t)i,
				   .kind = i == 5 ? FAULT_MAJOR : FAULT_MINOR,
				   .exit_cpu = i == 6 ? UINT32_MAX : 0 };

		assert_int_equal(loader_fault(&l, &f, &e), 0);
	}
	/* Intervals, with the threads that ran in their place, as well. */
	for (int i = 0; i < n; i++) {
		struct cpu_share ran[2] = { { 9, 500, "kworker/0:1" },
					    { 10, 200, "" } };
		struct state_interval iv = {
			.tid = 7, .pid = 7, .mono_ts = si.start.mono_ns + (uint64_t)i,
			.dur_ns = 100, .state = i % 2 ? TS_RUNNABLE : TS_SLEEPING,
			.cpu = -1, .waker_tid = i % 2 ? -1 : 8, .waker_cpu = -1,
			.waker_ctx = i % 2 ? -1 : WAKE_THREAD,
			.waker_comm = "waker", .next_tid = -1,
			.ran = ran, .nran = i % 2 ? 2 : 0, .ran_cpu = 1,
		};

		assert_int_equal(loader_state(&l, &iv, &e), 0);
	}
	assert_int_equal(loader_commit(&l, &e), 0);
	assert_int_equal(db_int(path, "SELECT count(*) FROM thread_state WHERE"
				" state = 'sleeping' AND waker_tid = 8"
				" AND waker_comm = 'waker'"
				" AND waker_context = 'thread'"
				" AND next_comm IS NULL"), (n + 1) / 2);
	assert_int_equal(db_int(path, "SELECT count(*) FROM thread_state WHERE"
				" state = 'runnable' AND waker_tid IS NULL"
				" AND waker_context IS NULL"), n / 2);
	assert_int_equal(db_int(path, "SELECT count(*) FROM ran_instead"), n / 2 * 2);
	assert_int_equal(db_int(path, "SELECT count(*) FROM ran_instead WHERE"
				" ran_comm IS NULL AND ran_tid = 10 AND dur = 200"),
			 n / 2);
	assert_int_equal(db_int(path, "SELECT count(*) FROM fault"), n);
	assert_int_equal(db_int(path, "SELECT count(*) FROM fault WHERE"
				" dur = 1000 + addr / 4096 AND tid = 7"
				" AND kind = CASE addr WHEN 5 * 4096 THEN 'major'"
				" ELSE 'minor' END"
				" AND (exit_cpu IS NULL) = (addr = 6 * 4096)"
				" AND stack_id IS NULL"), n);
	loader_release(&l);
	db_close(db);
	clock_map_release(&map);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(rows_go_in_whole_and_in_order),
		cmocka_unit_test(a_refused_row_says_how_many_went_in),
		cmocka_unit_test(a_text_too_long_is_refused),
		cmocka_unit_test(the_loaders_rows_are_in_after_a_commit),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
