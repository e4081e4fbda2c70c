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
 * Usage: loader_rate [ROWS] [DIR]   (default 1000000 rows in /var/tmp)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../common/clock.h"
#include "../../schema/db.h"
#include "../../schema/loader.h"

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

int main(int argc, char **argv)
{
	long rows = argc > 1 ? atol(argv[1]) : 1000000;
	const char *dir = argc > 2 ? argv[2] : "/var/tmp";
	char a[512], b[512];
	double best_l = 0, best_p = 0, idx = 0, best_idx = 1e9;

	snprintf(a, sizeof(a), "%s/loader_rate.%d.db", dir, (int)getpid());
	snprintf(b, sizeof(b), "%s/plain_rate.%d.db", dir, (int)getpid());
	for (int r = 0; r < 3; r++) {
		double l = loader_run(a, rows, &idx), p = plain_run(b, rows);

		best_l = l > best_l ? l : best_l;
		best_p = p > best_p ? p : best_p;
		best_idx = idx < best_idx ? idx : best_idx;
	}
	printf("== loader, %ld fault rows, best of 3\n", rows);
	printf("  loader_fault            %10.0f rows/s\n", best_l);
	printf("  plain prepared insert   %10.0f rows/s\n", best_p);
	printf("  loader / plain          %10.2f\n", best_l / best_p);
	printf("  other indexes at session end: %.2f s (%.0f rows/s)\n", best_idx,
	       (double)rows / best_idx);
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
