/*
 * file: reading a whole file into memory, the one way.
 */
#ifndef FL_FILE_H
#define FL_FILE_H

#include <stddef.h>

#include "errmsg.h"

/*
 * Reads the whole of path (a /proc file reports size 0, so it is read to
 * EOF) into *buf (owned by the caller, free(); NUL-terminated) and *len.
 * 0, -ENOENT when the file is not there (e untouched: absence is often
 * no error), or another -errno with e saying "cannot read '<path>': why".
 */
int read_text_file(const char *path, char **buf, size_t *len,
		   struct errmsg *e);

#endif
