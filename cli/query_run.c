#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../common/labels.h"
#include "../schema/db.h"
#include "opt.h"
#include "query_run.h"
#include "session_pick.h"
#include "usage.h"

/* opt_parse stops at each positional argument (its table starts with
 * '+'); that argument is kept and parsing goes on after it, with it in
 * the place of argv[0]. */
int opt_parse_mixed(const struct cmd_usage *u, int argc, char **argv,
		    char **pos, int *npos)
{
	int k = 0, r;

	*npos = 0;
	while (k < argc) {
		r = opt_parse(u, argc - k, argv + k);
		if (r < 0)
			return r;
		k += r;
		if (k >= argc)
			break;
		if (*npos == ARGS_MAX)
			return error(u->name, "too many arguments; at most %d",
				     ARGS_MAX), OPT_USAGE;
		pos[(*npos)++] = argv[k];
		if (!strcmp(argv[k - 1], "--"))
			while (++k < argc && *npos < ARGS_MAX)
				pos[(*npos)++] = argv[k];
	}
	return 0;
}

/* The value of NAME among args ("NAME=VALUE"), or NULL. */
static const char *arg_value(char *const *args, int nargs, const char *name)
{
	size_t n = strlen(name);

	for (int i = 0; i < nargs; i++)
		if (!strncmp(args[i], name, n) && args[i][n] == '=')
			return args[i] + n + 1;
	return NULL;
}

static int parse_int(const char *s, int64_t *out)
{
	char *end;

	errno = 0;
	*out = strtoll(s, &end, 10);
	return *s && !*end && errno == 0 && s[0] != ' ' && s[0] != '+' ? 0 : -1;
}

/* Binds value (text as given or a default) to index i by p's type. */
static int bind_value(sqlite3_stmt *st, int i, const struct query_param *p,
		      const char *value, struct errmsg *e)
{
	int64_t v;
	uint64_t ns;
	double d;

	if (!value)
		return sqlite3_bind_null(st, i) == SQLITE_OK ? 0 : -ENOMEM;
	switch (p->type) {
	case QT_INTEGER:
		if (parse_int(value, &v) < 0)
			return errmsg_set(e, EINVAL, "invalid %s '%s': expected an "
					  "integer", p->name, value);
		return sqlite3_bind_int64(st, i, v) == SQLITE_OK ? 0 : -ENOMEM;
	case QT_DURATION:
		/* The one rule for durations (opt_parse_duration): a unit is
		 * required, as in record and stacks; "200" could be ns or ms. */
		if (opt_parse_duration(value, p->name, &ns, e) < 0)
			return -EINVAL;
		if (ns > INT64_MAX)
			return errmsg_set(e, EINVAL, "invalid %s '%s': too large",
					  p->name, value);
		return sqlite3_bind_int64(st, i, (int64_t)ns) == SQLITE_OK ? 0 : -ENOMEM;
	case QT_REAL:
		if (opt_parse_double(value, p->name, &d, e) < 0)
			return -EINVAL;
		return sqlite3_bind_double(st, i, d) == SQLITE_OK ? 0 : -ENOMEM;
	case QT_LABEL:
		if (label_key_check(value, strlen(value), p->name, value, e) < 0)
			return -EINVAL;
		/* fall through */
	case QT_TEXT:
		return sqlite3_bind_text(st, i, value, -1, SQLITE_TRANSIENT) ==
			SQLITE_OK ? 0 : -ENOMEM;
	}
	return -EINVAL;
}

int query_value_text(const struct query_param *p, const char *value,
		     char *buf, size_t n, struct errmsg *e)
{
	int64_t v;
	uint64_t ns;
	double d;

	switch (p->type) {
	case QT_INTEGER:
		if (parse_int(value, &v) < 0)
			return errmsg_set(e, EINVAL, "invalid %s '%s': expected an "
					  "integer", p->name, value);
		snprintf(buf, n, "%lld", (long long)v);
		return 0;
	case QT_DURATION:
		if (opt_parse_duration(value, p->name, &ns, e) < 0)
			return -EINVAL;
		if (ns > INT64_MAX)
			return errmsg_set(e, EINVAL, "invalid %s '%s': too large",
					  p->name, value);
		snprintf(buf, n, "%llu", (unsigned long long)ns);
		return 0;
	case QT_REAL:
		if (opt_parse_double(value, p->name, &d, e) < 0)
			return -EINVAL;
		snprintf(buf, n, "%.17g", d);
		return 0;
	case QT_LABEL:
		if (label_key_check(value, strlen(value), p->name, value, e) < 0)
			return -EINVAL;
		/* fall through */
	case QT_TEXT:
		if (strlen(value) >= n)
			return errmsg_set(e, EINVAL, "invalid %s: longer than %zu bytes",
					  p->name, n - 1);
		snprintf(buf, n, "%s", value);
		return 0;
	}
	return -EINVAL;
}

const char *query_arg_value(char *const *args, int nargs, const char *name)
{
	return arg_value(args, nargs, name);
}

/* Every argument is NAME=VALUE, once, with a NAME the header declares. */
int query_check_args(const struct query_def *q, char *const *args, int nargs,
		      struct errmsg *e)
{
	for (int i = 0; i < nargs; i++) {
		const char *eq = strchr(args[i], '=');
		char name[64];

		if (!eq || eq == args[i] || (size_t)(eq - args[i]) >= sizeof(name))
			return errmsg_set(e, EINVAL, "invalid argument '%s': expected "
					  "NAME=VALUE, e.g. window=200ms", args[i]);
		memcpy(name, args[i], (size_t)(eq - args[i]));
		name[eq - args[i]] = '\0';
		if (!query_def_param(q, name))
			return errmsg_set(e, EINVAL, "query '%s' has no parameter '%s'; "
					  "'faultline query --list' shows each query's "
					  "parameters", q->name, name);
		if (arg_value(args, i, name))
			return errmsg_set(e, EINVAL, "parameter '%s' given twice; give "
					  "it once", name);
	}
	return 0;
}

/* Binds every parameter the statement uses: from args, else the default. */
static int bind_all(sqlite3_stmt *st, const struct query_def *q,
		    char *const *args, int nargs, struct errmsg *e)
{
	int n = sqlite3_bind_parameter_count(st);

	for (int i = 1; i <= n; i++) {
		const char *pname = sqlite3_bind_parameter_name(st, i);
		const struct query_param *p = pname && pname[0] == ':' ?
			query_def_param(q, pname + 1) : NULL;
		const char *value;
		int err;

		if (!p)
			return errmsg_set(e, EBADMSG, "query '%s' uses %s, which its "
					  "header does not declare under Parameters; "
					  "declare it as ':name TYPE what'", q->name,
					  pname ? pname : "a '?' parameter");
		value = arg_value(args, nargs, p->name);
		if (!value && p->required)
			return errmsg_set(e, EINVAL, "query '%s' needs %s=%s (%s)",
					  q->name, p->name, query_type_name(p->type),
					  p->help ? p->help : "no description");
		err = bind_value(st, i, p, value ? value : p->def, e);
		if (err == -EINVAL && !value)
			return errmsg_set(e, EBADMSG, "query '%s': the default of "
					  ":%s is not a valid %s", q->name, p->name,
					  query_type_name(p->type));
		if (err < 0)
			return err;
	}
	return 0;
}

int query_prepare(sqlite3 *db, const struct query_def *q, char *const *args,
		  int nargs, sqlite3_stmt **out, struct errmsg *e)
{
	sqlite3_stmt *st = NULL, *more = NULL;
	const char *tail = NULL;
	int err = query_check_args(q, args, nargs, e);

	if (err < 0)
		return err;
	if (sqlite3_prepare_v2(db, q->sql, -1, &st, &tail) != SQLITE_OK) {
		err = errmsg_set(e, EBADMSG, "query '%s' does not compile: %s",
				 q->name, sqlite3_errmsg(db));
		goto out;
	}
	if (!st) {
		err = errmsg_set(e, EBADMSG, "query '%s' does not compile: no statement",
				 q->name);
		goto out;
	}
	/* What follows the statement may be comments and blanks only. */
	if (sqlite3_prepare_v2(db, tail, -1, &more, NULL) != SQLITE_OK || more) {
		err = errmsg_set(e, EBADMSG, "query '%s' holds more than one "
				 "statement; faultline runs one", q->name);
		goto out;
	}
	if (!sqlite3_stmt_readonly(st)) {
		err = errmsg_set(e, EBADMSG, "query '%s' would change the database; "
				 "queries only read", q->name);
		goto out;
	}
	err = bind_all(st, q, args, nargs, e);
out:
	sqlite3_finalize(more);
	if (err < 0)
		sqlite3_finalize(st);
	else
		*out = st;
	return err;
}

int query_check_session(sqlite3 *db, const char *path, const struct query_def *q,
			char *const *args, int nargs, struct errmsg *e)
{
	static const char *const names[] = { "session", "session_id" };
	const char *value = NULL;
	int64_t id;

	for (int i = 0; i < 2 && !value; i++)
		if (query_def_param(q, names[i]))
			value = arg_value(args, nargs, names[i]);
	/* None given, or not a number (bind_value says so), or not a
	 * session id: nothing to look up. */
	if (!value || parse_int(value, &id) < 0 || id <= 0)
		return 0;
	return session_pick(db, path, &id, e);
}

/* The metric names db holds, "a, b, c" (at most 20, then "..."), into
 * *names (owned, sqlite3_free); NULL when there are none. */
static int metric_names(sqlite3 *db, char **names)
{
	sqlite3_stmt *st = NULL;
	int rc = sqlite3_prepare_v2(db, "SELECT group_concat(name, ', ') || "
		"CASE WHEN (SELECT count(DISTINCT name) FROM metric_series) > 20 "
		"THEN ', ...' ELSE '' END FROM (SELECT DISTINCT name FROM "
		"metric_series ORDER BY name LIMIT 20)", -1, &st, NULL);
	const char *text;

	*names = NULL;
	if (rc == SQLITE_OK)
		rc = sqlite3_step(st);
	if (rc == SQLITE_ROW) {
		text = (const char *)sqlite3_column_text(st, 0);
		*names = text ? sqlite3_mprintf("%s", text) : NULL;
		rc = text && !*names ? SQLITE_NOMEM : SQLITE_OK;
	}
	sqlite3_finalize(st);
	return rc;
}

int query_check_metric(sqlite3 *db, const char *path, const struct query_def *q,
		       char *const *args, int nargs, struct errmsg *e)
{
	const struct query_param *p = query_def_param(q, "metric");
	const char *name = p ? arg_value(args, nargs, "metric") : NULL;
	sqlite3_stmt *st = NULL;
	char *names = NULL;
	int rc, found, err;

	if (!name)
		return 0;
	rc = sqlite3_prepare_v2(db, "SELECT 1 FROM metric_series WHERE name = ?",
				-1, &st, NULL);
	if (rc == SQLITE_OK)
		rc = sqlite3_bind_text(st, 1, name, -1, SQLITE_STATIC);
	if (rc == SQLITE_OK)
		rc = sqlite3_step(st);
	found = rc == SQLITE_ROW;
	sqlite3_finalize(st);
	if (rc != SQLITE_ROW && rc != SQLITE_DONE)
		return db_fail(db, rc, path, "cannot read", e);
	if (found)
		return 0;
	rc = metric_names(db, &names);
	if (rc != SQLITE_OK)
		return db_fail(db, rc, path, "cannot read", e);
	if (names)
		err = errmsg_set(e, ENOENT, "no metric '%s' in '%s': it holds %s; "
				 "'faultline query %s metrics' shows them by session",
				 name, path, names, path);
	else
		err = errmsg_set(e, ENOENT, "no metric '%s' in '%s': it holds no "
				 "metric; load the application's with 'faultline "
				 "import %s FILE --metric %s'", name, path, path, name);
	sqlite3_free(names);
	return err;
}
