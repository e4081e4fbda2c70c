/*
 * debug_paths: where libdwfl's standard search (dwfl_standard_find_
 * debuginfo, elfutils libdwfl/find-debuginfo.c) may look for a file's
 * separate debug file, so that elf_files.h can note the page cache of
 * every candidate before the search reads any (page_cache.h).
 *
 * For a debuginfo path such as
 * "+:.debug:/usr/lib/debug" (a leading '+' or '-' on the whole path or
 * an element only switches CRC checks):
 *
 *   by build id, under each absolute directory D:
 *	D/.build-id/xx/rest.debug
 *   by name, the .gnu_debuglink name L (or, when the file has none, its
 *   own name + ".debug"), for a file /a/b/f:
 *	""	/a/b/L
 *	rel	/a/b/rel/L
 *	/D	/D/a/b/L, /D/b/L, /D/L (the search drops one leading
 *		directory at a time)
 *   and where L was made up, the same with f itself for rel and /D.
 *
 * The search also follows a symlinked file to its target's directory
 * and may ask debuginfod: those are not listed (a file the search finds
 * there is noted when found, which is later than its first read).
 */
#ifndef FL_DEBUG_PATHS_H
#define FL_DEBUG_PATHS_H

#include <stddef.h>

/*
 * Calls fn(ctx, path) for each candidate as above (path borrowed for the
 * call) until fn returns non-zero.  build_id: len bytes, or NULL;
 * file_name: the file's absolute path (a relative one has no directory
 * candidates); debuglink: its .gnu_debuglink name, or NULL.  0, fn's
 * non-zero, or -ENOMEM.
 */
int debug_paths_each(const char *debuginfo_path, const unsigned char *build_id,
		     size_t len, const char *file_name, const char *debuglink,
		     int (*fn)(void *ctx, const char *path), void *ctx);

#endif
