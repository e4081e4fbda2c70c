/* diagnose_cli: what faultline diagnose and faultline report share. */
#ifndef FL_DIAGNOSE_CLI_H
#define FL_DIAGNOSE_CLI_H

#include <sqlite3.h>

#include "../common/errmsg.h"

/*
 * The metric whose events stalls are lined up with: asked (borrowed into
 * *out), or, when asked is NULL, the database's one imported metric (a
 * copy the caller frees) when it holds exactly one, else NULL.  0, or a
 * negative errno with e set.
 */
int diag_default_event(sqlite3 *db, const char *asked, const char **out,
		       struct errmsg *e);

#endif
