/*
 * faultline label: adds, replaces or removes labels of a recorded
 * session (session.labels), after the fact, in one UPDATE.
 */
#include <errno.h>
#include <stdio.h>
#include <stdint.h>

#include "../common/strbuf.h"
#include "../schema/db.h"
#include "commands.h"
#include "../common/labels.h"
#include "opt.h"
#include "session_pick.h"
#include "usage.h"

static const char label_usage[] =
	"faultline label DB [--session N] KEY=VALUE...";

static const char label_examples[] =
	"  faultline label run.db run=4711 build=abc123 role=mds\n"
	"  faultline label run.db --session 2 role=gateway\n"
	"  faultline label run.db build=        # removes the label build\n";

/* json_patch (RFC 7396): a key set to null is removed, any other value
 * set; the result is written again as the stored label object
 * (common/labels.h): keys in byte order, values strings, so a session
 * labelled after the fact holds what record --label would have stored,
 * and one of an older version (keys in the order given) is made so. */
static int apply(sqlite3 *db, const char *path, int64_t session,
		 const char *patch, struct errmsg *e)
{
	sqlite3_stmt *st = NULL;
	int rc = sqlite3_prepare_v2(db, "UPDATE session SET labels ="
				    " (SELECT json_group_object(key, CAST(value AS TEXT))"
				    "   FROM (SELECT key, value FROM"
				    "   json_each(json_patch(labels, ?1))"
				    "   ORDER BY key COLLATE BINARY))"
				    " WHERE session_id = ?2",
				    -1, &st, NULL);

	if (rc == SQLITE_OK) {
		sqlite3_bind_text(st, 1, patch, -1, SQLITE_STATIC);
		sqlite3_bind_int64(st, 2, session);
		rc = sqlite3_step(st);
	}
	sqlite3_finalize(st);
	return rc == SQLITE_DONE ? 0 : db_fail(db, rc, path, "cannot label", e);
}

static void print_labels(sqlite3 *db, const char *path, int64_t session)
{
	sqlite3_stmt *st = NULL;

	if (sqlite3_prepare_v2(db, "SELECT labels, uuid FROM session WHERE session_id = ?",
			       -1, &st, NULL) != SQLITE_OK)
		return;
	sqlite3_bind_int64(st, 1, session);
	if (sqlite3_step(st) == SQLITE_ROW)
		printf("session %lld in '%s' (uuid %s): labels %s\n",
		       (long long)session, path,
		       sqlite3_column_text(st, 1) ? (const char *)sqlite3_column_text(st, 1)
						 : "none",
		       (const char *)sqlite3_column_text(st, 0));
	sqlite3_finalize(st);
}

static int run(const char *path, int64_t session, const struct labels *l)
{
	struct strbuf patch;
	struct errmsg e;
	sqlite3 *db = NULL;
	int err;

	errmsg_init(&e);
	strbuf_init(&patch);
	labels_json(l, &patch);
	err = strbuf_error(&patch) ? errmsg_set(&e, ENOMEM, "out of memory") : 0;
	/* Read-only first: a missing file is an error, not a new database. */
	if (err == 0)
		err = db_open_read(path, &db, &e);
	db_close(db);
	db = NULL;
	if (err == 0)
		err = db_open_write(path, &db, &e);
	if (err == 0)
		err = session_pick(db, path, &session, &e);
	if (err == 0)
		err = apply(db, path, session, strbuf_str(&patch), &e);
	strbuf_release(&patch);
	if (err < 0) {
		db_close(db);
		return error("label", "%s", e.text), 1;
	}
	print_labels(db, path, session);
	if (db_end_write(db, path, &e) < 0)
		warning("label", "%s", e.text);
	db_close(db);
	return 0;
}

/* "DB", options and KEY=VALUE arguments in any order after it. */
static int parse(const struct cmd_usage *u, int argc, char **argv,
		 const char **db, struct labels *l)
{
	struct errmsg e;
	int pos = opt_parse(u, argc, argv), got;

	if (pos < 0)
		return pos;
	if (pos == argc) {
		error("label", "no database given; see 'faultline label -h'");
		return OPT_USAGE;
	}
	*db = argv[pos++];
	while (pos < argc) {
		/* argv[pos - 1] stands in for the command's name. */
		got = opt_parse(u, argc - pos + 1, argv + pos - 1);
		if (got < 0)
			return got;
		pos += got - 1;
		if (pos == argc)
			break;
		errmsg_init(&e);
		if (labels_add(l, argv[pos++], "label", &e) < 0) {
			error("label", "%s", e.text);
			return OPT_USAGE;
		}
	}
	if (l->n == 0) {
		error("label", "no KEY=VALUE given; see 'faultline label -h'");
		return OPT_USAGE;
	}
	return 0;
}

int cmd_label(int argc, char **argv)
{
	int64_t session = 0;
	const struct opt opts[] = {
		{ 's', "session", "N", "the session to label (default: the latest)",
		  OPT_CALLBACK, &session, session_pick_parse },
		{ 0 },
	};
	const struct cmd_usage u = {
		"label", label_usage,
		"Add, replace or remove labels of a recorded session: KEY=VALUE "
		"sets one, KEY= removes it.",
		label_examples, opts,
	};
	struct labels l;
	const char *db = NULL;
	int res, status;

	labels_init(&l, 1);
	res = parse(&u, argc, argv, &db, &l);
	status = res == OPT_HELP ? 0 : res < 0 ? EXIT_USAGE : run(db, session, &l);
	labels_release(&l);
	return status;
}
