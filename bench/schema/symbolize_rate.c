/*
 * symbolize_rate: frames and stacks per second of symbolize_session
 * (cli/symbolize_session.c: read the frames, gather the sources, name,
 * write) on a synthetic session of STACKS stacks of 10 to 20 frames,
 * drawn from a pool of distinct frames at random addresses in the code
 * of this binary (-g: names, lines, inlined calls), libc (.symtab or
 * .dynsym), the dynamic linker, and the running kernel (kallsyms), as
 * PROCS processes with the same mappings.  Times the first
 * symbolization and a --redo of the same frames, best of ROUNDS.
 *
 * Usage: symbolize_rate [STACKS] [DIR]   (default 100000 in /var/tmp)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "../../record/symbolize.h"
#include "../../common/array.h"
#include "../../common/clock.h"
#include "../../schema/db.h"

#define PROCS 4
#define ROUNDS 3
#define FRAMES_PER_STACK_MIN 10
#define FRAMES_PER_STACK_MAX 20

struct range {
	uint64_t start, end;
};

static uint64_t rng = 0x9e3779b97f4a7c15ull;

static uint64_t next_rand(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

static void die_sql(sqlite3 *db, const char *what)
{
	fprintf(stderr, "symbolize_rate: %s: %s\n", what, sqlite3_errmsg(db));
	exit(1);
}

/* Is the mapped file one to draw frames from: this binary, libc, the
 * dynamic linker, the vDSO? */
static int drawn_from(const char *path)
{
	static char self[768];

	if (!self[0] && readlink("/proc/self/exe", self, sizeof(self) - 1) < 0)
		self[0] = '-';
	return !strcmp(path, self) || strstr(path, "/libc.so") ||
	       strstr(path, "/ld-linux") || !strcmp(path, "[vdso]");
}

/* This process's executable mappings as 'proc' rows for PROCS pids; the
 * ranges of code to draw user addresses from. */
static size_t add_mappings(sqlite3 *db, struct range *code, size_t max,
			   int verbose)
{
	char line[1024], path[768];
	FILE *f = fopen("/proc/self/maps", "r");
	sqlite3_stmt *st;
	size_t n = 0;

	if (!f || sqlite3_prepare_v2(db, "INSERT INTO mapping (session_id, ts, pid,"
			" tid, start_addr, end_addr, pgoff, path, prot, source)"
			" VALUES (1, 0, ?, ?, ?, ?, ?, ?, 5, 'proc')", -1, &st, NULL))
		die_sql(db, "mappings");
	while (fgets(line, sizeof(line), f)) {
		unsigned long long start, end, pgoff;
		char perms[8];

		path[0] = '\0';
		if (sscanf(line, "%llx-%llx %7s %llx %*s %*s %767s", &start, &end,
			   perms, &pgoff, path) < 5 || perms[2] != 'x' ||
		    (path[0] != '/' && strcmp(path, "[vdso]")))
			continue;
		for (int p = 1; p <= PROCS; p++) {
			sqlite3_bind_int(st, 1, 1000 + p);
			sqlite3_bind_int(st, 2, 1000 + p);
			sqlite3_bind_int64(st, 3, (int64_t)start);
			sqlite3_bind_int64(st, 4, (int64_t)end);
			sqlite3_bind_int64(st, 5, (int64_t)pgoff);
			sqlite3_bind_text(st, 6, path, -1, SQLITE_TRANSIENT);
			if (sqlite3_step(st) != SQLITE_DONE)
				die_sql(db, "mapping row");
			sqlite3_reset(st);
		}
		if (n == max || !drawn_from(path))
			continue;
		code[n++] = (struct range){ start, end };
		if (verbose)
			printf("  code: %s (%llu KiB)\n", path, (end - start) >> 10);
	}
	fclose(f);
	sqlite3_finalize(st);
	return n;
}

/* Kernel code addresses: the start of every code symbol. */
static uint64_t *kernel_code(size_t *n)
{
	char line[512], type;
	unsigned long long a;
	size_t cap = 0;
	uint64_t *v = NULL;
	FILE *f = fopen("/proc/kallsyms", "r");

	*n = 0;
	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, "%llx %c", &a, &type) == 2 && a &&
		    (type == 't' || type == 'T') && !strchr(line, '[')) {
			if (ARRAY_RESERVE(v, cap, *n + 1) < 0)
				break;
			v[(*n)++] = a;
		}
	if (f)
		fclose(f);
	return v;
}

/* The pool of distinct frames (a fifth of them kernel ones) and STACKS
 * stacks over them. */
static void add_frames(sqlite3 *db, long stacks, long pool,
		       const struct range *code, size_t ncode,
		       const uint64_t *kcode, size_t nk)
{
	sqlite3_stmt *fr, *sk, *sf;

	if (sqlite3_exec(db, "BEGIN", NULL, NULL, NULL) ||
	    sqlite3_prepare_v2(db, "INSERT INTO frame (session_id, frame_id, pid,"
			       " addr, kernel, return_addr) VALUES (1, ?, ?, ?, ?, 1)",
			       -1, &fr, NULL) ||
	    sqlite3_prepare_v2(db, "INSERT INTO stack VALUES (1, ?, ?, ?, 'fp', NULL)",
			       -1, &sk, NULL) ||
	    sqlite3_prepare_v2(db, "INSERT INTO stack_frame VALUES (1, ?, ?, ?)",
			       -1, &sf, NULL))
		die_sql(db, "frames");
	for (long i = 0; i < pool; i++) {
		int kernel = nk && i % 5 == 0;
		const struct range *r = &code[next_rand() % ncode];
		uint64_t addr = kernel ? kcode[next_rand() % nk] + 1 + next_rand() % 64
				       : r->start + next_rand() % (r->end - r->start);

		sqlite3_bind_int64(fr, 1, i);
		sqlite3_bind_int(fr, 2, kernel ? -1 : 1001 + (int)(next_rand() % PROCS));
		sqlite3_bind_int64(fr, 3, (int64_t)addr);
		sqlite3_bind_int(fr, 4, kernel);
		if (sqlite3_step(fr) != SQLITE_DONE)
			die_sql(db, "frame row");
		sqlite3_reset(fr);
	}
	for (long s = 0; s < stacks; s++) {
		int depth = FRAMES_PER_STACK_MIN + (int)(next_rand() %
			(FRAMES_PER_STACK_MAX - FRAMES_PER_STACK_MIN + 1));

		sqlite3_bind_int64(sk, 1, s);
		sqlite3_bind_int(sk, 2, 1001);
		sqlite3_bind_int(sk, 3, depth);
		if (sqlite3_step(sk) != SQLITE_DONE)
			die_sql(db, "stack row");
		sqlite3_reset(sk);
		for (int d = 0; d < depth; d++) {
			sqlite3_bind_int64(sf, 1, s);
			sqlite3_bind_int(sf, 2, d);
			sqlite3_bind_int64(sf, 3, (int64_t)(next_rand() % (uint64_t)pool));
			if (sqlite3_step(sf) != SQLITE_DONE)
				die_sql(db, "stack_frame row");
			sqlite3_reset(sf);
		}
	}
	sqlite3_finalize(fr);
	sqlite3_finalize(sk);
	sqlite3_finalize(sf);
	if (sqlite3_exec(db, "COMMIT", NULL, NULL, NULL))
		die_sql(db, "commit");
}

static double symbolize_s(sqlite3 *db, const char *path, int redo,
			  struct symbolize_counts *c)
{
	struct symbolize_opts o = { NULL, 0, redo };
	struct errmsg e;
	uint64_t t0;

	errmsg_init(&e);
	t0 = monotonic_ns();
	if (symbolize_session(db, path, 1, &o, c, &e) < 0) {
		fprintf(stderr, "symbolize_rate: %s\n", e.text);
		exit(1);
	}
	return (double)(monotonic_ns() - t0) / 1e9;
}

int main(int argc, char **argv)
{
	long stacks = argc > 1 ? atol(argv[1]) : 100000;
	const char *dir = argc > 2 ? argv[2] : "/var/tmp";
	long pool = stacks * 2;
	char path[512];
	struct range code[64];
	struct symbolize_counts c;
	struct utsname un;
	struct errmsg e;
	sqlite3 *db;
	size_t ncode, nk;
	uint64_t *kcode;
	double first = 1e9, redo = 1e9;
	char *sql;

	errmsg_init(&e);
	uname(&un);
	snprintf(path, sizeof(path), "%s/symbolize_rate.%d.db", dir, (int)getpid());
	for (int round = 0; round < ROUNDS; round++) {
		unlink(path);
		if (db_open_write(path, &db, &e) < 0) {
			fprintf(stderr, "symbolize_rate: %s\n", e.text);
			return 1;
		}
		sql = sqlite3_mprintf("INSERT INTO session (session_id, start_ts, host,"
			" kernel, command_line, options, faultline_version,"
			" start_realtime_ns, start_monotonic_ns, min_fault_dur,"
			" buffer_bytes, cpus) VALUES (1, 0, 'bench', %Q, 'bench', '{}',"
			" '0', 0, 0, 0, 0, 1)", un.release);
		if (sqlite3_exec(db, sql, NULL, NULL, NULL))
			die_sql(db, "session");
		sqlite3_free(sql);
		if (round == 0)
			printf("symbolize_rate: %ld stacks over %ld distinct frames, "
			       "%d processes\n", stacks, pool, PROCS);
		ncode = add_mappings(db, code, 64, round == 0);
		kcode = kernel_code(&nk);
		add_frames(db, stacks, pool, code, ncode, kcode, nk);
		free(kcode);
		if (db_build_indexes(db, path, &e) < 0) {
			fprintf(stderr, "symbolize_rate: %s\n", e.text);
			return 1;
		}
		double t = symbolize_s(db, path, 0, &c);

		first = t < first ? t : first;
		t = symbolize_s(db, path, 1, &c);
		redo = t < redo ? t : redo;
		db_close(db);
		unlink(path);
	}
	printf("  frames: %llu ok, %llu no-symbol, %llu no-file, %llu other\n",
	       (unsigned long long)c.ok, (unsigned long long)c.no_symbol,
	       (unsigned long long)c.no_file,
	       (unsigned long long)(c.no_mapping + c.build_id_mismatch));
	printf("  first symbolization: %.2f s, %.0f frames/s, %.0f stacks/s "
	       "(best of %d)\n", first, (double)pool / first,
	       (double)stacks / first, ROUNDS);
	printf("  --redo:              %.2f s, %.0f frames/s, %.0f stacks/s\n",
	       redo, (double)pool / redo, (double)stacks / redo);
	return 0;
}
