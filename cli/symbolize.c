/*
 * faultline symbolize: names the stack frames of a recorded session
 * (record/symbolize.h) and says, for each kind of frame left without
 * a name, why and what to do.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>

#include "../common/array.h"
#include "../common/term_text.h"
#include "../schema/db.h"
#include "commands.h"
#include "opt.h"
#include "session_pick.h"
#include "../record/symbolize.h"
#include "usage.h"

struct symbolize_args {
	int64_t session;		/* 0: the latest */
	const char **debug_dirs;	/* owned array; strings borrowed from argv */
	size_t ndebug_dirs, debug_dirs_cap;
	int redo;
};

static int add_debug_dir(void *value, const char *arg, const char *opt,
			 struct errmsg *e)
{
	struct symbolize_args *a = value;

	(void)opt;
	if (ARRAY_RESERVE(a->debug_dirs, a->debug_dirs_cap, a->ndebug_dirs + 1) < 0)
		return errmsg_set(e, ENOMEM, "out of memory");
	a->debug_dirs[a->ndebug_dirs++] = arg;
	return 0;
}

static const char symbolize_usage[] =
	"faultline symbolize DB [--session N] [--debug-dir DIR]... [--redo]";

static const char symbolize_examples[] =
	"  faultline symbolize run.db\n"
	"  faultline symbolize run.db --session 2 --debug-dir ./debug --redo\n";

/* Frames of one status in the session, grouped by dso, most first. */
static void print_dsos(sqlite3 *db, int64_t session, const char *status,
		       int kernel)
{
	sqlite3_stmt *st;

	if (sqlite3_prepare_v2(db, "SELECT coalesce(dso, '(no mapping)'), count(*)"
			       " FROM frame WHERE session_id = ? AND status = ?"
			       " AND kernel = ? GROUP BY 1 ORDER BY 2 DESC, 1 LIMIT 6",
			       -1, &st, NULL) != SQLITE_OK)
		return;
	sqlite3_bind_int64(st, 1, session);
	sqlite3_bind_text(st, 2, status, -1, SQLITE_STATIC);
	sqlite3_bind_int(st, 3, kernel);
	/* A path is whatever its directory's owner named the file. */
	for (int i = 0; sqlite3_step(st) == SQLITE_ROW; i++) {
		char *dso = term_text_dup((const char *)sqlite3_column_text(st, 0));

		printf(i < 5 ? "      %8lld  %s\n" : "           ...\n",
		       (long long)sqlite3_column_int64(st, 1), dso ? dso : "?");
		free(dso);
	}
	sqlite3_finalize(st);
}

static int64_t count_frames(sqlite3 *db, int64_t session, const char *status,
			    int kernel)
{
	sqlite3_stmt *st;
	int64_t n = 0;

	if (sqlite3_prepare_v2(db, "SELECT count(*) FROM frame WHERE session_id = ?"
			       " AND (?2 IS NULL OR status = ?2) AND (?3 < 0 OR kernel = ?3)",
			       -1, &st, NULL) != SQLITE_OK)
		return 0;
	sqlite3_bind_int64(st, 1, session);
	if (status)
		sqlite3_bind_text(st, 2, status, -1, SQLITE_STATIC);
	sqlite3_bind_int(st, 3, kernel);
	if (sqlite3_step(st) == SQLITE_ROW)
		n = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	return n;
}

/* Does this kernel hide kallsyms addresses from us (kptr_restrict)? */
static int kallsyms_hidden(void)
{
	unsigned long long addr = 1;
	FILE *f = fopen("/proc/kallsyms", "r");

	if (!f)
		return 0;
	if (fscanf(f, "%llx", &addr) != 1)
		addr = 1;
	fclose(f);
	return addr == 0;
}

static void print_kernel_advice(sqlite3 *db, int64_t session)
{
	char kernel[256] = "";
	struct utsname un;
	sqlite3_stmt *st;

	if (sqlite3_prepare_v2(db, "SELECT kernel FROM session WHERE session_id = ?",
			       -1, &st, NULL) == SQLITE_OK) {
		sqlite3_bind_int64(st, 1, session);
		if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_text(st, 0))
			snprintf(kernel, sizeof(kernel), "%s", sqlite3_column_text(st, 0));
		sqlite3_finalize(st);
	}
	uname(&un);
	if (count_frames(db, session, "no-file", 1) && strcmp(kernel, un.release))
		printf("  kernel frames: the session was recorded on kernel %s, "
		       "this is %s;\n  run faultline symbolize on the recording "
		       "machine to name them (and [vdso] frames)\n", kernel,
		       un.release);
	if (count_frames(db, session, "no-symbol", 1) && kallsyms_hidden())
		printf("  kernel frames: /proc/kallsyms shows this user no "
		       "addresses (kernel.kptr_restrict);\n  run faultline "
		       "symbolize --redo as root\n");
}

static const struct {
	const char *status;
	const char *advice;
} advice[] = {
	{ "no-file", "files not found at their recorded paths: symbolize on "
	  "the machine that recorded,\n      or put the files back at those paths" },
	{ "build-id-mismatch", "files replaced since the recording (another "
	  "build id): nothing named from them;\n      put back the files that "
	  "ran, or give their debug files with --debug-dir" },
	{ "no-symbol", "no symbol covers these addresses (a stripped file): "
	  "install its debug package\n      (-dbgsym, -dbg, -debuginfo) or pass "
	  "--debug-dir DIR holding .build-id/xx/yyyy.debug" },
	{ "no-mapping", "no recorded mapping of code holds these addresses: "
	  "code mapped before recording\n      started in a process not read "
	  "from /proc, a JIT that writes no /tmp/perf-PID.map,\n      or a "
	  "frame-pointer walk that left the stack (its stack is shown cut there)" },
};

static void print_counts(sqlite3 *db, const char *path, int64_t session,
			 const struct symbolize_counts *c)
{
	const uint64_t n[] = { c->no_file, c->build_id_mismatch, c->no_symbol,
			       c->no_mapping };

	printf("session %lld in '%s': %llu frames symbolized, %llu named\n",
	       (long long)session, path, (unsigned long long)c->frames,
	       (unsigned long long)c->ok);
	for (size_t i = 0; i < ARRAY_SIZE(advice); i++) {
		if (!n[i])
			continue;
		printf("  %-18s %8llu  %s\n", advice[i].status,
		       (unsigned long long)n[i], advice[i].advice);
		print_dsos(db, session, advice[i].status, 0);
		print_dsos(db, session, advice[i].status, 1);
	}
	if (c->skipped)
		printf("  %-18s %8llu  files another user could have put there, "
		       "not read: not a regular file\n      of root or the "
		       "process's owner, or too large; first: %s\n", "skipped",
		       (unsigned long long)c->skipped, c->skipped_first);
	print_kernel_advice(db, session);
}

static int run(const char *path, struct symbolize_args *a)
{
	struct symbolize_opts o = { a->debug_dirs, a->ndebug_dirs, a->redo };
	struct symbolize_counts c;
	struct errmsg e;
	sqlite3 *db = NULL;
	int err;

	errmsg_init(&e);
	/* Read-only first: a missing file is an error, not a new database. */
	err = db_open_read(path, &db, &e);
	db_close(db);
	db = NULL;
	if (err == 0)
		err = db_open_write(path, &db, &e);
	if (err == 0)
		err = session_pick(db, path, &a->session, &e);
	if (err == 0)
		err = symbolize_session(db, path, a->session, &o, &c, &e);
	if (err < 0) {
		db_close(db);
		return error("symbolize", "%s", e.text), 1;
	}
	if (c.frames == 0 && count_frames(db, a->session, NULL, -1) == 0)
		printf("session %lld in '%s' has no stack frames; record with "
		       "'faultline record --stacks=fp' (or dwarf)\n",
		       (long long)a->session, path);
	else if (c.frames == 0)
		printf("session %lld in '%s': every frame is symbolized already; "
		       "--redo does them again\n", (long long)a->session, path);
	else
		print_counts(db, path, a->session, &c);
	/* Left in WAL mode, the file would need side files to be read. */
	if (db_end_write(db, path, &e) < 0)
		warning("symbolize", "%s", e.text);
	db_close(db);
	return 0;
}

int cmd_symbolize(int argc, char **argv)
{
	struct symbolize_args a = { 0 };
	const struct opt opts[] = {
		{ 's', "session", "N", "the session to symbolize (default: the "
		  "latest)", OPT_CALLBACK, &a.session, session_pick_parse },
		{ 0, "debug-dir", "DIR", "look here first for debug files, by "
		  "build id and .gnu_debuglink (repeatable)", OPT_CALLBACK, &a,
		  add_debug_dir },
		{ 0, "redo", NULL, "symbolize every frame again, not only those "
		  "never done", OPT_FLAG, &a.redo, NULL },
		{ 0 },
	};
	const struct cmd_usage u = {
		"symbolize", symbolize_usage,
		"Name the recorded stack frames of a session: functions, files, "
		"lines, inlined calls.",
		symbolize_examples, opts,
	};
	const char *db = NULL;
	int res = parse_db_args(&u, argc, argv, &db), status;

	status = res == OPT_HELP ? 0 : res < 0 ? EXIT_USAGE : run(db, &a);
	free(a.debug_dirs);
	return status;
}
