/*
 * build_id: the GNU build id of an ELF file (its NT_GNU_BUILD_ID note),
 * read at a path, for session_env rows of files a target had mapped
 * before recording (the kernel's MMAP2 records carry the build id of
 * what is mapped later).
 *
 * The file is noted in pc before it is read and pc restored after
 * (page_cache.h): reading the notes of a library the target lost from
 * the page cache must not put it back.
 */
#ifndef FL_BUILD_ID_H
#define FL_BUILD_ID_H

#include <stddef.h>

#include "page_cache.h"

/* The build id as lower-case hex into hex (n bytes: 129 holds any).
 * 0; -ENODATA when the file has none; -ENOENT, -EPERM (not a regular
 * file), -EINVAL (not ELF) and the like otherwise. */
int elf_build_id_path(const char *path, struct page_cache *pc, char *hex,
		      size_t n);

#endif
