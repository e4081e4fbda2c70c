/*
 * record --stacks against the real kernel: stack_workload takes a major
 * fault in main -> chain_a -> chain_b -> chain_c (and, with --lazy, in the
 * dynamic linker resolving a lazily bound call), and the stored stack
 * must name those frames in order.  Frames are checked by address against
 * the program's symbol table, with the runtime addresses the workload
 * reports.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include "elf_syms.h"
#include "run.h"

static const char *workload(int fp)
{
	static char path[2][512];
	const char *build = getenv("BUILD");

	snprintf(path[fp], sizeof(path[fp]), "%s/tests/stack_workload_%s",
		 build ? build : "build/release", fp ? "fp" : "nofp");
	return path[fp];
}

/* Records the workload with the options given (NULL-terminated, at most
 * 8), its arguments after "--" being wl_args; asserts faultline exits 0. */
static void record_workload(const char *db, int fp, char *const fl_args[],
			    char *const wl_args[])
{
	char *argv[32];
	struct run r;
	int n = 0;

	unlink(db);
	argv[n++] = (char *)faultline_bin();
	argv[n++] = "record";
	argv[n++] = "-q";
	argv[n++] = "-o";
	argv[n++] = (char *)db;
	for (int i = 0; fl_args[i]; i++)
		argv[n++] = fl_args[i];
	argv[n++] = "--";
	argv[n++] = (char *)workload(fp);
	for (int i = 0; wl_args[i]; i++)
		argv[n++] = wl_args[i];
	argv[n] = NULL;
	run_argv(&r, argv);
	if (r.status != 0)
		fprintf(stderr, "faultline: %s\n", r.err);
	assert_int_equal(r.status, 0);
}

/* The runtime [start, end) of fn in the workload, from the address the
 * workload reported for it and its size in the symbol table. */
static void fn_range(int fp, const char *info, const char *fn, uint64_t *lo,
		     uint64_t *hi)
{
	uint64_t value = 0, size = 0;

	assert_int_equal(elf_symbol(workload(fp), fn, &value, &size), 0);
	assert_true(size > 0);
	*lo = (uint64_t)info_get(info, fn);
	*hi = *lo + size;
}

/* The user frame at position k (0: innermost) of stack_id, as the
 * address of the instruction it stands for (a return address less 1). */
static int64_t user_frame(const char *db, int64_t stack_id, int k)
{
	return db_int(db, "SELECT f.addr - f.return_addr FROM stack_frame sf "
		      "JOIN frame f USING (session_id, frame_id) WHERE "
		      "sf.stack_id = %lld AND f.kernel = 0 ORDER BY sf.depth "
		      "LIMIT 1 OFFSET %d", (long long)stack_id, k);
}

static int64_t major_stack(const char *db, const char *info)
{
	return db_int(db, "SELECT stack_id FROM fault WHERE kind = 'major' AND "
		      "addr = %lld", info_get(info, "major"));
}

/* The line of the workload's source that holds text. */
static long source_line(const char *text)
{
	char line[512];
	long n = 0, found = -1;
	FILE *f = fopen("tests/integration/stack_workload.c", "r");

	while (f && fgets(line, sizeof(line), f) && found < 0)
		if (++n && strstr(line, text))
			found = n;
	if (f)
		fclose(f);
	assert_true(found > 0);
	return found;
}

/* What symbolization named user frame k of stack_id: "function
 * file:line" of the function the address is in (the highest idx). */
static void user_frame_name(const char *db, int64_t stack_id, int k,
			    char *out, size_t n)
{
	int64_t frame_id = db_int(db, "SELECT f.frame_id FROM stack_frame sf JOIN "
				  "frame f USING (session_id, frame_id) WHERE "
				  "sf.stack_id = %lld AND f.kernel = 0 ORDER BY "
				  "sf.depth LIMIT 1 OFFSET %d", (long long)stack_id, k);

	db_text(db, out, n, "SELECT function || ' ' || replace(file, rtrim(file, "
		"replace(file, '/', '')), '') || ':' || line FROM symbol WHERE "
		"frame_id = %lld ORDER BY idx DESC LIMIT 1", (long long)frame_id);
}

/* chain_c, chain_b, chain_a, main: the innermost four user frames, by
 * address in the symbol table and by name, file and line once
 * symbolized at the end of the recording. */
static void assert_chain(const char *db, const char *info, int fp,
			 int64_t stack_id, int first)
{
	static const char *const chain[] = { "chain_c", "chain_b", "chain_a", "main" };
	static const char *const at_line[] = {
		"/* the major fault */", "int v = chain_c(p);",
		"int v = chain_b(p);", "v += chain_a(major);",
	};

	for (int k = 0; k < 4; k++) {
		char want[128], got[256];

		snprintf(want, sizeof(want), "%s stack_workload.c:%ld", chain[k],
			 source_line(at_line[k]));
		user_frame_name(db, stack_id, first + k, got, sizeof(got));
		if (strcmp(got, want))
			fail_msg("user frame %d of stack %lld is '%s', not '%s'",
				 first + k, (long long)stack_id, got, want);
	}
	for (int k = 0; k < 4; k++) {
		uint64_t lo, hi;
		int64_t at = user_frame(db, stack_id, first + k);

		fn_range(fp, info, chain[k], &lo, &hi);
		if (at < (int64_t)lo || at >= (int64_t)hi)
			fail_msg("user frame %d of stack %lld is %llx, not in %s "
				 "[%llx, %llx)", first + k, (long long)stack_id,
				 (unsigned long long)at, chain[k],
				 (unsigned long long)lo, (unsigned long long)hi);
	}
}

/*
 * The workload's major fault recorded with --stacks=MODE into NAME, its
 * info file NAME.info: recorded by the first test of this process that
 * asks, so each test that reads a recording has it whichever ran before
 * it.  Returns the database's path (static); info gets the info file's.
 */
static const char *major_fault_recording(int fp, const char *mode, const char *name,
					 char info[256])
{
	static char recorded[4][64];
	char *db = scratch_path(name), file[256], stacks[32];
	char *fl_args[] = { stacks, NULL };
	char *wl_args[] = { "--major-file", file, "--info", info, NULL };
	int i;

	snprintf(info, 256, "%s.info", db);
	for (i = 0; i < 4 && recorded[i][0]; i++)
		if (!strcmp(recorded[i], name))
			return db;
	assert_true(i < 4);
	snprintf(file, sizeof(file), "%s.dat", db);
	snprintf(stacks, sizeof(stacks), "--stacks=%s", mode);
	record_workload(db, fp, fl_args, wl_args);
	snprintf(recorded[i], sizeof(recorded[i]), "%s", name);
	return db;
}

static void check_major_fault_stack(int fp, const char *mode, const char *name)
{
	char info[256];
	const char *db = major_fault_recording(fp, mode, name, info);
	int64_t stack_id;

	assert_int_equal(info_get(info, "major_was_resident"), 0);
	stack_id = major_stack(db, info);
	assert_true(stack_id > 0);
	assert_int_equal(db_int(db, "SELECT method = '%s' AND pid = %lld AND "
				"depth = (SELECT count(*) FROM stack_frame sf WHERE "
				"sf.stack_id = s.stack_id) FROM stack s WHERE "
				"stack_id = %lld", mode, info_get(info, "pid"),
				(long long)stack_id), 1);
	/* The completion event is sampled with the faulting instruction's
	 * user registers: its stack is all user frames, the first of them
	 * the faulting instruction itself, the others return addresses. */
	assert_chain(db, info, fp, stack_id, 0);
assert_int_equal(db_int(db, "SELECT count(*) FROM stack_frame sf JOIN "
				"frame f USING (session_id, frame_id) WHERE "
				"sf.stack_id = %lld AND (f.kernel = 1 OR "
				"f.return_addr != (sf.depth > 0))",
				(long long)stack_id), 0);
}

static void dwarf_names_main_a_b_c_in_a_program_without_frame_pointers(void **state)
{
	(void)state;
	char info[256];
	const char *db = major_fault_recording(0, "dwarf", "dwarf.db", info);

	check_major_fault_stack(0, "dwarf", "dwarf.db");
	/* Unwound to the outermost frame (_start): nothing cut short. */
	assert_int_equal(db_int(db, "SELECT truncated IS NULL FROM stack WHERE "
				"stack_id = %lld", major_stack(db, info)), 1);
}

static void fp_names_main_a_b_c_in_a_program_with_frame_pointers(void **state)
{
	(void)state;
	check_major_fault_stack(1, "fp", "fp.db");
}

/* Tries at a major fault that sleeps: on a fast disk the read can end
 * before the faulting thread goes to sleep for it (seen 1 run in 4 here),
 * and then there is no blocked interval to carry a stack. */
#define BLOCKED_FAULT_TRIES 8

/* SQL: the blocked intervals inside the major fault at %lld. */
#define BLOCKED_IN_MAJOR \
	"FROM thread_state s JOIN fault f USING (session_id, tid) WHERE " \
	"f.kind = 'major' AND f.addr = %lld AND s.state = 'blocked' AND " \
	"s.ts >= f.ts AND s.ts < f.ts + f.dur"

static void the_blocked_interval_of_a_major_fault_carries_the_faulting_stack(void **state)
{
	char info[256], file[256];
	const char *db = scratch_path("blocked.db");
	char *fl_args[] = { "--stacks=dwarf", NULL };
	char *wl_args[] = { "--major-file", file, "--info", info, NULL };
	uint64_t lo, hi;
	int64_t stack_id;
	int tries;

	(void)state;
	snprintf(info, sizeof(info), "%s.info", db);
	snprintf(file, sizeof(file), "%s.dat", db);
	for (tries = 0; tries < BLOCKED_FAULT_TRIES; tries++) {
		record_workload(db, 0, fl_args, wl_args);
		if (db_int(db, "SELECT count(*) " BLOCKED_IN_MAJOR,
			   info_get(info, "major")) > 0)
			break;
	}
	if (tries == BLOCKED_FAULT_TRIES) {
		printf("skipped: in %d recordings the major fault never slept"
		       " (the disk read it first)\n", BLOCKED_FAULT_TRIES);
		skip();
	}
	/* The interval the thread spent blocked inside the major fault. */
	stack_id = db_int(db, "SELECT s.stack_id " BLOCKED_IN_MAJOR
			  " ORDER BY s.dur DESC LIMIT 1", info_get(info, "major"));
	assert_true(stack_id > 0);
	fn_range(0, info, "chain_c", &lo, &hi);
	assert_int_equal(db_int(db, "SELECT count(*) FROM stack_frame sf JOIN frame "
				"f USING (session_id, frame_id) WHERE sf.stack_id = "
				"%lld AND f.kernel = 0 AND f.addr >= %llu AND f.addr "
				"< %llu", (long long)stack_id, (unsigned long long)lo,
				(unsigned long long)hi), 1);
	/* Sampled in the kernel's switch-out path: kernel frames (pid -1)
	 * first, then the user frames; the first of each part is no
	 * return address. */
	assert_int_equal(db_int(db, "SELECT count(*) FROM stack_frame sf JOIN "
				"frame f USING (session_id, frame_id) WHERE "
				"sf.stack_id = %lld AND f.kernel = 1 AND (f.pid != -1 "
				"OR sf.depth > (SELECT min(sf2.depth) FROM stack_frame "
				"sf2 JOIN frame f2 USING (session_id, frame_id) WHERE "
				"sf2.stack_id = %lld AND f2.kernel = 0))",
				(long long)stack_id, (long long)stack_id), 0);
	assert_true(db_int(db, "SELECT count(*) FROM stack_frame sf JOIN frame f "
			   "USING (session_id, frame_id) WHERE sf.stack_id = %lld "
			   "AND f.kernel = 1", (long long)stack_id) > 0);
	assert_int_equal(db_int(db, "SELECT sum(f.return_addr = 0) FROM "
				"stack_frame sf JOIN frame f USING (session_id, "
				"frame_id) WHERE sf.stack_id = %lld",
				(long long)stack_id), 2);
	/* Only blocked intervals keep theirs by default. */
	assert_int_equal(db_int(db, "SELECT count(*) FROM thread_state WHERE "
				"stack_id IS NOT NULL AND state NOT IN ('blocked', "
				"'waiting')"), 0);
}

static void a_stack_is_stored_once_however_many_rows_name_it(void **state)
{
	char info[256];
	const char *db = major_fault_recording(0, "dwarf", "dwarf.db", info);

	(void)state;
	/* The recording holds stacks to compare, and no two are the same. */
	assert_true(db_int(db, "SELECT count(*) FROM stack") > 0);
	assert_int_equal(db_int(db, "SELECT count(*) FROM (SELECT pid, method, "
				"frames FROM (SELECT pid, method, group_concat(frame_id) "
				"AS frames FROM (SELECT * FROM stack JOIN stack_frame "
				"USING (session_id, stack_id) ORDER BY stack_id, depth) "
				"GROUP BY stack_id) GROUP BY pid, method, frames HAVING "
				"count(*) > 1)"), 0);
	assert_int_equal(db_int(db, "SELECT count(*) FROM (SELECT pid, addr, "
				"return_addr FROM frame GROUP BY 1, 2, 3 HAVING "
				"count(*) > 1)"), 0);
	/* Every stack a row names is there, and no stack is unnamed. */
	assert_int_equal(db_int(db, "SELECT count(*) FROM (SELECT stack_id FROM "
				"fault UNION SELECT stack_id FROM thread_state) r "
				"WHERE r.stack_id IS NOT NULL AND r.stack_id NOT IN "
				"(SELECT stack_id FROM stack)"), 0);
	assert_int_equal(db_int(db, "SELECT count(*) FROM stack WHERE stack_id "
				"NOT IN (SELECT stack_id FROM fault WHERE stack_id IS "
				"NOT NULL UNION SELECT stack_id FROM thread_state WHERE "
				"stack_id IS NOT NULL UNION SELECT waker_stack_id FROM "
				"thread_state WHERE waker_stack_id IS NOT NULL)"), 0);
}

/*
 * The late first call of a lazily bound function, with the library's
 * pages evicted: the dynamic linker faults reading its symbol tables,
 * and the stack shows the resolver's frames above lazy_caller.
 * MADV_PAGEOUT is advice: a page it could not isolate stays cached and
 * the resolver's read of it is no major fault.  So up to three
 * recordings, each saying what it found.
 */
static void a_fault_in_the_dynamic_linker_shows_its_frames_above_the_caller(void **state)
{
	const char *db = scratch_path("lazy.db");
	const char *info = scratch_path("lazy.info");
	char *fl_args[] = { "--stacks=dwarf", NULL };
	char *wl_args[] = { "--lazy", "--info", (char *)info, NULL };
	char ldso[] = "(SELECT 1 FROM mapping m WHERE m.pid = %lld AND m.path "
		      "LIKE '%%/ld-linux-x86-64.so.2' AND m.prot & 4 AND "
		      "f.addr >= m.start_addr AND f.addr < m.end_addr)";
	char sql[2048];
	uint64_t lo, hi;
	int64_t stack_id = -1;

	(void)state;
	for (int attempt = 1; attempt <= 3 && stack_id <= 0; attempt++) {
		record_workload(db, 0, fl_args, wl_args);
		fn_range(0, info, "lazy_caller", &lo, &hi);
		/* A major fault whose innermost user frame is in ld.so and
		 * whose stack holds lazy_caller. */
		snprintf(sql, sizeof(sql), "SELECT flt.stack_id FROM fault flt "
			 "JOIN stack_frame sf USING (session_id, stack_id) JOIN "
			 "frame f USING (session_id, frame_id) WHERE flt.kind = "
			 "'major' AND f.kernel = 0 AND f.return_addr = 0 AND EXISTS "
			 "%s AND EXISTS (SELECT 1 FROM stack_frame sf3 JOIN frame f3 "
			 "USING (session_id, frame_id) WHERE sf3.stack_id = "
			 "flt.stack_id AND f3.addr > %llu AND f3.addr <= %llu)", ldso,
			 (unsigned long long)lo, (unsigned long long)hi);
		stack_id = db_int(db, sql, info_get(info, "pid"));
		if (stack_id <= 0)
			fprintf(stderr, "recording %d: no major fault in ld.so under "
				"lazy_caller (%lld major faults, %lld pages of the "
				"library still cached after MADV_PAGEOUT)\n", attempt,
				(long long)db_int(db, "SELECT count(*) FROM fault WHERE "
						  "kind = 'major'"),
				info_get(info, "lib_resident"));
	}
	assert_true(stack_id > 0);
	/* The resolver's frames (at least _dl_runtime_resolve and _dl_fixup)
	 * all lie between the fault and lazy_caller. */
	snprintf(sql, sizeof(sql), "SELECT count(*) FROM stack_frame sf JOIN frame "
		 "f USING (session_id, frame_id) WHERE sf.stack_id = %%lld AND "
		 "f.kernel = 0 AND EXISTS %s AND sf.depth < (SELECT sf2.depth FROM "
		 "stack_frame sf2 JOIN frame f2 USING (session_id, frame_id) WHERE "
		 "sf2.stack_id = %%lld AND f2.addr > %llu AND f2.addr <= %llu)",
		 ldso, (unsigned long long)lo, (unsigned long long)hi);
	assert_true(db_int(db, sql, (long long)stack_id, info_get(info, "pid"),
			   (long long)stack_id) >= 2);
	/* Named, innermost first: the lookup, _dl_fixup, the resolver
	 * trampoline, then lazy_caller. */
	assert_int_equal(db_int(db, "SELECT group_concat(fn, ' ') = "
				"'_dl_fixup _dl_runtime_resolve lazy_caller' FROM "
				"(SELECT CASE WHEN s.function LIKE "
				"'_dl_runtime_resolve%%' THEN '_dl_runtime_resolve' "
				"ELSE s.function END AS fn FROM stack_frame sf JOIN "
				"symbol s USING (session_id, frame_id) WHERE "
				"sf.stack_id = %lld AND s.idx = (SELECT max(idx) FROM "
				"symbol s2 WHERE s2.frame_id = s.frame_id) AND "
				"s.function IN ('_dl_fixup', 'lazy_caller') OR "
				"sf.stack_id = %lld AND s.function LIKE "
				"'_dl_runtime_resolve%%' ORDER BY sf.depth)",
				(long long)stack_id, (long long)stack_id), 1);
}

/* ---- the observer effect --------------------------------------------- */

static void copy_file(const char *from, const char *to, mode_t mode)
{
	char buf[65536];
	int in = open(from, O_RDONLY), out;
	ssize_t n;

	assert_true(in >= 0);
	out = open(to, O_WRONLY | O_CREAT | O_TRUNC, mode);
	assert_true(out >= 0);
	while ((n = read(in, buf, sizeof(buf))) > 0)
		assert_int_equal(write(out, buf, (size_t)n), n);
	assert_int_equal(n, 0);
	close(in);
	assert_int_equal(close(out), 0);
}

/* cold_workload and, beside it (its $ORIGIN), the library it evicts,
 * copied into a directory of this test's own, so that no other test's
 * run touches their pages.  The program's path; the library's in lib. */
static const char *cold_copy(const char **lib)
{
	static char prog[256], libpath[256];
	const char *build = getenv("BUILD");
	char from[512];

	if (!prog[0]) {
		const char *dir = scratch_path("cold");

		assert_int_equal(mkdir(dir, 0755), 0);
		snprintf(prog, sizeof(prog), "%s/cold_workload", dir);
		snprintf(libpath, sizeof(libpath), "%s/libstacklazy.so", dir);
		snprintf(from, sizeof(from), "%s/tests/cold_workload",
			 build ? build : "build/release");
		copy_file(from, prog, 0755);
		snprintf(from, sizeof(from), "%s/tests/libstacklazy.so",
			 build ? build : "build/release");
		copy_file(from, libpath, 0755);
	}
	if (lib)
		*lib = libpath;
	return prog;
}

/* Lines of /proc/PID/maps that map a file under dir. */
static int mappings_under(pid_t pid, const char *dir)
{
	char path[64], line[512];
	FILE *f;
	int n = 0;

	snprintf(path, sizeof(path), "/proc/%d/maps", (int)pid);
	f = fopen(path, "r");
	assert_non_null(f);
	while (fgets(line, sizeof(line), f))
		if (strstr(line, dir)) {
			fprintf(stderr, "faultline maps: %s", line);
			n++;
		}
	fclose(f);
	return n;
}

/* Waits up to 30 s for key to appear in the key=value file at path. */
static long long wait_for_key(const char *path, const char *key)
{
	long long v = -1;

	for (int i = 0; i < 1500 && (v = info_get(path, key)) < 0; i++)
		nanosleep(&(struct timespec){ 0, 20000000 }, NULL);
	return v;
}

/* Waits up to 30 s for sql's first column to be positive in db. */
static int wait_for_rows(const char *db, const char *sql, long long a,
			 long long b)
{
	for (int i = 0; i < 1500; i++) {
		if (access(db, F_OK) == 0 && db_int(db, sql, a, b) > 0)
			return 1;
		nanosleep(&(struct timespec){ 0, 20000000 }, NULL);
	}
	return 0;
}

/*
 * The stall faultline is there to find must not vanish because it looks:
 * while recording, the dwarf unwinder reads the target's files (headers,
 * .eh_frame), and a page it read of an evicted library would be cached
 * again before the target's lazy call came to it (DESIGN.md, the
 * observer effect).  cold_workload evicts its library, takes a major
 * fault whose stack faultline unwinds, waits until faultline has stored
 * that fault, and only then counts the library's resident pages and
 * makes the lazy call.  The page-out is advice: a bare run first says
 * whether this machine evicts the library at all (skipped if not), then
 * up to three recordings, each saying what it found.
 */
static void recording_with_dwarf_stacks_leaves_the_targets_files_as_cold_as_it_found_them(void **state)
{
	const char *prog = cold_copy(NULL);
	const char *info = scratch_path("cold.info");
	const char *ready = scratch_path("cold.ready");
	const char *db = scratch_path("cold.db");
	char *bare[] = { (char *)prog, "--major", scratch_path("cold-bare.dat"),
			 "--info", (char *)info, NULL };
	char *argv[] = { (char *)faultline_bin(), "record", "-q", "-o", (char *)db,
			 "--stacks=dwarf", "--", (char *)prog, "--major",
			 scratch_path("cold.dat"), "--ready", (char *)ready, "--wait",
			 "--info", (char *)info, NULL };
	long long kept = -1, tries = 0;
	int warm = 0;
	struct run r;

	(void)state;
	assert_int_equal(run_argv(&r, bare), 0);
	if (info_get(info, "evicted_resident") != 0)
		skip_msg("%lld pages of the library stayed cached after %lld "
			 "page-outs without faultline: this machine cannot make "
			 "the lazy call fault", info_get(info, "evicted_resident"),
			 info_get(info, "evict_tries"));
	if (info_get(info, "lazy_major") < 1)
		skip_msg("without faultline the lazy call took no major fault "
			 "(%lld pages of the library cached before it)",
			 info_get(info, "resident_after"));
	for (int attempt = 1; attempt <= 3; attempt++) {
		long long pid, major;
		int stored, mapped;

		unlink(db);
		unlink(ready);
		unlink(info);
		run_start_as(&r, -1, argv);
		pid = wait_for_key(ready, "pid");
		major = wait_for_key(ready, "major");
		assert_true(pid > 0 && major > 0);
		/* Stored means unwound: its stack was unwound first. */
		stored = wait_for_rows(db, "SELECT count(*) FROM fault WHERE pid = "
				       "%lld AND addr = %lld AND kind = 'major' AND "
				       "stack_id IS NOT NULL", pid, major);
		/* A page faultline has mapped cannot be evicted, by the
		 * target's page-outs or anything else: it maps none. */
		mapped = mappings_under(r.pid, scratch_path("cold/"));
		kill((pid_t)pid, SIGUSR1);
		if (run_wait(&r) != 0)
			fprintf(stderr, "faultline: %s\n", r.err);
		assert_int_equal(r.status, 0);
		assert_true(stored);
		kept = info_get(info, "evicted_resident");
		tries = info_get(info, "evict_tries");
		if (kept != 0 && !mapped) {
			fprintf(stderr, "recording %d: %lld pages of the library stayed "
				"cached after %lld page-outs\n", attempt, kept, tries);
			continue;
		}
		/* Warm again: said each time, and a failure only when every
		 * recording finds it so.  It was seen once in the sanitizer
		 * build on a loaded machine (29 pages: a readahead window,
		 * as a fault of the target's own on the library brings in),
		 * and never in the same runs without it. */
		if (info_get(info, "resident_after") != 0) {
			warm++;
			fprintf(stderr, "recording %d: %lld pages of the library were "
				"cached after the page-outs, and %lld once faultline "
				"had unwound a stack of its process\n", attempt, kept,
				info_get(info, "resident_after"));
			if (warm == 3)
				fail_msg("in 3 recordings pages of the library were "
					 "cached again once faultline had unwound a "
					 "stack of its process");
			continue;
		}
		if (mapped)
			fail_msg("recording %d: faultline mapped %d of the target's "
				 "files (pages it maps cannot be evicted)", attempt,
				 mapped);
		assert_true(info_get(info, "lazy_major") >= 1);
		/* And faultline saw that fault, in the dynamic linker. */
		assert_true(db_int(db, "SELECT count(*) FROM fault flt JOIN "
				   "stack_frame sf USING (session_id, stack_id) JOIN "
				   "frame f USING (session_id, frame_id) WHERE flt.pid = "
				   "%lld AND flt.kind = 'major' AND f.kernel = 0 AND "
				   "f.return_addr = 0 AND EXISTS (SELECT 1 FROM mapping "
				   "m WHERE m.pid = flt.pid AND m.path LIKE "
				   "'%%/ld-linux-x86-64.so.2' AND m.prot & 4 AND f.addr "
				   ">= m.start_addr AND f.addr < m.end_addr)", pid) >= 1);
		return;
	}
	fail_msg("in 3 recordings the page-outs left pages of the library "
		 "cached (%lld after %lld tries, the last time), where without "
		 "faultline none stayed; %d found them cached again after the "
		 "unwinding", kept, tries, warm);
}

/*
 * Naming frames reads the files they fall in: symbol tables, DWARF.
 * The program and its library, evicted after a recording, stay evicted
 * through faultline symbolize.
 */
static void symbolizing_leaves_the_files_it_reads_as_cold_as_it_found_them(void **state)
{
	const char *lib, *prog = cold_copy(&lib);
	const char *db = scratch_path("coldsym.db");
	char *argv[] = { (char *)faultline_bin(), "record", "-q", "-o", (char *)db,
			 "--stacks=dwarf", "--no-symbolize", "--", (char *)prog,
			 "--major", scratch_path("coldsym.dat"), NULL };
	long before_prog, before_lib;
	struct run r;

	(void)state;
	unlink(db);
	if (run_argv(&r, argv) != 0)
		fprintf(stderr, "faultline: %s\n", r.err);
	assert_int_equal(r.status, 0);
	before_prog = file_evict(prog);
	before_lib = file_evict(lib);
	if (before_prog != 0 || before_lib != 0)
		skip_msg("%ld and %ld pages of the program and library stayed "
			 "cached after POSIX_FADV_DONTNEED", before_prog, before_lib);
	assert_int_equal(run_faultline(&r, "symbolize", db, NULL), 0);
	assert_true(db_int(db, "SELECT count(*) FROM symbol WHERE function = "
			   "'fault_inner'") > 0);
	if (file_resident(prog) != 0 || file_resident(lib) != 0)
		fail_msg("faultline symbolize left %ld pages of the program and %ld "
			 "of the library cached", file_resident(prog),
			 file_resident(lib));
}

static void no_symbolize_leaves_the_frames_for_faultline_symbolize(void **state)
{
	const char *db = scratch_path("nosym.db");
	const char *info = scratch_path("nosym.info");
	char *fl_args[] = { "--stacks=dwarf", "--no-symbolize", NULL };
	char *wl_args[] = { "--major-file", scratch_path("nosym.dat"), "--info",
			    (char *)info, NULL };
	struct run r;

	(void)state;
	record_workload(db, 0, fl_args, wl_args);
	assert_true(db_int(db, "SELECT count(*) FROM frame") > 0);
	assert_int_equal(db_int(db, "SELECT count(*) FROM frame WHERE status IS "
				"NOT NULL OR dso IS NOT NULL"), 0);
	assert_int_equal(db_int(db, "SELECT count(*) FROM symbol"), 0);
	assert_int_equal(run_faultline(&r, "symbolize", db, NULL), 0);
	assert_chain(db, info, 0, major_stack(db, info), 0);
}

static void a_stack_deeper_than_its_copy_is_stored_cut_short_with_the_reason(void **state)
{
	const char *db = scratch_path("short.db");
	const char *info = scratch_path("short.info");
	char *fl_args[] = { "--stacks=dwarf", "--stack-size=64", NULL };
	char *wl_args[] = { "--major-file", scratch_path("short.dat"), "--info",
			    (char *)info, NULL };
	char got[256], want[128];
	int64_t stack_id;

	(void)state;
	record_workload(db, 0, fl_args, wl_args);
	stack_id = major_stack(db, info);
	assert_true(stack_id > 0);
	assert_int_equal(db_int(db, "SELECT truncated = 'stack copy too small (64 "
				"bytes)' FROM stack WHERE stack_id = %lld",
				(long long)stack_id), 1);
	/* What the copy held is still there, from the faulting frame. */
	user_frame_name(db, stack_id, 0, got, sizeof(got));
	snprintf(want, sizeof(want), "chain_c stack_workload.c:%ld",
		 source_line("/* the major fault */"));
	assert_string_equal(got, want);
	assert_true(db_int(db, "SELECT depth FROM stack WHERE stack_id = %lld",
			   (long long)stack_id) < 7);
}

static void stacks_on_faults_puts_a_stack_on_every_completed_fault(void **state)
{
	const char *db = scratch_path("faults.db");
	const char *info = scratch_path("faults.info");
	char *fl_args[] = { "--stacks=fp", "--stacks-on=faults,switches", NULL };
	char *wl_args[] = { "--major-file", scratch_path("faults.dat"), "--info",
			    (char *)info, NULL };

	(void)state;
	record_workload(db, 1, fl_args, wl_args);
	assert_true(db_int(db, "SELECT count(*) FROM fault WHERE kind = 'minor'") > 0);
	assert_int_equal(db_int(db, "SELECT count(*) FROM fault WHERE exit_cpu IS "
				"NOT NULL AND stack_id IS NULL"), 0);
	assert_int_equal(db_int(db, "SELECT count(*) FROM fault WHERE exit_cpu IS "
				"NULL AND stack_id IS NOT NULL"), 0);
	/* switches: the stack of every switch out is kept, whatever the
	 * interval that follows: the workload's 1 ms sleep has its own. */
	assert_true(db_int(db, "SELECT count(*) FROM thread_state WHERE tid = %lld "
			   "AND stack_id IS NOT NULL AND state = 'sleeping'",
			   info_get(info, "tid")) > 0);
}

static void stacks_none_stores_no_stack(void **state)
{
	const char *db = scratch_path("none.db");
	const char *info = scratch_path("none.info");
	char *fl_args[] = { NULL };
	char *wl_args[] = { "--major-file", scratch_path("none.dat"), "--info",
			    (char *)info, NULL };

	(void)state;
	record_workload(db, 0, fl_args, wl_args);
	assert_int_equal(db_int(db, "SELECT count(*) FROM fault WHERE kind = "
				"'major'"), 1);
	/* Only the kernel stacks of wake-ups, which thread states keep. */
	assert_int_equal(db_int(db, "SELECT (SELECT count(*) FROM stack WHERE "
				"method != 'kernel') + (SELECT count(*) FROM frame f "
				"WHERE f.kernel = 0) + (SELECT count(*) "
				"FROM fault WHERE stack_id IS NOT NULL) + (SELECT "
				"count(*) FROM thread_state WHERE stack_id IS NOT "
				"NULL)"), 0);
}

/*
 * The summary counts what the database keeps: with every fault under the
 * threshold, their stacks are seen but not stored, and the line says so
 * rather than count them as the session's.
 */
static void the_stacks_summary_counts_the_stacks_the_database_keeps(void **state)
{
	const char *db = scratch_path("summary.db");
	char *wl_args[] = { "--major-file", scratch_path("summary.dat"), "--info",
			    scratch_path("summary.info"), NULL };
	char *argv[16];
	long long sampled, cut, stacks, frames;
	const char *line;
	struct run r;
	int n = 0;

	(void)state;
	argv[n++] = (char *)faultline_bin();
	argv[n++] = "record";
	argv[n++] = "-o";
	argv[n++] = (char *)db;
	argv[n++] = "--stacks=fp";
	argv[n++] = "--stacks-on=faults";
	argv[n++] = "--min-fault-duration=10s";
	argv[n++] = "--";
	argv[n++] = (char *)workload(1);
	for (int i = 0; wl_args[i]; i++)
		argv[n++] = wl_args[i];
	argv[n] = NULL;
	if (run_argv(&r, argv) != 0)
		fail_msg("record failed: %s", r.err);
	line = strstr(r.err, "  stacks: ");
	assert_non_null(line);
	assert_int_equal(sscanf(line, "  stacks: %lld sampled, %lld cut short, %lld "
				"distinct stored with %lld frames", &sampled, &cut,
				&stacks, &frames), 4);
	assert_true(sampled > 0);
	/* --stacks' own: not the kernel stacks of wake-ups. */
	assert_int_equal(stacks, db_int(db, "SELECT count(*) FROM stack WHERE "
					"method != 'kernel'"));
	assert_int_equal(frames, db_int(db, "SELECT count(DISTINCT sf.frame_id) "
					"FROM stack s JOIN stack_frame sf USING "
					"(session_id, stack_id) WHERE s.method != "
					"'kernel'"));
	/* No fault row was stored, so none of their stacks was. */
	assert_int_equal(db_int(db, "SELECT count(*) FROM fault"), 0);
	assert_non_null(strstr(line, " seen: the others' rows were not stored)"));
}

static void bad_stack_options_are_usage_errors_that_say_what_is_allowed(void **state)
{
	static const struct {
		const char *arg, *says;
	} cases[] = {
		{ "--stacks=lbr", "expected fp, dwarf or none" },
		{ "--stack-size=100", "multiple of 8" },
		{ "--stack-size=65536", "65528" },
		{ "--stacks-on=major,minor", "major, blocked, faults and switches" },
		{ "--stacks-on=faults", "add --stacks=fp or --stacks=dwarf" },
		{ "--stack-size=4096", "add --stacks=dwarf" },
	};
	struct run r;

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		run_faultline(&r, "record", "-o", scratch_path("bad.db"),
			      i < 4 ? "--stacks=dwarf" : "-q", cases[i].arg, "--",
			      "/bin/true", NULL);
		assert_int_equal(r.status, 2);
		if (!strstr(r.err, cases[i].says))
			fail_msg("%s: '%s' not in: %s", cases[i].arg, cases[i].says,
				 r.err);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(dwarf_names_main_a_b_c_in_a_program_without_frame_pointers, kill_leftovers),
		cmocka_unit_test_teardown(the_blocked_interval_of_a_major_fault_carries_the_faulting_stack, kill_leftovers),
		cmocka_unit_test_teardown(a_stack_is_stored_once_however_many_rows_name_it, kill_leftovers),
		cmocka_unit_test_teardown(fp_names_main_a_b_c_in_a_program_with_frame_pointers, kill_leftovers),
		cmocka_unit_test_teardown(a_fault_in_the_dynamic_linker_shows_its_frames_above_the_caller, kill_leftovers),
		cmocka_unit_test_teardown(recording_with_dwarf_stacks_leaves_the_targets_files_as_cold_as_it_found_them, kill_leftovers),
		cmocka_unit_test_teardown(symbolizing_leaves_the_files_it_reads_as_cold_as_it_found_them, kill_leftovers),
		cmocka_unit_test_teardown(no_symbolize_leaves_the_frames_for_faultline_symbolize, kill_leftovers),
		cmocka_unit_test_teardown(a_stack_deeper_than_its_copy_is_stored_cut_short_with_the_reason, kill_leftovers),
		cmocka_unit_test_teardown(stacks_on_faults_puts_a_stack_on_every_completed_fault, kill_leftovers),
		cmocka_unit_test_teardown(stacks_none_stores_no_stack, kill_leftovers),
		cmocka_unit_test_teardown(the_stacks_summary_counts_the_stacks_the_database_keeps, kill_leftovers),
		cmocka_unit_test_teardown(bad_stack_options_are_usage_errors_that_say_what_is_allowed, kill_leftovers),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
