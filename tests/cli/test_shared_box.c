/*
 * faultline run as root on a machine other users share: the files it
 * writes are its own (never another program's SQLite file, never
 * through a link another user planted), and one writer at a time.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <pwd.h>

#include "../../schema/db.h"
#include "../integration/run.h"

/* The whole file at path, in a buffer the caller frees; *len its size.
 * NULL when it cannot be read. */
static char *file_bytes(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	char *buf = NULL;
	long n;

	*len = 0;
	if (!f)
		return NULL;
	if (fseek(f, 0, SEEK_END) == 0 && (n = ftell(f)) >= 0 &&
	    fseek(f, 0, SEEK_SET) == 0 && (buf = malloc((size_t)n + 1)) &&
	    fread(buf, 1, (size_t)n, f) == (size_t)n)
		*len = (size_t)n;
	fclose(f);
	return buf;
}

/* Is there a file at path followed by suffix (a -wal, -shm, -journal)? */
static int side_file(const char *path, const char *suffix)
{
	char p[512];

	snprintf(p, sizeof(p), "%s%s", path, suffix);
	return access(p, F_OK) == 0;
}

/* Runs sql on the SQLite file at path, as another program would. */
static void exec_sql(const char *path, const char *sql)
{
	sqlite3 *db = NULL;

	assert_int_equal(sqlite3_open(path, &db), SQLITE_OK);
	assert_int_equal(sqlite3_exec(db, sql, NULL, NULL, NULL), SQLITE_OK);
	sqlite3_close(db);
}

/* A SQLite file at path made by sql. */
static void make_sqlite(const char *path, const char *sql)
{
	unlink(path);
	exec_sql(path, sql);
}

/* Each writer refuses the file at path, naming why, and leaves its
 * bytes as they were, with no side file beside it. */
static void assert_writers_leave_alone(const char *path, const char *says)
{
	size_t before_len, after_len;
	char *before = file_bytes(path, &before_len), *after;
	const char *csv = scratch_path("one.csv");
	struct run r;
	FILE *f = fopen(csv, "w");

	assert_non_null(before);
	assert_non_null(f);
	fputs("ts,value\n1795000000,1\n", f);
	fclose(f);
	assert_int_equal(run_faultline(&r, "record", "-q", "-o", path, "--",
				       "true", NULL), 1);
	if (!strstr(r.err, says))
		fail_msg("record: expected '%s', got: %s", says, r.err);
	assert_int_equal(run_faultline(&r, "import", path, csv, "--metric", "m",
				       "--any-time", "-q", NULL), 1);
	if (!strstr(r.err, says))
		fail_msg("import: expected '%s', got: %s", says, r.err);
	assert_int_equal(run_faultline(&r, "upgrade", path, NULL), 1);
	assert_int_equal(run_faultline(&r, "label", path, "--session", "1", "a=b",
				       NULL), 1);
	after = file_bytes(path, &after_len);
	assert_non_null(after);
	assert_int_equal(after_len, before_len);
	assert_memory_equal(after, before, before_len);
	assert_false(side_file(path, "-wal"));
	assert_false(side_file(path, "-shm"));
	assert_false(side_file(path, "-journal"));
	free(before);
	free(after);
}

/* A sticky, world-writable directory like /tmp, made for the test
 * (under /tmp: the scratch directory is root's alone, and user nobody
 * must reach this one).  The caller removes it with sticky_dir_remove. */
static const char *sticky_dir(void)
{
	static char dir[128];

	tmp_template(dir, sizeof(dir), "faultline-sticky");
	assert_non_null(mkdtemp(dir));
	assert_int_equal(chmod(dir, 01777), 0);
	return dir;
}

static void sticky_dir_remove(const char *dir)
{
	nftw(dir, scratch_remove_entry, 16, FTW_DEPTH | FTW_PHYS);
}

/* User nobody's uid, or the test is skipped. */
static int nobody_uid(void)
{
	struct passwd *pw = getpwnam("nobody");

	if (!pw)
		skip_msg("no user 'nobody' to plant a link as");
	return pw ? (int)pw->pw_uid : -1;
}

/* User nobody makes link, pointing at target. */
static void plant_link(int uid, const char *target, const char *link)
{
	char *argv[] = { "/bin/ln", "-s", (char *)target, (char *)link, NULL };
	struct run r;

	run_start_as(&r, uid, argv);
	assert_int_equal(run_wait(&r), 0);
}

static void record_refuses_a_link_another_user_planted_in_a_sticky_dir(void **state)
{
	const char *dir = sticky_dir(), *made = scratch_path("made-by-root.db");
	const char *victim = scratch_path("victim");
	char link1[256], link2[256];
	struct run r;
	int uid = nobody_uid();
	FILE *f;

	(void)state;
	if (uid < 0)
		return;
	f = fopen(victim, "w");
	assert_non_null(f);
	fputs("root's file\n", f);
	fclose(f);
	snprintf(link1, sizeof(link1), "%s/x.db", dir);
	snprintf(link2, sizeof(link2), "%s/y.db", dir);
	plant_link(uid, made, link1);
	plant_link(uid, victim, link2);
	assert_int_equal(run_faultline(&r, "record", "-q", "-o", link1, "--", "true",
				       NULL), 1);
	assert_non_null(strstr(r.err, "is a symbolic link"));
	assert_non_null(strstr(r.err, link1));
	assert_int_equal(access(made, F_OK), -1);
	assert_int_equal(run_faultline(&r, "record", "-q", "-o", link2, "--", "true",
				       NULL), 1);
	assert_non_null(strstr(r.err, "is a symbolic link"));
	f = fopen(victim, "r");
	assert_non_null(f);
	{
		char line[64] = "";

		assert_non_null(fgets(line, sizeof(line), f));
		assert_string_equal(line, "root's file\n");
		assert_null(fgets(line, sizeof(line), f));
	}
	fclose(f);
	/* The other writers too: merge's output. */
	assert_int_equal(run_faultline(&r, "record", "-q", "-o", scratch_path("in.db"),
				       "--", "true", NULL), 0);
	assert_int_equal(run_faultline(&r, "merge", link1, scratch_path("in.db"),
				       NULL), 1);
	assert_non_null(strstr(r.err, "is a symbolic link"));
	assert_int_equal(access(made, F_OK), -1);
	sticky_dir_remove(dir);
}

/* Without a link: a file another user made in /tmp, for root to fill
 * with a recording they then read. */
static void record_refuses_a_file_another_user_made_in_a_sticky_dir(void **state)
{
	const char *dir = sticky_dir();
	char path[256];
	char *argv[] = { "/usr/bin/touch", path, NULL };
	struct stat sb;
	struct run r;
	int uid = nobody_uid();

	(void)state;
	if (uid < 0)
		return;
	snprintf(path, sizeof(path), "%s/bait.db", dir);
	run_start_as(&r, uid, argv);
	assert_int_equal(run_wait(&r), 0);
	assert_int_equal(run_faultline(&r, "record", "-q", "-o", path, "--", "true",
				       NULL), 1);
	assert_non_null(strstr(r.err, "belongs to another user"));
	assert_int_equal(stat(path, &sb), 0);
	assert_int_equal(sb.st_size, 0);
	sticky_dir_remove(dir);
}

/* A recording holds every traced process's mappings and the kernel's
 * addresses: readable by its owner only, whatever the umask allows. */
static void a_new_recording_is_readable_by_its_owner_only(void **state)
{
	const char *path = scratch_path("mode.db");
	struct stat sb;
	struct run r;
	mode_t old = umask(022);

	(void)state;
	assert_int_equal(run_faultline(&r, "record", "-q", "-o", path, "--", "true",
				       NULL), 0);
	umask(old);
	assert_int_equal(stat(path, &sb), 0);
	assert_int_equal(sb.st_mode & 07777, 0600);
}

/* export's outputs hold what the database does: never written through
 * a link another user planted, and readable by their owner only. */
static void export_refuses_a_link_another_user_planted_in_a_sticky_dir(void **state)
{
	const char *dir = sticky_dir(), *db = scratch_path("exp.db");
	const char *target = scratch_path("root-only");
	char link_dir[256], link_file[256], slash[260], victim[300];
	struct run r;
	int uid = nobody_uid();

	(void)state;
	if (uid < 0)
		return;
	assert_int_equal(mkdir(target, 0700), 0);
	snprintf(victim, sizeof(victim), "%s/trace.json", target);
	snprintf(link_dir, sizeof(link_dir), "%s/out", dir);
	snprintf(link_file, sizeof(link_file), "%s/trace.json", dir);
	snprintf(slash, sizeof(slash), "%s/", link_dir);
	plant_link(uid, target, link_dir);
	plant_link(uid, victim, link_file);
	assert_int_equal(run_faultline(&r, "record", "-q", "-o", db, "--", "true",
				       NULL), 0);
	assert_int_equal(run_faultline(&r, "export", db, "--format", "csv", "-o",
				       link_dir, NULL), 1);
	assert_non_null(strstr(r.err, "is a symbolic link"));
	assert_int_equal(run_faultline(&r, "export", db, "--format", "csv", "-o",
				       slash, NULL), 1);
	assert_non_null(strstr(r.err, "is a symbolic link"));
	assert_int_equal(run_faultline(&r, "export", db, "--format", "chrome-trace",
				       "-o", link_file, NULL), 1);
	assert_non_null(strstr(r.err, "is a symbolic link"));
	/* Nothing landed where the links point. */
	assert_int_equal(rmdir(target), 0);
	sticky_dir_remove(dir);
}

static void export_outputs_are_readable_by_their_owner_only(void **state)
{
	const char *db = scratch_path("expmode.db"), *dir = scratch_path("csv");
	const char *trace = scratch_path("trace.json");
	char session_csv[300];
	struct stat sb;
	struct run r;
	mode_t old = umask(022);

	(void)state;
	snprintf(session_csv, sizeof(session_csv), "%s/session.csv", dir);
	assert_int_equal(run_faultline(&r, "record", "-q", "-o", db, "--", "true",
				       NULL), 0);
	assert_int_equal(run_faultline(&r, "export", db, "--format", "csv", "-o",
				       dir, NULL), 0);
	assert_int_equal(run_faultline(&r, "export", db, "--format", "chrome-trace",
				       "-o", trace, NULL), 0);
	umask(old);
	assert_int_equal(stat(dir, &sb), 0);
	assert_int_equal(sb.st_mode & 07777, 0700);
	assert_int_equal(stat(session_csv, &sb), 0);
	assert_int_equal(sb.st_mode & 07777, 0600);
	assert_int_equal(stat(trace, &sb), 0);
	assert_int_equal(sb.st_mode & 07777, 0600);
}

static void another_programs_file_with_a_schema_version_is_left_byte_for_byte(void **state)
{
	const char *path = scratch_path("app4.db");

	(void)state;
	make_sqlite(path, "PRAGMA user_version = 4; CREATE TABLE orders (id INTEGER,"
		    " total REAL); INSERT INTO orders VALUES (1, 9.5);"
		    " CREATE VIEW big AS SELECT * FROM orders WHERE total > 5");
	assert_writers_leave_alone(path, "is a SQLite database, but not faultline's");
	assert_int_equal(db_int(path, "SELECT count(*) FROM big"), 1);
}

static void another_programs_file_without_a_schema_version_is_not_switched_to_wal(void **state)
{
	const char *path = scratch_path("app0.db");

	(void)state;
	make_sqlite(path, "CREATE TABLE customers (id INTEGER)");
	assert_writers_leave_alone(path, "is a SQLite database, but not faultline's");
}

/* Even with faultline's tables: its mark says whose it is. */
static void a_file_with_another_application_id_is_refused(void **state)
{
	const char *path = scratch_path("marked.db");

	(void)state;
	make_sqlite(path, "PRAGMA application_id = 1234; PRAGMA user_version = "
		    FL_STR(SCHEMA_VERSION) "; CREATE TABLE session (session_id "
		    "INTEGER PRIMARY KEY); CREATE TABLE thread (x); CREATE TABLE "
		    "fault (x); CREATE TABLE mapping (x); CREATE TABLE lost (x)");
	assert_writers_leave_alone(path, "application_id 0x000004d2");
}

static void a_new_database_carries_faultlines_application_id(void **state)
{
	const char *path = scratch_path("mark.db");
	struct run r;

	(void)state;
	assert_int_equal(run_faultline(&r, "record", "-q", "-o", path, "--", "true",
				       NULL), 0);
	assert_int_equal(db_int(path, "PRAGMA application_id"), FL_APPLICATION_ID);
	/* A file of this schema from before the mark gets it when written. */
	exec_sql(path, "PRAGMA application_id = 0");
	assert_int_equal(db_int(path, "PRAGMA application_id"), 0);
	assert_int_equal(run_faultline(&r, "record", "-q", "-o", path, "--", "true",
				       NULL), 0);
	assert_int_equal(db_int(path, "PRAGMA application_id"), FL_APPLICATION_ID);
	assert_int_equal(db_int(path, "SELECT count(*) FROM session"), 2);
}

/* Starts a recording into path of a command that runs about 3 s, and
 * waits until it records. */
static void start_long_recording(struct run *fl, const char *path)
{
	char *argv[] = { (char *)faultline_bin(), "record", "-q", "-o",
			 (char *)path, "--", "/bin/sleep", "3", NULL };

	assert_int_equal(start_recording(fl, argv, 30000), 0);
	assert_int_equal(wait_for_session(path, 10000), 0);
}

/* A second writer is refused at once, before it takes a lock the
 * recording needs, and says which session and process hold the file;
 * the recording goes on and ends complete, and a reader still reads. */
static void a_second_writer_is_refused_at_once_and_the_recording_completes(void **state)
{
	const char *path = scratch_path("busy.db"), *csv = scratch_path("busy.csv");
	char says[128];
	struct run fl, r;
	FILE *f = fopen(csv, "w");

	(void)state;
	assert_non_null(f);
	fputs("ts,value\n1795000000,1\n", f);
	fclose(f);
	start_long_recording(&fl, path);
	/* Only the writer's lock, taken before SQLite opens the file, names
	 * the running recorder: a refusal that says so came before any
	 * SQLite lock or busy timeout, however loaded the machine. */
	snprintf(says, sizeof(says), "faultline record (pid %d) is recording "
		 "session 1 into it", (int)fl.pid);
	assert_int_equal(run_faultline(&r, "record", "-q", "-o", path, "--", "true",
				       NULL), 1);
	if (!strstr(r.err, says))
		fail_msg("record: expected '%s', got: %s", says, r.err);
	assert_int_equal(run_faultline(&r, "import", path, csv, "--metric", "m",
				       "--any-time", "-q", NULL), 1);
	if (!strstr(r.err, says))
		fail_msg("import: expected '%s', got: %s", says, r.err);
	assert_int_equal(run_faultline(&r, "label", path, "--session", "1", "a=b",
				       NULL), 1);
	assert_non_null(strstr(r.err, says));
	assert_int_equal(run_faultline(&r, "merge", path, scratch_path("none.db"),
				       NULL), 1);
	assert_int_equal(run_faultline(&r, "report", path, NULL), 0);
	assert_int_equal(run_wait(&fl), 0);
	assert_int_equal(db_int(path, "SELECT count(*) FROM session"), 1);
	assert_int_equal(db_int(path, "SELECT count(*) FROM session WHERE "
				"status = 'complete'"), 1);
	assert_int_equal(db_int(path, "SELECT count(*) FROM metric_series"), 0);
}

/* A recorder killed mid-session leaves a 'recording' row, but no lock:
 * the next writer goes ahead, and marks the session killed. */
static void a_killed_recorders_session_does_not_hold_the_file(void **state)
{
	const char *path = scratch_path("killed.db");
	struct run fl, r;

	(void)state;
	start_long_recording(&fl, path);
	kill(fl.pid, SIGKILL);
	run_wait(&fl);
	assert_int_equal(db_int(path, "SELECT count(*) FROM session WHERE "
				"status = 'recording'"), 1);
	assert_int_equal(run_faultline(&r, "record", "-q", "-o", path, "--", "true",
				       NULL), 0);
	assert_int_equal(db_int(path, "SELECT count(*) FROM session WHERE "
				"status = 'complete'"), 1);
	assert_int_equal(db_int(path, "SELECT count(*) FROM session WHERE "
				"status = 'killed' AND error LIKE 'killed while "
				"recording (recorder pid %d gone)%%'", (int)fl.pid), 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(another_programs_file_with_a_schema_version_is_left_byte_for_byte),
		cmocka_unit_test(another_programs_file_without_a_schema_version_is_not_switched_to_wal),
		cmocka_unit_test(a_file_with_another_application_id_is_refused),
		cmocka_unit_test(a_new_database_carries_faultlines_application_id),
		cmocka_unit_test(record_refuses_a_link_another_user_planted_in_a_sticky_dir),
		cmocka_unit_test(record_refuses_a_file_another_user_made_in_a_sticky_dir),
		cmocka_unit_test(a_new_recording_is_readable_by_its_owner_only),
		cmocka_unit_test(export_refuses_a_link_another_user_planted_in_a_sticky_dir),
		cmocka_unit_test(export_outputs_are_readable_by_their_owner_only),
		cmocka_unit_test_teardown(a_second_writer_is_refused_at_once_and_the_recording_completes, kill_leftovers),
		cmocka_unit_test_teardown(a_killed_recorders_session_does_not_hold_the_file, kill_leftovers),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
