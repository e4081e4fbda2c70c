#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "pg_conn.h"

int pg_is_target(const char *s)
{
	return !strncmp(s, "postgresql://", 13) || !strncmp(s, "postgres://", 11);
}

const char *pg_shown(const char *target, char *buf, size_t n)
{
	const char *auth, *at, *colon, *pw, *end;
	size_t k = 0;

	if (!pg_is_target(target) || n == 0)
		return target;
	auth = strstr(target, "://") + 3;
	at = strchr(auth, '@');
	colon = strchr(auth, ':');
	if (at && strcspn(auth, "/?") > (size_t)(at - auth) && colon && colon < at) {
		/* user:password@ -> user@ */
		k = (size_t)snprintf(buf, n, "%.*s", (int)(colon - target), target);
		target = at;
	}
	/* ?password=...& and &password=... go. */
	while ((pw = strstr(target, "password=")) && pw > target &&
	       (pw[-1] == '?' || pw[-1] == '&')) {
		end = strchr(pw, '&');
		if (k < n)
			k += (size_t)snprintf(buf + k, n - k, "%.*s", (int)(pw - target), target);
		target = end ? end + 1 : pw + strlen(pw);
	}
	if (k < n)
		snprintf(buf + k, n - k, "%s", target);
	/* A URL that ends in '?' or '&' where a password was cut. */
	k = strlen(buf);
	while (k && (buf[k - 1] == '?' || buf[k - 1] == '&'))
		buf[--k] = '\0';
	return buf;
}

const char *pg_where(PGconn *c, char *buf, size_t n)
{
	const char *host = PQhost(c);

	snprintf(buf, n, "host %s port %s database %s user %s",
		 host && *host ? host : "(default)", PQport(c) ? PQport(c) : "?",
		 PQdb(c) ? PQdb(c) : "?", PQuser(c) ? PQuser(c) : "?");
	return buf;
}

/* libpq's message without its trailing newline, its lines joined. */
static void one_line(const char *msg, char *buf, size_t n)
{
	size_t k = 0;

	for (; msg && *msg && k + 1 < n; msg++) {
		if (*msg == '\n') {
			if (msg[1] && k + 2 < n) {
				buf[k++] = ';';
				buf[k++] = ' ';
			}
			continue;
		}
		buf[k++] = *msg;
	}
	while (k && buf[k - 1] == ' ')
		k--;
	buf[k] = '\0';
}

/* What to do about a failed connection, by what libpq said. */
static const char *connect_fix(const char *msg, int *err)
{
	*err = ECONNREFUSED;
	if (strstr(msg, "password authentication failed") ||
	    strstr(msg, "no password supplied") ||
	    strstr(msg, "SCRAM authentication")) {
		*err = EACCES;
		return "check the user and password (in the URL, PGPASSWORD or "
		       "~/.pgpass, see faultline-export(1))";
	}
	if (strstr(msg, "does not exist")) {
		*err = ENOENT;
		return "create it first (createdb) or name an existing one";
	}
	if (strstr(msg, "no pg_hba.conf entry") || strstr(msg, "permission denied")) {
		*err = EACCES;
		return "the server does not let this user in; ask its administrator "
		       "(pg_hba.conf) or connect as another user";
	}
	if (strstr(msg, "invalid") || strstr(msg, "missing"))
		return "check the connection string: a postgresql:// URI or "
		       "key=value pairs, as psql takes them";
	return "is the server running and accepting connections there? check "
	       "the host and port (in the URL, or PGHOST and PGPORT)";
}

int pg_connect(const char *target, PGconn **out, struct errmsg *e)
{
	const char *const keys[] = { "dbname", "fallback_application_name",
				     "client_encoding", NULL };
	const char *const values[] = { target, "faultline", "UTF8", NULL };
	char msg[600], where[300];
	const char *fix;
	PGconn *c;
	int err;

	*out = NULL;
	/* libpq itself, first (pq_lib.h). */
	err = pq_lib_load(e);
	if (err < 0)
		return err;
	c = PQconnectdbParams(keys, values, 1);
	if (!c)
		return errmsg_set(e, ENOMEM, "out of memory connecting to PostgreSQL");
	if (PQstatus(c) == CONNECTION_OK) {
		*out = c;
		/* CREATE ... IF NOT EXISTS says NOTICE each time: not news. */
		return pg_exec(c, "SET client_min_messages TO warning",
			       "cannot set up the connection", e);
	}
	one_line(PQerrorMessage(c), msg, sizeof(msg));
	fix = connect_fix(msg, &err);
	pg_where(c, where, sizeof(where));
	PQfinish(c);
	return errmsg_set(e, err, "cannot connect to PostgreSQL (%s): %s; %s",
			  where, msg, fix);
}

/* Did the server end the connection with this error?  A terminated
 * backend sends FATAL 57P01 before it closes, and libpq may hand that
 * result over before it sees the connection close. */
static int connection_ended(const PGresult *r)
{
	const char *state = r ? PQresultErrorField(r, PG_DIAG_SQLSTATE) : NULL;

	return state && (!strncmp(state, "57P", 3) || !strncmp(state, "08", 2));
}

int pg_fail(PGconn *c, const PGresult *r, const char *what, struct errmsg *e)
{
	char msg[600];

	one_line(r ? PQresultErrorMessage(r) : PQerrorMessage(c), msg, sizeof(msg));
	if (!*msg)
		one_line(PQerrorMessage(c), msg, sizeof(msg));
	if (PQstatus(c) != CONNECTION_OK || connection_ended(r))
		return errmsg_set(e, ECONNRESET, "%s: the connection to PostgreSQL "
				  "was lost (%s); the server stopped or the backend "
				  "was terminated: nothing of the session in progress "
				  "was committed, run the export again", what, msg);
	return errmsg_set(e, EIO, "%s: PostgreSQL said: %s", what, msg);
}

int pg_exec(PGconn *c, const char *sql, const char *what, struct errmsg *e)
{
	PGresult *r = PQexec(c, sql);
	ExecStatusType st = r ? PQresultStatus(r) : PGRES_FATAL_ERROR;
	int err = 0;

	if (st != PGRES_COMMAND_OK && st != PGRES_TUPLES_OK)
		err = pg_fail(c, r, what, e);
	PQclear(r);
	return err;
}

int pg_ident(const char *s, char *buf, size_t n)
{
	size_t k = 0;

	if (n < 3)
		return -ENAMETOOLONG;
	buf[k++] = '"';
	for (; *s; s++) {
		if (k + 4 > n)
			return -ENAMETOOLONG;
		if (*s == '"')
			buf[k++] = '"';
		buf[k++] = *s;
	}
	buf[k++] = '"';
	buf[k] = '\0';
	return 0;
}
