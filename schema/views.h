/*
 * views: a reader's views as this faultline defines them.  A file made by
 * an older faultline of the same schema version may lack a view, or hold
 * an older definition of it (views hold no rows, so the version does not
 * change with them); a reader that uses one makes it current for its own
 * connection, as a TEMP view (searched before the file's), and writes
 * nothing to the file.
 */
#ifndef FL_SCHEMA_VIEWS_H
#define FL_SCHEMA_VIEWS_H

#include <stddef.h>
#include <stdint.h>
#include <sqlite3.h>

#include "../common/errmsg.h"

/*
 * Makes view name (of schema.sql) current on db: nothing when the file's
 * definition is schema.sql's, else a TEMP view of that definition.  0;
 * -ENOMEM; -EIO with e set when SQLite fails.
 */
int schema_view_current(sqlite3 *db, const char *name, struct errmsg *e);

/* The same for names[0..n), in that order (a view before the views that
 * read it).  A view of the file reads the file's views, not TEMP ones, so
 * once one is made TEMP every one after it is made TEMP too. */
int schema_views_current(sqlite3 *db, const char *const *names, size_t n,
			 struct errmsg *e);

/* The stack views every reader of stacks uses: stack_cut, stack_shown and
 * stack_frame_name (schema.sql says what each holds). */
int schema_stack_views_current(sqlite3 *db, struct errmsg *e);

/*
 * The views that say what issued a wake-up and what a stall is, for a
 * reader of session_id (0: of every session): what wake_source_by_stack
 * says of that session's stacks, worked out once into a TEMP table of
 * that name, then wake_source, thread_state_waker, sleep_wait, stall and
 * thread_state_reason as TEMP views reading it.  The file's own views
 * work out each stack of every session again in each statement (a file
 * recorded before them, each interval's); the TEMP table holds only the
 * session's, so reading another session through these views afterwards
 * finds no wake-up sources.
 */
int schema_wake_views_current(sqlite3 *db, int64_t session_id,
			      struct errmsg *e);

#endif
