/*
 * A finished database is one file: the commands that write it (record,
 * import, symbolize) leave no -wal or -shm beside it, the ones that read
 * it (report, query, stacks) create none, and they read it where nothing
 * can be written: a read-only mount, or a read-only file in a directory
 * the reader cannot write.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <pwd.h>
#include <sched.h>
#include <sys/wait.h>

#include "../integration/run.h"
#include "../../schema/checkpointer.h"
#include "../../schema/db.h"

/* Does path exist? */
static int exists(const char *path)
{
	return access(path, F_OK) == 0;
}

/* Fails when path has a -wal, -shm or -journal beside it. */
static void assert_alone(const char *path)
{
	static const char *const sides[] = { "-wal", "-shm", "-journal" };
	char side[512];

	for (size_t i = 0; i < sizeof(sides) / sizeof(sides[0]); i++) {
		snprintf(side, sizeof(side), "%s%s", path, sides[i]);
		if (exists(side))
			fail_msg("%s is there", side);
	}
}

/* The journal mode the file's header records: 1 rollback, 2 WAL. */
static int header_mode(const char *path)
{
	unsigned char h[20] = { 0 };
	int fd = open(path, O_RDONLY);

	assert_true(fd >= 0);
	assert_int_equal(pread(fd, h, sizeof(h), 0), (ssize_t)sizeof(h));
	close(fd);
	assert_int_equal(h[18], h[19]);
	return h[18];
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

static const char *write_file(const char *name, const char *text)
{
	const char *path = scratch_path(name);
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	fputs(text, f);
	assert_int_equal(fclose(f), 0);
	return path;
}

/* A database written by record, import and symbolize, made by the first
 * test that asks; a recording that fails fails that test. */
static const char *finished_db(void)
{
	static const char *path;
	struct run r;
	char metrics[128];

	if (path)
		return path;
	path = scratch_path("finished.db");
	if (run_faultline(&r, "record", "-q", "-o", path, "--", "/bin/true", NULL) != 0) {
		path = NULL;
		fail_msg("faultline record failed: %s", r.err);
	}
	assert_alone(path);
	snprintf(metrics, sizeof(metrics), "ts,value\n%lld,1\n",
		 (long long)db_int(path, "SELECT start_ts FROM session"));
	assert_int_equal(run_faultline(&r, "import", "-q", path,
				       write_file("m.csv", metrics), "-m", "m", NULL), 0);
	assert_alone(path);
	assert_int_equal(run_faultline(&r, "symbolize", path, NULL), 0);
	assert_alone(path);
	return path;
}

/* Runs report, query and stacks on path; each must succeed. */
static void read_all_three(const char *path)
{
	struct run r;

	if (run_faultline(&r, "report", path, NULL) != 0)
		fail_msg("report %s: %s", path, r.err);
	assert_non_null(strstr(r.out, "faultline report: session 1 of "));
	if (run_faultline(&r, "query", path, "sessions", "-f", "csv", NULL) != 0)
		fail_msg("query %s: %s", path, r.err);
	assert_non_null(strstr(r.out, "\r\n1,complete,"));
	if (run_faultline(&r, "stacks", path, NULL) != 0)
		fail_msg("stacks %s: %s", path, r.err);
	assert_string_equal(r.err, "");
}

static void writers_leave_the_file_alone_and_readers_add_nothing(void **state)
{
	const char *db = finished_db();

	(void)state;
	assert_int_equal(header_mode(db), 1);
	read_all_three(db);
	assert_alone(db);
}

/* A file left in WAL mode (by a recording that was killed, or an older
 * faultline) that nobody has open reads without side files too. */
static void a_wal_file_nobody_holds_is_read_without_side_files(void **state)
{
	const char *db = finished_db(), *wal = scratch_path("wal.db");
	sqlite3 *h = NULL;

	(void)state;
	copy_file(db, wal);
	assert_int_equal(sqlite3_open(wal, &h), SQLITE_OK);
	assert_int_equal(sqlite3_exec(h, "PRAGMA journal_mode=WAL", NULL, NULL, NULL),
			 SQLITE_OK);
	sqlite3_close(h);
	assert_alone(wal);
	assert_int_equal(header_mode(wal), 2);
	read_all_three(wal);
	assert_alone(wal);
}

/* While another process has the database open (a query beside a
 * recording), the writer cannot leave WAL mode: it says so, keeps every
 * row, and a reader still reads through the live -wal. */
static void a_write_beside_an_open_reader_keeps_wal_and_says_so(void **state)
{
	const char *db = finished_db(), *live = scratch_path("live.db");
	sqlite3 *h = NULL;
	struct run r;

	(void)state;
	copy_file(db, live);
	assert_int_equal(sqlite3_open(live, &h), SQLITE_OK);
	assert_int_equal(sqlite3_exec(h, "PRAGMA journal_mode=WAL; SELECT count(*) "
				      "FROM session", NULL, NULL, NULL), SQLITE_OK);
	assert_int_equal(run_faultline(&r, "import", live, write_file("n.csv",
				       "ts,value\n1795000000,1\n"), "-m", "n", "-q",
				       "--any-time", NULL), 0);
	assert_non_null(strstr(r.err, "faultline import: warning: '"));
	assert_non_null(strstr(r.err, "' stays in WAL mode: another process has it open"));
	if (run_faultline(&r, "query", live, "metrics", "-f", "csv", NULL) != 0)
		fail_msg("query beside a writer: %s", r.err);
	assert_int_equal(sqlite3_exec(h, "SELECT 1", NULL, NULL, NULL), SQLITE_OK);
	sqlite3_close(h);
	assert_int_equal(db_int(live, "SELECT count(*) FROM metric_series WHERE "
				"name = 'n'"), 1);
}

/* In a child: a private mount namespace where dir is mounted read-only
 * over itself, then argv.  Exit 125: no such mount could be made, 124:
 * the mount was still writable. */
static int run_on_readonly_mount(struct run *r, const char *dir, char *const argv[])
{
	static int seq;
	char probe[512];

	memset(r, 0, sizeof(*r));
	/* Outside dir, which the child sees read-only. */
	snprintf(r->errpath, sizeof(r->errpath), "%s/ro-err.%d", scratch_dir(), seq);
	snprintf(r->outpath, sizeof(r->outpath), "%s/ro-out.%d", scratch_dir(), seq++);
	snprintf(probe, sizeof(probe), "%s/probe", dir);
	r->pid = fork();
	if (r->pid == 0) {
		int e = open(r->errpath, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		int o = open(r->outpath, O_WRONLY | O_CREAT | O_TRUNC, 0644);

		dup2(e, 2);
		dup2(o, 1);
		if (unshare(CLONE_NEWNS) < 0 ||
		    mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0 ||
		    mount(dir, dir, NULL, MS_BIND, NULL) < 0 ||
		    mount(NULL, dir, NULL, MS_REMOUNT | MS_BIND | MS_RDONLY, NULL) < 0) {
			fprintf(stderr, "%s", strerror(errno));
			_exit(125);
		}
		if (open(probe, O_WRONLY | O_CREAT, 0644) >= 0 || errno != EROFS)
			_exit(124);
		execv(argv[0], argv);
		_exit(127);
	}
	run_wait(r);
	unlink(r->errpath);
	unlink(r->outpath);
	return r->status;
}

static void report_query_and_stacks_read_from_a_readonly_mount(void **state)
{
	const char *db = finished_db();
	char dir[256], del[300], wal[300];
	sqlite3 *h = NULL;
	static const char *const cmds[][4] = {
		{ "report", NULL }, { "query", "sessions", "-f", "csv" }, { "stacks", NULL },
	};

	(void)state;
	snprintf(dir, sizeof(dir), "%s/ro", scratch_dir());
	assert_int_equal(mkdir(dir, 0755), 0);
	snprintf(del, sizeof(del), "%s/finished.db", dir);
	snprintf(wal, sizeof(wal), "%s/wal.db", dir);
	copy_file(db, del);
	copy_file(db, wal);
	assert_int_equal(sqlite3_open(wal, &h), SQLITE_OK);
	assert_int_equal(sqlite3_exec(h, "PRAGMA journal_mode=WAL", NULL, NULL, NULL),
			 SQLITE_OK);
	sqlite3_close(h);
	for (int k = 0; k < 2; k++) {
		const char *path = k ? wal : del;

		for (size_t i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++) {
			char *argv[] = { (char *)faultline_bin(), (char *)cmds[i][0],
					 (char *)path, (char *)cmds[i][1],
					 (char *)cmds[i][2], (char *)cmds[i][3], NULL };
			struct run r;
			int st = run_on_readonly_mount(&r, dir, argv);

			if (st == 125) {
				/* Where / is no mount point (a chroot), a bind
				 * mount made here could propagate to the host's
				 * namespace: not made. */
				skip_msg("no read-only bind mount in a private mount "
					 "namespace here: %s", r.err);
			}
			if (st == 124)
				fail_msg("the read-only mount of %s was writable", dir);
			if (st != 0)
				fail_msg("%s on a read-only mount exited %d: %s",
					 cmds[i][0], st, r.err);
		}
		assert_alone(path);
	}
	assert_false(exists(scratch_path("ro/probe")));
}

/* As a user who may neither write the file nor its directory. */
static void a_readonly_file_in_a_readonly_directory_is_read(void **state)
{
	const char *db = finished_db();
	struct passwd *pw = getpwnam("nobody");
	char dir[256], path[300];
	static const char *const cmds[][4] = {
		{ "report", NULL }, { "query", "lost", "-f", "json" }, { "stacks", NULL },
	};

	(void)state;
	if (!pw)
		skip_msg("no user 'nobody' to read as");
	assert_non_null(mkdtemp(tmp_template(dir, sizeof(dir), "faultline-rodir")));
	snprintf(path, sizeof(path), "%s/run.db", dir);
	copy_file(db, path);
	assert_int_equal(chmod(path, 0444), 0);
	assert_int_equal(chmod(dir, 0555), 0);
	for (size_t i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++) {
		char *argv[] = { (char *)faultline_bin(), (char *)cmds[i][0], path,
				 (char *)cmds[i][1], (char *)cmds[i][2],
				 (char *)cmds[i][3], NULL };
		struct run r;

		run_start_as(&r, (int)pw->pw_uid, argv);
		if (run_wait(&r) != 0) {
			chmod(dir, 0755);
			unlink(path);
			rmdir(dir);
			fail_msg("%s as nobody exited %d: %s", cmds[i][0], r.status, r.err);
		}
	}
	assert_alone(path);
	chmod(dir, 0755);
	unlink(path);
	assert_int_equal(rmdir(dir), 0);
}

/* Bytes of path's main file (not its WAL). */
static off_t main_file_size(const char *path)
{
	struct stat sb;

	assert_int_equal(stat(path, &sb), 0);
	return sb.st_size;
}

/* Commits n rows of a page each (64 KiB pages), one per transaction. */
static void commit_pages(sqlite3 *db, int n)
{
	for (int i = 0; i < n; i++)
		assert_int_equal(sqlite3_exec(db, "INSERT INTO filler VALUES "
					      "(randomblob(60000))", NULL, NULL,
					      NULL), SQLITE_OK);
}

/* While a checkpointer runs, the writer's commits copy nothing into the
 * main file: the checkpointer's thread does (it grows by the pages the
 * writer committed).  Once it stops, the writer checkpoints again. */
static void a_checkpointer_copies_the_wal_and_the_writer_does_not(void **state)
{
	const char *path = scratch_path("ckpt.db");
	struct checkpointer c;
	struct errmsg e;
	sqlite3 *db = NULL;
	off_t before;
	int waited;

	(void)state;
	errmsg_init(&e);
	unlink(path);
	assert_int_equal(db_open_write(path, &db, &e), 0);
	assert_int_equal(sqlite3_exec(db, "CREATE TABLE filler (b)", NULL, NULL,
				      NULL), SQLITE_OK);
	assert_int_equal(sqlite3_exec(db, "PRAGMA wal_checkpoint(TRUNCATE)", NULL,
				      NULL, NULL), SQLITE_OK);
	before = main_file_size(path);
	assert_int_equal(checkpointer_start(&c, db, path, &e), 0);
	commit_pages(db, 2 * DB_CHECKPOINT_PAGES);
	/* A passive checkpoint copies what it can; within a bound, the
	 * first half's pages are in the main file. */
	for (waited = 0; waited < 10000; waited++) {
		if (checkpointer_count(&c) > 0 &&
		    main_file_size(path) >= before + DB_CHECKPOINT_PAGES * 65536)
			break;
		usleep(1000);
	}
	assert_true(checkpointer_count(&c) > 0);
	assert_true(main_file_size(path) >= before + DB_CHECKPOINT_PAGES * 65536);
	checkpointer_stop(&c);

	/* Stopped: nothing more from the thread; the writer's own
	 * checkpoint runs in the commit that passes the threshold. */
	assert_int_equal(sqlite3_exec(db, "PRAGMA wal_checkpoint(TRUNCATE)", NULL,
				      NULL, NULL), SQLITE_OK);
	before = main_file_size(path);
	commit_pages(db, DB_CHECKPOINT_PAGES + 1);
	assert_true(main_file_size(path) >= before + DB_CHECKPOINT_PAGES * 65536);
	assert_int_equal(db_end_write(db, path, &e), 0);
	db_close(db);
	unlink(path);
}

/* A process that dies in a write transaction on path, its pages spilled
 * into the file: a hot journal beside it, made by SQLite itself. */
static void die_in_a_transaction(const char *path)
{
	pid_t pid = fork();
	int status;

	assert_true(pid >= 0);
	if (pid == 0) {
		sqlite3 *h = NULL;

		if (sqlite3_open(path, &h) != SQLITE_OK ||
		    sqlite3_exec(h, "PRAGMA cache_size=1; BEGIN; CREATE TABLE spill(x);"
				 " WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT"
				 " i + 1 FROM c WHERE i < 50) INSERT INTO spill"
				 " SELECT randomblob(60000) FROM c", NULL, NULL,
				 NULL) != SQLITE_OK)
			_exit(1);
		_exit(0);	/* no COMMIT, no close */
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
}

/* A writer killed in a transaction (the recorder, in its last one)
 * leaves a hot journal: a read-only open cannot read the file, and an
 * immutable one would read what the dead writer left.  The first reader
 * rolls it back, as any opener that may write does. */
static void a_hot_journal_is_rolled_back_by_the_first_reader(void **state)
{
	const char *db = finished_db(), *hot = scratch_path("hot.db");
	char journal[512];
	struct run r;

	(void)state;
	copy_file(db, hot);
	die_in_a_transaction(hot);
	snprintf(journal, sizeof(journal), "%s-journal", hot);
	assert_true(exists(journal));
	assert_true(db_int(hot, "SELECT count(*) FROM session") == INT64_MIN);
	if (run_faultline(&r, "query", hot, "sessions", "-f", "csv", NULL) != 0)
		fail_msg("query %s: %s", hot, r.err);
	assert_non_null(strstr(r.out, "\r\n1,complete,"));
	assert_false(exists(journal));
	assert_int_equal(db_int(hot, "SELECT count(*) FROM sqlite_master WHERE"
				" name = 'spill'"), 0);
	unlink(hot);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(writers_leave_the_file_alone_and_readers_add_nothing,
					  kill_leftovers),
		cmocka_unit_test_teardown(a_wal_file_nobody_holds_is_read_without_side_files,
					  kill_leftovers),
		cmocka_unit_test_teardown(a_write_beside_an_open_reader_keeps_wal_and_says_so,
					  kill_leftovers),
		cmocka_unit_test_teardown(report_query_and_stacks_read_from_a_readonly_mount,
					  kill_leftovers),
		cmocka_unit_test_teardown(a_readonly_file_in_a_readonly_directory_is_read,
					  kill_leftovers),
		cmocka_unit_test(a_checkpointer_copies_the_wal_and_the_writer_does_not),
		cmocka_unit_test_teardown(a_hot_journal_is_rolled_back_by_the_first_reader,
					  kill_leftovers),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
