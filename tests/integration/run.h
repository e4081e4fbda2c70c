/*
 * Helpers for tests that run faultline for real: start it, capture its
 * stderr and exit status, read the database it wrote.  The binaries come
 * from the environment (FAULTLINE, WORKLOAD), set by `make check`.
 */
#ifndef FL_TEST_RUN_H
#define FL_TEST_RUN_H

/* Not every test file uses every helper. */
#pragma GCC diagnostic ignored "-Wunused-function"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <sqlite3.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <ftw.h>
#include <poll.h>
#include <sched.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "../tmpdir.h"

static const char *faultline_bin(void)
{
	const char *b = getenv("FAULTLINE");

	return b ? b : "./faultline";
}

static const char *workload_bin(void)
{
	const char *b = getenv("WORKLOAD");

	return b ? b : "build/release/tests/fault_workload";
}

/* A fresh scratch directory on disk (not tmpfs: the major-fault test
 * needs a file whose pages can leave the page cache).  Static buffer. */
/* Deletes what nftw hands it, deepest first.  A tmpfs that a failed test
 * left mounted inside is detached, so it goes too. */
static int scratch_remove_entry(const char *path, const struct stat *sb,
				int type, struct FTW *ftw)
{
	(void)sb;
	(void)ftw;
	if (type != FTW_DP) {
		unlink(path);
		return 0;
	}
	if (rmdir(path) != 0 && errno == EBUSY && umount2(path, MNT_DETACH) == 0)
		rmdir(path);
	return 0;
}

static char scratch_dir_path[128];
static pid_t scratch_dir_owner;

/* At exit of the test process that made it (not of a forked child that
 * returns through exit()): the scratch directory goes, unless
 * FAULTLINE_KEEP_SCRATCH is set to look at what a failed test left. */
static void scratch_remove_at_exit(void)
{
	if (getpid() != scratch_dir_owner || getenv("FAULTLINE_KEEP_SCRATCH"))
		return;
	nftw(scratch_dir_path, scratch_remove_entry, 16, FTW_DEPTH | FTW_PHYS);
}

static const char *scratch_dir(void)
{
	char *dir = scratch_dir_path;

	if (!dir[0]) {
		tmp_template(dir, sizeof(scratch_dir_path), "faultline-test");
		if (!mkdtemp(dir)) {
			perror("mkdtemp");
			abort();
		}
		scratch_dir_owner = getpid();
		atexit(scratch_remove_at_exit);
	}
	return dir;
}

static char *scratch_path(const char *name)
{
	static char paths[8][256];
	static int next;
	char *p = paths[next++ % 8];

	snprintf(p, 256, "%s/%s", scratch_dir(), name);
	return p;
}

/* Every process a test starts, so a test that fails half-way (cmocka
 * jumps out of it) leaves nothing running: see kill_leftovers. */
static pid_t started[64];
static int nstarted;

struct run {
	pid_t pid;
	int status;		/* exit status, or 128+signal */
	char err[16384];	/* stderr */
	char out[4096];		/* stdout */
	char errpath[256], outpath[256];
};

/* Starts argv (NULL-terminated) with stdout/stderr to files; uid >= 0
 * runs it as that user.  It leads a process group of its own, so that
 * kill_leftovers also ends what it started (the command of a faultline
 * record, which outlives a faultline killed outright). */
static void run_start_as(struct run *r, int uid, char *const argv[])
{
	static int seq;

	memset(r, 0, sizeof(*r));
	snprintf(r->errpath, sizeof(r->errpath), "%s/stderr.%d", scratch_dir(), seq);
	snprintf(r->outpath, sizeof(r->outpath), "%s/stdout.%d", scratch_dir(), seq++);
	r->pid = fork();
	if (r->pid == 0) {
		int e = open(r->errpath, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		int o = open(r->outpath, O_WRONLY | O_CREAT | O_TRUNC, 0644);

		setpgid(0, 0);
		dup2(e, 2);
		dup2(o, 1);
		if (uid >= 0 && (setgid((gid_t)uid) < 0 || setuid((uid_t)uid) < 0))
			_exit(126);
		execv(argv[0], argv);
		_exit(127);
	}
	setpgid(r->pid, r->pid);	/* either may run first */
	if (nstarted < 64)
		started[nstarted++] = r->pid;
}

/* Starts argv with SIGUSR1 already blocked (a signal mask survives
 * exec), so a workload that waits for SIGUSR1 cannot miss one sent at
 * once, however late it gets to its own sigprocmask. */
static void run_start_usr1_blocked(struct run *r, char *const argv[])
{
	sigset_t usr1, old;

	sigemptyset(&usr1);
	sigaddset(&usr1, SIGUSR1);
	sigprocmask(SIG_BLOCK, &usr1, &old);
	run_start_as(r, -1, argv);
	sigprocmask(SIG_SETMASK, &old, NULL);
}

/* Forgets pid once it has been waited for. */
static void forget_started(pid_t pid)
{
	for (int i = 0; i < nstarted; i++)
		if (started[i] == pid)
			started[i] = started[--nstarted];
}

/* A busy loop pinned to cpu, in a child a teardown's kill_leftovers
 * ends; its pid. */
static pid_t start_busy_loop_on(int cpu)
{
	pid_t pid = fork();

	if (pid == 0) {
		cpu_set_t set;

		CPU_ZERO(&set);
		CPU_SET(cpu, &set);
		sched_setaffinity(0, sizeof(set), &set);
		for (;;)
			;
	}
	assert_true(pid > 0);
	if (nstarted < 64)
		started[nstarted++] = pid;
	return pid;
}

/* A cmocka teardown: kills and reaps whatever a test left running, and
 * what that started in its process group. */
static int kill_leftovers(void **state)
{
	(void)state;
	while (nstarted > 0) {
		pid_t pid = started[--nstarted];

		kill(-pid, SIGKILL);
		kill(pid, SIGKILL);
		waitpid(pid, NULL, 0);
	}
	return 0;
}

static void slurp(const char *path, char *buf, size_t n)
{
	FILE *f = fopen(path, "r");
	size_t len = 0;

	if (f) {
		len = fread(buf, 1, n - 1, f);
		fclose(f);
	}
	buf[len] = '\0';
}

static int run_wait(struct run *r)
{
	int st;

	if (waitpid(r->pid, &st, 0) != r->pid)
		st = 0xff00;	/* not our child any more: status 255 */
	forget_started(r->pid);
	r->status = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
	slurp(r->errpath, r->err, sizeof(r->err));
	slurp(r->outpath, r->out, sizeof(r->out));
	return r->status;
}

static int run_argv(struct run *r, char *const argv[])
{
	run_start_as(r, -1, argv);
	return run_wait(r);
}

/* Runs faultline with the arguments given (NULL-terminated). */
static int run_faultline_v(struct run *r, va_list ap)
{
	char *argv[64];
	int n = 0;

	argv[n++] = (char *)faultline_bin();
	while (n < 63 && (argv[n] = va_arg(ap, char *)))
		n++;
	argv[n] = NULL;
	return run_argv(r, argv);
}

static int run_faultline(struct run *r, ...)
{
	va_list ap;
	int status;

	va_start(ap, r);
	status = run_faultline_v(r, ap);
	va_end(ap);
	return status;
}

/* Runs faultline with the arguments that follow (NULL-terminated, the
 * subcommand first) and expects exit status `status` and one line on
 * stderr, "faultline SUBCOMMAND: ...", holding `says`. */
static void assert_refused_with(int status, const char *says, ...)
{
	char prefix[64];
	struct run r;
	va_list ap;

	va_start(ap, says);
	run_faultline_v(&r, ap);
	va_end(ap);
	va_start(ap, says);
	snprintf(prefix, sizeof(prefix), "faultline %s: ", va_arg(ap, char *));
	va_end(ap);
	if (r.status != status || !strstr(r.err, says))
		fail_msg("exit %d (want %d), stderr: %s(want '%s')", r.status, status,
			 r.err, says);
	assert_non_null(strstr(r.err, prefix));
	assert_ptr_equal(strchr(r.err, '\n'), r.err + strlen(r.err) - 1);
}

/* The first column of the first row of sql (a format) on db, as an
 * integer, with the database at beside attached as f where beside is not
 * NULL (sql then compares two recordings); INT64_MIN when there is no row
 * or the query fails. */
static int64_t db_int_beside(const char *db_path, const char *beside,
			     const char *sql, ...)
{
	char q[4096], attach[600];
	sqlite3 *db = NULL;
	sqlite3_stmt *st = NULL;
	int64_t v = INT64_MIN;
	va_list ap;

	va_start(ap, sql);
	vsnprintf(q, sizeof(q), sql, ap);
	va_end(ap);
	snprintf(attach, sizeof(attach), "ATTACH '%s' AS f", beside ? beside : "");
	if (sqlite3_open_v2(db_path, &db, SQLITE_OPEN_READONLY, NULL) == SQLITE_OK &&
	    (!beside || sqlite3_exec(db, attach, NULL, NULL, NULL) == SQLITE_OK) &&
	    sqlite3_prepare_v2(db, q, -1, &st, NULL) == SQLITE_OK &&
	    sqlite3_step(st) == SQLITE_ROW && sqlite3_column_type(st, 0) != SQLITE_NULL)
		v = sqlite3_column_int64(st, 0);
	else if (db && !st)
		fprintf(stderr, "query failed: %s: %s\n", q, sqlite3_errmsg(db));
	sqlite3_finalize(st);
	sqlite3_close(db);
	return v;
}

/* The same of one database. */
#define db_int(db_path, ...) db_int_beside((db_path), NULL, __VA_ARGS__)

/* The first column of the first row of sql on db, as text, in out
 * ("" when there is no row or the query fails); returns out. */
static const char *db_text(const char *db_path, char *out, size_t n, const char *sql, ...)
{
	char q[2048];
	sqlite3 *db = NULL;
	sqlite3_stmt *st = NULL;
	va_list ap;

	va_start(ap, sql);
	vsnprintf(q, sizeof(q), sql, ap);
	va_end(ap);
	out[0] = '\0';
	if (sqlite3_open_v2(db_path, &db, SQLITE_OPEN_READONLY, NULL) == SQLITE_OK &&
	    sqlite3_prepare_v2(db, q, -1, &st, NULL) == SQLITE_OK &&
	    sqlite3_step(st) == SQLITE_ROW && sqlite3_column_text(st, 0))
		snprintf(out, n, "%s", (const char *)sqlite3_column_text(st, 0));
	else if (db && !st)
		fprintf(stderr, "query failed: %s: %s\n", q, sqlite3_errmsg(db));
	sqlite3_finalize(st);
	sqlite3_close(db);
	return out;
}

/* Does the file open as a database whose session table can be read? */
static int db_opens(const char *db_path)
{
	return db_int(db_path, "SELECT count(*) FROM session") != INT64_MIN;
}

/* Resident pages of the file at path: mincore on a mapping of it, which
 * reads nothing.  -1 when it cannot be mapped. */
static long file_resident(const char *path)
{
	long page = sysconf(_SC_PAGESIZE), n = 0;
	int fd = open(path, O_RDONLY);
	unsigned char *vec;
	struct stat st;
	size_t pages;
	void *m;

	if (fd < 0 || fstat(fd, &st) < 0 || st.st_size == 0) {
		if (fd >= 0)
			close(fd);
		return -1;
	}
	pages = ((size_t)st.st_size + (size_t)page - 1) / (size_t)page;
	m = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_SHARED, fd, 0);
	vec = malloc(pages);
	if (m != MAP_FAILED && vec && mincore(m, (size_t)st.st_size, vec) == 0)
		for (size_t i = 0; i < pages; i++)
			n += vec[i] & 1;
	else
		n = -1;
	if (m != MAP_FAILED)
		munmap(m, (size_t)st.st_size);
	free(vec);
	close(fd);
	return n;
}

/* Drops the file's pages from the page cache (synced first: pages just
 * written are dirty, and dirty pages stay) and returns how many stayed. */
static long file_evict(const char *path)
{
	int fd = open(path, O_RDONLY);

	assert_true(fd >= 0);
	assert_int_equal(fsync(fd), 0);
	assert_int_equal(posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED), 0);
	close(fd);
	return file_resident(path);
}

/* key=value from the workload's info file; -1 if absent. */
static long long info_get(const char *path, const char *key)
{
	char line[256];
	size_t klen = strlen(key);
	long long v = -1;
	FILE *f = fopen(path, "r");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, key, klen) && line[klen] == '=')
			v = strtoll(line + klen + 1, NULL, 10);
	fclose(f);
	return v;
}

/* Skips the running cmocka test, saying why on a line tests/run.sh
 * shows: only where the machine cannot produce the case. */
#define skip_msg(...) do {					\
		fprintf(stderr, "skipped: ");			\
		fprintf(stderr, __VA_ARGS__);			\
		fputc('\n', stderr);				\
		skip();						\
	} while (0)

/*
 * A /proc/sys setting a test needs, held while the test runs: a guard
 * child puts the old value back when sysctl_restore closes fd, or when
 * this process dies, by a crash too (the pipe's write end closes).
 */
struct sysctl_guard {
	int fd;		/* the pipe's write end; -1 when nothing was changed */
	pid_t pid;	/* the guard */
};

/* Raises the setting at path to value where it holds less.  0 on
 * success (g->fd -1 when it already held enough), -1 where the file
 * cannot be read or written (errno says why). */
static int sysctl_at_least(struct sysctl_guard *g, const char *path, long long value)
{
	char buf[32];
	long long old = -1;
	int p[2], fd;
	FILE *f = fopen(path, "r");

	*g = (struct sysctl_guard){ -1, 0 };
	if (!f)
		return -1;
	if (fscanf(f, "%lld", &old) != 1) {
		fclose(f);
		errno = EINVAL;
		return -1;
	}
	fclose(f);
	if (old >= value)
		return 0;
	fd = open(path, O_WRONLY);
	snprintf(buf, sizeof(buf), "%lld", value);
	if (fd < 0 || pipe(p) < 0 || write(fd, buf, strlen(buf)) < 0) {
		int e = errno;

		if (fd >= 0)
			close(fd);
		errno = e;
		return -1;
	}
	g->pid = fork();
	if (g->pid < 0) {
		pwrite(fd, buf, (size_t)snprintf(buf, sizeof(buf), "%lld", old), 0);
		close(fd);
		close(p[0]);
		close(p[1]);
		return -1;
	}
	if (g->pid == 0) {
		char c;

		close(p[1]);
		while (read(p[0], &c, 1) > 0)
			;
		snprintf(buf, sizeof(buf), "%lld", old);
		_exit(pwrite(fd, buf, strlen(buf), 0) < 0);
	}
	close(fd);
	close(p[0]);
	g->fd = p[1];
	return 0;
}

/* Puts the old value back now, and waits until it is. */
static void sysctl_restore(struct sysctl_guard *g)
{
	if (g->fd < 0)
		return;
	close(g->fd);
	waitpid(g->pid, NULL, 0);
	*g = (struct sysctl_guard){ -1, 0 };
}

static void sleep_ms(long ms)
{
	struct timespec t = { ms / 1000, (ms % 1000) * 1000000L };

	nanosleep(&t, NULL);
}

/* Writes line to a FIFO a reader holds open (faultline's --control,
 * --metric-fifo): one write, whole, or the test fails. */
static void write_line(const char *fifo, const char *line)
{
	int fd = open(fifo, O_WRONLY | O_NONBLOCK);

	assert_true(fd >= 0);
	assert_int_equal(write(fd, line, strlen(line)), (ssize_t)strlen(line));
	close(fd);
}

/*
 * Starts argv (faultline, "record", options...; NULL-terminated) with
 * --ready-fd, and waits until faultline says its events are on, or exits,
 * or timeout_ms passes: 0 when it is recording, -1 otherwise.  The test
 * can then start the workload without guessing with a sleep.
 */
static int start_recording(struct run *r, char *const argv[], int timeout_ms)
{
	char *full[64], fdbuf[16], buf[16];
	struct pollfd p;
	int pipefd[2], n = 0, k = 0;
	ssize_t got;

	if (pipe(pipefd) < 0)
		return -1;
	fcntl(pipefd[0], F_SETFD, FD_CLOEXEC);
	snprintf(fdbuf, sizeof(fdbuf), "%d", pipefd[1]);
	full[n++] = argv[k++];
	full[n++] = argv[k++];	/* "record" */
	full[n++] = "--ready-fd";
	full[n++] = fdbuf;
	while (argv[k] && n < 63)
		full[n++] = argv[k++];
	full[n] = NULL;
	run_start_as(r, -1, full);
	close(pipefd[1]);
	p = (struct pollfd){ pipefd[0], POLLIN, 0 };
	got = poll(&p, 1, timeout_ms) == 1 ? read(pipefd[0], buf, sizeof(buf)) : -1;
	close(pipefd[0]);
	return got > 0 ? 0 : -1;
}

/* Waits until the database has a session row or timeout_ms passes. */
static int wait_for_session(const char *db_path, long timeout_ms)
{
	for (long waited = 0; waited < timeout_ms; waited += 20) {
		if (access(db_path, F_OK) == 0 &&
		    db_int(db_path, "SELECT count(*) FROM session") > 0)
			return 0;
		sleep_ms(20);
	}
	return -1;
}

/* Runs the demo as `make demo` does (demo/run.sh), recording into db,
 * its files in the scratch directory (info, naks.csv, run.log).  r gets
 * the end of its output, which is what tells when it fails; a failure
 * fails the test.  The environment strings stay put (putenv keeps them). */
static void run_demo(const char *db, struct run *r)
{
	static char env_db[300], env_dir[300], env_fl[300], env_demo[300];
	char *argv[] = { "/bin/bash", "-c", "bash demo/run.sh > \"$DEMO_DIR/run.log\" "
			 "2>&1; s=$?; tail -c 3500 \"$DEMO_DIR/run.log\"; exit $s", NULL };
	const char *demo = getenv("NAK_DEMO");

	snprintf(env_db, sizeof(env_db), "DB=%s", db);
	snprintf(env_dir, sizeof(env_dir), "DEMO_DIR=%s", scratch_dir());
	snprintf(env_fl, sizeof(env_fl), "FAULTLINE=%s", faultline_bin());
	snprintf(env_demo, sizeof(env_demo), "NAK_DEMO=%s",
		 demo ? demo : "build/release/demo/nak_demo");
	putenv(env_db);
	putenv(env_dir);
	putenv(env_fl);
	putenv(env_demo);
	if (run_argv(r, argv) != 0)
		fail_msg("demo/run.sh exited %d; its output ended:\n%s", r->status,
			 r->out);
}

#endif
