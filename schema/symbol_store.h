/*
 * symbol_store: fills in what a session's stack frames name.  Reads the
 * frame rows not yet symbolized and the session's mapping rows, asks
 * decoder/symbolize.h, and writes frame's dso, dso_offset, build_id and
 * status columns and the symbol rows, all in one transaction.
 *
 * Kernel frames and [vdso] frames are named from this machine (kallsyms,
 * faultline's own vDSO image) only when it runs the kernel the session
 * was recorded on (session.kernel equals uname's release); otherwise
 * they are 'no-file'.  When the kernel hides kallsyms addresses
 * (kptr_restrict) kernel frames are 'no-symbol'.
 */
#ifndef FL_SYMBOL_STORE_H
#define FL_SYMBOL_STORE_H

#include <sqlite3.h>
#include <stddef.h>
#include <stdint.h>

#include "../common/errmsg.h"

struct symbolize_opts {
	const char *const *debug_dirs;	/* borrowed; extra dirs searched first; may be NULL */
	size_t ndebug_dirs;
	int redo;			/* redo frames already symbolized */
};

struct symbolize_counts {
	uint64_t frames, ok, no_mapping, no_file, build_id_mismatch, no_symbol;
};

/*
 * Fills frame's symbol columns and symbol rows for session_id's frames
 * with status NULL (all with redo), in one transaction.  path names the
 * database in messages.  *c gets the frames done and their statuses.
 * 0 or -errno with e: -ENOENT for no such session, -ENOTDIR for a debug
 * dir that is not a directory.
 */
int symbol_store_symbolize(sqlite3 *db, const char *path, int64_t session_id,
			   const struct symbolize_opts *o,
			   struct symbolize_counts *c, struct errmsg *e);

#endif
