/*
 * pq_lib: libpq, loaded when a command first talks to PostgreSQL.
 *
 * Why not linked: libpq brings some twenty libraries with it (TLS,
 * Kerberos, LDAP, SASL): 5 MB of a recorder's resident memory, a sixth of
 * its peak on the fault loop, and their relocations at every start, for
 * commands that never connect.  So faultline takes libpq's headers at
 * build time and the library at run time, as perf takes libpython.
 *
 * Include this instead of <libpq-fe.h>: each PQ function below is then
 * called through the loaded library, as before.  pg_connect loads it
 * (pq_lib_load) before its first call; PQfinish, PQclear and PQfreemem
 * of NULL do nothing, as libpq's do, loaded or not; any other PQ call
 * before a load is a bug, and aborts with a message.  The table of functions is filled once
 * and only read after: the dynamic linker's job, done late.
 */
#ifndef FL_PQ_LIB_H
#define FL_PQ_LIB_H

#include <libpq-fe.h>

#include "../common/errmsg.h"

#define PQ_LIB_SONAME "libpq.so.5"

/* X(return type, name, parameters): every libpq function faultline calls. */
#define PQ_LIB_FUNCTIONS(X)                                                   \
	X(PGconn *, PQconnectdbParams, (const char *const *, const char *const *, int)) \
	X(void, PQfinish, (PGconn *))                                         \
	X(ConnStatusType, PQstatus, (const PGconn *))                         \
	X(PGTransactionStatusType, PQtransactionStatus, (const PGconn *))     \
	X(char *, PQerrorMessage, (const PGconn *))                           \
	X(char *, PQdb, (const PGconn *))                                     \
	X(char *, PQuser, (const PGconn *))                                   \
	X(char *, PQhost, (const PGconn *))                                   \
	X(char *, PQport, (const PGconn *))                                   \
	X(PGresult *, PQexec, (PGconn *, const char *))                       \
	X(PGresult *, PQexecParams, (PGconn *, const char *, int, const Oid *, \
				     const char *const *, const int *, const int *, int)) \
	X(PGresult *, PQgetResult, (PGconn *))                                \
	X(ExecStatusType, PQresultStatus, (const PGresult *))                 \
	X(char *, PQresultErrorMessage, (const PGresult *))                   \
	X(char *, PQresultErrorField, (const PGresult *, int))                \
	X(int, PQntuples, (const PGresult *))                                 \
	X(int, PQnfields, (const PGresult *))                                 \
	X(char *, PQfname, (const PGresult *, int))                           \
	X(Oid, PQftype, (const PGresult *, int))                              \
	X(char *, PQgetvalue, (const PGresult *, int, int))                   \
	X(int, PQgetisnull, (const PGresult *, int, int))                     \
	X(void, PQclear, (PGresult *))                                        \
	X(int, PQputCopyData, (PGconn *, const char *, int))                  \
	X(int, PQputCopyEnd, (PGconn *, const char *))                        \
	X(int, PQgetCopyData, (PGconn *, char **, int))                       \
	X(void, PQfreemem, (void *))

struct pq_lib {
#define PQ_LIB_FIELD(ret, name, params) ret (*name) params;
	PQ_LIB_FUNCTIONS(PQ_LIB_FIELD)
#undef PQ_LIB_FIELD
};

/* Loads libpq once.  0, or -ENOENT with e saying what to install. */
int pq_lib_load(struct errmsg *e);

/* The loaded functions (pq_lib_load succeeded before: else it aborts). */
const struct pq_lib *pq_lib(void);

#define PQconnectdbParams(...) (pq_lib()->PQconnectdbParams(__VA_ARGS__))
/* NULL is no connection or result, as libpq takes it, whether or not
 * libpq was loaded: cleanup paths free what may never have been made. */
static inline void pq_finish(PGconn *c)
{
	if (c)
		pq_lib()->PQfinish(c);
}

static inline void pq_clear(PGresult *r)
{
	if (r)
		pq_lib()->PQclear(r);
}

static inline void pq_freemem(void *p)
{
	if (p)
		pq_lib()->PQfreemem(p);
}

#define PQfinish(c) pq_finish(c)
#define PQstatus(...) (pq_lib()->PQstatus(__VA_ARGS__))
#define PQtransactionStatus(...) (pq_lib()->PQtransactionStatus(__VA_ARGS__))
#define PQerrorMessage(...) (pq_lib()->PQerrorMessage(__VA_ARGS__))
#define PQdb(...) (pq_lib()->PQdb(__VA_ARGS__))
#define PQuser(...) (pq_lib()->PQuser(__VA_ARGS__))
#define PQhost(...) (pq_lib()->PQhost(__VA_ARGS__))
#define PQport(...) (pq_lib()->PQport(__VA_ARGS__))
#define PQexec(...) (pq_lib()->PQexec(__VA_ARGS__))
#define PQexecParams(...) (pq_lib()->PQexecParams(__VA_ARGS__))
#define PQgetResult(...) (pq_lib()->PQgetResult(__VA_ARGS__))
#define PQresultStatus(...) (pq_lib()->PQresultStatus(__VA_ARGS__))
#define PQresultErrorMessage(...) (pq_lib()->PQresultErrorMessage(__VA_ARGS__))
#define PQresultErrorField(...) (pq_lib()->PQresultErrorField(__VA_ARGS__))
#define PQntuples(...) (pq_lib()->PQntuples(__VA_ARGS__))
#define PQnfields(...) (pq_lib()->PQnfields(__VA_ARGS__))
#define PQfname(...) (pq_lib()->PQfname(__VA_ARGS__))
#define PQftype(...) (pq_lib()->PQftype(__VA_ARGS__))
#define PQgetvalue(...) (pq_lib()->PQgetvalue(__VA_ARGS__))
#define PQgetisnull(...) (pq_lib()->PQgetisnull(__VA_ARGS__))
#define PQclear(r) pq_clear(r)
#define PQputCopyData(...) (pq_lib()->PQputCopyData(__VA_ARGS__))
#define PQputCopyEnd(...) (pq_lib()->PQputCopyEnd(__VA_ARGS__))
#define PQgetCopyData(...) (pq_lib()->PQgetCopyData(__VA_ARGS__))
#define PQfreemem(p) pq_freemem(p)

#endif
