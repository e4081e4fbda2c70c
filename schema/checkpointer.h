/*
 * checkpointer: copies a recording's WAL into its database on a thread of
 * its own, over a connection of its own, so that the thread writing rows
 * does not wait on fsync (but past a bound: checkpointer.c).
 *
 * With SQLite's own checkpoints (wal_autocheckpoint) the writer copies
 * the WAL back and fsyncs, in the commit that passed the threshold.  An
 * fsync waits for what the file system must write first: after another
 * process had left 344 MB dirty (a perf.data), recordings of a switch
 * storm (bench/collector/pingpong.c, a million round trips) dropped 5.8
 * to 9.6 of 11 million records from their full spool while their commits
 * waited (5 runs); with a checkpointer, none (3 runs).  A passive
 * checkpoint on another connection runs beside the writer's commits, and
 * the WAL starts over at the writer's first commit after one that caught
 * up.
 *
 * One checkpointer per writer connection; its thread touches only its
 * own connection, and the WAL hook (run by the writer's thread after each
 * commit) only the fields under the lock.
 */
#ifndef FL_CHECKPOINTER_H
#define FL_CHECKPOINTER_H

#include <pthread.h>
#include <sqlite3.h>
#include <stdint.h>

#include "../common/errmsg.h"

struct checkpointer {
	sqlite3 *writer;	/* borrowed: its WAL hook is ours while started */
	sqlite3 *db;		/* owned: the checkpointing connection */
	pthread_t thread;
	pthread_mutex_t lock;
	pthread_cond_t wake;
	int started;
	/* Under lock: */
	int wal_pages;		/* the WAL's frames at the writer's last commit */
	int stop;
	uint64_t checkpoints;	/* passive checkpoints run */
};

/* Opens a second connection to path (the file writer writes: see
 * db_open_beside) and starts the thread; the writer stops checkpointing.
 * 0, or a negative errno with e set and the writer as it was. */
int checkpointer_start(struct checkpointer *c, sqlite3 *writer,
		       const char *path, struct errmsg *e);

/* Joins the thread, closes its connection and gives the writer back its
 * own checkpoints.  Safe on a checkpointer never started. */
void checkpointer_stop(struct checkpointer *c);

/* Checkpoints run so far. */
uint64_t checkpointer_count(struct checkpointer *c);

#endif
