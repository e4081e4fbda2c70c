/*
 * bench/diagnose/fingerprints: each pattern's fingerprint query
 * (diagnose/p_*.c) on a database, timed (best of ROUNDS), with its
 * EXPLAIN QUERY PLAN, heaviest first: which indexes each one uses.
 *
 *   fingerprints DB SESSION [ROUNDS]
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "../../diagnose/pattern.h"

static int64_t now_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (int64_t)t.tv_sec * 1000000000 + t.tv_nsec;
}

static void bind_all(sqlite3_stmt *st, int64_t session)
{
	int i;

	if ((i = sqlite3_bind_parameter_index(st, ":session")))
		sqlite3_bind_int64(st, i, session);
	if ((i = sqlite3_bind_parameter_index(st, ":min_dur")))
		sqlite3_bind_int64(st, i, 1000000);
	if ((i = sqlite3_bind_parameter_index(st, ":min_fault")))
		sqlite3_bind_int64(st, i, 20000);
}

/* The fingerprint's rows and its best time over rounds, in ns. */
static int64_t run_best(sqlite3 *db, const char *sql, int64_t session,
			int rounds, int64_t *rows)
{
	int64_t best = INT64_MAX;

	for (int r = 0; r < rounds; r++) {
		sqlite3_stmt *st = NULL;
		int64_t t0 = now_ns(), n = 0;

		if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK) {
			fprintf(stderr, "fingerprints: %s\n", sqlite3_errmsg(db));
			exit(1);
		}
		bind_all(st, session);
		while (sqlite3_step(st) == SQLITE_ROW)
			n++;
		sqlite3_finalize(st);
		*rows = n;
		if (now_ns() - t0 < best)
			best = now_ns() - t0;
	}
	return best;
}

static void print_plan(sqlite3 *db, const char *sql, int64_t session)
{
	char *q = sqlite3_mprintf("EXPLAIN QUERY PLAN %s", sql);
	sqlite3_stmt *st = NULL;

	if (q && sqlite3_prepare_v2(db, q, -1, &st, NULL) == SQLITE_OK) {
		bind_all(st, session);
		while (sqlite3_step(st) == SQLITE_ROW)
			printf("    %s\n", (const char *)sqlite3_column_text(st, 3));
	}
	sqlite3_finalize(st);
	sqlite3_free(q);
}

int main(int argc, char **argv)
{
	int64_t t[64], rows[64], session;
	int rounds = argc > 3 ? atoi(argv[3]) : 3;
	size_t order[64];
	sqlite3 *db = NULL;

	if (argc < 3 || sqlite3_open_v2(argv[1], &db, SQLITE_OPEN_READONLY, NULL)) {
		fprintf(stderr, "usage: fingerprints DB SESSION [ROUNDS]\n");
		return 2;
	}
	session = atoll(argv[2]);
	for (size_t k = 0; k < diag_npatterns; k++) {
		t[k] = run_best(db, diag_patterns[k]->sql, session, rounds, &rows[k]);
		order[k] = k;
	}
	for (size_t i = 0; i < diag_npatterns; i++)
		for (size_t j = i + 1; j < diag_npatterns; j++)
			if (t[order[j]] > t[order[i]]) {
				size_t x = order[i];

				order[i] = order[j];
				order[j] = x;
			}
	for (size_t i = 0; i < diag_npatterns; i++) {
		size_t k = order[i];

		printf("%-15s %9.1f ms  %8" PRId64 " stalls (best of %d)\n",
		       diag_patterns[k]->name, t[k] / 1e6, rows[k], rounds);
		if (i < 4)
			print_plan(db, diag_patterns[k]->sql, session);
	}
	sqlite3_close(db);
	return 0;
}
