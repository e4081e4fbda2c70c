#include <errno.h>
#include <string.h>

#include "checkpointer.h"
#include "db.h"

/*
 * The WAL starts over only at a commit that finds it all copied, and
 * while the writer commits faster than the checkpoints copy (fsync held
 * up behind other writes) it grows: to 300 MiB in checkpointer.h's storm, for a
 * database of 394 MB.  At 1 GiB the writer checkpoints in its own commit
 * too, as it did without a checkpointer: slower, but bounded.
 */
#define WAL_LIMIT_PAGES (16384)

/* The writer's WAL hook: after each commit, in the writer's thread (which
 * may checkpoint there, as wal_autocheckpoint does). */
static int on_commit(void *arg, sqlite3 *db, const char *name, int pages)
{
	struct checkpointer *c = arg;

	if (pages >= WAL_LIMIT_PAGES)
		sqlite3_wal_checkpoint_v2(db, name, SQLITE_CHECKPOINT_PASSIVE,
					  NULL, NULL);
	pthread_mutex_lock(&c->lock);
	c->wal_pages = pages;
	if (pages >= DB_CHECKPOINT_PAGES)
		pthread_cond_signal(&c->wake);
	pthread_mutex_unlock(&c->lock);
	return SQLITE_OK;
}

/* Passive: copies what no reader still needs and never blocks the
 * writer; what it could not copy is copied by a later one, or by the
 * writer's own checkpoints once the recording ends. */
static void *checkpoint_main(void *arg)
{
	struct checkpointer *c = arg;

	pthread_mutex_lock(&c->lock);
	for (;;) {
		while (!c->stop && c->wal_pages < DB_CHECKPOINT_PAGES)
			pthread_cond_wait(&c->wake, &c->lock);
		if (c->stop)
			break;
		c->wal_pages = 0;
		pthread_mutex_unlock(&c->lock);
		sqlite3_wal_checkpoint_v2(c->db, NULL, SQLITE_CHECKPOINT_PASSIVE,
					  NULL, NULL);
		pthread_mutex_lock(&c->lock);
		c->checkpoints++;
	}
	pthread_mutex_unlock(&c->lock);
	return NULL;
}

int checkpointer_start(struct checkpointer *c, sqlite3 *writer,
		       const char *path, struct errmsg *e)
{
	int err;

	memset(c, 0, sizeof(*c));
	err = db_open_beside(writer, path, &c->db, e);
	if (err < 0)
		return err;
	/* A connection reads the file's header, and learns it is in WAL
	 * mode, at its first statement: until then a checkpoint does
	 * nothing. */
	if (!db_in_wal_mode(c->db)) {
		db_close(c->db);
		c->db = NULL;
		return errmsg_set(e, EINVAL, "cannot checkpoint '%s': it is not "
				  "in WAL mode", path);
	}
	pthread_mutex_init(&c->lock, NULL);
	pthread_cond_init(&c->wake, NULL);
	err = pthread_create(&c->thread, NULL, checkpoint_main, c);
	if (err) {
		pthread_cond_destroy(&c->wake);
		pthread_mutex_destroy(&c->lock);
		db_close(c->db);
		c->db = NULL;
		return errmsg_set(e, err, "cannot start the checkpointing "
				  "thread: %s", strerror(err));
	}
	c->writer = writer;
	c->started = 1;
	/* Replaces the writer's wal_autocheckpoint, which is a WAL hook. */
	sqlite3_wal_hook(writer, on_commit, c);
	return 0;
}

void checkpointer_stop(struct checkpointer *c)
{
	if (!c->started)
		return;
	sqlite3_wal_autocheckpoint(c->writer, DB_CHECKPOINT_PAGES);
	pthread_mutex_lock(&c->lock);
	c->stop = 1;
	pthread_cond_signal(&c->wake);
	pthread_mutex_unlock(&c->lock);
	pthread_join(c->thread, NULL);
	pthread_cond_destroy(&c->wake);
	pthread_mutex_destroy(&c->lock);
	db_close(c->db);
	c->db = NULL;
	c->started = 0;
}

uint64_t checkpointer_count(struct checkpointer *c)
{
	uint64_t n;

	pthread_mutex_lock(&c->lock);
	n = c->checkpoints;
	pthread_mutex_unlock(&c->lock);
	return n;
}
