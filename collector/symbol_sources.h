/*
 * symbol_sources: what this machine can tell about the names of code
 * outside files: the running kernel's /proc/kallsyms, this process's vDSO
 * image (the same for every process under one kernel), and the
 * /tmp/perf-PID.map files JITs write.  The parsing is in decoder/.
 */
#ifndef FL_SYMBOL_SOURCES_H
#define FL_SYMBOL_SOURCES_H

#include <stddef.h>

#include "../common/errmsg.h"

/*
 * Reads the whole of path (a /proc file reports size 0, so it is read to
 * EOF) into *buf (owned by the caller, free(); NUL-terminated) and *len.
 * 0, -ENOENT when the file is not there, or another -errno with e set.
 */
int read_text_file(const char *path, char **buf, size_t *len,
		   struct errmsg *e);

/*
 * This process's vDSO image: *image borrowed (valid for the process's
 * life), *len its size from the ELF headers.  -ENOENT when there is
 * none (no AT_SYSINFO_EHDR).
 */
int vdso_image(const void **image, size_t *len);

#endif
