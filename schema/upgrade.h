/*
 * upgrade: brings a faultline database written by an older schema to
 * this one, in place, in one transaction.
 */
#ifndef FL_UPGRADE_H
#define FL_UPGRADE_H

#include <sqlite3.h>

#include "../common/errmsg.h"

/*
 * Upgrades db (open for writing, at user_version from, with
 * SCHEMA_VERSION_UPGRADABLE <= from < SCHEMA_VERSION) to SCHEMA_VERSION.
 * Every row is kept; sessions get a uuid; the file gets faultline's
 * application_id.  What a user added (views, tables, indexes of names
 * schema.sql does not use) is kept.  All or nothing: on failure the
 * file is as it was.  0, or a negative errno with e set.
 */
int db_upgrade(sqlite3 *db, const char *path, int from, struct errmsg *e);

#endif
