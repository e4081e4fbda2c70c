/*
 * out_file: writing an output file (an export, a plot) so that a failure
 * leaves nothing half-written behind.  The text goes to a temporary file
 * in the target's own directory (".NAME.XXXXXX", so the final rename
 * stays within one file system and is atomic); out_file_commit renames
 * it into place, out_file_abort removes it.  A reader of the target path
 * sees the old file, or the whole new one, never a part.
 *
 * The file holds what the database does (every traced process's
 * mappings, kernel addresses): it is made 0600 (less the umask), and a
 * symbolic link where it goes is refused, not written through or over.
 * out_file_open_at writes into a directory the caller opened (with
 * O_DIRECTORY | O_NOFOLLOW), so a directory swapped for a link after the
 * check cannot redirect the files.
 *
 * Writers build text in a strbuf and hand it over in pieces of about
 * OUT_FILE_CHUNK bytes (out_file_put), so a 1 GB trace never sits in
 * memory whole.
 *
 *	struct out_file o;
 *	if (out_file_open(&o, "trace.json", &e) < 0) return ...;
 *	... strbuf_addf(&sb, ...); if (out_file_put(&o, &sb, 0, &e) < 0) ...
 *	err = out_file_put(&o, &sb, 1, &e);
 *	err = err < 0 ? err : out_file_commit(&o, &e);
 *	if (err < 0) out_file_abort(&o);
 */
#ifndef FL_OUT_FILE_H
#define FL_OUT_FILE_H

#include <stdio.h>

#include "errmsg.h"
#include "strbuf.h"

/* How much text a writer gathers before it is written out: large enough
 * that stdio's write calls are few, small enough to stay in cache. */
#define OUT_FILE_CHUNK (256u << 10)

struct out_file {
	FILE *f;		/* owned: the temporary file; NULL when closed */
	int dirfd;		/* borrowed: the caller's directory, or AT_FDCWD */
	char *name;		/* owned: the target, relative to dirfd */
	char *path;		/* owned: the target as messages name it */
	char *tmp;		/* owned: the temporary file, relative to dirfd */
};

/*
 * Creates the temporary file beside path.  0, or a negative errno with e
 * saying "cannot write '<path>': why; fix" (a missing directory, no
 * permission, a read-only file system, a symbolic link at path).  On
 * failure o holds nothing.
 */
int out_file_open(struct out_file *o, const char *path, struct errmsg *e);

/* The same for the file name in the directory dirfd (borrowed: it stays
 * open until o is committed or aborted); path is how messages name it. */
int out_file_open_at(struct out_file *o, int dirfd, const char *name,
		     const char *path, struct errmsg *e);

/*
 * Writes sb's text to o and empties sb, when it holds OUT_FILE_CHUNK
 * bytes or more, or always when `all`.  0, or a negative errno with e
 * set: -ENOMEM when an append to sb failed, or the write's error (a full
 * disk: -ENOSPC).
 */
int out_file_put(struct out_file *o, struct strbuf *sb, int all,
		 struct errmsg *e);

/* Flushes, closes and renames the file into place, mode 0600 less the
 * umask.  0, or a negative errno with e set; the temporary file is
 * removed then. */
int out_file_commit(struct out_file *o, struct errmsg *e);

/* Closes and removes the temporary file, if any is left; frees o's
 * strings.  Safe after a commit and on an o that failed to open. */
void out_file_abort(struct out_file *o);

#endif
