/*
 * symbolize: frames of a synthetic session, pointing at real files built
 * by the Makefile (tests/fixtures/symbolize/symfix.c and its stripped and
 * split copies), named by symbolize_session and read back from the
 * database.  The fixture library is loaded into this process, so its
 * mappings and addresses are real ones, from /proc/self/maps.  The job
 * alone, without a database, is test_symbolize_job.c's.
 */
#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>
#include <cmocka.h>

#include "../integration/run.h"
#include "../../record/symbolize.h"
#include "../../common/array.h"
#include "../../decoder/addr_space.h"
#include "../../decoder/kallsyms.h"
#include "../../decoder/perf_map.h"
#include "../../schema/db.h"
#include "symfix.h"

#define SESSION 1
#define FAKE_PID 4194399	/* above the largest pid_max: no process has it */

static char scratch[128];	/* this run's directory, removed at the end */

static sqlite3 *new_db(const char *name, const char *kernel)
{
	char path[256];
	struct errmsg e;
	sqlite3 *db;
	char *sql;

	errmsg_init(&e);
	snprintf(path, sizeof(path), "%s/%s", scratch, name);
	unlink(path);
	if (db_open_write(path, &db, &e) < 0)
		fail_msg("%s", e.text);
	sql = sqlite3_mprintf(
		"INSERT INTO session (session_id, start_ts, host, kernel,"
		" command_line, options, faultline_version, start_realtime_ns,"
		" start_monotonic_ns, min_fault_dur, buffer_bytes, cpus)"
		" VALUES (%d, 0, 'test', %Q, 'test', '{}', 'test', 0, 0, 0, 0, 1)",
		SESSION, kernel);
	assert_int_equal(sqlite3_exec(db, sql, NULL, NULL, NULL), SQLITE_OK);
	sqlite3_free(sql);
	return db;
}

static const char *this_kernel(void)
{
	static struct utsname un;

	uname(&un);
	return un.release;
}

static void exec_sql(sqlite3 *db, const char *fmt, ...)
{
	va_list ap;
	char *sql;

	va_start(ap, fmt);
	sql = sqlite3_vmprintf(fmt, ap);
	va_end(ap);
	if (sqlite3_exec(db, sql, NULL, NULL, NULL) != SQLITE_OK)
		fail_msg("%s: %s", sql, sqlite3_errmsg(db));
	sqlite3_free(sql);
}

/*
 * Mapping rows for pid from this process's mappings of the file whose
 * path ends in match, stored under path as_path (a copy with the same
 * layout), with build_id (NULL for none).
 */
static void add_mappings(sqlite3 *db, int pid, const char *match,
			 const char *as_path, const char *build_id)
{
	struct self_map maps[16];
	size_t n = self_maps(match, maps, 16);

	for (size_t i = 0; i < n; i++)
		exec_sql(db, "INSERT INTO mapping (session_id, ts, pid, tid,"
			 " start_addr, end_addr, pgoff, path, build_id, prot, source)"
			 " VALUES (%d, %d, %d, %d, %lld, %lld, %lld, %Q, %Q, %d, 'mmap')",
			 SESSION, (int)i, pid, pid, (long long)maps[i].start,
			 (long long)maps[i].end, (long long)maps[i].pgoff,
			 as_path ? as_path : maps[i].path, build_id, maps[i].prot);
}

/* Runs sql on a database file of its own (created if missing). */
static void exec_sql_file(const char *path, const char *sql)
{
	sqlite3 *db;

	assert_int_equal(sqlite3_open(path, &db), SQLITE_OK);
	exec_sql(db, "%s", sql);
	sqlite3_close(db);
}

static void add_frame(sqlite3 *db, int frame_id, int pid, uint64_t addr,
		      int kernel, int return_addr)
{
	exec_sql(db, "INSERT INTO frame (session_id, frame_id, pid, addr, kernel,"
		 " return_addr) VALUES (%d, %d, %d, %lld, %d, %d)", SESSION,
		 frame_id, pid, (long long)addr, kernel, return_addr);
}

static struct symbolize_counts symbolize(sqlite3 *db, const char *debug_dir)
{
	struct symbolize_opts o = { &debug_dir, debug_dir ? 1 : 0, 0 };
	struct symbolize_counts c;
	struct errmsg e;

	errmsg_init(&e);
	if (symbolize_session(db, "test.db", SESSION, &o, &c, &e) < 0)
		fail_msg("symbolize_session: %s", e.text);
	return c;
}

/* One column of one row as text ("NULL" for NULL), in a static buffer. */
static const char *text_of(sqlite3 *db, const char *fmt, ...)
{
	static char out[4][512];
	static int next;
	char *buf = out[next++ % 4], *sql;
	sqlite3_stmt *st;
	va_list ap;

	va_start(ap, fmt);
	sql = sqlite3_vmprintf(fmt, ap);
	va_end(ap);
	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK)
		fail_msg("%s: %s", sql, sqlite3_errmsg(db));
	if (sqlite3_step(st) != SQLITE_ROW)
		snprintf(buf, 512, "(no row)");
	else if (sqlite3_column_type(st, 0) == SQLITE_NULL)
		snprintf(buf, 512, "NULL");
	else
		snprintf(buf, 512, "%s", sqlite3_column_text(st, 0));
	sqlite3_finalize(st);
	sqlite3_free(sql);
	return buf;
}

static const char *frame_col(sqlite3 *db, int frame_id, const char *col)
{
	return text_of(db, "SELECT %s FROM frame WHERE session_id = %d AND"
		       " frame_id = %d", col, SESSION, frame_id);
}

static const char *symbol_col(sqlite3 *db, int frame_id, int idx,
			      const char *col)
{
	return text_of(db, "SELECT %s FROM symbol WHERE session_id = %d AND"
		       " frame_id = %d AND idx = %d", col, SESSION, frame_id, idx);
}

static int nsymbols(sqlite3 *db, int frame_id)
{
	return atoi(text_of(db, "SELECT count(*) FROM symbol WHERE session_id = %d"
			    " AND frame_id = %d", SESSION, frame_id));
}

/* "<dir>/symfix.c:<line>" as stored: file ends in symfix.c, line given. */
static void assert_source(sqlite3 *db, int frame_id, int idx, const char *mark)
{
	const char *file = symbol_col(db, frame_id, idx, "file");
	size_t len = strlen(file);

	if (len < 9 || strcmp(file + len - 9, "/symfix.c"))
		fail_msg("frame %d idx %d: file '%s', expected .../symfix.c",
			 frame_id, idx, file);
	assert_int_equal(atoi(symbol_col(db, frame_id, idx, "line")),
			 marked_line(mark));
}

static void assert_text(const char *got, const char *want)
{
	if (strcmp(got, want))
		fail_msg("got '%s', expected '%s'", got, want);
}

/* The three fixture frames: 1 fix_plain's call, 2 the inlined call in
 * fix_outer, 3 fix_capture's first byte (not a return address). */
static void add_fixture_frames(sqlite3 *db, int pid)
{
	add_frame(db, 1, pid, (uint64_t)fix_plain(), 0, 1);
	add_frame(db, 2, pid, (uint64_t)fix_outer(), 0, 1);
	add_frame(db, 3, pid, (uint64_t)(uintptr_t)fix_capture, 0, 0);
}

/* The names, files and lines the -g library gives, whatever file
 * (main or separate debug) they came from. */
static void assert_full_names(sqlite3 *db)
{
	assert_text(frame_col(db, 1, "status"), "ok");
	assert_int_equal(nsymbols(db, 1), 1);
	assert_text(symbol_col(db, 1, 0, "function"), "fix_plain");
	assert_text(symbol_col(db, 1, 0, "inlined"), "0");
	assert_source(db, 1, 0, "plain_call");

	assert_text(frame_col(db, 2, "status"), "ok");
	assert_int_equal(nsymbols(db, 2), 2);
	assert_text(symbol_col(db, 2, 0, "function"), "fix_inner");
	assert_text(symbol_col(db, 2, 0, "inlined"), "1");
	assert_source(db, 2, 0, "inner_call");
	assert_text(symbol_col(db, 2, 1, "function"), "fix_outer");
	assert_text(symbol_col(db, 2, 1, "inlined"), "0");
	assert_source(db, 2, 1, "outer_call");

	assert_text(symbol_col(db, 3, 0, "function"), "fix_capture");
	assert_text(symbol_col(db, 3, 0, "offset"), "0");
}

static void a_g_library_names_functions_lines_and_the_inlined_call(void **state)
{
	sqlite3 *db = new_db("full.db", this_kernel());
	struct symbolize_counts c;
	char off[32];

	(void)state;
	add_mappings(db, getpid(), "/libsymfix.so", NULL, NULL);
	add_fixture_frames(db, getpid());
	c = symbolize(db, NULL);
	assert_int_equal(c.frames, 3);
	assert_int_equal(c.ok, 3);
	assert_full_names(db);
	/* The offset is the frame's own address less the function's. */
	snprintf(off, sizeof(off), "%lld", (long long)((char *)fix_plain() -
						       (char *)(uintptr_t)fix_plain));
	assert_text(symbol_col(db, 1, 0, "offset"), off);
	assert_text(frame_col(db, 1, "dso"), fixture("libsymfix.so"));
	assert_true(strlen(frame_col(db, 1, "build_id")) == 40);
	/* A second pass has nothing left to do. */
	c = symbolize(db, NULL);
	assert_int_equal(c.frames, 0);
	db_close(db);
}

static void a_stripped_library_is_named_from_dynsym_without_lines(void **state)
{
	sqlite3 *db = new_db("stripped.db", this_kernel());
	struct symbolize_counts c;

	(void)state;
	add_mappings(db, getpid(), "/libsymfix.so", fixture("libsymfix_stripped.so"),
		     NULL);
	add_fixture_frames(db, getpid());
	c = symbolize(db, NULL);
	assert_int_equal(c.ok, 3);
	assert_int_equal(nsymbols(db, 2), 1);
	assert_text(symbol_col(db, 1, 0, "function"), "fix_plain");
	assert_text(symbol_col(db, 1, 0, "file"), "NULL");
	assert_text(symbol_col(db, 1, 0, "line"), "NULL");
	/* No DWARF: the inlined fix_inner is invisible, fix_outer holds it. */
	assert_text(symbol_col(db, 2, 0, "function"), "fix_outer");
	assert_text(symbol_col(db, 2, 0, "inlined"), "0");
	db_close(db);
}

static void a_debug_file_is_found_by_build_id_under_a_debug_dir(void **state)
{
	sqlite3 *db = new_db("bid.db", this_kernel());

	(void)state;
	add_mappings(db, getpid(), "/libsymfix.so", fixture("libsymfix_bid.so"), NULL);
	add_fixture_frames(db, getpid());
	symbolize(db, fixture("debugroot"));
	assert_full_names(db);
	db_close(db);
}

static void without_the_debug_dir_the_split_library_has_no_lines(void **state)
{
	sqlite3 *db = new_db("nobid.db", this_kernel());

	(void)state;
	add_mappings(db, getpid(), "/libsymfix.so", fixture("libsymfix_bid.so"), NULL);
	add_fixture_frames(db, getpid());
	symbolize(db, NULL);
	assert_text(symbol_col(db, 1, 0, "function"), "fix_plain");
	assert_text(symbol_col(db, 1, 0, "line"), "NULL");
	db_close(db);
}

static void a_debug_file_is_found_by_gnu_debuglink(void **state)
{
	sqlite3 *db = new_db("link.db", this_kernel());

	(void)state;
	add_mappings(db, getpid(), "/libsymfix.so",
		     fixture("linked/libsymfix_link.so"), NULL);
	add_fixture_frames(db, getpid());
	symbolize(db, NULL);
	assert_full_names(db);
	db_close(db);
}

/* The first regular file under dir (nftw), into found. */
static char found[PATH_MAX];

static int first_file(const char *path, const struct stat *sb, int type,
		      struct FTW *ftw)
{
	(void)sb, (void)ftw;
	if (type != FTW_F)
		return 0;
	snprintf(found, sizeof(found), "%s", path);
	return 1;
}

/*
 * Naming frames reads the library and its separate debug file, found by
 * build id under a debug dir or by .gnu_debuglink beside it; what was
 * not cached before is not cached after (decoder/page_cache.h).
 */
static void symbolizing_leaves_the_files_it_read_as_cold_as_it_found_them(void **state)
{
	const char *files[4];
	sqlite3 *db;
	long left;

	(void)state;
	found[0] = '\0';
	nftw(fixture("debugroot/.build-id"), first_file, 8, FTW_PHYS);
	assert_true(found[0] != '\0');
	files[0] = fixture("libsymfix_bid.so");
	files[1] = found;
	files[2] = fixture("linked/libsymfix_link.so");
	files[3] = fixture("linked/libsymfix_link.debug");
	for (int i = 0; i < 4; i++)
		if ((left = file_evict(files[i])) != 0)
			skip_msg("%ld pages of %s stayed cached after "
				 "POSIX_FADV_DONTNEED", left, files[i]);
	db = new_db("cold-bid.db", this_kernel());
	add_mappings(db, getpid(), "/libsymfix.so", files[0], NULL);
	add_fixture_frames(db, getpid());
	symbolize(db, fixture("debugroot"));
	assert_full_names(db);	/* the debug file was read */
	db_close(db);
	db = new_db("cold-link.db", this_kernel());
	add_mappings(db, getpid(), "/libsymfix.so", files[2], NULL);
	add_fixture_frames(db, getpid());
	symbolize(db, NULL);
	assert_full_names(db);
	db_close(db);
	for (int i = 0; i < 4; i++)
		if ((left = file_resident(files[i])) != 0)
			fail_msg("%ld pages of %s left cached", left, files[i]);
}

static void a_build_id_mismatch_is_reported_and_names_nothing(void **state)
{
	sqlite3 *db = new_db("mismatch.db", this_kernel());
	struct symbolize_counts c;

	(void)state;
	add_mappings(db, getpid(), "/libsymfix.so", NULL,
		     "0123456789abcdef0123456789abcdef01234567");
	add_fixture_frames(db, getpid());
	c = symbolize(db, NULL);
	assert_int_equal(c.build_id_mismatch, 3);
	assert_int_equal(c.ok, 0);
	assert_text(frame_col(db, 1, "status"), "build-id-mismatch");
	assert_text(frame_col(db, 1, "dso"), fixture("libsymfix.so"));
	assert_int_equal(nsymbols(db, 1) + nsymbols(db, 2) + nsymbols(db, 3), 0);
	db_close(db);
}

static void a_matching_build_id_is_accepted(void **state)
{
	sqlite3 *db = new_db("match.db", this_kernel());
	const char *id;
	char saved[128];

	(void)state;
	add_mappings(db, getpid(), "/libsymfix.so", NULL, NULL);
	add_fixture_frames(db, getpid());
	symbolize(db, NULL);
	id = frame_col(db, 1, "build_id");
	snprintf(saved, sizeof(saved), "%s", id);
	/* The same session again, now with the file's own id recorded. */
	exec_sql(db, "UPDATE mapping SET build_id = upper(%Q)", saved);
	struct symbolize_opts o = { NULL, 0, 1 };
	struct symbolize_counts c;
	struct errmsg e;

	assert_int_equal(symbolize_session(db, "t", SESSION, &o, &c, &e), 0);
	assert_int_equal(c.frames, 3);
	assert_int_equal(c.ok, 3);
	assert_int_equal(nsymbols(db, 2), 2);
	db_close(db);
}

static void a_missing_file_is_no_file_and_an_unmapped_address_no_mapping(void **state)
{
	sqlite3 *db = new_db("missing.db", this_kernel());
	struct symbolize_counts c;

	(void)state;
	add_mappings(db, getpid(), "/libsymfix.so", "/nonexistent/libgone.so", NULL);
	add_fixture_frames(db, getpid());
	add_frame(db, 4, getpid(), 0x10, 0, 0);
	c = symbolize(db, NULL);
	assert_int_equal(c.no_file, 3);
	assert_int_equal(c.no_mapping, 1);
	assert_text(frame_col(db, 1, "status"), "no-file");
	assert_text(frame_col(db, 1, "dso"), "/nonexistent/libgone.so");
	assert_text(frame_col(db, 4, "status"), "no-mapping");
	assert_text(frame_col(db, 4, "dso"), "NULL");
	db_close(db);
}

static void a_perf_map_names_a_jit_region(void **state)
{
	sqlite3 *db = new_db("jit.db", this_kernel());
	char map[64], map2[64];
	FILE *f;

	(void)state;
	snprintf(map, sizeof(map), "/tmp/perf-%d.map", FAKE_PID);
	f = fopen(map, "w");
	assert_non_null(f);
	fprintf(f, "7f0000001000 100 LJava/Lang/Thread;::run\n"
		   "0x7f0000002000 0x40 Interpreter stub\n"
		   "7f0000100000 100 in_data\n");
	fclose(f);
	exec_sql(db, "INSERT INTO mapping (session_id, ts, pid, tid, start_addr,"
		 " end_addr, pgoff, path, prot, source) VALUES (%d, 0, %d, %d,"
		 " %lld, %lld, 0, '//anon', 7, 'mmap')", SESSION, FAKE_PID,
		 FAKE_PID, 0x7f0000000000ll, 0x7f0000010000ll);
	/* Data (no PROT_EXEC): a frame there is no code, whatever the map. */
	exec_sql(db, "INSERT INTO mapping (session_id, ts, pid, tid, start_addr,"
		 " end_addr, pgoff, path, prot, source) VALUES (%d, 0, %d, %d,"
		 " %lld, %lld, 0, '//anon', 3, 'mmap')", SESSION, FAKE_PID,
		 FAKE_PID, 0x7f0000100000ll, 0x7f0000110000ll);
	add_frame(db, 6, FAKE_PID, 0x7f0000100010, 0, 0);
	add_frame(db, 1, FAKE_PID, 0x7f0000001010, 0, 1);
	add_frame(db, 2, FAKE_PID, 0x7f0000002000, 0, 0);
	add_frame(db, 3, FAKE_PID, 0x7f0000003000, 0, 0);	/* in no entry */
	add_frame(db, 4, FAKE_PID, 0x10000, 0, 0);		/* in no mapping */
	/* A process with no mapping rows at all: its map still names. */
	snprintf(map2, sizeof(map2), "/tmp/perf-%d.map", FAKE_PID + 1);
	f = fopen(map2, "w");
	assert_non_null(f);
	fprintf(f, "5000 10 orphan_stub\n");
	fclose(f);
	add_frame(db, 5, FAKE_PID + 1, 0x5004, 0, 0);
	symbolize(db, NULL);
	unlink(map);
	unlink(map2);
	assert_text(symbol_col(db, 5, 0, "function"), "orphan_stub");
	assert_text(frame_col(db, 6, "status"), "not-code");
	assert_text(frame_col(db, 6, "dso"), "//anon");
	assert_text(frame_col(db, 1, "status"), "ok");
	assert_text(frame_col(db, 1, "dso"), text_of(db, "SELECT '[jit] ' || %Q", map));
	assert_text(symbol_col(db, 1, 0, "function"), "LJava/Lang/Thread;::run");
	assert_text(symbol_col(db, 1, 0, "offset"), "16");
	assert_text(symbol_col(db, 1, 0, "size"), "256");
	assert_text(symbol_col(db, 2, 0, "function"), "Interpreter stub");
	assert_text(frame_col(db, 3, "status"), "no-symbol");
	assert_text(frame_col(db, 3, "dso"), "//anon");
	assert_text(frame_col(db, 4, "status"), "no-mapping");
	db_close(db);
}

/* A JIT region of pid, with one frame (id) in it. */
static void add_jit_frame(sqlite3 *db, int id, int pid)
{
	exec_sql(db, "INSERT INTO mapping (session_id, ts, pid, tid, start_addr,"
		 " end_addr, pgoff, path, prot, source) VALUES (%d, 0, %d, %d,"
		 " %lld, %lld, 0, '//anon', 7, 'mmap')", SESSION, pid, pid,
		 0x7f0000000000ll, 0x7f0000010000ll);
	add_frame(db, id, pid, 0x7f0000001010ull, 0, 1);
}

static void a_perf_map_that_is_a_fifo_a_link_or_another_user_s_is_skipped_and_counted(void **state)
{
	sqlite3 *db = new_db("untrusted_maps.db", this_kernel());
	char fifo[64], link[64], other[64], real[256];
	struct symbolize_counts c;
	FILE *f;

	(void)state;
	if (geteuid() != 0)
		skip_msg("needs root, to give a map to another user");
	snprintf(real, sizeof(real), "%s/real.map", scratch);
	f = fopen(real, "w");
	assert_non_null(f);
	fputs("7f0000001000 100 planted_name\n", f);
	fclose(f);
	/* No process has these pids: a map must be root's or ours. */
	snprintf(fifo, sizeof(fifo), "/tmp/perf-%d.map", FAKE_PID + 10);
	snprintf(link, sizeof(link), "/tmp/perf-%d.map", FAKE_PID + 11);
	snprintf(other, sizeof(other), "/tmp/perf-%d.map", FAKE_PID + 12);
	unlink(fifo), unlink(link), unlink(other);
	assert_int_equal(mkfifo(fifo, 0666), 0);
	assert_int_equal(symlink(real, link), 0);
	f = fopen(other, "w");
	assert_non_null(f);
	fputs("7f0000001000 100 planted_name\n", f);
	fclose(f);
	assert_int_equal(chown(other, 65534, 65534), 0);
	add_jit_frame(db, 1, FAKE_PID + 10);
	add_jit_frame(db, 2, FAKE_PID + 11);
	add_jit_frame(db, 3, FAKE_PID + 12);
	/* Opening a FIFO for reading waits for a writer: a hang would end
	 * the test here rather than never. */
	alarm(20);
	c = symbolize(db, NULL);
	alarm(0);
	unlink(fifo), unlink(link), unlink(other);
	assert_int_equal(c.skipped, 3);
	assert_non_null(strstr(c.skipped_first, "/tmp/perf-"));
	assert_non_null(strstr(c.skipped_first, "(a FIFO, not a regular file)"));
	for (int id = 1; id <= 3; id++) {
		assert_text(frame_col(db, id, "status"), "no-symbol");
		assert_text(frame_col(db, id, "dso"), "//anon");
	}
	db_close(db);
}

/* A code symbol of the running kernel and the address of the next one. */
static int pick_kernel_symbol(char *name, size_t len, uint64_t *addr,
			      uint64_t *next)
{
	char line[512], type, sym[256];
	unsigned long long a;
	FILE *f = fopen("/proc/kallsyms", "r");
	int state = 0;

	assert_non_null(f);
	while (state < 2 && fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%llx %c %255s", &a, &type, sym) != 3 || strchr(line, '['))
			continue;
		if (state == 0 && (type == 'T' || type == 't') && !strcmp(sym, "schedule")) {
			snprintf(name, len, "%s", sym);
			*addr = a;
			state = 1;
		} else if (state == 1 && a > *addr) {
			*next = a;
			state = 2;
		}
	}
	fclose(f);
	return state == 2 ? 0 : -1;
}

static void kernel_frames_are_named_from_kallsyms(void **state)
{
	sqlite3 *db = new_db("kernel.db", this_kernel());
	char name[256], size[32];
	uint64_t addr = 0, next = 0;

	(void)state;
	assert_int_equal(pick_kernel_symbol(name, sizeof(name), &addr, &next), 0);
	if (addr == 0)
		fail_msg("kallsyms addresses read 0: the test needs root");
	add_frame(db, 1, -1, addr + 5, 1, 1);
	symbolize(db, NULL);
	assert_text(frame_col(db, 1, "status"), "ok");
	assert_text(frame_col(db, 1, "dso"), "[kernel.kallsyms]");
	assert_text(symbol_col(db, 1, 0, "function"), name);
	assert_text(symbol_col(db, 1, 0, "offset"), "5");
	snprintf(size, sizeof(size), "%llu", (unsigned long long)(next - addr));
	assert_text(symbol_col(db, 1, 0, "size"), size);
	db_close(db);
}

/* The vDSO's clock_gettime, from the dynamic linker's view of it. */
static uint64_t vdso_clock_gettime(void)
{
	void *h = dlopen("linux-vdso.so.1", RTLD_NOW | RTLD_NOLOAD);
	void *f = h ? dlsym(h, "__vdso_clock_gettime") : NULL;

	if (!f)
		fail_msg("no __vdso_clock_gettime in this process: %s", dlerror());
	return (uint64_t)(uintptr_t)f;
}

static void vdso_frames_are_named_from_this_kernel_s_vdso(void **state)
{
	sqlite3 *db = new_db("vdso.db", this_kernel());

	(void)state;
	add_mappings(db, getpid(), "[vdso]", NULL, NULL);
	add_frame(db, 1, getpid(), vdso_clock_gettime() + 3, 0, 0);
	symbolize(db, NULL);
	assert_text(frame_col(db, 1, "status"), "ok");
	assert_text(frame_col(db, 1, "dso"), "[vdso]");
	assert_text(symbol_col(db, 1, 0, "function"), "__vdso_clock_gettime");
	assert_text(symbol_col(db, 1, 0, "offset"), "3");
	db_close(db);
}

static void another_kernel_s_vdso_frames_are_no_file(void **state)
{
	sqlite3 *db = new_db("othervdso.db", "0.0.0-not-this-one");

	(void)state;
	add_mappings(db, getpid(), "[vdso]", NULL, NULL);
	add_frame(db, 1, getpid(), vdso_clock_gettime(), 0, 0);
	symbolize(db, NULL);
	assert_text(frame_col(db, 1, "status"), "no-file");
	assert_text(frame_col(db, 1, "dso"), "[vdso]");
	db_close(db);
}

static void another_kernel_s_frames_are_no_file(void **state)
{
	sqlite3 *db = new_db("otherkernel.db", "0.0.0-not-this-one");
	struct symbolize_counts c;

	(void)state;
	add_frame(db, 1, -1, 0xffffffff81000010ull, 1, 0);
	c = symbolize(db, NULL);
	assert_int_equal(c.no_file, 1);
	assert_text(frame_col(db, 1, "dso"), "[kernel.kallsyms]");
	db_close(db);
}

static void a_missing_session_is_named(void **state)
{
	sqlite3 *db = new_db("nosession.db", this_kernel());
	struct symbolize_counts c;
	struct errmsg e;

	(void)state;
	errmsg_init(&e);
	assert_int_equal(symbolize_session(db, "x.db", 7, NULL, &c, &e), -ENOENT);
	assert_non_null(strstr(e.text, "no session 7 in 'x.db'"));
	db_close(db);
}

static void kallsyms_text_parses_modules_and_sizes(void **state)
{
	static const char text[] =
		"ffffffff81000000 T _stext\n"
		"ffffffff81000000 T _text\n"
		"ffffffff81000100 t helper\n"
		"ffffffff81000180 D some_data\n"
		"ffffffff81000200 T last\n"
		"garbage line\n"
		"ffffffffc0001000 t xfs_iread\t[xfs]\n"
		"ffffffffc0001040 t xfs_iwrite\t[xfs]\r\n";
	struct addr_syms t;
	const struct addr_sym *s;
	int hidden;

	(void)state;
	addr_syms_init(&t);
	assert_int_equal(kallsyms_parse(&t, text, sizeof(text) - 1, &hidden), 0);
	assert_int_equal(hidden, 0);
	assert_int_equal(t.lines_bad, 1);
	s = addr_syms_find(&t, 0xffffffff81000150ull);
	assert_non_null(s);
	assert_string_equal(s->name, "helper");
	assert_int_equal(s->size, 0x100);	/* data is not code */
	s = addr_syms_find(&t, 0xffffffffc0001004ull);
	assert_non_null(s);
	assert_string_equal(s->name, "xfs_iread");
	assert_string_equal(s->module, "xfs");
	assert_int_equal(s->size, 0x40);
	/* The gap to the modules is no function's size. */
	assert_null(addr_syms_find(&t, 0xffffffff81000200ull + KALLSYMS_MAX_SIZE));
	addr_syms_release(&t);
}

static void hidden_kallsyms_addresses_are_noticed(void **state)
{
	static const char text[] = "0000000000000000 T _stext\n"
				   "0000000000000000 t helper\n";
	struct addr_syms t;
	int hidden;

	(void)state;
	addr_syms_init(&t);
	assert_int_equal(kallsyms_parse(&t, text, sizeof(text) - 1, &hidden), 0);
	assert_int_equal(hidden, 1);
	assert_null(addr_syms_find(&t, 0));
	addr_syms_release(&t);
}

static void perf_map_lines_with_spaces_and_overlaps(void **state)
{
	static const char text[] =
		"1000 1000 outer region\n"
		"0x1800 0x100 inner stub\n"
		"2000 0 empty\n"
		"zz 10 bad\n"
		"3000 10\n"
		"4000 10 last without newline";
	struct addr_syms t;

	(void)state;
	addr_syms_init(&t);
	assert_int_equal(perf_map_parse(&t, text, sizeof(text) - 1), 0);
	assert_int_equal(t.lines_bad, 3);
	assert_string_equal(addr_syms_find(&t, 0x1000)->name, "outer region");
	assert_string_equal(addr_syms_find(&t, 0x1850)->name, "inner stub");
	/* Past the later, shorter region the earlier one holds again. */
	assert_string_equal(addr_syms_find(&t, 0x1a00)->name, "outer region");
	assert_null(addr_syms_find(&t, 0x2000));
	assert_string_equal(addr_syms_find(&t, 0x400f)->name, "last without newline");
	assert_null(addr_syms_find(&t, 0x4010));
	addr_syms_release(&t);
}


/* ---- the order of reading and writing -------------------------------- */

/* Removes its files when it sees the write transaction begin. */
struct begin_watch {
	const char *remove[2];
	int begins;
};

static int on_statement(unsigned type, void *ctx, void *stmt, void *sql)
{
	struct begin_watch *w = ctx;

	(void)type, (void)stmt;
	if (!strncmp(sql, "BEGIN", 5)) {
		w->begins++;
		for (size_t i = 0; i < ARRAY_SIZE(w->remove); i++)
			unlink(w->remove[i]);
	}
	return 0;
}

static void copy_file(const char *from, const char *to)
{
	char buf[65536];
	FILE *in = fopen(from, "rb"), *out = fopen(to, "wb");
	size_t n;

	assert_non_null(in);
	assert_non_null(out);
	while ((n = fread(buf, 1, sizeof(buf), in)) > 0)
		assert_int_equal(fwrite(buf, 1, n, out), n);
	fclose(in);
	assert_int_equal(fclose(out), 0);
}

static void no_file_is_read_once_the_write_transaction_has_begun(void **state)
{
	sqlite3 *db = new_db("order.db", this_kernel());
	char lib[256], map[64];
	struct begin_watch w = { { lib, map }, 0 };
	struct symbolize_counts c;
	int jit_pid = unused_pid(0), lib_left, map_left;
	FILE *f;

	(void)state;
	/* The library and the JIT map exist until the write begins: a
	 * frame named from them proves they were read before it. */
	snprintf(lib, sizeof(lib), "%s/libsymfix_gone.so", scratch);
	copy_file(fixture("libsymfix.so"), lib);
	snprintf(map, sizeof(map), "/tmp/perf-%d.map", jit_pid);
	f = fopen(map, "w");
	assert_non_null(f);
	fputs("7f0000001000 100 read_in_time\n", f);
	fclose(f);
	add_mappings(db, getpid(), "/libsymfix.so", lib, NULL);
	add_fixture_frames(db, getpid());
	exec_sql(db, "INSERT INTO mapping (session_id, ts, pid, tid, start_addr,"
		 " end_addr, pgoff, path, prot, source) VALUES (%d, 0, %d, %d,"
		 " %lld, %lld, 0, '//anon', 7, 'mmap')", SESSION, jit_pid,
		 jit_pid, 0x7f0000000000ll, 0x7f0000010000ll);
	add_frame(db, 4, jit_pid, 0x7f0000001010ull, 0, 1);
	sqlite3_trace_v2(db, SQLITE_TRACE_STMT, on_statement, &w);
	c = symbolize(db, NULL);
	sqlite3_trace_v2(db, 0, NULL, NULL);
	lib_left = access(lib, F_OK) == 0;
	map_left = access(map, F_OK) == 0;
	unlink(map);
	assert_false(lib_left);
	assert_false(map_left);
	assert_text(frame_col(db, 4, "status"), "ok");
	assert_text(symbol_col(db, 4, 0, "function"), "read_in_time");
	assert_int_equal(c.ok, 4);
	assert_full_names(db);
	/* One write transaction, and no other began before the reading. */
	assert_int_equal(w.begins, 1);
	db_close(db);
}

/* ---- the commands ---------------------------------------------------- */

/* A database file with the fixture frames in stack 7 (innermost the
 * inlined call, then fix_plain's call), taken by two major faults of
 * tid 11 and one blocked interval of tid 12; closed, its path returned. */
static const char *stacks_db(const char *name, const char *as_path)
{
	static char path[256];
	sqlite3 *db = new_db(name, this_kernel());

	snprintf(path, sizeof(path), "%s/%s", scratch, name);
	add_mappings(db, getpid(), "/libsymfix.so", as_path, NULL);
	add_fixture_frames(db, getpid());
	exec_sql(db, "INSERT INTO stack VALUES (%d, 7, %d, 2, 'dwarf', NULL)",
		 SESSION, getpid());
	exec_sql(db, "INSERT INTO stack_frame VALUES (%d, 7, 0, 2), (%d, 7, 1, 1)",
		 SESSION, SESSION);
	exec_sql(db, "INSERT INTO fault (session_id, ts, dur, tid, pid, cpu, kind,"
		 " addr, ip, stack_id) VALUES (%d, 1, 2000000, 11, 11, 0, 'major',"
		 " 0, 0, 7), (%d, 2, 5000000, 11, 11, 0, 'major', 0, 0, 7),"
		 " (%d, 3, 10, 11, 11, 0, 'minor', 0, 0, NULL)",
		 SESSION, SESSION, SESSION);
	exec_sql(db, "INSERT INTO thread_state (session_id, tid, pid, ts, dur,"
		 " state, preempted, uncertain, stack_id) VALUES"
		 " (%d, 12, 11, 5, 3000000, 'blocked', 0, 0, 7)", SESSION);
	db_close(db);
	return path;
}

static void assert_has(const char *text, const char *want)
{
	if (!strstr(text, want))
		fail_msg("expected '%s' in:\n%s", want, text);
}

/* One line on stderr, "faultline <cmd>: ...", containing want. */
static void assert_one_error(const struct run *r, const char *cmd,
			     const char *want)
{
	char prefix[64];
	const char *nl = strchr(r->err, '\n');

	snprintf(prefix, sizeof(prefix), "faultline %s: ", cmd);
	if (strncmp(r->err, prefix, strlen(prefix)) || !strstr(r->err, want) ||
	    !nl || nl[1])
		fail_msg("expected one line '%s...%s', got: %s", prefix, want, r->err);
}

/* A JIT's map names code with whatever bytes it likes: stacks shows
 * them escaped.  A map that is a FIFO is named by symbolize's summary,
 * never opened for reading (that would wait for a writer for good). */
static void perf_map_names_print_escaped_in_stacks_and_a_fifo_map_is_named(void **state)
{
	sqlite3 *db = new_db("jitcli.db", this_kernel());
	char path[256], map[64], fifo[64];
	struct run r;
	FILE *f;

	(void)state;
	snprintf(path, sizeof(path), "%s/jitcli.db", scratch);
	snprintf(map, sizeof(map), "/tmp/perf-%d.map", FAKE_PID + 20);
	snprintf(fifo, sizeof(fifo), "/tmp/perf-%d.map", FAKE_PID + 21);
	unlink(fifo);
	f = fopen(map, "w");
	assert_non_null(f);
	fputs("7f0000001000 100 jit\x1b]0;owned\x07" "fn\n", f);
	fclose(f);
	assert_int_equal(mkfifo(fifo, 0666), 0);
	add_jit_frame(db, 1, FAKE_PID + 20);
	add_jit_frame(db, 2, FAKE_PID + 21);
	/* A file named with an escape, gone: listed as no-file, escaped. */
	exec_sql(db, "INSERT INTO mapping (session_id, ts, pid, tid, start_addr,"
		 " end_addr, pgoff, path, prot, source) VALUES (%d, 0, %d, %d,"
		 " %lld, %lld, 0, '/nonexistent/evil' || char(27) || '[2J.so', 5,"
		 " 'mmap')", SESSION, FAKE_PID + 20, FAKE_PID + 20,
		 0x7f0000100000ll, 0x7f0000110000ll);
	add_frame(db, 3, FAKE_PID + 20, 0x7f0000100010ull, 0, 1);
	exec_sql(db, "INSERT INTO stack VALUES (%d, 7, %d, 3, 'fp', NULL)", SESSION,
		 FAKE_PID + 20);
	exec_sql(db, "INSERT INTO stack_frame VALUES (%d, 7, 0, 1), (%d, 7, 1, 2),"
		 " (%d, 7, 2, 3)", SESSION, SESSION, SESSION);
	exec_sql(db, "INSERT INTO fault (session_id, ts, dur, tid, pid, cpu, kind,"
		 " addr, ip, stack_id) VALUES (%d, 1, 2000000, %d, %d, 0, 'major',"
		 " 0, 0, 7)", SESSION, FAKE_PID + 20, FAKE_PID + 20);
	db_close(db);
	alarm(60);	/* a symbolize blocked on the FIFO ends the test */
	assert_int_equal(run_faultline(&r, "symbolize", path, NULL), 0);
	alarm(0);
	unlink(map);
	unlink(fifo);
	assert_has(r.out, "skipped");
	assert_null(strchr(r.out, 27));
	assert_has(r.out, "/nonexistent/evil\\x1b[2J.so");
	snprintf(map, sizeof(map), "first: /tmp/perf-%d.map (a FIFO, not a regular "
		 "file)", FAKE_PID + 21);
	assert_has(r.out, map);
	assert_int_equal(run_faultline(&r, "stacks", path, NULL), 0);
	assert_null(strchr(r.out, 27));
	assert_has(r.out, "jit\\x1b]0;owned\\x07fn+0x10/0x100");
	assert_has(r.out, "?? (no-file)                              [evil\\x1b[2J.so]");
}

static void symbolize_then_stacks_prints_named_frames_the_most_time_first(void **state)
{
	const char *db = stacks_db("cli.db", NULL);
	char want[256];
	struct run r;

	(void)state;
	assert_int_equal(run_faultline(&r, "stacks", db, NULL), 0);
	assert_has(r.out, "?? (not symbolized: run faultline symbolize)");
	assert_int_equal(run_faultline(&r, "symbolize", db, NULL), 0);
	assert_has(r.out, "session 1 in '");
	assert_has(r.out, "3 frames symbolized, 3 named");
	assert_int_equal(run_faultline(&r, "stacks", db, "--kind", "all", NULL), 0);
	assert_has(r.out, "1 distinct stacks over 3 events (--kind all)");
	assert_has(r.out, "stack 7: 3 events, total 10.0 ms (100.0% of all), longest 5.0 ms "
		   "(tid 11, major fault), dwarf");
	snprintf(want, sizeof(want), "fix_inner (inlined)");
	assert_has(r.out, want);
	snprintf(want, sizeof(want), "[libsymfix.so]  symfix.c:%d",
		 marked_line("inner_call"));
	assert_has(r.out, want);
	snprintf(want, sizeof(want), "%16llx  fix_plain+0x%llx/0x",
		 (unsigned long long)(uintptr_t)fix_plain(),
		 (unsigned long long)((char *)fix_plain() - (char *)(uintptr_t)fix_plain));
	assert_has(r.out, want);
	/* The inlined call's line comes before its holder's, frame 0 first. */
	assert_true(strstr(r.out, "fix_inner") < strstr(r.out, "fix_outer+"));
	assert_true(strstr(r.out, "fix_outer+") < strstr(r.out, "fix_plain+"));
	/* Filters: the blocked interval alone; nothing of 4 ms but one fault. */
	assert_int_equal(run_faultline(&r, "stacks", "--kind", "blocked", db, NULL), 0);
	assert_has(r.out, "stack 7: 1 events, total 3.0 ms (100.0% of all), longest 3.0 ms "
		   "(tid 12, blocked)");
	assert_int_equal(run_faultline(&r, "stacks", db, "--min-duration", "4ms",
				       "--tid", "11", NULL), 0);
	assert_has(r.out, "stack 7: 1 events");
	assert_int_equal(run_faultline(&r, "stacks", db, "--tid", "99", NULL), 0);
	assert_has(r.out, "no events (--kind all) with a stack of at least 0 ns for this thread");
	/* Done once: a second run has nothing to do. */
	assert_int_equal(run_faultline(&r, "symbolize", db, NULL), 0);
	assert_has(r.out, "every frame is symbolized already; --redo");
}

static void symbolize_explains_frames_left_without_names(void **state)
{
	const char *db = stacks_db("cli_nofile.db", "/nonexistent/libgone.so");
	struct run r;

	(void)state;
	assert_int_equal(run_faultline(&r, "symbolize", db, NULL), 0);
	assert_has(r.out, "3 frames symbolized, 0 named");
	assert_has(r.out, "no-file");
	assert_has(r.out, "files not found at their recorded paths");
	assert_has(r.out, "       3  /nonexistent/libgone.so");
	assert_int_equal(run_faultline(&r, "stacks", db, NULL), 0);
	assert_has(r.out, "?? (no-file)");
	assert_has(r.out, "[libgone.so]");
}

static void symbolize_and_stacks_name_what_is_wrong_with_their_input(void **state)
{
	const char *db = stacks_db("cli_err.db", NULL);
	char notdb[256], other[256];
	struct run r;
	FILE *f;

	(void)state;
	snprintf(notdb, sizeof(notdb), "%s/notdb.txt", scratch);
	f = fopen(notdb, "w");
	fputs("this is not a database, but long enough to look like a file\n", f);
	fclose(f);
	snprintf(other, sizeof(other), "%s/other.db", scratch);
	exec_sql_file(other, "CREATE TABLE t (x)");

	assert_int_equal(run_faultline(&r, "symbolize", "/nonexistent/x.db", NULL), 1);
	assert_one_error(&r, "symbolize", "cannot open '/nonexistent/x.db': no such file");
	assert_int_equal(access("/nonexistent/x.db", F_OK), -1);
	assert_int_equal(run_faultline(&r, "stacks", notdb, NULL), 1);
	assert_one_error(&r, "stacks", "not a SQLite database");
	assert_int_equal(run_faultline(&r, "symbolize", other, NULL), 1);
	assert_one_error(&r, "symbolize", "not faultline's");
	assert_int_equal(run_faultline(&r, "symbolize", db, "--session", "9", NULL), 1);
	assert_one_error(&r, "symbolize", "no session 9 in");
	assert_int_equal(run_faultline(&r, "stacks", db, "--session", "9", NULL), 1);
	assert_one_error(&r, "stacks", "it holds sessions 1 to 1");
	assert_int_equal(run_faultline(&r, "symbolize", db, "--debug-dir",
				       "/nonexistent", NULL), 1);
	assert_one_error(&r, "symbolize", "debug directory '/nonexistent' is not a directory");
	/* Nothing was written by the failed runs. */
	assert_int_equal(db_int(db, "SELECT count(*) FROM frame WHERE status IS NOT NULL"), 0);

	assert_int_equal(run_faultline(&r, "stacks", NULL), 2);
	assert_one_error(&r, "stacks", "no database given");
	assert_int_equal(run_faultline(&r, "symbolize", db, db, NULL), 2);
	assert_one_error(&r, "symbolize", "one database at a time");
	assert_int_equal(run_faultline(&r, "stacks", db, "--kind", "huge", NULL), 2);
	assert_one_error(&r, "stacks", "invalid --kind 'huge': expected major, minor");
	assert_int_equal(run_faultline(&r, "stacks", db, "--limit", "0", NULL), 2);
	assert_one_error(&r, "stacks", "invalid --limit '0'");
	assert_int_equal(run_faultline(&r, "symbolize", db, "--session", "0", NULL), 2);
	assert_one_error(&r, "symbolize", "sessions are numbered from 1");
}

static void an_mmap_record_beats_proc_maps_and_the_latest_mapping_wins(void **state)
{
	const struct sym_mapping maps[] = {
		{ 0x1000, 0x5000, 0, "/proc-view", NULL, 1, 0, 0 },
		{ 0x2000, 0x3000, 0, "/first-mmap", NULL, 1, 1, 5 },
		{ 0x2000, 0x3000, 0, "/second-mmap", NULL, 1, 1, 9 },
		{ 0x2800, 0x2900, 0, "/older-mmap", NULL, 1, 1, 1 },
		{ 0x10000, 0x90000, 0, "/big", NULL, 1, 1, 0 },
		{ 0x11000, 0x12000, 0, "/small", NULL, 1, 1, 3 },
	};
	struct addr_space sp;
	int err;

	(void)state;
	addr_space_init(&sp);
	for (size_t i = sizeof(maps) / sizeof(maps[0]); i-- > 0;)
		assert_int_equal(addr_space_add(&sp, &maps[i]), 0);
	assert_string_equal(addr_space_find(&sp, 0x1500, &err)->path, "/proc-view");
	assert_string_equal(addr_space_find(&sp, 0x2500, &err)->path, "/second-mmap");
	assert_string_equal(addr_space_find(&sp, 0x2850, &err)->path, "/second-mmap");
	assert_string_equal(addr_space_find(&sp, 0x3500, &err)->path, "/proc-view");
	assert_null(addr_space_find(&sp, 0x5000, &err));
	assert_null(addr_space_find(&sp, 0xfff, &err));
	/* Past a later, smaller mapping the big one around it holds again. */
	assert_string_equal(addr_space_find(&sp, 0x11800, &err)->path, "/small");
	assert_string_equal(addr_space_find(&sp, 0x50000, &err)->path, "/big");
	assert_int_equal(err, 0);
	addr_space_release(&sp);
}

static int load_fixture(void **state)
{
	(void)state;
	if (symfix_load() < 0)
		return -1;
	return mkdtemp(tmp_template(scratch, sizeof(scratch), "faultline-symbolize")) ?
	       0 : -1;
}

static int remove_scratch(void **state)
{
	char cmd[256];

	(void)state;
	/* Ours; run.h's goes at exit. */
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", scratch);
	return system(cmd) == 0 ? 0 : -1;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(a_g_library_names_functions_lines_and_the_inlined_call),
		cmocka_unit_test(a_stripped_library_is_named_from_dynsym_without_lines),
		cmocka_unit_test(a_debug_file_is_found_by_build_id_under_a_debug_dir),
		cmocka_unit_test(without_the_debug_dir_the_split_library_has_no_lines),
		cmocka_unit_test(a_debug_file_is_found_by_gnu_debuglink),
		cmocka_unit_test(symbolizing_leaves_the_files_it_read_as_cold_as_it_found_them),
		cmocka_unit_test(a_build_id_mismatch_is_reported_and_names_nothing),
		cmocka_unit_test(a_matching_build_id_is_accepted),
		cmocka_unit_test(a_missing_file_is_no_file_and_an_unmapped_address_no_mapping),
		cmocka_unit_test(a_perf_map_names_a_jit_region),
		cmocka_unit_test(a_perf_map_that_is_a_fifo_a_link_or_another_user_s_is_skipped_and_counted),
		cmocka_unit_test(kernel_frames_are_named_from_kallsyms),
		cmocka_unit_test(another_kernel_s_frames_are_no_file),
		cmocka_unit_test(vdso_frames_are_named_from_this_kernel_s_vdso),
		cmocka_unit_test(another_kernel_s_vdso_frames_are_no_file),
		cmocka_unit_test(a_missing_session_is_named),
		cmocka_unit_test(kallsyms_text_parses_modules_and_sizes),
		cmocka_unit_test(hidden_kallsyms_addresses_are_noticed),
		cmocka_unit_test(perf_map_lines_with_spaces_and_overlaps),
		cmocka_unit_test(an_mmap_record_beats_proc_maps_and_the_latest_mapping_wins),
		cmocka_unit_test(no_file_is_read_once_the_write_transaction_has_begun),
		cmocka_unit_test_teardown(symbolize_then_stacks_prints_named_frames_the_most_time_first,
					  kill_leftovers),
		cmocka_unit_test_teardown(symbolize_explains_frames_left_without_names,
					  kill_leftovers),
		cmocka_unit_test_teardown(perf_map_names_print_escaped_in_stacks_and_a_fifo_map_is_named,
					  kill_leftovers),
		cmocka_unit_test_teardown(symbolize_and_stacks_name_what_is_wrong_with_their_input,
					  kill_leftovers),
	};

	return cmocka_run_group_tests(tests, load_fixture, remove_scratch);
}
