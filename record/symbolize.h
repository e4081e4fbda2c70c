/*
 * symbolize: naming a recorded session's stack frames, the one path that
 * both `faultline symbolize` and the end of `faultline record --stacks`
 * take.  Four steps, in this order:
 *
 *   1. read the inputs: the session's kernel, its frames to name and
 *      their processes' mappings (schema/symbol_store.h);
 *   2. gather the sources from this machine: debug directories, kallsyms,
 *      the vDSO, perf maps (collector/symbol_sources.h);
 *   3. name every frame (decoder/symbolize_job.h; reads ELF and debug
 *      files);
 *   4. write the results, in one transaction (schema/symbol_store.h).
 *
 * Every file is read in steps 2 and 3: none while step 4 holds the
 * database's write lock, so a slow disk or a large debug file never
 * keeps another writer waiting.
 */
#ifndef FL_RECORD_SYMBOLIZE_H
#define FL_RECORD_SYMBOLIZE_H

#include <sqlite3.h>
#include <stddef.h>
#include <stdint.h>

#include "../common/errmsg.h"
#include "../decoder/symbolize_job.h"

struct symbolize_opts {
	const char *const *debug_dirs;	/* borrowed; extra dirs searched first; may be NULL */
	size_t ndebug_dirs;
	int redo;			/* redo frames already symbolized */
};

/*
 * Fills frame's symbol columns and symbol rows for session_id's frames
 * with status NULL (all with o->redo; o may be NULL), in one transaction.
 * path names the database in messages.  *c gets the frames done and
 * their statuses (all 0 on failure).  0 or -errno with e: -ENOENT for no
 * such session, -ENOTDIR for a debug dir that is not a directory.
 */
int symbolize_session(sqlite3 *db, const char *path, int64_t session_id,
		      const struct symbolize_opts *o,
		      struct symbolize_counts *c, struct errmsg *e);

/* What the end of a recording's symbolization did. */
struct record_symbolized {
	int symbolized;			/* symbolize_session ran and succeeded */
	struct symbolize_counts c;
	struct errmsg failed;		/* why it did not, if it failed */
	int64_t session_id;		/* the session it named; summed (the
					 * flight recorder's dumps): the first
					 * that failed */
};

/* The end of `record --stacks`: session_id's frames named when stacks
 * were stored and symbolize is set.  A failure is no failure of the
 * recording (its rows are committed, and faultline symbolize can be run
 * later): it is left in out->failed for a warning. */
void record_symbolize_end(struct record_symbolized *out, sqlite3 *db,
			  const char *path, int64_t session_id,
			  size_t nframes, int symbolize);

/* Adds what one session's symbolization did to sum (the flight
 * recorder's, over its dumps): the counts, and the first failure and
 * first skipped file kept. */
void record_symbolized_add(struct record_symbolized *sum,
			   const struct record_symbolized *one);

#endif
