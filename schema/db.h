/*
 * db: opening a faultline database and turning SQLite's failures into
 * messages with a cause and a fix.  The only code that creates tables.
 */
#ifndef FL_DB_H
#define FL_DB_H

#include <sqlite3.h>

#include "../common/errmsg.h"

#define SCHEMA_VERSION 10
/* faultline's mark in a database file's header (PRAGMA application_id),
 * "FLTL": set when a file is made or upgraded.  A file with another
 * mark is another program's; a file with none is faultline's only when
 * it has faultline's tables (one written before the mark). */
#define FL_APPLICATION_ID 0x464c544c

/* The oldest schema this build upgrades in place (db_upgrade). */
#define SCHEMA_VERSION_UPGRADABLE 3

/* A random RFC 4122 version-4 UUID, lower-case, as an SQL expression:
 * the session's uuid (schema.sql has the same as its default). */
#define FL_SQL_UUID "(lower(hex(randomblob(4))) || '-' || " \
	"lower(hex(randomblob(2))) || '-4' || " \
	"substr(lower(hex(randomblob(2))), 2) || '-' || " \
	"substr('89ab', 1 + abs(random()) % 4, 1) || " \
	"substr(lower(hex(randomblob(2))), 2) || '-' || " \
	"lower(hex(randomblob(6))))"
#define FL_STR_(x) #x
#define FL_STR(x) FL_STR_(x)

/*
 * Keeps room on path's file system for a session row's last update: a
 * file with no name (O_TMPFILE) in path's directory, DB_END_ROOM_BYTES
 * long, given back by db_end_room_release just before that update.  A
 * disk that fills up while recording then still takes the row's
 * 'failed' and its counts.  Room taken past the -wal's end after each
 * commit was not enough: once less than its size was left, a commit
 * could fill the disk to the byte, and the row kept saying 'recording'.
 * Returns the file's descriptor, or -1 where the file system keeps none
 * (no O_TMPFILE, no room left, or db has no file): best effort, nothing
 * is said.
 */
int db_end_room_take(sqlite3 *db);
void db_end_room_release(int *fd);

/* Called once, first thing in a process, before any database is opened:
 * SQLite then keeps no allocation statistics, which take a mutex on every
 * allocation (a fault row's insert cost 13% more with them). */
void db_library_setup(void);

/*
 * Opens (creating if needed) the database at path for writing, applies
 * the schema to a new file, and checks an existing one is faultline's and
 * of a version this build reads, upgrading an older one.  In order:
 *
 *   - the final component of path must not be a symbolic link, and the
 *     file a regular one; a new file is made 0600 (less the umask);
 *   - one faultline writer per file: a second one (record, import,
 *     merge, label, upgrade) is refused here, before it takes any of
 *     SQLite's locks, with the running recording's session and pid;
 *   - an existing file is judged read-only first: another program's
 *     SQLite file (another application_id, or none and not faultline's
 *     tables) is refused with its bytes untouched;
 *   - then SQLite's write lock is taken once, to fail early (and
 *     clearly) when a process other than faultline holds it.
 *
 * On success *out is an open handle the caller closes with db_close
 * (which also lets go of the writer's lock).  Returns 0 or a negative
 * errno with e set.
 */
int db_open_write(const char *path, sqlite3 **out, struct errmsg *e);

/*
 * Opens an existing faultline database for reading only, in a way that
 * writes nothing, not even SQLite's side files, so a finished database
 * reads on a read-only mount or from a directory the reader cannot write:
 *
 *   - a file a writer finished (db_end_write: rollback-journal mode) is
 *     opened read-only; readers of that mode need no side file;
 *   - a file still in WAL mode that no process holds open, whose -wal is
 *     absent or empty (everything is in the file), is opened immutable:
 *     without locks, -wal or -shm;
 *   - a file in WAL mode that a writer holds (a recording in progress)
 *     is opened read-only beside it, sharing the writer's -wal and -shm.
 *
 * Same contract as db_open_write otherwise.
 */
int db_open_read(const char *path, sqlite3 **out, struct errmsg *e);

/*
 * Ends a write: switches db (from db_open_write) to rollback-journal
 * mode, which checkpoints the WAL into the file and removes the -wal and
 * -shm files, so the finished file stands alone and a reader needs
 * nothing beside it.  The next db_open_write turns WAL on again.  When
 * another process has the database open (a query during a recording),
 * SQLite cannot change the mode: the file stays in WAL mode, complete,
 * and the side files go with the last connection; that returns -EBUSY
 * with e saying so, and nothing is lost.  NULL db: nothing to do.
 * 0 or a negative errno with e set.  The caller still calls db_close.
 */
int db_end_write(sqlite3 *db, const char *path, struct errmsg *e);

/* Pages of WAL that make a checkpoint: 8 MiB of 64 KiB pages (SQLite's
 * default, 1000 pages, would be 64 MiB of them): each holds the loader
 * up for less, so the events queued meanwhile, and faultline's memory,
 * stay small.  The writer's own (wal_autocheckpoint), or a
 * checkpointer's while one runs (schema/checkpointer.h). */
#define DB_CHECKPOINT_PAGES 128

/* A second connection to path, the file writer (a db_open_write handle)
 * writes, for another thread: refused when path is no longer that file.
 * 0 or a negative errno with e set; close it with db_close. */
int db_open_beside(sqlite3 *writer, const char *path, sqlite3 **out,
		   struct errmsg *e);

/* Is db's file in WAL mode (read from the file, not assumed)?  1 or 0. */
int db_in_wal_mode(sqlite3 *db);

/* Makes the secondary indexes (after a load), every one that does not
 * exist.  0 or negative errno. */
int db_build_indexes(sqlite3 *db, const char *path, struct errmsg *e);
/* Makes those kept up during a load (load_indexes.sql), before it; where
 * they exist, nothing.  0 or negative errno. */
int db_load_indexes(sqlite3 *db, const char *path, struct errmsg *e);

/* SQLite's page cache of db: PRAGMA cache_size's value (negative: KiB,
 * positive: pages), read and set. */
int db_cache_size(sqlite3 *db);
void db_set_cache_size(sqlite3 *db, int size);

/* The schema version (user_version) of the SQLite file at path, read
 * without writing or creating anything; 0 for a file with none.  0, or a
 * negative errno with e set (no such file, not SQLite). */
int db_file_version(const char *path, int *version, struct errmsg *e);

/* The application_id in db's header: FL_APPLICATION_ID in a file
 * faultline made or upgraded; 0 in one written before the mark (or
 * when it cannot be read). */
int db_application_id(sqlite3 *db);

/* Closes db (NULL is fine); a writer's lock goes with it. */
void db_close(sqlite3 *db);

/*
 * Turns a failed SQLite call into a negative errno and a message:
 * "<what> '<path>': <cause>; <fix>".  rc is the call's result code.
 */
int db_fail(sqlite3 *db, int rc, const char *path, const char *what,
	    struct errmsg *e);

#endif
