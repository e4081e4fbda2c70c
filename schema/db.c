#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "../common/array.h"
#include "../common/strbuf.h"
#include "db.h"
#include "killed.h"
#include "upgrade.h"

/* Generated from schema.sql, load_indexes.sql and indexes.sql by the
 * Makefile (indexes_sql holds both files of indexes). */
extern const char schema_sql[];
extern const char indexes_sql[];
extern const char load_indexes_sql[];

/* How long to wait for another writer before calling the file locked. */
#define BUSY_TIMEOUT_MS 2000
/* How long db_end_write waits for other connections to go, and how
 * often it looks: a query is done in well under this; a longer holder
 * keeps the file in WAL mode. */
#define END_WRITE_WAIT_MS 500
#define END_WRITE_STEP_MS 25

/* SQLite's lock bytes in a database file (os_unix.c: PENDING_BYTE, then
 * RESERVED_BYTE, then the 510 bytes of the SHARED range).  A connection
 * holds a lock there while it reads or writes, and a connection in WAL
 * mode holds a shared one for as long as it is open. */
#define LOCK_BYTES_AT 0x40000000
#define LOCK_BYTES 512

int db_fail(sqlite3 *db, int rc, const char *path, const char *what,
	    struct errmsg *e)
{
	const char *detail = db ? sqlite3_errmsg(db) : sqlite3_errstr(rc);

	switch (rc & 0xff) {
	case SQLITE_FULL:
		return errmsg_set(e, ENOSPC, "disk full writing '%s': free space on "
				  "its filesystem and try again (what was committed "
				  "before is kept)", path);
	case SQLITE_BUSY:
	case SQLITE_LOCKED:
		return errmsg_set(e, EBUSY, "%s '%s': database is locked by another "
				  "process; wait for it to finish or use another file",
				  what, path);
	case SQLITE_READONLY:
	case SQLITE_PERM:
		return errmsg_set(e, EROFS, "%s '%s': not writable (%s); choose a "
				  "writable path or fix its permissions", what, path,
				  detail);
	case SQLITE_CANTOPEN:
		if (!strcmp(what, "cannot read"))
			return errmsg_set(e, EACCES, "%s '%s': cannot open (%s); a "
					  "database being written needs its -shm file "
					  "beside it: let the writer finish, or read a "
					  "copy", what, path, detail);
		return errmsg_set(e, ENOENT, "%s '%s': cannot open (%s); check that "
				  "its directory exists and is writable", what, path,
				  detail);
	case SQLITE_NOTADB:
	case SQLITE_CORRUPT:
		return errmsg_set(e, EINVAL, "%s '%s': not a SQLite database; choose "
				  "another file name", what, path);
	case SQLITE_IOERR:
		return errmsg_set(e, EIO, "%s '%s': I/O error (%s); check the disk "
				  "and the file system", what, path, detail);
	default:
		return errmsg_set(e, EIO, "%s '%s': %s", what, path, detail);
	}
}

static int exec(sqlite3 *db, const char *sql, const char *path,
		const char *what, struct errmsg *e)
{
	int rc = sqlite3_exec(db, sql, NULL, NULL, NULL);

	return rc == SQLITE_OK ? 0 : db_fail(db, rc, path, what, e);
}

static int int_pragma(sqlite3 *db, const char *sql, int *out)
{
	sqlite3_stmt *st;
	int rc = sqlite3_prepare_v2(db, sql, -1, &st, NULL);

	if (rc != SQLITE_OK)
		return rc;
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW) {
		*out = sqlite3_column_int(st, 0);
		rc = SQLITE_OK;
	}
	sqlite3_finalize(st);
	return rc;
}

/* Tables every faultline database has had since the oldest schema this
 * build upgrades: an older file without faultline's application_id is
 * recognised by them. */
static const char *const own_tables[] = {
	"session", "thread", "fault", "mapping", "lost",
};

/* Has db the first n of own_tables? */
static int has_own_tables(sqlite3 *db, size_t n)
{
	for (size_t i = 0; i < n && i < sizeof(own_tables) / sizeof(own_tables[0]); i++) {
		sqlite3_stmt *st = NULL;
		int found = 0;

		if (sqlite3_prepare_v2(db, "SELECT 1 FROM main.sqlite_master WHERE "
				       "type = 'table' AND name = ?", -1, &st,
				       NULL) == SQLITE_OK) {
			sqlite3_bind_text(st, 1, own_tables[i], -1, SQLITE_STATIC);
			found = sqlite3_step(st) == SQLITE_ROW;
		}
		sqlite3_finalize(st);
		if (!found)
			return 0;
	}
	return 1;
}

/*
 * What the file at db is, decided by reading only: *version is 0 for a
 * file with no tables (it gets the schema), SCHEMA_VERSION for one this
 * build reads, or an older schema this build upgrades when writable (a
 * reader is refused with the command that upgrades it: it writes
 * nothing).  A file is faultline's by its application_id, or, written
 * before faultline set one, by its tables; any other SQLite file is
 * refused, whatever its user_version, and left as it is.
 */
static int check_file(sqlite3 *db, const char *path, int writable,
		      int *version, struct errmsg *e)
{
	int app = 0, tables = 0, rc;

	*version = 0;
	rc = int_pragma(db, "PRAGMA user_version", version);
	if (rc == SQLITE_OK)
		rc = int_pragma(db, "PRAGMA application_id", &app);
	if (rc == SQLITE_OK)
		rc = int_pragma(db, "SELECT count(*) FROM sqlite_master", &tables);
	if (rc != SQLITE_OK)
		return db_fail(db, rc, path, "cannot read", e);
	if (app != 0 && app != FL_APPLICATION_ID)
		return errmsg_set(e, EINVAL, "cannot use '%s': it is a SQLite "
				  "database of another program (application_id "
				  "0x%08x), not faultline's; choose another file",
				  path, (unsigned)app);
	if (tables == 0 && *version == 0) {
		if (!writable)
			return errmsg_set(e, EINVAL, "cannot read '%s': it is not a "
					  "faultline database (no tables); check the "
					  "path", path);
		return 0;
	}
	/* Schemas older than SCHEMA_VERSION_UPGRADABLE are only named in
	 * the refusal: their session table is enough to know them by. */
	if (app == 0 && (*version == 0 ||
			 !has_own_tables(db, *version < SCHEMA_VERSION_UPGRADABLE ?
					 1 : (size_t)-1)))
		return errmsg_set(e, EINVAL, "cannot use '%s': it is a SQLite "
				  "database, but not faultline's; choose another file",
				  path);
	if (*version == SCHEMA_VERSION)
		return 0;
	if (*version > SCHEMA_VERSION)
		return errmsg_set(e, EPROTO, "cannot use '%s': it was written by a "
				  "newer faultline (schema %d, this one reads %d); "
				  "upgrade faultline", path, *version, SCHEMA_VERSION);
	if (*version >= SCHEMA_VERSION_UPGRADABLE && writable)
		return 0;
	if (*version >= SCHEMA_VERSION_UPGRADABLE)
		return errmsg_set(e, EPROTO, "cannot read '%s': it was written by an "
				  "older faultline (schema %d, this one reads %d); "
				  "upgrade it in place with 'faultline upgrade %s'",
				  path, *version, SCHEMA_VERSION, path);
	return errmsg_set(e, EPROTO, "cannot use '%s': it was written by an "
			  "older faultline (schema %d; this one upgrades %d "
			  "and later); record into a new file", path, *version,
			  SCHEMA_VERSION_UPGRADABLE);
}

/* Gives a file check_file accepted for writing the schema (version 0),
 * brings an older one up to date, and marks it as faultline's. */
static int create_or_upgrade(sqlite3 *db, const char *path, int version,
			     struct errmsg *e)
{
	int rc;

	if (version != 0 && version < SCHEMA_VERSION)
		return db_upgrade(db, path, version, e);
	if (version != 0)
		return exec(db, "PRAGMA application_id = " FL_STR(FL_APPLICATION_ID),
			    path, "cannot write", e);
	rc = exec(db, "BEGIN IMMEDIATE", path, "cannot create", e);
	if (rc == 0)
		rc = exec(db, schema_sql, path, "cannot create", e);
	if (rc == 0)
		rc = exec(db, "PRAGMA application_id = " FL_STR(FL_APPLICATION_ID) ";"
			  " PRAGMA user_version = " FL_STR(SCHEMA_VERSION) "; COMMIT",
			  path, "cannot create", e);
	if (rc < 0)
		sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL);
	return rc;
}

static int open_db(const char *path, int flags, sqlite3 **out,
		   struct errmsg *e)
{
	sqlite3 *db = NULL;
	/* No mutex of its own: a connection is used by one thread at a
	 * time (the recorder's pipeline, then its main thread; export's
	 * workers each open their own).  SQLite's serialized mode took
	 * and released it in every bind and step: 8% of the recorder's
	 * samples; its CPU per recording of the fault loop fell from
	 * 126-129 to 117-122 ms (5 runs each). */
	int rc = sqlite3_open_v2(path, &db, flags | SQLITE_OPEN_NOMUTEX, NULL);

	if (rc != SQLITE_OK) {
		rc = db_fail(db, rc, path, "cannot open", e);
		sqlite3_close(db);
		return rc;
	}
	sqlite3_extended_result_codes(db, 1);
	sqlite3_busy_timeout(db, BUSY_TIMEOUT_MS);
	*out = db;
	return 0;
}

/*
 * The writer's lock: each open writer holds an flock(2) on its own
 * descriptor of the file, exclusive, for as long as its handle is open,
 * so a second faultline writer is refused before it touches the file
 * (before SQLite takes any lock that would hold the first one up).  An
 * flock is the kernel's, dropped when its holder dies, so a recorder
 * killed mid-session leaves no lock behind.  It is apart from SQLite's
 * own fcntl locks, and closing it cannot drop those; it is closed only
 * after SQLite has closed the file (db_close).
 */
struct writer_lock {
	sqlite3 *db;		/* borrowed: the handle db_open_write made */
	int fd;			/* owned: the descriptor holding the flock */
};
static struct writer_lock *writer_locks;	/* owned; few: one per writer open */
static size_t nwriter_locks, writer_locks_cap;

static int keep_writer_lock(sqlite3 *db, int fd)
{
	if (ARRAY_RESERVE(writer_locks, writer_locks_cap, nwriter_locks + 1) < 0)
		return -ENOMEM;
	writer_locks[nwriter_locks++] = (struct writer_lock){ db, fd };
	return 0;
}

static void drop_writer_lock(sqlite3 *db)
{
	for (size_t i = 0; i < nwriter_locks; i++)
		if (writer_locks[i].db == db) {
			close(writer_locks[i].fd);
			writer_locks[i] = writer_locks[--nwriter_locks];
			return;
		}
}

/* The pid holding an flock on the file fd names, from /proc/locks; 0
 * when none is found (another pid namespace, no /proc). */
static pid_t flock_holder(int fd)
{
	struct stat sb;
	char line[256];
	pid_t pid = 0;
	FILE *f;

	if (fstat(fd, &sb) < 0 || !(f = fopen("/proc/locks", "re")))
		return 0;
	/* "1: FLOCK  ADVISORY  WRITE 4242 fe:01:1234 0 EOF" */
	while (!pid && fgets(line, sizeof(line), f)) {
		unsigned maj, min;
		unsigned long long ino;
		int p;

		if (strstr(line, " FLOCK ") && !strstr(line, "->") &&
		    sscanf(strstr(line, "FLOCK"), "FLOCK %*s %*s %d %x:%x:%llu",
			   &p, &maj, &min, &ino) == 4 &&
		    maj == major(sb.st_dev) && min == minor(sb.st_dev) &&
		    ino == (unsigned long long)sb.st_ino)
			pid = p;
	}
	fclose(f);
	return pid;
}

static int pid_alive(pid_t pid)
{
	return pid > 0 && (kill(pid, 0) == 0 || errno == EPERM);
}

/* The newest session of path whose status is 'recording' and whose
 * recorder is alive: *session and *pid, or 0 in both.  Reads only. */
static void live_recording(const char *path, long long *session, pid_t *pid)
{
	sqlite3 *db = NULL;
	sqlite3_stmt *st = NULL;
	struct errmsg ignored;

	*session = 0;
	*pid = 0;
	if (open_db(path, SQLITE_OPEN_READONLY | SQLITE_OPEN_NOFOLLOW, &db,
		    &ignored) < 0)
		return;
	if (sqlite3_prepare_v2(db, "SELECT session_id, recorder_pid FROM session"
			       " WHERE status = 'recording' ORDER BY session_id DESC",
			       -1, &st, NULL) == SQLITE_OK)
		while (sqlite3_step(st) == SQLITE_ROW)
			if (pid_alive((pid_t)sqlite3_column_int(st, 1))) {
				*session = sqlite3_column_int64(st, 0);
				*pid = (pid_t)sqlite3_column_int(st, 1);
				break;
			}
	sqlite3_finalize(st);
	sqlite3_close(db);
}

/* The message for a file another faultline writer holds (fd: ours,
 * whose flock was refused). */
static int held_by_writer(const char *path, int fd, struct errmsg *e)
{
	pid_t holder = flock_holder(fd), pid;
	long long session;

	live_recording(path, &session, &pid);
	if (session && (!holder || holder == pid))
		return errmsg_set(e, EBUSY, "cannot write '%s': faultline record "
				  "(pid %d) is recording session %lld into it; wait "
				  "for it to end, or write another file", path,
				  (int)pid, session);
	if (holder)
		return errmsg_set(e, EBUSY, "cannot write '%s': another faultline "
				  "(pid %d) is writing it; wait for it to end, or "
				  "write another file", path, (int)holder);
	return errmsg_set(e, EBUSY, "cannot write '%s': another faultline is "
			  "writing it; wait for it to end, or write another file",
			  path);
}

/* ENAMETOOLONG, said as what it is: a name in the path, or the whole,
 * longer than the kernel takes (NAME_MAX, PATH_MAX), not a missing
 * directory. */
static int name_too_long(const char *path, const char *verb,
			 struct errmsg *e)
{
	size_t longest = 0;

	for (const char *p = path; *p; ) {
		size_t n = strcspn(p, "/");

		if (n > longest)
			longest = n;
		p += n;
		p += *p == '/';
	}
	if (longest > NAME_MAX)
		return errmsg_set(e, ENAMETOOLONG, "cannot %s '%.60s...': a name in "
				  "the path is %zu bytes long, and a file system "
				  "takes at most %d; give a shorter name", verb, path,
				  longest, NAME_MAX);
	return errmsg_set(e, ENAMETOOLONG, "cannot %s '%.60s...': the path is %zu "
			  "bytes long, and the kernel takes at most %d; give a "
			  "shorter path (or cd nearer the file)", verb, path,
			  strlen(path), PATH_MAX - 1);
}

/*
 * A SQLite file cut short (a copy or a download that stopped, a disk
 * that filled while it was copied): its header gives the page size and
 * the pages the file holds (valid when the "version-valid-for" number at
 * byte 92 equals the change counter at byte 24), so the file's own size
 * says it.  SQLite itself calls such a file malformed or "not a
 * database".  Only for a file that stands alone: beside a -wal with
 * frames in it, the file may lack pages the WAL holds.  -EINVAL with e
 * set, or 0 when the file is not cut short as far as its header tells.
 */
static int cut_short(int fd, const char *path, const struct stat *sb,
		     struct errmsg *e)
{
	unsigned char h[100];
	ssize_t got = pread(fd, h, sizeof(h), 0);
	uint64_t page, pages;

	if (got < 16 || memcmp(h, "SQLite format 3", 16))
		return 0;
	if (got < (ssize_t)sizeof(h))
		return errmsg_set(e, EINVAL, "cannot read '%s': it is cut short "
				  "(%lld bytes, less than a SQLite header); copy it "
				  "again from where it was recorded", path,
				  (long long)sb->st_size);
	page = (uint64_t)h[16] << 8 | h[17];
	if (page == 1)
		page = 65536;
	pages = (uint64_t)h[28] << 24 | (uint64_t)h[29] << 16 |
		(uint64_t)h[30] << 8 | h[31];
	if (memcmp(h + 24, h + 92, 4) || !pages ||
	    (uint64_t)sb->st_size >= page * pages)
		return 0;
	return errmsg_set(e, EINVAL, "cannot read '%s': it is cut short (%lld "
			  "bytes of the %llu its header gives: a copy or a "
			  "download that stopped early, or a disk that filled); "
			  "copy it again from where it was recorded", path,
			  (long long)sb->st_size,
			  (unsigned long long)(page * pages));
}

/* Is path's directory sticky and writable by everyone, as /tmp is? */
static int in_shared_dir(const char *path)
{
	const char *slash = strrchr(path, '/');
	struct stat sb;
	char *dir;
	int shared;

	if (!slash)
		return stat(".", &sb) == 0 && (sb.st_mode & S_ISVTX) &&
		       (sb.st_mode & S_IWOTH);
	dir = strndup(path, slash == path ? 1 : (size_t)(slash - path));
	shared = !dir || (stat(dir, &sb) == 0 && (sb.st_mode & S_ISVTX) &&
			  (sb.st_mode & S_IWOTH));
	free(dir);
	return shared;
}

/*
 * Opens path for writing as faultline's own file: never through a
 * symbolic link (one another user planted in /tmp would have root write
 * where the link points), only a regular file, and not one another user
 * owns in a sticky directory everyone may write, created 0600 (less the
 * umask: a recording holds every process's mappings and kernel
 * addresses), and locked against a second writer.  SQLite opens the path
 * again afterwards; the caller checks it found the same file.  The
 * descriptor (owned by the caller), or a negative errno with e set.
 */
static int open_own(const char *path, struct stat *sb, struct errmsg *e)
{
	int fd = open(path, O_RDWR | O_CREAT | O_NOFOLLOW | O_NOCTTY |
		      O_NONBLOCK | O_CLOEXEC, 0600);
	int err = errno;
	struct stat link;

	/* O_NOFOLLOW fails with ELOOP on a link, but O_CREAT on a dangling
	 * one can fail first with EACCES: the link is what to name. */
	if (fd < 0 && (err == ELOOP || (lstat(path, &link) == 0 &&
					S_ISLNK(link.st_mode))))
		return errmsg_set(e, ELOOP, "cannot write '%s': it is a symbolic "
				  "link, and faultline writes no file through one "
				  "(another user may have made it); remove it, or "
				  "give the path it points to", path);
	if (fd < 0 && err == EISDIR)
		return errmsg_set(e, EISDIR, "cannot open '%s': it is a directory; "
				  "give a file name", path);
	if (fd < 0 && err == ENAMETOOLONG)
		return name_too_long(path, "write", e);
	if (fd < 0)
		return errmsg_set(e, err, "cannot open '%s': %s; check that its "
				  "directory exists and is writable", path,
				  strerror(err));
	if (fstat(fd, sb) < 0 || !S_ISREG(sb->st_mode)) {
		close(fd);
		return errmsg_set(e, EINVAL, "cannot write '%s': it is not a "
				  "regular file; give a file name", path);
	}
	/* The same trap without a link: a file another user made in /tmp
	 * for root to fill, then read (the kernel's protected_regular). */
	if (sb->st_uid != geteuid() && in_shared_dir(path)) {
		close(fd);
		return errmsg_set(e, EPERM, "cannot write '%s': it belongs to another "
				  "user (uid %u), in a directory everyone may write; "
				  "they may have made it for faultline to fill: remove "
				  "it, or write elsewhere", path, (unsigned)sb->st_uid);
	}
	if (flock(fd, LOCK_EX | LOCK_NB) < 0) {
		err = errno == EWOULDBLOCK ? held_by_writer(path, fd, e)
			: errmsg_set(e, errno, "cannot lock '%s': %s", path,
				     strerror(errno));
		close(fd);
		return err;
	}
	return fd;
}

/* Is path still the file fd holds open (not swapped since)? */
static int same_file(const char *path, const struct stat *sb)
{
	struct stat now;

	return lstat(path, &now) == 0 && S_ISREG(now.st_mode) &&
	       now.st_dev == sb->st_dev && now.st_ino == sb->st_ino;
}

/* The sessions whose recorder was killed, marked so (schema/killed.h):
 * the writer's lock is held, so none of them has a live recorder.  Best
 * effort: a file this cannot mark is written all the same, and its
 * readers still say which sessions were killed. */
static void mark_killed(sqlite3 *db, const char *path)
{
	struct killed_list k;
	struct errmsg ignored;

	killed_list_init(&k);
	errmsg_init(&ignored);
	if (killed_find(db, path, 1, &k, &ignored) == 0)
		killed_mark(db, path, &k, &ignored);
	killed_list_release(&k);
}

/* Eight frames of 64 KiB pages: the session row's page and its WAL
 * frame header, overflow pages of a long error text, and room to spare.
 * The update writes over the frames of the transaction that failed,
 * which took the room first. */
#define DB_END_ROOM_BYTES (8 * (65536 + 24))

int db_end_room_take(sqlite3 *db)
{
	const char *path = sqlite3_db_filename(db, "main");
	char dir[PATH_MAX];
	const char *slash;
	int fd;

	if (!path || !*path)
		return -1;
	slash = strrchr(path, '/');
	if (!slash)
		snprintf(dir, sizeof(dir), ".");
	else if (snprintf(dir, sizeof(dir), "%.*s", (int)(slash - path + 1),
			  path) >= (int)sizeof(dir))
		return -1;
	fd = open(dir, O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
	if (fd < 0)
		return -1;
	if (posix_fallocate(fd, 0, DB_END_ROOM_BYTES) != 0) {
		close(fd);
		return -1;
	}
	return fd;
}

void db_end_room_release(int *fd)
{
	if (*fd >= 0)
		close(*fd);
	*fd = -1;
}

/*
 * The least a sorter's in-memory run holds, in pages (SQLite's
 * SQLITE_CONFIG_PMASZ; its default is 250).  With faultline's 64 KiB
 * pages the default made every run at least 16 MB, whatever the page
 * cache's size: building the indexes of 1.3M faults took the recorder
 * from 20 to 44 MB.  16 pages (1 MiB) lets the cache size the runs, as
 * it did with 4 KiB pages.
 */
#define SORTER_MIN_RUN_PAGES 16

void db_library_setup(void)
{
	/* SQLITE_MISUSE once SQLite has started: then nothing changes. */
	sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0);
	sqlite3_config(SQLITE_CONFIG_PMASZ, (unsigned)SORTER_MIN_RUN_PAGES);
}

int db_open_write(const char *path, sqlite3 **out, struct errmsg *e)
{
	sqlite3 *db = NULL;
	struct stat sb;
	int err, fd, version = 0;

	fd = open_own(path, &sb, e);
	if (fd < 0)
		return fd;
	/* An existing file is judged read-only first: another program's
	 * file is refused byte for byte as it was (the WAL switch below
	 * writes its header). */
	err = 0;
	if (sb.st_size > 0) {
		err = open_db(path, SQLITE_OPEN_READONLY | SQLITE_OPEN_NOFOLLOW,
			      &db, e);
		/* A hot journal (a writer died mid-transaction) cannot be
		 * read read-only: the connection below rolls it back, as
		 * any opener would, and judges the file before it writes. */
		if (err == 0 && (int_pragma(db, "PRAGMA user_version", &version)
				 & 0xff) != SQLITE_READONLY)
			err = check_file(db, path, 1, &version, e);
		sqlite3_close(db);
		db = NULL;
	}
	if (err == 0)
		err = open_db(path, SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOFOLLOW,
			      &db, e);
	if (err == 0 && !same_file(path, &sb))
		err = errmsg_set(e, EAGAIN, "cannot write '%s': it was replaced while "
				 "faultline opened it; check who else writes there",
				 path);
	if (err == 0)
		err = check_file(db, path, 1, &version, e);
	/* 64 KiB pages (a new file only; before WAL, which fixes the size):
	 * the loader wrote 1.67M thread_state rows/s with them against 1.18M
	 * with 4 KiB ones (bench/schema/loader_rate.c's table, same run).
	 * WAL: readers (a query during recording) never block the loader.
	 * synchronous=NORMAL: a commit survives a crash of faultline; only
	 * power loss can take the last commits.  wal_autocheckpoint: see
	 * DB_CHECKPOINT_PAGES. */
	if (err == 0)
		err = exec(db, "PRAGMA page_size=65536; PRAGMA journal_mode=WAL;"
			   " PRAGMA synchronous=NORMAL; PRAGMA wal_autocheckpoint="
			   FL_STR(DB_CHECKPOINT_PAGES), path, "cannot open", e);
	if (err == 0)
		err = exec(db, "BEGIN IMMEDIATE; COMMIT", path, "cannot write", e);
	/* The page cache's size again, now that the pages are 64 KiB: SQLite
	 * sized it in pages when they were 4 KiB (about 490 for its default
	 * 2000 KiB), and kept that count, so a recording's cache grew to 31
	 * MB of 64 KiB pages, a MB a second under the soak's load. */
	if (err == 0)
		db_set_cache_size(db, db_cache_size(db));
	/* Judged again under SQLite's write lock: the file may have
	 * changed since (by a program other than faultline). */
	if (err == 0)
		err = check_file(db, path, 1, &version, e);
	if (err == 0)
		err = create_or_upgrade(db, path, version, e);
	if (err == 0)
		mark_killed(db, path);
	if (err == 0 && keep_writer_lock(db, fd) < 0)
		err = errmsg_set(e, ENOMEM, "out of memory");
	if (err < 0) {
		sqlite3_close(db);
		close(fd);
		return err;
	}
	*out = db;
	return 0;
}

/* The journal mode the file's header records: bytes 18 and 19 of its
 * first 100 are 2 in WAL mode, 1 with a rollback journal.  0 when the
 * file does not read as a SQLite database (SQLite says why on open). */
static int header_journal_mode(int fd)
{
	unsigned char h[100];

	if (pread(fd, h, sizeof(h), 0) != (ssize_t)sizeof(h) ||
	    memcmp(h, "SQLite format 3", 16))
		return 0;
	return h[18] == 2 && h[19] == 2 ? 2 : 1;
}

/* Does another process hold any of SQLite's locks on the file?  F_GETLK
 * leaves out this process's own locks, which cannot be a writer here. */
static int held_by_another(int fd)
{
	struct flock fl = { .l_type = F_WRLCK, .l_whence = SEEK_SET,
			    .l_start = LOCK_BYTES_AT, .l_len = LOCK_BYTES };

	if (fcntl(fd, F_GETLK, &fl) < 0)
		return 1;	/* cannot tell: take it as held */
	return fl.l_type != F_UNLCK;
}

/* Is path's -wal absent or empty, so every commit is in the file? */
static int wal_empty(const char *path)
{
	struct strbuf wal;
	struct stat sb;
	int empty;

	strbuf_init(&wal);
	strbuf_addf(&wal, "%s-wal", path);
	if (strbuf_error(&wal))
		empty = 0;
	else if (stat(wal.buf, &sb) == 0)
		empty = sb.st_size == 0;
	else
		empty = errno == ENOENT;
	strbuf_release(&wal);
	return empty;
}

/* A "file:" URI of path with immutable=1: the bytes a URI gives a
 * meaning to, and any outside printable ASCII, percent-encoded.  Owned
 * (free); NULL when out of memory. */
static char *immutable_uri(const char *path)
{
	struct strbuf sb;

	strbuf_init(&sb);
	strbuf_adds(&sb, "file:");
	for (const unsigned char *p = (const unsigned char *)path; *p; p++) {
		if (*p > ' ' && *p < 0x7f && !strchr("%?#\"", *p))
			strbuf_addc(&sb, (char)*p);
		else
			strbuf_addf(&sb, "%%%02X", *p);
	}
	strbuf_adds(&sb, "?immutable=1");
	return strbuf_detach(&sb);
}

/*
 * Should path be opened immutable?  Only a file in WAL mode that nobody
 * holds open and whose -wal holds nothing: then everything is in the
 * file, and an ordinary read-only open would create a -wal and a -shm
 * (and fail where it cannot).  A writer that starts later writes to its
 * own -wal first and copies into the file only at a checkpoint, 8 MiB of
 * WAL later (db_open_write) or when it ends, so a read that starts now
 * does not see a page change under it in practice.  A file with a
 * rollback journal needs no side file to be read: not immutable, so its
 * locks keep a writer from changing it during a read.
 */
static int read_immutable(const char *path, struct errmsg *e, int *immutable)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	struct stat sb;
	int err = 0;

	if (fd < 0 && errno == ENOENT)
		return errmsg_set(e, ENOENT, "cannot open '%s': no such file; "
				  "record one with 'faultline record -o %s'", path, path);
	if (fd < 0 && errno == ENAMETOOLONG)
		return name_too_long(path, "read", e);
	if (fd < 0)
		return errmsg_set(e, errno, "cannot read '%s': %s; check its "
				  "permissions", path, strerror(errno));
	/* SQLite would call a directory a disk I/O error. */
	if (fstat(fd, &sb) == 0 && S_ISDIR(sb.st_mode))
		err = errmsg_set(e, EISDIR, "cannot read '%s': it is a directory, "
				 "not a database; give the database file (a .db "
				 "file 'faultline record -o' wrote)", path);
	else if (fstat(fd, &sb) == 0 && !S_ISREG(sb.st_mode))
		err = errmsg_set(e, EINVAL, "cannot read '%s': it is not a regular "
				 "file; give the database file", path);
	else if (!held_by_another(fd) && wal_empty(path))
		err = cut_short(fd, path, &sb, e);	/* a -wal may hold the rest */
	if (err == 0)
		*immutable = header_journal_mode(fd) == 2 && !held_by_another(fd) &&
			     wal_empty(path);
	close(fd);
	return err;
}

/*
 * A writer killed in a transaction leaves a hot journal, which only a
 * read-write open rolls back (SQLite does, as for any opener).  Read
 * immutable, the file would be read as the writer left it; read
 * read-only, it cannot be read at all.  The recorder's last transaction
 * is the one that leaves WAL mode (db_end_write): killed in it, the
 * header may still say WAL while the journal holds the page it changed.
 * Rolled back here when the file is writable and nobody holds it.
 */
static void roll_back_hot_journal(const char *path)
{
	struct strbuf journal;
	struct stat sb;
	sqlite3 *db = NULL;
	int fd;

	strbuf_init(&journal);
	strbuf_addf(&journal, "%s-journal", path);
	if (strbuf_error(&journal) || stat(strbuf_str(&journal), &sb) != 0 ||
	    sb.st_size == 0 || access(path, W_OK) != 0) {
		strbuf_release(&journal);
		return;
	}
	strbuf_release(&journal);
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0)
		return;
	if (!held_by_another(fd) &&
	    sqlite3_open_v2(path, &db, SQLITE_OPEN_READWRITE, NULL) == SQLITE_OK)
		sqlite3_exec(db, "PRAGMA user_version", NULL, NULL, NULL);
	sqlite3_close(db);
	close(fd);
}

int db_open_read(const char *path, sqlite3 **out, struct errmsg *e)
{
	sqlite3 *db = NULL;
	char *uri = NULL;
	int err, immutable = 0, version;

	roll_back_hot_journal(path);
	err = read_immutable(path, e, &immutable);
	if (err == 0 && immutable) {
		uri = immutable_uri(path);
		err = uri ? 0 : errmsg_set(e, ENOMEM, "out of memory");
	}
	if (err == 0)
		err = open_db(uri ? uri : path, SQLITE_OPEN_READONLY |
			      (uri ? SQLITE_OPEN_URI : 0), &db, e);
	free(uri);
	/* Messages name the path as given, not the URI. */
	if (err == 0)
		err = check_file(db, path, 0, &version, e);
	if (err < 0) {
		sqlite3_close(db);
		return err;
	}
	*out = db;
	return 0;
}

/* One try at leaving WAL mode: SQLITE_OK, SQLITE_BUSY while another
 * connection has the file open (SQLite does not wait for it: the
 * pragma's row is then the mode still in force), or the failure. */
static int try_rollback_journal(sqlite3 *db)
{
	sqlite3_stmt *st = NULL;
	const char *mode;
	int rc = sqlite3_prepare_v2(db, "PRAGMA journal_mode=DELETE", -1, &st, NULL);

	if (rc == SQLITE_OK)
		rc = sqlite3_step(st);
	if (rc == SQLITE_ROW) {
		mode = (const char *)sqlite3_column_text(st, 0);
		rc = mode && !strcmp(mode, "delete") ? SQLITE_OK : SQLITE_BUSY;
	}
	sqlite3_finalize(st);
	return rc;
}

int db_end_write(sqlite3 *db, const char *path, struct errmsg *e)
{
	int rc = SQLITE_BUSY;

	if (!db)
		return 0;
	/* A query beside the writer is short: wait out a few of them. */
	for (int waited = 0; (rc & 0xff) == SQLITE_BUSY && waited <= END_WRITE_WAIT_MS;
	     waited += END_WRITE_STEP_MS) {
		if (waited)
			sqlite3_sleep(END_WRITE_STEP_MS);
		rc = try_rollback_journal(db);
	}
	if ((rc & 0xff) == SQLITE_BUSY || (rc & 0xff) == SQLITE_LOCKED)
		return errmsg_set(e, EBUSY, "'%s' stays in WAL mode: another process "
				  "has it open; its -wal and -shm files go when the "
				  "last of them closes it, and every row is kept", path);
	return rc == SQLITE_OK ? 0 : db_fail(db, rc, path, "cannot finish", e);
}

int db_cache_size(sqlite3 *db)
{
	sqlite3_stmt *st;
	int kib = -2000;

	if (sqlite3_prepare_v2(db, "PRAGMA cache_size", -1, &st, NULL) == SQLITE_OK) {
		if (sqlite3_step(st) == SQLITE_ROW)
			kib = sqlite3_column_int(st, 0);
		sqlite3_finalize(st);
	}
	return kib;
}

void db_set_cache_size(sqlite3 *db, int size)
{
	char sql[64];

	snprintf(sql, sizeof(sql), "PRAGMA cache_size = %d", size);
	sqlite3_exec(db, sql, NULL, NULL, NULL);
}

/* The page cache while the indexes are built, in KiB: the sorter sizes
 * its in-memory runs by it (at least 10 pages), and building them is
 * the recorder's peak memory.  For the fault loop's 131,072 faults the
 * peak fell from 42.5 to 38 MB with it; the sort then merges more runs,
 * which cost no more CPU within noise at 1.3M faults. */
#define INDEX_BUILD_CACHE_KIB 512

int db_build_indexes(sqlite3 *db, const char *path, struct errmsg *e)
{
	int old = db_cache_size(db), err;

	db_set_cache_size(db, -INDEX_BUILD_CACHE_KIB);
	err = exec(db, indexes_sql, path, "cannot index", e);
	db_set_cache_size(db, old);
	return err;
}

int db_load_indexes(sqlite3 *db, const char *path, struct errmsg *e)
{
	return exec(db, load_indexes_sql, path, "cannot index", e);
}

int db_file_version(const char *path, int *version, struct errmsg *e)
{
	sqlite3 *db = NULL;
	int err = open_db(path, SQLITE_OPEN_READONLY, &db, e);
	int rc;

	if (err < 0)
		return err;
	rc = int_pragma(db, "PRAGMA user_version", version);
	err = rc == SQLITE_OK ? 0 : db_fail(db, rc, path, "cannot read", e);
	sqlite3_close(db);
	return err;
}

int db_application_id(sqlite3 *db)
{
	int app = 0;

	return int_pragma(db, "PRAGMA application_id", &app) == SQLITE_OK ? app : 0;
}

int db_open_beside(sqlite3 *writer, const char *path, sqlite3 **out,
		   struct errmsg *e)
{
	struct stat sb;
	int fd = -1, err;

	for (size_t i = 0; i < nwriter_locks; i++)
		if (writer_locks[i].db == writer)
			fd = writer_locks[i].fd;
	if (fd < 0 || fstat(fd, &sb) < 0)
		return errmsg_set(e, EBADF, "cannot open '%s' again: faultline "
				  "does not write it", path);
	err = open_db(path, SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOFOLLOW, out, e);
	if (err == 0 && !same_file(path, &sb)) {
		sqlite3_close(*out);
		*out = NULL;
		err = errmsg_set(e, EAGAIN, "cannot open '%s' again: it was "
				 "replaced while faultline wrote it; check who "
				 "else writes there", path);
	}
	return err;
}

int db_in_wal_mode(sqlite3 *db)
{
	sqlite3_stmt *st = NULL;
	int wal = 0;

	/* A read first: the header is read at the connection's first. */
	if (sqlite3_exec(db, "SELECT count(*) FROM sqlite_master", NULL, NULL,
			 NULL) != SQLITE_OK ||
	    sqlite3_prepare_v2(db, "PRAGMA journal_mode", -1, &st, NULL) != SQLITE_OK)
		return 0;
	if (sqlite3_step(st) == SQLITE_ROW)
		wal = !sqlite3_stricmp((const char *)sqlite3_column_text(st, 0), "wal");
	sqlite3_finalize(st);
	return wal;
}

void db_close(sqlite3 *db)
{
	sqlite3_close(db);
	/* After SQLite's close: the flock goes last. */
	drop_writer_lock(db);
}
