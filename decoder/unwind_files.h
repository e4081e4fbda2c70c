/*
 * unwind_files: the files the dwarf unwinder reads while recording, each
 * read once for every process that maps it, and read so that the page
 * cache is left as it was found (page_cache.h).
 *
 * Unwinding needs little of a file: its ELF headers, its call frame
 * information (.eh_frame_hdr and .eh_frame; .debug_frame where the file
 * has one) and its notes (the build id).  When a file is first asked
 * for, those bytes are read into an image of the file in anonymous
 * memory, each at its own offset, in a way that adds no page to the
 * page cache: the pages that are cached are copied from it, the others
 * read from the disk past it (O_DIRECT).  Noting the page cache before
 * and restoring it after would leave a window: a page the target's
 * page-out dropped between the note and the read would be read back and
 * kept, as cached at the note.  The note and restore are still made, for
 * file systems that offer no O_DIRECT, where a plain read (read-ahead
 * off) is all there is.  Nothing else of the file is ever read, and
 * faultline never maps it: a page faultline had mapped could not be
 * dropped, and would keep the target's own page-outs from working too.
 *
 * libdwfl gets the image as an in-memory ELF (elf_memory), one shared by
 * every Dwfl that reports the file, with every section that was not read
 * marked SHT_NOBITS: the image claims no bytes it does not hold, and
 * libdwfl finds no DWARF to load (it looks for some, in the file and in
 * separate debug files, whenever .eh_frame does not unwind a frame).
 * Separate debug files are not read while recording; naming the frames
 * afterwards is elf_files.h's.
 *
 * Only 64-bit ELF files in this machine's byte order, ET_EXEC or ET_DYN,
 * are read: the unwinder knows x86-64 registers only.
 */
#ifndef FL_UNWIND_FILES_H
#define FL_UNWIND_FILES_H

#include <elfutils/libdwfl.h>
#include <stddef.h>

#include "page_cache.h"

struct unwind_file {
	char *path;		/* owned: the key */
	Elf *elf;		/* owned reference to the image's ELF; NULL: the
				 * file could not be read */
	void *image;		/* owned anonymous mapping of size bytes */
	size_t size;
	int exec;		/* ET_EXEC: only at its link-time addresses */
	GElf_Addr vaddr;	/* the first PT_LOAD's address, aligned down */
	GElf_Addr end;		/* where the last PT_LOAD ends */
};

struct unwind_files {
	struct unwind_file **v;	/* owned, and each entry: an entry stays
				 * where it is until unwind_files_release */
	size_t n, cap;
	struct page_cache cache;	/* owned; holds notes only while a
					 * file is being read */
};

void unwind_files_init(struct unwind_files *fs);

/* Frees fs's files: only after every Dwfl that was given one of them
 * (unwind_file_report) has ended, as their ELF is these images. */
void unwind_files_release(struct unwind_files *fs);

/* The entry for path, read on first use; its elf is NULL when the file
 * could not be read.  Borrowed: valid until unwind_files_release.  NULL
 * only when out of memory. */
struct unwind_file *unwind_files_get(struct unwind_files *fs, const char *path);

/*
 * Reports f to dwfl as module name, loaded at base (the address of file
 * offset 0), as dwfl_report_elf(dwfl, name, f->path, -1, base, false)
 * does.  dwfl's callbacks must have find_elf = unwind_file_find_elf.
 * The module, or NULL when f could not be read or has no PT_LOAD.
 */
Dwfl_Module *unwind_file_report(struct unwind_file *f, Dwfl *dwfl,
				const char *name, GElf_Addr base);

/* Dwfl_Callbacks.find_elf for modules reported by unwind_file_report:
 * a new reference to the file's image, no descriptor. */
int unwind_file_find_elf(Dwfl_Module *mod, void **userdata,
			 const char *modname, Dwarf_Addr base,
			 char **file_name, Elf **elfp);

#endif
