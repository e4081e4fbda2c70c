/*
 * loader_rate: rows per second of loader_fault (schema/loader.c), the
 * path every stored fault takes, against a plain loop of prepared inserts
 * of the same columns, a row a statement, in one run, best of 3.  The
 * loader writes its fault rows ROW_BATCH_ROWS to a statement
 * (schema/row_batch.h), so it beats the plain loop by what SQLite costs
 * a statement beyond its rows.
 * Both keep the fault indexes up as they load (schema/load_indexes.sql,
 * made when a session begins); also times the build of the others that
 * loader_end does once per session.
 *
 * Then SQLite's own share, the floor under any recorder that stores a
 * row per fault in it: the CPU time (user and system, of the inserting
 * thread) a fault row costs in a database faultline made, written
 * through the loader's own batched statement (schema/row_batch.c) and
 * committed as the loader commits, with no decoding, ordering or clock
 * conversion before it; without any index and with the two kept up.
 * bench/collector/record_overhead.sh holds it against perf record's
 * CPU per fault.
 *
 * Usage: loader_rate [ROWS] [DIR]   (default 1000000 rows in /var/tmp)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "../../common/clock.h"
#include "../../schema/db.h"
#include "../../schema/loader.h"
#include "../../schema/row_batch.h"

/* The i-th fault, 1 us after the one before, from mono0 (CLOCK_MONOTONIC). */
static struct fault fake_fault(uint64_t mono0, long i)
{
	struct fault f = {
		.mono_ts = mono0 + (uint64_t)i * 1000,
		.dur_ns = 1500 + (uint64_t)(i % 97),
		.tid = 4242 + (uint32_t)(i % 7), .pid = 4242,
		.cpu = (uint32_t)(i & 1), .exit_cpu = (uint32_t)(i & 1),
		.kind = i % 1000 ? FAULT_MINOR : FAULT_MAJOR,
		.addr = 0x7f0000000000ull + (uint64_t)i * 4096,
		.ip = 0x401000,
	};
	return f;
}

static double loader_run(const char *path, long rows, double *index_s)
{
	struct session_info si = { .host = "bench", .kernel = "k",
		.command_line = "loader_rate", .options = "{}", .version = "0" };
	struct session_counts c = { 0 };
	struct clock_map clock;
	struct clock_step step;
	struct loader l;
	struct errmsg e;
	sqlite3 *db;
	uint64_t t0, t1, t2;

	errmsg_init(&e);
	unlink(path);
	clock_map_init(&clock);
	clock_anchor_take(&si.start);
	if (clock_map_add(&clock, &si.start, &step) < 0) {
		fprintf(stderr, "loader_rate: out of memory\n");
		exit(1);
	}
	if (db_open_write(path, &db, &e) < 0 ||
	    loader_begin(&l, db, path, &si, &clock, &e) < 0) {
		fprintf(stderr, "loader_rate: %s\n", e.text);
		exit(1);
	}
	t0 = monotonic_ns();
	for (long i = 0; i < rows; i++) {
		struct fault f = fake_fault(si.start.mono_ns, i);

		if (loader_fault(&l, &f, &e) < 0) {
			fprintf(stderr, "loader_rate: %s\n", e.text);
			exit(1);
		}
	}
	loader_commit(&l, &e);
	t1 = monotonic_ns();
	loader_end(&l, &si.start, &c,
		   &(struct session_ending){ "complete", "bench", NULL }, &e);
	t2 = monotonic_ns();
	loader_release(&l);
	db_close(db);
	clock_map_release(&clock);
	*index_s = (double)(t2 - t1) / 1e9;
	return (double)rows / ((double)(t1 - t0) / 1e9);
}

/* Generated from schema/load_indexes.sql by the Makefile. */
extern const char load_indexes_sql[];

/* The same rows through one bare prepared statement, into a table with
 * the indexes the loader keeps up. */
static double plain_run(const char *path, long rows)
{
	sqlite3 *db;
	sqlite3_stmt *st;
	uint64_t t0, t1;

	unlink(path);
	sqlite3_open(path, &db);
	sqlite3_exec(db, "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;"
		     "CREATE TABLE fault (session_id, ts, dur, tid, pid, cpu,"
		     " exit_cpu, kind, addr, ip)", NULL, NULL, NULL);
	sqlite3_exec(db, load_indexes_sql, NULL, NULL, NULL);
	sqlite3_prepare_v2(db, "INSERT INTO fault VALUES (?,?,?,?,?,?,?,?,?,?)",
			   -1, &st, NULL);
	t0 = monotonic_ns();
	sqlite3_exec(db, "BEGIN", NULL, NULL, NULL);
	for (long i = 0; i < rows; i++) {
		struct fault f = fake_fault(0, i);

		sqlite3_bind_int64(st, 1, 1);
		sqlite3_bind_int64(st, 2, (sqlite3_int64)f.mono_ts);
		sqlite3_bind_int64(st, 3, (sqlite3_int64)f.dur_ns);
		sqlite3_bind_int64(st, 4, f.tid);
		sqlite3_bind_int64(st, 5, f.pid);
		sqlite3_bind_int64(st, 6, f.cpu);
		sqlite3_bind_int64(st, 7, f.exit_cpu);
		sqlite3_bind_text(st, 8, fault_kind_name(f.kind), -1, SQLITE_STATIC);
		sqlite3_bind_int64(st, 9, (sqlite3_int64)f.addr);
		sqlite3_bind_int64(st, 10, (sqlite3_int64)f.ip);
		sqlite3_step(st);
		sqlite3_reset(st);
		if ((i + 1) % LOADER_BATCH_ROWS == 0)
			sqlite3_exec(db, "COMMIT; BEGIN", NULL, NULL, NULL);
	}
	sqlite3_exec(db, "COMMIT", NULL, NULL, NULL);
	t1 = monotonic_ns();
	sqlite3_finalize(st);
	sqlite3_close(db);
	return (double)rows / ((double)(t1 - t0) / 1e9);
}

static uint64_t thread_cpu_ns(void)
{
	struct rusage ru;

	getrusage(RUSAGE_THREAD, &ru);
	return timeval_ns(ru.ru_utime) + timeval_ns(ru.ru_stime);
}

static void die_sqlite(sqlite3 *db, const char *what)
{
	fprintf(stderr, "loader_rate: %s: %s\n", what, sqlite3_errmsg(db));
	exit(1);
}

/* CPU ns per row of SQLite alone: rows fault rows into a new database,
 * with the fault indexes kept up or none.  The rows are of one thread,
 * as the fault loop's are: each index entry lands beside the one before,
 * SQLite's cheapest case. */
static double floor_run(const char *path, long rows, int indexed)
{
	struct row_batch b;
	struct errmsg e;
	uint64_t written = 0, t0, cpu_ns;
	sqlite3 *db;

	errmsg_init(&e);
	unlink(path);
	if (db_open_write(path, &db, &e) < 0 ||
	    (indexed && db_load_indexes(db, path, &e) < 0)) {
		fprintf(stderr, "loader_rate: %s\n", e.text);
		exit(1);
	}
	if (row_batch_prepare(&b, db, "fault (session_id, ts, dur, tid, pid,"
			      " cpu, exit_cpu, kind, addr, ip, stack_id)",
			      11) != SQLITE_OK)
		die_sqlite(db, "prepare");
	t0 = thread_cpu_ns();
	sqlite3_exec(db, "BEGIN", NULL, NULL, NULL);
	for (long i = 0; i < rows; i++) {
		struct fault f = fake_fault(1795000000000000000ull, i);
		struct row_value *v = row_batch_next(&b);

		row_int(&v[0], 1);
		row_int(&v[1], (int64_t)f.mono_ts);
		row_int(&v[2], (int64_t)f.dur_ns);
		row_int(&v[3], f.pid);	/* tid: the one thread's */
		row_int(&v[4], f.pid);
		row_int(&v[5], f.cpu);
		row_int(&v[6], f.exit_cpu);
		row_text(&b, &v[7], fault_kind_name(f.kind));
		row_int(&v[8], (int64_t)f.addr);
		row_int(&v[9], (int64_t)f.ip);
		if (row_batch_full(&b) && row_batch_flush(&b, &written) != SQLITE_DONE)
			die_sqlite(db, "insert");
		if ((i + 1) % LOADER_BATCH_ROWS == 0)
			sqlite3_exec(db, "COMMIT; BEGIN", NULL, NULL, NULL);
	}
	if (row_batch_flush(&b, &written) != SQLITE_DONE ||
	    sqlite3_exec(db, "COMMIT", NULL, NULL, NULL) != SQLITE_OK)
		die_sqlite(db, "commit");
	cpu_ns = thread_cpu_ns() - t0;
	row_batch_release(&b);
	db_close(db);
	return (double)cpu_ns / (double)rows;
}

int main(int argc, char **argv)
{
	long rows = argc > 1 ? atol(argv[1]) : 1000000;
	const char *dir = argc > 2 ? argv[2] : "/var/tmp";
	char a[512], b[512];
	double best_l = 0, best_p = 0, idx = 0, best_idx = 1e9;
	double bare = 1e12, indexed = 1e12;

	snprintf(a, sizeof(a), "%s/loader_rate.%d.db", dir, (int)getpid());
	snprintf(b, sizeof(b), "%s/plain_rate.%d.db", dir, (int)getpid());
	for (int r = 0; r < 3; r++) {
		double l = loader_run(a, rows, &idx), p = plain_run(b, rows);
		double fb = floor_run(b, rows, 0), fi = floor_run(b, rows, 1);

		best_l = l > best_l ? l : best_l;
		best_p = p > best_p ? p : best_p;
		best_idx = idx < best_idx ? idx : best_idx;
		bare = fb < bare ? fb : bare;
		indexed = fi < indexed ? fi : indexed;
	}
	printf("== loader, %ld fault rows, best of 3\n", rows);
	printf("  loader_fault            %10.0f rows/s\n", best_l);
	printf("  plain prepared insert   %10.0f rows/s\n", best_p);
	printf("  loader / plain          %10.2f\n", best_l / best_p);
	printf("  other indexes at session end: %.2f s (%.0f rows/s)\n", best_idx,
	       (double)rows / best_idx);
	printf("== SQLite alone: CPU per fault row, best of 3\n");
	printf("  no index                %10.0f ns\n", bare);
	printf("  the two fault indexes   %10.0f ns\n", indexed);
	for (const char *p = a; p; p = p == a ? b : NULL) {
		char w[600];

		unlink(p);
		snprintf(w, sizeof(w), "%s-wal", p);
		unlink(w);
		snprintf(w, sizeof(w), "%s-shm", p);
		unlink(w);
	}
	return 0;
}
