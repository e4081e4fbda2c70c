/*
 * symbol_store: the rows of a symbolization job.  Reads what naming a
 * session's frames needs (the release it was recorded on, the frames not
 * yet symbolized or all of them, the mappings of its processes) and
 * writes what they were named (frame's dso, dso_offset, build_id and
 * status columns, the symbol rows) in one transaction.
 *
 * Only rows: the naming is decoder/symbolize_job.h's, and what it needs
 * from the machine (kallsyms, the vDSO, perf maps) is gathered by
 * collector/symbol_sources.h before the write begins, so no file is read
 * while the transaction holds the write lock.
 */
#ifndef FL_SYMBOL_STORE_H
#define FL_SYMBOL_STORE_H

#include <sqlite3.h>
#include <stdint.h>

#include "../common/errmsg.h"
#include "../decoder/symbolize_job.h"

struct symbol_store {
	sqlite3 *db;		/* borrowed */
	const char *path;	/* borrowed; names the database in messages */
	int64_t session_id;
	int redo;		/* frames already symbolized are done again */
};

/*
 * The release of the kernel the session was recorded on, in *kernel
 * (owned by the caller, free(); NULL when the session has none stored).
 * 0, -ENOENT with e naming the missing session, or -errno with e.
 */
int symbol_store_session_kernel(const struct symbol_store *s, char **kernel,
				struct errmsg *e);

/*
 * The session's frames with status NULL (all with redo), kernel ones
 * last and each process's by address, and the session's mappings, into
 * in (initialised by the caller).  0 or -errno with e.
 */
int symbol_store_read(const struct symbol_store *s, struct sym_input *in,
		      struct errmsg *e);

/*
 * Writes j's result for each of in's frames (j ran on in): the frame's
 * symbol columns and its symbol rows; with redo, the session's symbol
 * rows are deleted first.  One transaction: on failure nothing is
 * changed.  0 or -errno with e.
 */
int symbol_store_write(const struct symbol_store *s, const struct sym_input *in,
		       const struct symbolize_job *j, struct errmsg *e);

#endif
