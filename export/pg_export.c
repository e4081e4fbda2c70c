#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "../schema/db.h"
#include "pg_conn.h"
#include "pg_functions.h"
#include "pg_export.h"
#include "pg_schema.h"

/* The sessions, shared by the connections that load them side by side:
 * each takes the next one as it finishes its last. */
struct session_work {
	const char *path;
	const struct pg_export *x;
	const struct pg_tables *t;
	struct pg_session_done *done;	/* borrowed: x->nids entries */
	struct pg_progress *p;		/* borrowed: rows added under lock */
	size_t next;			/* the next session to take */
	size_t ndone;
	int loaded;			/* a session was written */
	int err;			/* the first failure */
	struct errmsg *e;		/* the caller's: the first failure's */
	pthread_mutex_t lock;
};

/* Takes the next session index into *i; 0 when none is left or a
 * session failed. */
static int take(struct session_work *w, size_t *i)
{
	int more;

	pthread_mutex_lock(&w->lock);
	more = w->err == 0 && w->next < w->x->nids;
	*i = w->next++;
	pthread_mutex_unlock(&w->lock);
	return more;
}

static void finish(struct session_work *w, size_t i, uint64_t rows, int err,
		   const struct errmsg *e)
{
	pthread_mutex_lock(&w->lock);
	w->p->rows += rows;
	if (err == 0) {
		w->done[i].finished = 1;
		w->ndone++;
		w->loaded |= !w->done[i].skipped;
	} else if (w->err == 0) {
		w->err = err;
		snprintf(w->e->text, sizeof(w->e->text), "%s", e->text);
	}
	pthread_mutex_unlock(&w->lock);
}

/* One connection (and its own read of the file) loading sessions until
 * none is left. */
static void *session_worker(void *arg)
{
	struct session_work *w = arg;
	struct pg_progress lp = { NULL, 0, 0, 0, 0, 0, NULL };
	sqlite3 *db = NULL;
	PGconn *c = NULL;
	struct errmsg e;
	size_t i;
	int err;

	errmsg_init(&e);
	err = db_open_read(w->path, &db, &e);
	if (err == 0)
		err = pg_connect(w->x->target, &c, &e);
	if (err == 0)
		err = pg_schema_use(c, w->x->schema, &e);
	if (err < 0)
		finish(w, 0, 0, err, &e);
	while (err == 0 && take(w, &i)) {
		lp.rows = 0;
		err = pg_session_export(db, w->path, c, w->t, w->x->ids[i], &lp,
					&w->done[i], &e);
		finish(w, i, lp.rows, err, &e);
	}
	PQfinish(c);
	db_close(db);
	return NULL;
}

/* The sessions over up to x->jobs connections at once, each session in
 * its own transaction on one of them. */
static int load_parallel(struct session_work *w)
{
	pthread_t threads[PG_JOBS_MAX];
	size_t n = (size_t)w->x->jobs < w->x->nids ? (size_t)w->x->jobs : w->x->nids;
	size_t started = 0;

	for (; started < n && started < PG_JOBS_MAX; started++)
		if (pthread_create(&threads[started], NULL, session_worker, w) != 0)
			break;
	if (!started)
		return errmsg_set(w->e, EAGAIN, "cannot start a thread to load the "
				  "sessions");
	for (size_t i = 0; i < started; i++)
		pthread_join(threads[i], NULL);
	return w->err;
}

/* The sessions one after another on c, with the progress line. */
static int load_serial(sqlite3 *db, PGconn *c, struct session_work *w)
{
	int err = pg_schema_use(c, w->x->schema, w->e);

	for (size_t i = 0; err == 0 && i < w->x->nids; i++) {
		err = pg_session_export(db, w->path, c, w->t, w->x->ids[i], w->p,
					&w->done[i], w->e);
		if (err == 0) {
			w->done[i].finished = 1;
			w->ndone++;
			w->loaded |= !w->done[i].skipped;
		}
	}
	return err;
}

int pg_export_run(sqlite3 *db, const char *path, const struct pg_export *x,
		  struct pg_progress *p, struct pg_session_done *done,
		  size_t *ndone, struct errmsg *e)
{
	struct session_work w = { path, x, NULL, done, p, 0, 0, 0, 0, e,
				  PTHREAD_MUTEX_INITIALIZER };
	struct pg_tables t;
	PGconn *c = NULL;
	int err;
	char msg[sizeof(e->text)];

	*ndone = 0;
	memset(&t, 0, sizeof(t));
	w.t = &t;
	err = pg_tables_read(db, path, &t, e);
	if (err == 0 && !pg_tables_find(&t, "session"))
		err = errmsg_set(e, EINVAL, "'%s' has no session table: not a "
				 "faultline database", path);
	if (err == 0)
		err = pg_connect(x->target, &c, e);
	if (err == 0)
		err = pg_schema_prepare(c, x->schema, &t, e);
	/* The functions the queries read the tables with (pg_functions.h). */
	if (err == 0)
		err = pg_schema_use(c, x->schema, e);
	if (err == 0)
		err = pg_functions_current(c, e);
	if (err == 0)
		err = x->jobs > 1 && x->nids > 1 ? load_parallel(&w) :
			load_serial(db, c, &w);
	*ndone = w.ndone;
	/* After the load, so the first export builds them once; a failure
	 * leaves what committed, indexed. */
	if (w.loaded) {
		struct errmsg ie;
		int ierr;

		p->table = "indexes";
		if (p->show)
			p->show(p);
		errmsg_init(&ie);
		ierr = pg_schema_indexes(x->target, x->schema, &t, x->jobs, &ie);
		if (err == 0 && ierr < 0) {
			snprintf(msg, sizeof(msg), "%s", ie.text);
			err = errmsg_set(e, -ierr, "%s", msg);
		}
	}
	PQfinish(c);
	pg_tables_release(&t);
	return err;
}
