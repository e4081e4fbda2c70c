/*
 * faultline upgrade: brings a database written by an older faultline to
 * this one's schema, in place (schema/upgrade.h), so it reads again.
 * Writing into one (record, import, label, merge) upgrades it as well;
 * readers refuse it and name this command, since a reader writes nothing.
 */
#include <stdio.h>
#include <unistd.h>

#include "../schema/db.h"
#include "commands.h"
#include "opt.h"
#include "session_pick.h"
#include "usage.h"

static const char upgrade_usage[] = "faultline upgrade DB";

static const char upgrade_examples[] = "  faultline upgrade run.db\n";

static int run(const char *path)
{
	struct errmsg e;
	sqlite3 *db = NULL;
	int from = 0, marked;

	errmsg_init(&e);
	if (access(path, F_OK) < 0)
		return error("upgrade", "no such file '%s': give the path of a "
			     "faultline database", path), 1;
	if (db_file_version(path, &from, &e) < 0)
		return error("upgrade", "%s", e.text), 1;
	/* No version: an empty file, or another program's database; an
	 * upgrade would make the first a new faultline database. */
	if (from == 0)
		return error("upgrade", "'%s' is not a faultline database (it "
			     "has no schema version): nothing to upgrade", path), 1;
	if (from == SCHEMA_VERSION) {
		/* faultline's (db_open_read refuses another program's file),
		 * and marked as such unless written before the mark. */
		if (db_open_read(path, &db, &e) < 0)
			return error("upgrade", "%s", e.text), 1;
		marked = db_application_id(db) == FL_APPLICATION_ID;
		db_close(db);
		db = NULL;
		if (marked) {
			printf("'%s' is schema %d already: nothing to do\n", path, from);
			return 0;
		}
	}
	if (db_open_write(path, &db, &e) < 0 || db_end_write(db, path, &e) < 0) {
		db_close(db);
		return error("upgrade", "%s", e.text), 1;
	}
	db_close(db);
	if (from == SCHEMA_VERSION)
		printf("'%s' is schema %d already; marked it as faultline's "
		       "(application_id)\n", path, from);
	else
		printf("upgraded '%s' from schema %d to %d\n", path, from,
		       SCHEMA_VERSION);
	return 0;
}

int cmd_upgrade(int argc, char **argv)
{
	const struct opt opts[] = { { 0 } };
	const struct cmd_usage u = {
		"upgrade", upgrade_usage,
		"Upgrade a database written by an older faultline to this one's "
		"schema, in place.",
		upgrade_examples, opts,
	};
	const char *db = NULL;
	int res = parse_db_args(&u, argc, argv, &db);

	return res == OPT_HELP ? 0 : res < 0 ? EXIT_USAGE : run(db);
}
