/*
 * record_stacks: the end of a recording with --stacks: its frames
 * symbolized (schema/symbol_store.h) unless --no-symbolize, and the
 * summary's line about them.
 */
#ifndef FL_RECORD_STACKS_H
#define FL_RECORD_STACKS_H

#include <stdio.h>
#include <sqlite3.h>

#include "../schema/symbol_store.h"
#include "record_pipeline.h"

struct record_stacks {
	int symbolized;			/* symbol_store_symbolize ran and succeeded */
	struct symbolize_counts c;
	struct errmsg failed;		/* why it did not, if it failed */
};

/* Symbolizes session_id's frames when the pipeline stored stacks and
 * symbolize is set.  A failure is no failure of the recording (its rows
 * are committed, and faultline symbolize can be run later): it is left
 * in s->failed for a warning. */
void record_stacks_symbolize(struct record_stacks *s, sqlite3 *db,
			     const char *path, int64_t session_id,
			     const struct record_pipeline *p, int symbolize);

/* The summary line: stacks sampled, cut short, frames named. */
void record_stacks_print(FILE *f, const struct record_stacks *s,
			 const struct record_pipeline *p, const char *path);

#endif
