/*
 * Every failure a user can cause gives one clear message (cause and fix),
 * a non-zero exit status, and a database that still opens with what was
 * committed before.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <pwd.h>
#include <sys/mount.h>

#include "../integration/run.h"

/* One line on stderr, starting "faultline record: " and containing want. */
static void assert_one_message(const struct run *r, const char *want)
{
	const char *nl = strchr(r->err, '\n');

	if (!strstr(r->err, want) || strncmp(r->err, "faultline record: ", 18) ||
	    !nl || nl[1] != '\0')
		fail_msg("expected one line containing '%s', got: %s", want, r->err);
}

static void record_without_a_target_says_what_to_give(void **state)
{
	struct run r;

	(void)state;
	assert_int_equal(run_faultline(&r, "record", "-o", scratch_path("x.db"),
				       NULL), 2);
	assert_one_message(&r, "nothing to record: give -p PID");
}

static void an_unknown_option_is_a_usage_error(void **state)
{
	struct run r;

	(void)state;
	assert_int_equal(run_faultline(&r, "record", "--frobnicate", NULL), 2);
	assert_one_message(&r, "unknown option '--frobnicate'");
}

static void a_duration_without_unit_names_the_option(void **state)
{
	struct run r;

	(void)state;
	assert_int_equal(run_faultline(&r, "record", "--duration", "10", "-a",
				       NULL), 2);
	assert_one_message(&r, "invalid --duration '10': expected a number with a unit");
	assert_int_equal(run_faultline(&r, "record", "--min-fault-duration", "-1ms",
				       "-a", NULL), 2);
	assert_one_message(&r, "invalid --min-fault-duration '-1ms'");
}

/* As perf and bcc users write it: 0.3s stops the recording of a command
 * that would run 5 s, and is stored as exactly 300000000 ns.  The span is
 * checked loosely (under 5 s), so a busy machine does not fail it. */
static void a_decimal_duration_stops_record_when_it_says(void **state)
{
	const char *db = scratch_path("decimal.db");
	struct run r;

	(void)state;
	assert_int_equal(run_faultline(&r, "record", "-q", "-o", db, "--duration",
				       "0.3s", "--", "sleep", "5", NULL), 0);
	assert_int_equal(db_int(db, "SELECT json_extract(options, '$.duration_ns') "
				"FROM session"), 300000000);
	assert_true(db_int(db, "SELECT end_ts - start_ts FROM session") <
		    5000000000ll);
	assert_int_equal(run_faultline(&r, "record", "-o", scratch_path("x.db"),
				       "--duration", "1.5ns", "-a", NULL), 2);
	assert_one_message(&r, "invalid --duration '1.5ns': not a whole number "
			   "of nanoseconds");
}

static void a_buffer_size_that_is_not_a_power_of_two_is_refused(void **state)
{
	struct run r;

	(void)state;
	assert_int_equal(run_faultline(&r, "record", "-m", "3M", "-a", NULL), 2);
	assert_one_message(&r, "must be a power of two");
}

static void all_cpus_with_a_pid_is_a_usage_error(void **state)
{
	struct run r;

	(void)state;
	assert_int_equal(run_faultline(&r, "record", "-a", "-p", "1", NULL), 2);
	assert_one_message(&r, "-a records every thread");
}

static void stacks_on_switches_without_thread_states_is_a_usage_error(void **state)
{
	struct run r;

	(void)state;
	assert_int_equal(run_faultline(&r, "record", "--no-thread-states",
				       "--stacks=fp", "-a", NULL), 2);
	assert_one_message(&r, "--stacks-on major or faults");
}

static void record_p_with_a_dead_pid_names_the_pid(void **state)
{
	struct run r;
	pid_t dead = fork();

	(void)state;
	if (dead == 0)
		_exit(0);
	waitpid(dead, NULL, 0);
	char pid[16];

	snprintf(pid, sizeof(pid), "%d", (int)dead);
	assert_int_equal(run_faultline(&r, "record", "-o", scratch_path("dead.db"),
				       "-p", pid, NULL), 1);
	assert_one_message(&r, "no such process");
	assert_non_null(strstr(r.err, pid));
}

static void flight_options_without_flight_say_to_add_it(void **state)
{
	struct run r;

	(void)state;
	assert_int_equal(run_faultline(&r, "record", "-o", scratch_path("x.db"),
				       "--keep", "5s", "-p", "1", NULL), 2);
	assert_one_message(&r, "add --flight");
	assert_int_equal(run_faultline(&r, "record", "-o", scratch_path("x.db"),
				       "--flight", "--max-memory", "64K", "-p", "1",
				       NULL), 2);
	assert_one_message(&r, "invalid --max-memory 65536: it must be from 1M");
	assert_int_equal(run_faultline(&r, "record", "-o", scratch_path("x.db"),
				       "--flight", "--keep", "5s,x", "-p", "1",
				       NULL), 2);
	assert_one_message(&r, "--keep");
	assert_int_equal(run_faultline(&r, "record", "-o", scratch_path("x.db"),
				       "--flight", "--trigger", "stall>5ms", "-p",
				       "1", NULL), 2);
	assert_one_message(&r, "expected fault>DUR, offcpu>DUR, syscall>DUR or "
			   "metric:NAME>VALUE");
	assert_int_equal(run_faultline(&r, "record", "-o", scratch_path("x.db"),
				       "--flight", "--trigger", "syscall>5ms", "-p",
				       "1", NULL), 2);
	assert_one_message(&r, "add --syscalls");
	assert_int_equal(run_faultline(&r, "record", "-o", scratch_path("x.db"),
				       "--trigger", "fault>5ms", "-p", "1", NULL), 2);
	assert_one_message(&r, "add --flight");
	assert_int_equal(run_faultline(&r, "record", "-o", scratch_path("x.db"),
				       "--flight", "--max-dumps", "10", "-p", "1",
				       NULL), 2);
	assert_one_message(&r, "expected N/PERIOD, e.g. 10/hour");
	assert_int_equal(run_faultline(&r, "record", "-o", scratch_path("x.db"),
				       "--max-disk", "1G", "-p", "1", NULL), 2);
	assert_one_message(&r, "add --flight");
}

static void metric_trigger_options_say_what_is_missing(void **state)
{
	const char *db = scratch_path("x.db");
	struct run r;

	(void)state;
	assert_int_equal(run_faultline(&r, "record", "-o", db, "--metric-udp",
				       "9125", "-p", "1", NULL), 2);
	assert_one_message(&r, "--metric-udp reads the lines of --trigger "
			   "metric:NAME>VALUE, a flight recorder's trigger; add "
			   "--flight");
	assert_int_equal(run_faultline(&r, "record", "-o", db, "--trigger",
				       "metric:nak>0", "--metric-fifo", "m", "-p",
				       "1", NULL), 2);
	assert_one_message(&r, "add --flight");
	assert_int_equal(run_faultline(&r, "record", "-o", db, "--flight",
				       "--trigger", "metric:nak>0", "-p", "1",
				       NULL), 2);
	assert_one_message(&r, "needs lines to read; add --metric-fifo FIFO or "
			   "--metric-udp [ADDR:]PORT");
	assert_int_equal(run_faultline(&r, "record", "-o", db, "--flight",
				       "--metric-fifo", "m", "-p", "1", NULL), 2);
	assert_one_message(&r, "--metric-fifo reads lines for --trigger "
			   "metric:NAME>VALUE; add one");
	assert_int_equal(run_faultline(&r, "record", "-o", db, "--flight",
				       "--trigger", "metric:nak>many", "--metric-udp",
				       "9125", "-p", "1", NULL), 2);
	assert_one_message(&r, "the VALUE must be a number");
	assert_int_equal(run_faultline(&r, "record", "-o", db, "--flight",
				       "--trigger", "metric:n k>1", "--metric-udp",
				       "9125", "-p", "1", NULL), 2);
	assert_one_message(&r, "expected metric:NAME>VALUE");
	assert_int_equal(run_faultline(&r, "record", "-o", db, "--flight",
				       "--trigger", "metric:nak>1", "--metric-udp",
				       "localhost:9125", "-p", "1", NULL), 2);
	assert_one_message(&r, "invalid --metric-udp 'localhost:9125': expected "
			   "[ADDR:]PORT");
	assert_int_equal(run_faultline(&r, "record", "-o", db, "--flight",
				       "--trigger", "metric:nak>1", "--metric-fifo",
				       "c", "--control", "c", "-p", "1", NULL), 2);
	assert_one_message(&r, "name the same FIFO 'c'");
}

static void a_control_path_that_is_no_fifo_is_refused(void **state)
{
	char *path = scratch_path("not-a-fifo");
	struct run r;
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);

	(void)state;
	assert_true(fd >= 0);
	close(fd);
	assert_int_equal(run_faultline(&r, "record", "-o", scratch_path("x.db"),
				       "--flight", "--control", path, "--", "true",
				       NULL), 1);
	assert_one_message(&r, "is refused: it is no FIFO; name another path");
}

/* Lines on a command FIFO stop the recorder or fire dumps, and it runs
 * as root: a link at the path is not followed, and a FIFO another user
 * owns (who could let anyone write to it) is not read. */
static void a_control_fifo_behind_a_link_or_of_another_user_is_refused(void **state)
{
	char fifo[256], link[256];
	struct run r;

	(void)state;
	snprintf(fifo, sizeof(fifo), "%s", scratch_path("theirs.fifo"));
	snprintf(link, sizeof(link), "%s", scratch_path("link.fifo"));
	assert_int_equal(mkfifo(fifo, 0622), 0);
	assert_int_equal(symlink(fifo, link), 0);
	assert_int_equal(run_faultline(&r, "record", "-o", scratch_path("x.db"),
				       "--flight", "--control", link, "--", "true",
				       NULL), 1);
	assert_one_message(&r, "is refused: it is a symbolic link; name another path");
	if (chown(fifo, 65534, 65534) < 0) {
		/* a user namespace without uid 65534 mapped */
		printf("skipped: cannot give the FIFO to uid 65534: %s\n",
		       strerror(errno));
		skip();
	}
	assert_int_equal(run_faultline(&r, "record", "-o", scratch_path("x.db"),
				       "--flight", "--trigger", "metric:nak>0",
				       "--metric-fifo", fifo, "--", "true", NULL), 1);
	assert_one_message(&r, "is refused: it belongs to another "
			   "user, who could let anyone write to it; name another path");
}

/* A file of the same schema version made before the flight recorder's
 * tables: refused before anything is written. */
static void flight_into_a_file_without_its_tables_is_refused_untouched(void **state)
{
	char *path = scratch_path("preflight.db");
	sqlite3 *db = NULL;
	struct run r;

	(void)state;
	assert_int_equal(run_faultline(&r, "record", "-q", "-o", path, "--",
				       "/bin/true", NULL), 0);
	assert_int_equal(sqlite3_open(path, &db), SQLITE_OK);
	assert_int_equal(sqlite3_exec(db, "DROP TABLE flight_cost", NULL, NULL,
				      NULL), SQLITE_OK);
	sqlite3_close(db);
	assert_int_equal(run_faultline(&r, "record", "-q", "-o", path, "--flight",
				       "--", "/bin/true", NULL), 1);
	assert_one_message(&r, "without the flight recorder's tables; record "
			   "--flight into a new file");
	assert_int_equal(db_int(path, "SELECT count(*) FROM session"), 1);
}

/* The same for one made before flight_dump had block_dropped. */
static void flight_into_a_file_without_block_dropped_is_refused_untouched(void **state)
{
	char *path = scratch_path("preblock.db");
	sqlite3 *db = NULL;
	struct run r;

	(void)state;
	assert_int_equal(run_faultline(&r, "record", "-q", "-o", path, "--",
				       "/bin/true", NULL), 0);
	assert_int_equal(sqlite3_open(path, &db), SQLITE_OK);
	/* (Not DROP COLUMN: SQLite 3.40 cannot parse the table's SQL after
	 * it, the comments before the last column left dangling.) */
	assert_int_equal(sqlite3_exec(db, "DROP TABLE flight_dump; CREATE TABLE "
				      "flight_dump (session_id INTEGER PRIMARY KEY,"
				      " aside_dropped INTEGER)", NULL, NULL, NULL),
			 SQLITE_OK);
	sqlite3_close(db);
	assert_int_equal(run_faultline(&r, "record", "-q", "-o", path, "--flight",
				       "--", "/bin/true", NULL), 1);
	assert_one_message(&r, "without the flight recorder's tables; record "
			   "--flight into a new file");
	assert_int_equal(db_int(path, "SELECT count(*) FROM session"), 1);
}

static void record_p_with_a_garbage_pid_is_a_usage_error(void **state)
{
	struct run r;

	(void)state;
	assert_int_equal(run_faultline(&r, "record", "-p", "12x", NULL), 2);
	assert_one_message(&r, "invalid --pid '12x'");
}

static void a_missing_command_is_reported_by_name(void **state)
{
	struct run r;

	(void)state;
	assert_int_equal(run_faultline(&r, "record", "-o", scratch_path("nocmd.db"),
				       "--", "/nonexistent/cmd", NULL), 1);
	assert_one_message(&r, "cannot run '/nonexistent/cmd': command not found");
	assert_int_equal(run_faultline(&r, "record", "-o", scratch_path("nocmd.db"),
				       "--", "nonexistent-cmd", NULL), 1);
	assert_one_message(&r, "cannot run 'nonexistent-cmd': command not found "
			   "in PATH");
	/* Found out before the session exists: no file, no failed session. */
	assert_int_equal(access(scratch_path("nocmd.db"), F_OK), -1);
}

static void an_output_that_names_no_file_is_refused(void **state)
{
	struct run r;

	(void)state;
	assert_int_equal(run_faultline(&r, "record", "-o", "", "--", "true", NULL), 2);
	assert_one_message(&r, "-o '' names no file");
	assert_int_equal(run_faultline(&r, "record", "-o", ":memory:", "--", "true",
				       NULL), 2);
	assert_one_message(&r, "-o ':memory:' names no file");
}

static void a_kernel_thread_target_is_warned_about_at_once(void **state)
{
	struct run r;

	(void)state;
	/* kthreadd is pid 2 on every Linux machine. */
	assert_int_equal(run_faultline(&r, "record", "-q", "-o",
				       scratch_path("kthread.db"), "-p", "2",
				       "-d", "100ms", NULL), 0);
	if (!strstr(r.err, "is a kernel thread: it takes no user page faults"))
		fail_msg("no warning about the kernel thread: %s", r.err);
}

static struct sysctl_guard paranoid;

/* The tests as user nobody expect what perf_event_paranoid 2 (the
 * kernel's default) or more refuses; a machine set lower is raised to 2
 * for the test, and put back after it. */
static void require_paranoid_2(void)
{
	if (sysctl_at_least(&paranoid, "/proc/sys/kernel/perf_event_paranoid", 2) < 0)
		skip_msg("perf_event_paranoid is below 2 and cannot be raised: %s",
			 strerror(errno));
}

static int restore_paranoid(void **state)
{
	sysctl_restore(&paranoid);
	return kill_leftovers(state);
}

static void an_unprivileged_user_is_told_about_perf_event_paranoid(void **state)
{
	struct passwd *pw = getpwnam("nobody");
	char *argv[] = { (char *)faultline_bin(), "record", "-o",
			 scratch_path("nobody.db"), "-p", "1", NULL };
	struct run r;

	(void)state;
	assert_non_null(pw);
	require_paranoid_2();
	chmod(scratch_dir(), 0777);
	run_start_as(&r, (int)pw->pw_uid, argv);
	assert_int_equal(run_wait(&r), 1);
	assert_one_message(&r, "permission denied (perf_event_paranoid=");
	assert_non_null(strstr(r.err, "run as root or grant CAP_PERFMON"));
	assert_true(db_opens(scratch_path("nobody.db")));
}

static void an_unwritable_database_path_says_so(void **state)
{
	struct run r;

	(void)state;
	assert_int_equal(run_faultline(&r, "record", "-o", "/nonexistent/dir/x.db",
				       "-a", NULL), 1);
	assert_one_message(&r, "check that its directory exists and is writable");
	assert_int_equal(run_faultline(&r, "record", "-o", scratch_dir(), "-a",
				       NULL), 1);
	assert_one_message(&r, "it is a directory");
}

static void a_file_that_is_not_a_database_is_left_alone(void **state)
{
	const char *path = scratch_path("notes.txt");
	FILE *f = fopen(path, "w");
	struct stat before, after;
	struct run r;

	(void)state;
	fputs("these are my notes, not a database\n", f);
	fclose(f);
	stat(path, &before);
	assert_int_equal(run_faultline(&r, "record", "-o", path, "-a", NULL), 1);
	assert_one_message(&r, "not a SQLite database");
	stat(path, &after);
	assert_int_equal(before.st_size, after.st_size);
}

/* A database made by sql (one table) is refused with want, untouched. */
static void assert_database_refused(const char *name, const char *sql,
				    const char *want)
{
	const char *path = scratch_path(name);
	sqlite3 *db;
	struct run r;

	sqlite3_open(path, &db);
	sqlite3_exec(db, sql, NULL, NULL, NULL);
	sqlite3_close(db);
	assert_int_equal(run_faultline(&r, "record", "-o", path, "-a", NULL), 1);
	assert_one_message(&r, want);
	assert_int_equal(db_int(path, "SELECT count(*) FROM sqlite_master"), 1);
}

static void another_applications_database_is_refused(void **state)
{
	(void)state;
	assert_database_refused("other.db", "CREATE TABLE customers (id INTEGER)",
				"is a SQLite database, but not faultline's");
}

static void a_database_of_an_older_faultline_is_refused_untouched(void **state)
{
	(void)state;
	assert_database_refused("old.db", "CREATE TABLE session (session_id "
				"INTEGER PRIMARY KEY); PRAGMA user_version = 1",
				"written by an older faultline (schema 1");
}

static void a_locked_database_is_reported_and_keeps_its_sessions(void **state)
{
	const char *path = scratch_path("locked.db");
	sqlite3 *db;
	struct run r;

	(void)state;
	assert_int_equal(run_faultline(&r, "record", "-q", "-o", path, "--",
				       "/bin/true", NULL), 0);
	sqlite3_open(path, &db);
	assert_int_equal(sqlite3_exec(db, "BEGIN EXCLUSIVE", NULL, NULL, NULL),
			 SQLITE_OK);
	assert_int_equal(run_faultline(&r, "record", "-o", path, "--", "/bin/true",
				       NULL), 1);
	assert_one_message(&r, "database is locked by another process");
	sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL);
	sqlite3_close(db);
	assert_int_equal(db_int(path, "SELECT count(*) FROM session"), 1);
}

/* A 4 MiB tmpfs fills up mid-recording: faultline stops with "disk full",
 * and the rows committed before stay readable. */
static void a_full_disk_stops_recording_and_keeps_what_was_committed(void **state)
{
	const char *mnt = scratch_path("small");
	char db[300], want[512];
	struct run r;

	(void)state;
	mkdir(mnt, 0755);
	if (mount("faultline-test", mnt, "tmpfs", 0, "size=4m") != 0)
		fail_msg("cannot mount a small tmpfs at %s: %s", mnt, strerror(errno));
	snprintf(db, sizeof(db), "%s/full.db", mnt);
	run_faultline(&r, "record", "-o", db, "--", workload_bin(), "--pages",
		      "200000", NULL);
	assert_int_equal(r.status, 1);
	snprintf(want, sizeof(want), "faultline record: disk full writing '%s': "
		 "free space on its filesystem and record again\n", db);
	if (strncmp(r.err, want, strlen(want)))
		fail_msg("expected '%s' first, got: %s", want, r.err);
	/* The summary counts what the full disk lost. */
	assert_non_null(strstr(r.err, "LOST to the failure: "));
	assert_null(strstr(r.err, "nothing lost"));
	/* The -wal could not be folded into the file (no room for it):
	 * its size is said beside the file's. */
	assert_non_null(strstr(r.err, " MB more in its -wal\n"));
	assert_true(db_opens(db));
	/* Ended failed, with the error, and the loss in the row. */
	assert_int_equal(db_int(db, "SELECT count(*) FROM session WHERE status = "
				"'failed' AND error LIKE 'disk full writing %%' AND "
				"rows_unwritten + records_unstored > 0"), 1);
	assert_int_equal(run_faultline(&r, "report", db, NULL), 0);
	assert_non_null(strstr(r.out, "status        failed"));
	assert_non_null(strstr(r.out, "error         disk full writing"));
	assert_null(strstr(r.out, "lost          0\n"));
	umount(mnt);
}

/* A name longer than a file system takes is not "a directory that does
 * not exist". */
static void a_name_too_long_is_called_too_long(void **state)
{
	char path[700];
	struct run r;

	(void)state;
	snprintf(path, sizeof(path), "%s/", scratch_dir());
	memset(path + strlen(path), 'a', 512);
	path[sizeof(path) - 1] = '\0';
	strcpy(path + strlen(scratch_dir()) + 1 + 512, ".db");
	assert_int_equal(run_faultline(&r, "record", "-o", path, "--", "true",
				       NULL), 1);
	assert_one_message(&r, "a name in the path is 515 bytes long, and a file "
			   "system takes at most 255; give a shorter name");
	assert_int_equal(run_faultline(&r, "report", path, NULL), 1);
	assert_non_null(strstr(r.err, "faultline report: cannot read '"));
	assert_non_null(strstr(r.err, "a name in the path is 515 bytes long"));
}

static void a_directory_given_to_a_reader_is_called_a_directory(void **state)
{
	struct run r;

	(void)state;
	assert_int_equal(run_faultline(&r, "report", scratch_dir(), NULL), 1);
	assert_non_null(strstr(r.err, "it is a directory, not a database; give "
			       "the database file"));
	assert_null(strstr(r.err, "I/O error"));
	assert_int_equal(run_faultline(&r, "query", scratch_dir(), "sessions",
				       NULL), 1);
	assert_non_null(strstr(r.err, "it is a directory, not a database"));
}

/* Copies the first n bytes of from into to. */
static void copy_head(const char *from, const char *to, long n)
{
	FILE *in = fopen(from, "rb"), *out = fopen(to, "wb");
	int c;

	assert_non_null(in);
	assert_non_null(out);
	while (n-- > 0 && (c = fgetc(in)) != EOF)
		fputc(c, out);
	fclose(in);
	fclose(out);
}

/* A copy that stopped early is called cut short, with both sizes, not
 * "not a SQLite database". */
static void a_database_cut_short_is_called_cut_short(void **state)
{
	const char *whole = scratch_path("whole.db"), *cut = scratch_path("cut.db");
	const char *tiny = scratch_path("tiny.db");
	struct run r;

	(void)state;
	assert_int_equal(run_faultline(&r, "record", "-q", "-o", whole, "--",
				       workload_bin(), "--pages", "2000", NULL), 0);
	copy_head(whole, cut, 65536 + 1000);
	copy_head(whole, tiny, 50);
	assert_int_equal(run_faultline(&r, "report", cut, NULL), 1);
	assert_non_null(strstr(r.err, "it is cut short (66536 bytes of the "));
	assert_non_null(strstr(r.err, "copy it again from where it was recorded"));
	assert_null(strstr(r.err, "not a SQLite database"));
	assert_int_equal(run_faultline(&r, "report", tiny, NULL), 1);
	assert_non_null(strstr(r.err, "it is cut short (50 bytes, less than a "
			       "SQLite header)"));
}

/* MemAvailable in bytes (0 when unknown). */
static long long mem_available_bytes(void)
{
	char buf[4096];
	const char *p;

	slurp("/proc/meminfo", buf, sizeof(buf));
	p = strstr(buf, "MemAvailable:");
	return p ? atoll(p + 13) * 1024 : 0;
}

/* The man page's maximum parses; a spool the machine cannot hold is
 * refused before it is made, with what fits. */
static void a_spool_size_of_1T_is_weighed_against_memory(void **state)
{
	const char *db = scratch_path("spool1t.db");
	struct run r;

	(void)state;
	if (mem_available_bytes() > (1ll << 40) + (1ll << 30))
		skip_msg("this machine has more than 1 TiB available");
	assert_int_equal(run_faultline(&r, "record", "-o", db, "--spool-size",
				       "1T", "--", "true", NULL), 1);
	assert_one_message(&r, "cannot hold a 1048576 MiB spool: the machine has ");
	assert_non_null(strstr(r.err, "MiB available (MemAvailable in "
			       "/proc/meminfo)"));
	assert_non_null(strstr(r.err, "give --spool-size "));
	assert_int_equal(access(db, F_OK), -1);
	assert_int_equal(run_faultline(&r, "record", "-o", db, "--spool-size",
				       "2T", "--", "true", NULL), 2);
	assert_one_message(&r, "invalid --spool-size 2199023255552: it must be "
			   "from 1M to 1T");
}

/* The spill file's bound: 0 or a size that parses; never with --flight,
 * whose records stay in --max-memory. */
static void a_spill_size_is_checked_and_not_for_flight(void **state)
{
	struct run r;

	(void)state;
	assert_int_equal(run_faultline(&r, "record", "-o", scratch_path("x.db"),
				       "--spill-size", "64K", "--", "true", NULL), 2);
	assert_one_message(&r, "invalid --spill-size 65536: it must be 0 (no "
			   "spill file) or from 1M to 16T");
	assert_int_equal(run_faultline(&r, "record", "-o", scratch_path("x.db"),
				       "--flight", "--spill-size", "1G", "--",
				       "true", NULL), 2);
	assert_one_message(&r, "--spill-size is for records waiting to be "
			   "stored; the flight recorder keeps them in "
			   "--max-memory: drop it");
	assert_int_equal(access(scratch_path("x.db"), F_OK), -1);
}

/* A memory cgroup of 512 MiB, made for the test: v1's memory controller
 * or v2's; its directory into dir.  0, or -1 when neither can be made. */
static int make_memory_cgroup(char *dir, size_t n)
{
	char file[400];
	FILE *f;

	snprintf(dir, n, "/sys/fs/cgroup/memory/faultline-test-%d", (int)getpid());
	snprintf(file, sizeof(file), "%s/memory.limit_in_bytes", dir);
	if (mkdir(dir, 0755) != 0) {
		snprintf(dir, n, "/sys/fs/cgroup/faultline-test-%d", (int)getpid());
		snprintf(file, sizeof(file), "%s/memory.max", dir);
		if (mkdir(dir, 0755) != 0)
			return -1;
	}
	f = fopen(file, "w");
	if (!f || fprintf(f, "%lld\n", 512ll << 20) < 0 || fclose(f) != 0) {
		rmdir(dir);
		return -1;
	}
	return 0;
}

/* In a 512 MiB cgroup a 2 GiB spool would have the OOM killer end
 * faultline without a word: it is refused first, naming the cgroup. */
static void a_spool_larger_than_the_memory_cgroup_is_refused(void **state)
{
	char dir[300], script[1200];
	char *argv[] = { "/bin/bash", "-c", script, NULL };
	struct run r;

	(void)state;
	if (make_memory_cgroup(dir, sizeof(dir)) < 0)
		skip_msg("no memory cgroup can be made here (v1 memory controller "
			 "or v2 memory.max)");
	snprintf(script, sizeof(script), "echo $$ > %s/cgroup.procs && exec %s "
		 "record -o %s --spool-size 2G -- true", dir, faultline_bin(),
		 scratch_path("cg.db"));
	run_argv(&r, argv);
	rmdir(dir);
	assert_int_equal(r.status, 1);
	assert_one_message(&r, "cannot hold a 2048 MiB spool: faultline's memory "
			   "cgroup '");
	assert_non_null(strstr(r.err, "allows 512 MiB"));
	assert_non_null(strstr(r.err, "or less, or raise the limit"));
}

static void an_unknown_tracepoint_is_named(void **state)
{
	struct run r;

	(void)state;
	assert_int_equal(run_faultline(&r, "record", "-o", scratch_path("tp1.db"),
				       "-e", "sched:no_such_event", "--", "/bin/true",
				       NULL), 1);
	assert_one_message(&r, "unknown tracepoint 'sched:no_such_event'");
}

static void a_malformed_filter_quotes_the_kernels_reason(void **state)
{
	struct run r;

	(void)state;
	assert_int_equal(run_faultline(&r, "record", "-o", scratch_path("tp2.db"),
				       "-e", "sched:sched_switch/prev_pidd == 1/",
				       "--", "/bin/true", NULL), 1);
	assert_one_message(&r, "invalid filter 'prev_pidd == 1' for "
			   "'sched:sched_switch': parse_error: Field not found");
}

static void a_malformed_event_spec_is_a_usage_error(void **state)
{
	struct run r;

	(void)state;
	assert_int_equal(run_faultline(&r, "record", "-e", "kfree_skb", "-a", NULL), 2);
	assert_one_message(&r, "invalid --event 'kfree_skb': expected SUBSYS:NAME");
}

static void a_tracepoint_without_privilege_says_what_to_grant(void **state)
{
	struct passwd *pw = getpwnam("nobody");
	char *argv[] = { (char *)faultline_bin(), "record", "-o",
			 scratch_path("tp3.db"), "-e", "skb:kfree_skb", "--",
			 "/bin/true", NULL };
	struct run r;

	(void)state;
	assert_non_null(pw);
	require_paranoid_2();
	chmod(scratch_dir(), 0777);
	run_start_as(&r, (int)pw->pw_uid, argv);
	assert_int_equal(run_wait(&r), 1);
	assert_one_message(&r, "permission denied (perf_event_paranoid=");
	assert_non_null(strstr(r.err, "run as root or grant CAP_PERFMON"));
}

static void an_unknown_command_is_a_usage_error(void **state)
{
	struct run r;

	(void)state;
	assert_int_equal(run_faultline(&r, "recrod", NULL), 2);
	assert_non_null(strstr(r.err, "'recrod' is not a faultline command; did "
			       "you mean 'record'?"));
	assert_int_equal(run_faultline(&r, "script", NULL), 2);
	assert_non_null(strstr(r.err, "for what perf script does, see 'faultline query"));
	assert_int_equal(run_faultline(&r, "xyzzy", NULL), 2);
	assert_null(strstr(r.err, "did you mean"));
}

/* A misspelt option gets the command's own closest one; perf's
 * spellings get faultline's, or what faultline does instead. */
static void a_misspelt_or_perf_option_says_what_was_meant(void **state)
{
	struct run r;

	(void)state;
	assert_int_equal(run_faultline(&r, "report", "--sesion", "1", "x.db", NULL), 2);
	assert_non_null(strstr(r.err, "faultline report: unknown option '--sesion'; "
			       "did you mean '--session'?"));
	assert_int_equal(run_faultline(&r, "stacks", "x.db", "--sotr=count", NULL), 2);
	assert_non_null(strstr(r.err, "faultline stacks: unknown option '--sotr=count';"
			       " did you mean '--sort'?"));
	assert_int_equal(run_faultline(&r, "record", "-g", "--", "/bin/true", NULL), 2);
	assert_one_message(&r, "unknown option '-g': perf's -g is faultline's "
			   "--stacks=fp");
	assert_int_equal(run_faultline(&r, "record", "--call-graph", "dwarf", "--",
				       "/bin/true", NULL), 2);
	assert_one_message(&r, "perf's --call-graph is --stacks=fp or --stacks=dwarf");
	assert_int_equal(run_faultline(&r, "record", "-F", "99", "--", "/bin/true",
				       NULL), 2);
	assert_one_message(&r, "records every fault and switch of its threads, not "
			   "samples at a frequency");
}

/* Said only where tracefs lists the one meant (mounted by faultline
 * record when it may, as the test before). */
static void a_misspelt_tracepoint_names_the_one_meant(void **state)
{
	struct run r;

	(void)state;
	assert_int_equal(run_faultline(&r, "record", "-o", scratch_path("tp5.db"),
				       "-e", "sched:sched_swtich", "--", "/bin/true",
				       NULL), 1);
	assert_one_message(&r, "unknown tracepoint 'sched:sched_swtich'; did you "
			   "mean 'sched:sched_switch'?");
	assert_int_equal(run_faultline(&r, "record", "-o", scratch_path("tp6.db"),
				       "-e", "shed:sched_switch", "--", "/bin/true",
				       NULL), 1);
	assert_one_message(&r, "did you mean 'sched:sched_switch'?");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(record_without_a_target_says_what_to_give, kill_leftovers),
		cmocka_unit_test_teardown(an_unknown_option_is_a_usage_error, kill_leftovers),
		cmocka_unit_test_teardown(a_duration_without_unit_names_the_option, kill_leftovers),
		cmocka_unit_test_teardown(a_decimal_duration_stops_record_when_it_says, kill_leftovers),
		cmocka_unit_test_teardown(a_buffer_size_that_is_not_a_power_of_two_is_refused, kill_leftovers),
		cmocka_unit_test_teardown(all_cpus_with_a_pid_is_a_usage_error, kill_leftovers),
		cmocka_unit_test_teardown(stacks_on_switches_without_thread_states_is_a_usage_error, kill_leftovers),
		cmocka_unit_test_teardown(record_p_with_a_dead_pid_names_the_pid, kill_leftovers),
		cmocka_unit_test_teardown(record_p_with_a_garbage_pid_is_a_usage_error, kill_leftovers),
		cmocka_unit_test_teardown(flight_options_without_flight_say_to_add_it, kill_leftovers),
		cmocka_unit_test(metric_trigger_options_say_what_is_missing),
		cmocka_unit_test_teardown(a_control_path_that_is_no_fifo_is_refused, kill_leftovers),
		cmocka_unit_test_teardown(a_control_fifo_behind_a_link_or_of_another_user_is_refused,
					  kill_leftovers),
		cmocka_unit_test_teardown(flight_into_a_file_without_its_tables_is_refused_untouched, kill_leftovers),
		cmocka_unit_test_teardown(flight_into_a_file_without_block_dropped_is_refused_untouched, kill_leftovers),
		cmocka_unit_test_teardown(a_missing_command_is_reported_by_name, kill_leftovers),
		cmocka_unit_test_teardown(an_output_that_names_no_file_is_refused, kill_leftovers),
		cmocka_unit_test_teardown(a_kernel_thread_target_is_warned_about_at_once, kill_leftovers),
		cmocka_unit_test_teardown(an_unprivileged_user_is_told_about_perf_event_paranoid, restore_paranoid),
		cmocka_unit_test_teardown(an_unwritable_database_path_says_so, kill_leftovers),
		cmocka_unit_test_teardown(a_file_that_is_not_a_database_is_left_alone, kill_leftovers),
		cmocka_unit_test_teardown(another_applications_database_is_refused, kill_leftovers),
		cmocka_unit_test_teardown(a_database_of_an_older_faultline_is_refused_untouched, kill_leftovers),
		cmocka_unit_test_teardown(a_locked_database_is_reported_and_keeps_its_sessions, kill_leftovers),
		cmocka_unit_test_teardown(a_full_disk_stops_recording_and_keeps_what_was_committed, kill_leftovers),
		cmocka_unit_test_teardown(a_name_too_long_is_called_too_long, kill_leftovers),
		cmocka_unit_test_teardown(a_directory_given_to_a_reader_is_called_a_directory, kill_leftovers),
		cmocka_unit_test_teardown(a_database_cut_short_is_called_cut_short, kill_leftovers),
		cmocka_unit_test_teardown(a_spool_size_of_1T_is_weighed_against_memory, kill_leftovers),
		cmocka_unit_test_teardown(a_spill_size_is_checked_and_not_for_flight, kill_leftovers),
		cmocka_unit_test_teardown(a_spool_larger_than_the_memory_cgroup_is_refused, kill_leftovers),
		cmocka_unit_test_teardown(an_unknown_command_is_a_usage_error, kill_leftovers),
		cmocka_unit_test_teardown(a_misspelt_or_perf_option_says_what_was_meant, kill_leftovers),
		cmocka_unit_test_teardown(a_misspelt_tracepoint_names_the_one_meant, kill_leftovers),
		cmocka_unit_test_teardown(an_unknown_tracepoint_is_named, kill_leftovers),
		cmocka_unit_test_teardown(a_malformed_filter_quotes_the_kernels_reason, kill_leftovers),
		cmocka_unit_test_teardown(a_malformed_event_spec_is_a_usage_error, kill_leftovers),
		cmocka_unit_test_teardown(a_tracepoint_without_privilege_says_what_to_grant, restore_paranoid),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
