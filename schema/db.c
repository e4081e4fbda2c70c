#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "db.h"

/* Generated from schema.sql and indexes.sql by the Makefile. */
extern const char schema_sql[];
extern const char indexes_sql[];

/* How long to wait for another writer before calling the file locked. */
#define BUSY_TIMEOUT_MS 2000

int db_fail(sqlite3 *db, int rc, const char *path, const char *what,
	    struct errmsg *e)
{
	const char *detail = db ? sqlite3_errmsg(db) : sqlite3_errstr(rc);

	switch (rc & 0xff) {
	case SQLITE_FULL:
		return errmsg_set(e, ENOSPC, "%s '%s': disk full; rows committed "
				  "before this are kept: free space and record again",
				  what, path);
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

/*
 * A file with no tables gets the schema; one with user_version ==
 * SCHEMA_VERSION is ours; anything else is refused with the reason.
 */
static int check_or_create(sqlite3 *db, const char *path, int writable,
			   struct errmsg *e)
{
	int version = 0, tables = 0, rc;

	rc = int_pragma(db, "PRAGMA user_version", &version);
	if (rc == SQLITE_OK)
		rc = int_pragma(db, "SELECT count(*) FROM sqlite_master", &tables);
	if (rc != SQLITE_OK)
		return db_fail(db, rc, path, "cannot read", e);
	if (version == SCHEMA_VERSION)
		return 0;
	if (version > SCHEMA_VERSION)
		return errmsg_set(e, EPROTO, "cannot use '%s': it was written by a "
				  "newer faultline (schema %d, this one reads %d); "
				  "upgrade faultline", path, version, SCHEMA_VERSION);
	if (version > 0)
		return errmsg_set(e, EPROTO, "cannot use '%s': it was written by an "
				  "older faultline (schema %d, this one writes %d); "
				  "record into a new file", path, version,
				  SCHEMA_VERSION);
	if (tables > 0)
		return errmsg_set(e, EINVAL, "cannot use '%s': it is a SQLite "
				  "database, but not faultline's; choose another file",
				  path);
	if (!writable)
		return errmsg_set(e, EINVAL, "cannot read '%s': it is not a "
				  "faultline database (no tables); check the path",
				  path);
	rc = exec(db, "BEGIN IMMEDIATE", path, "cannot create", e);
	if (rc == 0)
		rc = exec(db, schema_sql, path, "cannot create", e);
	if (rc == 0)
		rc = exec(db, "PRAGMA user_version = " FL_STR(SCHEMA_VERSION) "; COMMIT", path,
			  "cannot create", e);
	if (rc < 0)
		sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL);
	return rc;
}

static int open_db(const char *path, int flags, sqlite3 **out,
		   struct errmsg *e)
{
	sqlite3 *db = NULL;
	int rc = sqlite3_open_v2(path, &db, flags, NULL);

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

int db_open_write(const char *path, sqlite3 **out, struct errmsg *e)
{
	sqlite3 *db = NULL;
	struct stat sb;
	int err;

	if (stat(path, &sb) == 0 && S_ISDIR(sb.st_mode))
		return errmsg_set(e, EISDIR, "cannot open '%s': it is a directory; "
				  "give a file name", path);
	err = open_db(path, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, &db, e);
	if (err < 0)
		return err;
	/* 64 KiB pages (a new file only; before WAL, which fixes the size):
	 * the loader wrote 1.67M thread_state rows/s with them against 1.18M
	 * with 4 KiB ones (bench/schema/loader_rate.c's table, same run).
	 * WAL: readers (a query during recording) never block the loader.
	 * synchronous=NORMAL: a commit survives a crash of faultline; only
	 * power loss can take the last commits.  wal_autocheckpoint=128:
	 * checkpoints of 8 MiB (the default 1000 pages is 64 MiB with these
	 * pages): each holds the loader up for less, so the events queued
	 * meanwhile, and faultline's memory, stay small. */
	err = exec(db, "PRAGMA page_size=65536; PRAGMA journal_mode=WAL;"
		   " PRAGMA synchronous=NORMAL; PRAGMA wal_autocheckpoint=128",
		   path, "cannot open", e);
	if (err == 0)
		err = exec(db, "BEGIN IMMEDIATE; COMMIT", path, "cannot write", e);
	if (err == 0)
		err = check_or_create(db, path, 1, e);
	if (err < 0) {
		sqlite3_close(db);
		return err;
	}
	*out = db;
	return 0;
}

int db_open_read(const char *path, sqlite3 **out, struct errmsg *e)
{
	sqlite3 *db = NULL;
	int err;

	if (access(path, F_OK) != 0)
		return errmsg_set(e, ENOENT, "cannot open '%s': no such file; "
				  "record one with 'faultline record -o %s'", path, path);
	err = open_db(path, SQLITE_OPEN_READONLY, &db, e);
	if (err == 0)
		err = check_or_create(db, path, 0, e);
	if (err < 0) {
		sqlite3_close(db);
		return err;
	}
	*out = db;
	return 0;
}

int db_build_indexes(sqlite3 *db, const char *path, struct errmsg *e)
{
	return exec(db, indexes_sql, path, "cannot index", e);
}

void db_close(sqlite3 *db)
{
	sqlite3_close(db);
}
