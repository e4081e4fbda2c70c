/*
 * faultline merge and faultline label, on real recordings: every row of
 * every table arrives once, with its ids remapped and its content
 * unchanged; a second merge adds nothing; bad inputs and a full disk are
 * refused with the output left whole.
 *
 * Content is compared per table as a sum, over rows, of a hash of the
 * row in which each id is replaced by what it stands for (a session_id
 * by the session's uuid, a series_id by the series' session uuid, name,
 * labels, source and import time): equal sums mean the same rows, in
 * whatever order and under whatever ids.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <sys/mount.h>

#include "../../common/sha256.h"
#include "../../schema/merge.h"
#include "../integration/run.h"

static const char *db_a, *db_b, *db_c;

static const char *write_file(const char *name, const char *text)
{
	const char *path = scratch_path(name);
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	fputs(text, f);
	assert_int_equal(fclose(f), 0);
	return path;
}

static void copy_file(const char *from, const char *to)
{
	char buf[65536];
	int in = open(from, O_RDONLY), out = open(to, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	ssize_t n;

	assert_true(in >= 0 && out >= 0);
	while ((n = read(in, buf, sizeof(buf))) > 0)
		assert_int_equal(write(out, buf, (size_t)n), n);
	assert_int_equal(n, 0);
	close(in);
	assert_int_equal(close(out), 0);
}

static void exec_sql(const char *path, const char *sql)
{
	sqlite3 *db = NULL;
	char *err = NULL;

	assert_int_equal(sqlite3_open(path, &db), SQLITE_OK);
	if (sqlite3_exec(db, sql, NULL, NULL, &err) != SQLITE_OK)
		fail_msg("%s: %s", sql, err);
	sqlite3_close(db);
}

/* Rows of the Intel PT tables (no machine here has intel_pt), a clock
 * step, a loss, a runnable wait's holder (a quiet machine may give
 * none), a system call, a block request and a flight dump, so every
 * table of the schema holds rows to merge. */
static const char hand_rows_sql[] =
	"INSERT INTO clock_step VALUES (1, 100, 200, -5000);"
	"INSERT INTO lost VALUES (1, NULL, 0, 'records', 3);"
	"INSERT INTO pt_clock VALUES (1, 'fault', 8, 1, 32768, 0, 1, 2, 3, NULL,"
	" NULL, 6, 85, 4, 2, 3, 20, 3);"
	"INSERT INTO pt_calibration VALUES (1, 1000, 2000, 5), (1, 3000, 4000, 6);"
	"INSERT INTO pt_vdso VALUES (1, x'7f454c46');"
	"INSERT INTO pt_trace VALUES (1, 1, 10, 10, NULL, 'fault', 1, 2, 3, 1, 4,"
	" x'02820282');"
	"INSERT INTO pt_call VALUES (1, 1, 0, 10, 5, 0, 'call', 4096, 8192, 'f'),"
	" (1, 1, 1, 10, 6, 1, 'return', 8200, 4100, 'f');"
	"INSERT INTO pt_gap VALUES (1, 1, 10, 0, 7, 8, 'overflow', 16, 4096, 'OVF');"
	"INSERT INTO cgroup_cpu VALUES (1, 100, '/sys/fs/cgroup/cpu/app', 20000,"
	" 100000, 5, 4, 320000000);"
	"INSERT INTO ran_instead VALUES (1, 7, 1000, 0, 42, 'cc1', 500000);"
	"INSERT INTO syscall VALUES (1, 7, 7, 1000, 2500000, 0, 0, 'read', 4096,"
	" 2000000, 3, '/var/lib/x.db', 'fd=3, buf=0x7f00, count=4096', NULL);"
	"INSERT INTO syscall_histogram VALUES (1, 7, 'read', 2097152, 4194304, 1,"
	" 2500000);"
	"INSERT INTO syscall_file VALUES (1, 7, 7, 'read', '/var/lib/x.db', 1,"
	" 2500000, 2500000, 2000000);"
	"INSERT INTO latency VALUES (1, 'a:b/a:c:sector', 7, 7, 1000, 5000, 0,"
	" 4096, 0, '{\"sector\":4096}');"
	"INSERT INTO latency_count VALUES (1, 'a:b/a:c:sector', 1, 0, 2);"
	"INSERT INTO block_request VALUES (1, '254:0', 'vda', 2048, 65536, 'R',"
	" 'RS', NULL, 1000, 3000, NULL, 2000, 7, 7, 'wl', 0, 0, 0);"
	"INSERT INTO block_request_count VALUES (1, 1, 0, 0, 0, 0);"
	"INSERT INTO flight_dump VALUES (1, 'signal', 'SIGUSR2', 3000, 2000, 500,"
	" 1000, 3500, 0, NULL, 4194304, 4000000, 0, 0, 0, 0, 7, NULL, NULL, NULL);"
	"INSERT INTO flight_dump_cpu VALUES (1, 0, 10, 640, 0, 0);"
	"INSERT INTO flight_summary VALUES (1, 3, 1, 1, 1, 0, 10, 3600000000000,"
	" NULL, 40960, NULL, NULL, NULL, NULL);"
	"INSERT INTO flight_minute VALUES (1, 60000000000, 7, 'fault:minor', 1024,"
	" 2048, 3, 1900);"
	"INSERT INTO flight_cost VALUES (1, 100, 2000000, 1000000, 33554432,"
	" 41943040, 4096);";

static void record(const char *db, const char *pages, const char *label1,
		   const char *label2)
{
	struct run r;

	if (run_faultline(&r, "record", "-q", "-o", db, "--label", label1,
			  "--label", label2, "--stacks=fp", "--stacks-on", "faults",
			  "-e", "sched:sched_process_exit", "--", workload_bin(),
			  "--pages", pages, NULL) != 0)
		fail_msg("record into %s: %s", db, r.err);
}

/* a: one session (with hand-written PT rows); b: two; c: one and an
 * import of no session. */
static int make_inputs(void **state)
{
	struct run r;
	const char *csv = write_file("naks.csv", "ts,value\n1795000000.5,12\n"
				     "1795000001,13\n");

	(void)state;
	db_a = strdup(scratch_path("a.db"));
	db_b = strdup(scratch_path("b.db"));
	db_c = strdup(scratch_path("c.db"));
	record(db_a, "200", "run=1", "role=pub");
	exec_sql(db_a, hand_rows_sql);
	record(db_b, "100", "run=2", "role=gw");
	record(db_b, "50", "run=3", "role=gw");
	record(db_c, "80", "run=4", "note=\xc3\xa9 \"q\"");
	if (run_faultline(&r, "import", db_c, csv, "--metric", "naks", "--any-time",
			  "-q", NULL) != 0)
		fail_msg("import: %s", r.err);
	return 0;
}

/* The hash sum of table's rows in path, ids replaced; *rows its count. */
static uint64_t table_digest(const char *path, const char *table, int64_t *rows)
{
	char sql[8192], col_sql[512], hex[SHA256_HEX_LEN + 1];
	sqlite3 *db = NULL;
	sqlite3_stmt *st = NULL, *cols = NULL;
	uint64_t sum = 0;
	size_t len;

	assert_int_equal(sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
	len = (size_t)snprintf(sql, sizeof(sql), "SELECT ''");
	snprintf(col_sql, sizeof(col_sql), "SELECT name FROM pragma_table_info('%s')", table);
	assert_int_equal(sqlite3_prepare_v2(db, col_sql, -1, &cols, NULL), SQLITE_OK);
	while (sqlite3_step(cols) == SQLITE_ROW) {
		const char *c = (const char *)sqlite3_column_text(cols, 0);

		if (!strcmp(c, "session_id"))
			len += (size_t)snprintf(sql + len, sizeof(sql) - len,
				" || '|' || quote((SELECT uuid FROM session s"
				" WHERE s.session_id = x.session_id))");
		else if (!strcmp(c, "series_id"))
			len += (size_t)snprintf(sql + len, sizeof(sql) - len,
				" || '|' || (SELECT quote((SELECT uuid FROM session s"
				" WHERE s.session_id = m.session_id)) || name || labels"
				" || source || imported_ts FROM metric_series m"
				" WHERE m.series_id = x.series_id)");
		else
			len += (size_t)snprintf(sql + len, sizeof(sql) - len,
						" || '|' || quote(x.\"%s\")", c);
		assert_true(len < sizeof(sql));
	}
	sqlite3_finalize(cols);
	snprintf(sql + len, sizeof(sql) - len, " FROM \"%s\" x", table);
	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK)
		fail_msg("%s: %s", sql, sqlite3_errmsg(db));
	*rows = 0;
	while (sqlite3_step(st) == SQLITE_ROW) {
		struct sha256 h;
		const unsigned char *t = sqlite3_column_text(st, 0);

		sha256_init(&h);
		sha256_update(&h, t, (size_t)sqlite3_column_bytes(st, 0));
		sha256_hex(&h, hex);
		hex[16] = 0;
		sum += strtoull(hex, NULL, 16);
		(*rows)++;
	}
	sqlite3_finalize(st);
	sqlite3_close(db);
	return sum;
}

/* Every table of out holds exactly the rows of the inputs (each file
 * counted once), ids aside. */
static void assert_same_content(const char *out, const char *const *in, size_t nin)
{
	for (size_t t = 0; t < merge_ntables; t++) {
		const char *name = merge_tables[t].name;
		int64_t rows, want_rows = 0, n;
		uint64_t want = 0, got;

		for (size_t i = 0; i < nin; i++) {
			want += table_digest(in[i], name, &n);
			want_rows += n;
		}
		got = table_digest(out, name, &rows);
		if (rows != want_rows || got != want)
			fail_msg("table %s: %lld rows, the inputs %lld; content %s",
				 name, (long long)rows, (long long)want_rows,
				 got == want ? "equal" : "differs");
	}
}

static void every_table_of_the_schema_is_one_merge_copies(void **state)
{
	const char *db = scratch_path("schema.db");
	sqlite3 *h = NULL;
	sqlite3_stmt *st = NULL;
	size_t tables = 0;
	struct run r;

	(void)state;
	assert_int_equal(run_faultline(&r, "record", "-q", "-o", db, "--", "/bin/true",
				       NULL), 0);
	assert_int_equal(sqlite3_open(db, &h), SQLITE_OK);
	assert_int_equal(sqlite3_prepare_v2(h, "SELECT name FROM sqlite_master WHERE"
					    " type = 'table' AND name NOT LIKE 'sqlite_%'",
					    -1, &st, NULL), SQLITE_OK);
	while (sqlite3_step(st) == SQLITE_ROW) {
		const char *name = (const char *)sqlite3_column_text(st, 0);
		size_t i;

		for (i = 0; i < merge_ntables && strcmp(merge_tables[i].name, name); i++)
			;
		if (i == merge_ntables)
			fail_msg("table %s is not in schema/merge.c's merge_tables", name);
		tables++;
	}
	sqlite3_finalize(st);
	sqlite3_close(h);
	assert_int_equal(tables, merge_ntables);
}

static void three_files_one_given_twice_merge_every_row_once(void **state)
{
	const char *out = scratch_path("fleet.db");
	const char *const in[] = { db_a, db_b, db_c };
	int64_t n;
	struct run r;

	(void)state;
	/* Every table has rows to merge. */
	for (size_t t = 0; t < merge_ntables; t++) {
		int64_t sum = 0;

		for (size_t i = 0; i < 3; i++) {
			table_digest(in[i], merge_tables[t].name, &n);
			sum += n;
		}
		if (sum == 0)
			fail_msg("no input has rows in %s", merge_tables[t].name);
	}
	assert_int_equal(run_faultline(&r, "merge", out, db_a, db_b, db_c, db_c, NULL), 0);
	assert_non_null(strstr(r.out, "4 sessions added from 4 files, 1 skipped"));
	assert_non_null(strstr(r.err, "is already in"));
	assert_same_content(out, in, 3);
	/* Sessions numbered 1 to 4, labels, host and uuid as recorded. */
	assert_int_equal(db_int(out, "SELECT max(session_id) FROM session"), 4);
	assert_int_equal(db_int(out, "SELECT count(*) FROM session WHERE labels ->> '$.run'"
				" = '3' AND labels ->> '$.role' = 'gw'"), 1);
	assert_int_equal(db_int(out, "SELECT count(*) FROM session WHERE labels ->> '$.note'"
				" = '\xc3\xa9 \"q\"'"), 1);
	assert_int_equal(db_int(out, "SELECT count(DISTINCT uuid) FROM session"), 4);
	assert_int_equal(db_int(out, "SELECT count(*) FROM metric_series WHERE"
				" session_id IS NULL"), 1);
	/* The stacks still name their frames through the new session ids. */
	assert_int_equal(db_int(out, "SELECT count(*) FROM stack_frame sf LEFT JOIN frame f"
				" USING (session_id, frame_id) WHERE f.frame_id IS NULL"), 0);
	assert_true(db_int(out, "SELECT count(*) FROM symbol") > 0);
	assert_int_equal(db_int(out, "SELECT count(*) FROM pragma_integrity_check"
				" WHERE integrity_check != 'ok'"), 0);
}

static void a_second_merge_adds_nothing_and_says_so(void **state)
{
	const char *out = scratch_path("again.db");
	const char *const in[] = { db_a, db_b, db_c };
	struct run r;

	(void)state;
	assert_int_equal(run_faultline(&r, "merge", out, db_a, db_b, db_c, NULL), 0);
	assert_int_equal(run_faultline(&r, "merge", out, db_c, db_b, db_a, NULL), 0);
	assert_non_null(strstr(r.out, "0 sessions added from 3 files, 4 skipped"));
	assert_non_null(strstr(r.err, "(uuid "));
	assert_same_content(out, in, 3);
}

static void label_sets_replaces_and_removes_labels(void **state)
{
	const char *db = scratch_path("label.db");
	struct run r;

	(void)state;
	copy_file(db_b, db);
	assert_int_equal(run_faultline(&r, "label", db, "--session", "1", "build=abc",
				       "run=9", NULL), 0);
	assert_non_null(strstr(r.out, "session 1 in"));
	assert_int_equal(db_int(db, "SELECT count(*) FROM session WHERE session_id = 1"
				" AND labels = '{\"build\":\"abc\",\"role\":\"gw\",\"run\":\"9\"}'"), 1);
	/* The latest session by default; KEY= removes one. */
	assert_int_equal(run_faultline(&r, "label", db, "role=", NULL), 0);
	assert_int_equal(db_int(db, "SELECT count(*) FROM session WHERE session_id = 2"
				" AND labels = '{\"run\":\"3\"}'"), 1);
	assert_int_equal(run_faultline(&r, "label", db, "bad key=1", NULL), 2);
	assert_non_null(strstr(r.err, "a key is made of letters, digits"));
	assert_int_equal(run_faultline(&r, "label", db, NULL), 2);
	assert_int_equal(run_faultline(&r, "record", "-o", db, "--label", "x", "-a", NULL), 2);
	assert_non_null(strstr(r.err, "invalid --label 'x': expected KEY=VALUE"));
}

/* A refused input merges nothing, not even the good files beside it. */
static void assert_refused(const char *bad, const char *message)
{
	const char *out = scratch_path("refused.db");
	struct run r;

	unlink(out);
	assert_int_equal(run_faultline(&r, "merge", out, db_a, bad, NULL), 1);
	if (!strstr(r.err, message))
		fail_msg("expected '%s' in: %s", message, r.err);
	assert_non_null(strstr(r.err, "nothing was merged"));
	assert_true(access(out, F_OK) != 0);
}

static void inputs_that_are_not_this_faultlines_are_refused(void **state)
{
	const char *newer = scratch_path("newer.db"), *older = scratch_path("older.db");
	const char *other = scratch_path("other.db");
	struct run r;

	(void)state;
	assert_refused(write_file("notes.txt", "not a database at all, but long enough "
				  "to be read as one\n"), "not a SQLite database");
	exec_sql(other, "CREATE TABLE t (x)");
	assert_refused(other, "not faultline's");
	copy_file(db_a, newer);
	exec_sql(newer, "PRAGMA user_version = 99");
	assert_refused(newer, "newer faultline");
	copy_file(db_a, older);
	exec_sql(older, "PRAGMA user_version = 4");
	assert_refused(older, "faultline upgrade");
	assert_refused(scratch_path("missing.db"), "No such file");
	assert_int_equal(run_faultline(&r, "merge", db_a, db_b, db_a, NULL), 1);
	assert_non_null(strstr(r.err, "cannot merge '"));
	assert_non_null(strstr(r.err, "' into itself; give another output file"));
}

/* Rows enough that a file does not fit beside another in a small tmpfs:
 * b with new uuids and 600,000 more faults. */
static const char big_sql[] =
	"UPDATE session SET uuid = lower(hex(randomblob(16)));"
	"INSERT INTO fault (session_id, ts, dur, tid, pid, cpu, exit_cpu, kind, addr, ip)"
	" WITH RECURSIVE c(n) AS (SELECT 0 UNION ALL SELECT n + 1 FROM c WHERE n < 599999)"
	" SELECT 1, n, 1500, 1, 1, 0, 0, 'minor', n * 4096, randomblob(8) FROM c;";

static void a_full_disk_keeps_every_earlier_file_whole(void **state)
{
	const char *mnt = scratch_path("small"), *out = scratch_path("small/out.db");
	const char *big = scratch_path("big.db"), *ref = scratch_path("ref.db");
	const char *const in[] = { db_a };
	char opts[64];
	struct stat sb;
	struct run r;

	(void)state;
	copy_file(db_b, big);
	exec_sql(big, big_sql);
	/* How much a alone takes, merged. */
	assert_int_equal(run_faultline(&r, "merge", ref, db_a, NULL), 0);
	assert_int_equal(stat(ref, &sb), 0);
	mkdir(mnt, 0755);
	snprintf(opts, sizeof(opts), "size=%lldk", (long long)sb.st_size / 1024 + 8192);
	if (mount("faultline-test", mnt, "tmpfs", 0, opts) != 0)
		fail_msg("cannot mount a small tmpfs at %s: %s", mnt, strerror(errno));
	assert_int_equal(run_faultline(&r, "merge", out, db_a, big, NULL), 1);
	if (!strstr(r.err, "disk full; nothing of"))
		fail_msg("%s", r.err);
	assert_non_null(strstr(r.err, "the 1 file before"));
	assert_same_content(out, in, 1);
	assert_int_equal(db_int(out, "SELECT count(*) FROM session"), 1);
	umount(mnt);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(every_table_of_the_schema_is_one_merge_copies),
		cmocka_unit_test(three_files_one_given_twice_merge_every_row_once),
		cmocka_unit_test(a_second_merge_adds_nothing_and_says_so),
		cmocka_unit_test(label_sets_replaces_and_removes_labels),
		cmocka_unit_test(inputs_that_are_not_this_faultlines_are_refused),
		cmocka_unit_test(a_full_disk_keeps_every_earlier_file_whole),
	};

	return cmocka_run_group_tests(tests, make_inputs, NULL);
}
