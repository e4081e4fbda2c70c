/*
 * session_select: the sessions of a database an export takes: those named
 * by id, and those carrying every label given (session.labels); all of
 * them when neither is given.  A session still recording is left out
 * (an export keyed by uuid would never take its later rows).
 */
#ifndef FL_SESSION_SELECT_H
#define FL_SESSION_SELECT_H

#include <sqlite3.h>
#include <stddef.h>
#include <stdint.h>

#include "../common/errmsg.h"
#include "../common/labels.h"

/*
 * ids (nids, borrowed) must all be in db: -ENOENT with e naming the one
 * that is not.  labels (borrowed): each a label a
 * session must carry.  *out
 * (owned by the caller, free) gets the session ids in order, *n their
 * count, *recording the count left out as still recording.  0 or a
 * negative errno with e set.
 */
int session_select(sqlite3 *db, const char *path, const int64_t *ids, size_t nids,
		   const struct labels *labels, int64_t **out,
		   size_t *n, size_t *recording, struct errmsg *e);

#endif
