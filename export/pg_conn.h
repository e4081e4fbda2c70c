/*
 * pg_conn: a connection to PostgreSQL through libpq, and libpq's failures
 * turned into messages with a cause and a fix.  The target string goes to
 * libpq as it is (a postgresql:// URI or "key=value" conninfo), so the
 * PG* environment variables, ~/.pgpass and service files apply the way
 * they do for psql.
 */
#ifndef FL_PG_CONN_H
#define FL_PG_CONN_H

#include "pq_lib.h"

#include "../common/errmsg.h"

/* Does s name a PostgreSQL server (postgresql:// or postgres://)? */
int pg_is_target(const char *s);

/*
 * Connects to target (borrowed) into *out, which the caller closes with
 * PQfinish; client encoding UTF8, application_name "faultline" unless the
 * target names one.  0, or -ECONNREFUSED, -EACCES or -EIO with e saying
 * why and what to do.
 */
int pg_connect(const char *target, PGconn **out, struct errmsg *e);

/*
 * Runs sql (no parameters) on c.  0, or -EIO with e set to
 * "<what>: <server's message>; <fix>".
 */
int pg_exec(PGconn *c, const char *sql, const char *what, struct errmsg *e);

/*
 * The message for a failed call on c, r its result (NULL when there is
 * none); r is not cleared here.  Returns -EIO (-ECONNRESET when the
 * connection was lost).
 */
int pg_fail(PGconn *c, const PGresult *r, const char *what, struct errmsg *e);

/*
 * target as faultline names it in messages and in what it writes: a
 * postgresql:// URL without its password (user:PASSWORD@, password=),
 * into buf (n bytes), which is returned; any other target as it is.
 */
const char *pg_shown(const char *target, char *buf, size_t n);

/* "host H port P database D user U" of c, into buf; returns buf. */
const char *pg_where(PGconn *c, char *buf, size_t n);

/* s as a quoted identifier ("a""b") into buf; -ENAMETOOLONG when it
 * does not fit in n bytes. */
int pg_ident(const char *s, char *buf, size_t n);

#endif
