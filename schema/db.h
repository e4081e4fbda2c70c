/*
 * db: opening a faultline database and turning SQLite's failures into
 * messages with a cause and a fix.  The only code that creates tables.
 */
#ifndef FL_DB_H
#define FL_DB_H

#include <sqlite3.h>

#include "../common/errmsg.h"

#define SCHEMA_VERSION 3
#define FL_STR_(x) #x
#define FL_STR(x) FL_STR_(x)

/*
 * Opens (creating if needed) the database at path for writing, applies
 * the schema to a new file, and checks an existing one is faultline's and
 * of a version this build reads.  Takes the write lock once to fail early
 * (and clearly) when another process holds it.  On success *out is an
 * open handle the caller closes with db_close.  Returns 0 or a negative
 * errno with e set.
 */
int db_open_write(const char *path, sqlite3 **out, struct errmsg *e);

/* Opens an existing faultline database read-only.  Same contract. */
int db_open_read(const char *path, sqlite3 **out, struct errmsg *e);

/* Makes the secondary indexes (after a load).  0 or negative errno. */
int db_build_indexes(sqlite3 *db, const char *path, struct errmsg *e);

/* Closes db (NULL is fine). */
void db_close(sqlite3 *db);

/*
 * Turns a failed SQLite call into a negative errno and a message:
 * "<what> '<path>': <cause>; <fix>".  rc is the call's result code.
 */
int db_fail(sqlite3 *db, int rc, const char *path, const char *what,
	    struct errmsg *e);

#endif
