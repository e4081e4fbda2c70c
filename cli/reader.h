/*
 * reader: how the commands that read a recording open it.  A session
 * whose recorder was killed (schema/killed.h) is said on stderr, once
 * per session, before anything is read from it, and marked 'killed'
 * where the file is writable and no other faultline writes it; a
 * finished file is opened as db_open_read opens it, writing nothing.
 */
#ifndef FL_READER_H
#define FL_READER_H

#include <sqlite3.h>

#include "../common/errmsg.h"

/* db_open_read's contract; cmd names the command in the notes. */
int reader_open(const char *cmd, const char *path, sqlite3 **db,
		struct errmsg *e);

#endif
