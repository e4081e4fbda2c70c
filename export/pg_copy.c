#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../common/strbuf.h"
#include "pg_conn.h"
#include "pg_copy.h"

/* Sent to the server in pieces of about this size. */
#define COPY_CHUNK (256 * 1024)

double pg_now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

void pg_progress_tick(struct pg_progress *p)
{
	double now;

	if (!p->show)
		return;
	now = pg_now_s();
	if (now - p->shown_s < 0.25)
		return;
	p->shown_s = now;
	p->show(p);
}

/* A growing buffer of COPY text; sent when it passes COPY_CHUNK. */
struct copy_buf {
	char *data;		/* owned */
	size_t len, cap;
};

static int reserve(struct copy_buf *b, size_t more)
{
	size_t cap;
	char *d;

	if (b->len + more <= b->cap)
		return 0;
	cap = b->cap ? b->cap : COPY_CHUNK * 2;
	while (cap < b->len + more)
		cap *= 2;
	d = realloc(b->data, cap);
	if (!d)
		return -ENOMEM;
	b->data = d;
	b->cap = cap;
	return 0;
}

/* Two digits a division: a ns timestamp has 19, and a fault row holds
 * several (this was the client's largest cost, 17% of its samples, with
 * one digit a division). */
static char *put_i64(char *p, int64_t v)
{
	static const char pairs[201] =
		"00010203040506070809101112131415161718192021222324"
		"25262728293031323334353637383940414243444546474849"
		"50515253545556575859606162636465666768697071727374"
		"75767778798081828384858687888990919293949596979899";
	uint64_t u = v < 0 ? -(uint64_t)v : (uint64_t)v;
	char tmp[20], *t = tmp + sizeof(tmp);
	size_t n;

	while (u >= 100) {
		unsigned d = (unsigned)(u % 100) * 2;

		u /= 100;
		*--t = pairs[d + 1];
		*--t = pairs[d];
	}
	if (u >= 10) {
		*--t = pairs[u * 2 + 1];
		*--t = pairs[u * 2];
	} else {
		*--t = (char)('0' + u);
	}
	if (v < 0)
		*p++ = '-';
	n = (size_t)(tmp + sizeof(tmp) - t);
	memcpy(p, t, n);
	return p + n;
}

static char *put_double(char *p, double d)
{
	if (isnan(d))
		return memcpy(p, "NaN", 3), p + 3;
	if (isinf(d))
		return d > 0 ? (memcpy(p, "Infinity", 8), p + 8) :
			       (memcpy(p, "-Infinity", 9), p + 9);
	return p + sprintf(p, "%.17g", d);
}

/* Text with COPY's escapes: at most 2 bytes a byte. */
static char *put_text(char *p, const unsigned char *s, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		unsigned char ch = s[i];

		if (ch == '\\' || ch == '\t' || ch == '\n' || ch == '\r') {
			*p++ = '\\';
			*p++ = ch == '\t' ? 't' : ch == '\n' ? 'n' : ch == '\r' ? 'r' : '\\';
		} else {
			*p++ = (char)ch;
		}
	}
	return p;
}

static char *put_bytea(char *p, const unsigned char *s, size_t n)
{
	static const char hex[] = "0123456789abcdef";

	memcpy(p, "\\\\x", 3);
	p += 3;
	for (size_t i = 0; i < n; i++) {
		*p++ = hex[s[i] >> 4];
		*p++ = hex[s[i] & 15];
	}
	return p;
}

static int64_t series_to(const struct pg_remap *m, int64_t from)
{
	size_t lo = 0, hi = m->nseries;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (m->series[mid].from < from)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < m->nseries && m->series[lo].from == from ? m->series[lo].to : -1;
}

/* One row of st, as COPY text, appended to b. */
static int put_row(struct copy_buf *b, sqlite3_stmt *st, const struct pg_table *t,
		   const struct pg_remap *m)
{
	for (int i = 0; i < (int)t->ncols; i++) {
		int type = sqlite3_column_type(st, i);
		size_t n = type == SQLITE_TEXT || type == SQLITE_BLOB ?
			(size_t)sqlite3_column_bytes(st, i) : 0;
		char *p;

		if (reserve(b, 2 * n + 40) < 0)
			return -ENOMEM;
		p = b->data + b->len;
		if (i)
			*p++ = '\t';
		if (i == t->session_col && type != SQLITE_NULL) {
			p = put_i64(p, m->session_id);
		} else if (i == t->session_col && !strcmp(t->name, "metric_series")) {
			/* An imported series goes with the session it is
			 * exported with (faultline-export(1)). */
			p = put_i64(p, m->session_id);
		} else if (i == t->series_col && type == SQLITE_INTEGER) {
			int64_t to = series_to(m, sqlite3_column_int64(st, i));

			if (to < 0)
				return -ESRCH;
			p = put_i64(p, to);
		} else {
			switch (type) {
			case SQLITE_NULL:
				*p++ = '\\';
				*p++ = 'N';
				break;
			case SQLITE_INTEGER:
				p = put_i64(p, sqlite3_column_int64(st, i));
				break;
			case SQLITE_FLOAT:
				p = put_double(p, sqlite3_column_double(st, i));
				break;
			case SQLITE_BLOB:
				p = put_bytea(p, sqlite3_column_blob(st, i), n);
				break;
			default:
				p = put_text(p, sqlite3_column_text(st, i), n);
			}
		}
		b->len = (size_t)(p - b->data);
	}
	if (reserve(b, 1) < 0)
		return -ENOMEM;
	b->data[b->len++] = '\n';
	return 0;
}

static int copy_start(PGconn *c, const struct pg_table *t, struct errmsg *e)
{
	struct strbuf sb;
	PGresult *r;
	int err = 0;

	strbuf_init(&sb);
	strbuf_addf(&sb, "COPY \"%s\" (", t->name);
	for (size_t i = 0; i < t->ncols; i++)
		strbuf_addf(&sb, "%s\"%s\"", i ? ", " : "", t->cols[i].name);
	strbuf_adds(&sb, ") FROM STDIN");
	if (strbuf_error(&sb)) {
		strbuf_release(&sb);
		return errmsg_set(e, ENOMEM, "out of memory");
	}
	r = PQexec(c, strbuf_str(&sb));
	if (PQresultStatus(r) != PGRES_COPY_IN)
		err = pg_fail(c, r, "cannot copy into PostgreSQL", e);
	PQclear(r);
	strbuf_release(&sb);
	return err;
}

/* Ends the COPY: aborted with why when err < 0.  The COPY's result. */
static int copy_end(PGconn *c, const struct pg_table *t, int err, struct errmsg *e)
{
	char what[200];
	PGresult *r;

	snprintf(what, sizeof(what), "cannot copy table '%s' into PostgreSQL", t->name);
	if (PQputCopyEnd(c, err < 0 ? e->text : NULL) != 1 && err == 0)
		err = pg_fail(c, NULL, what, e);
	while ((r = PQgetResult(c))) {
		if (PQresultStatus(r) != PGRES_COMMAND_OK && err == 0)
			err = pg_fail(c, r, what, e);
		PQclear(r);
	}
	if (err == 0 && PQstatus(c) != CONNECTION_OK)
		err = pg_fail(c, NULL, what, e);
	return err;
}

int pg_copy_table(PGconn *c, const struct pg_table *t, sqlite3_stmt *st,
		  const struct pg_remap *m, struct pg_progress *p,
		  struct errmsg *e)
{
	struct copy_buf b = { NULL, 0, 0 };
	int err = copy_start(c, t, e), rc = SQLITE_ROW;
	int started = err == 0;

	p->table = t->name;
	while (err == 0 && (rc = sqlite3_step(st)) == SQLITE_ROW) {
		err = put_row(&b, st, t, m);
		if (err == -ESRCH)
			err = errmsg_set(e, ESRCH, "table '%s' has a row of a metric "
					 "series that is not exported with the session",
					 t->name);
		else if (err == -ENOMEM)
			err = errmsg_set(e, ENOMEM, "out of memory");
		if (err == 0 && b.len >= COPY_CHUNK) {
			if (PQputCopyData(c, b.data, (int)b.len) != 1)
				err = pg_fail(c, NULL, "cannot copy into PostgreSQL", e);
			p->bytes += b.len;
			b.len = 0;
		}
		p->rows++;
		if ((p->rows & 4095) == 0)
			pg_progress_tick(p);
	}
	if (err == 0 && rc != SQLITE_DONE)
		err = errmsg_set(e, EIO, "cannot read table '%s': %s", t->name,
				 sqlite3_errmsg(sqlite3_db_handle(st)));
	if (err == 0 && b.len && PQputCopyData(c, b.data, (int)b.len) != 1)
		err = pg_fail(c, NULL, "cannot copy into PostgreSQL", e);
	p->bytes += b.len;
	if (started)
		err = copy_end(c, t, err, e);
	free(b.data);
	return err;
}
