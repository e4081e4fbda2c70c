/*
 * page_cache: putting the page cache of the files faultline reads back
 * the way it found it.
 *
 * To unwind and name a target's stacks faultline reads the target's own
 * files (ELF headers, .eh_frame, symbol tables, DWARF).  A page it reads
 * that the target had lost from the page cache is cached again, and the
 * major fault the target would have taken on it, the stall faultline is
 * there to find, does not happen (DESIGN.md, "the observer effect").
 *
 * So a reader notes a file before reading it, and restores after:
 *
 *	page_cache_note(&pc, fd);	which pages are resident (mincore(2)
 *					on a mapping of the file: it reads
 *					nothing)
 *	... read the file ...
 *	page_cache_restore(&pc);	drop the pages that were not resident
 *					at the note and are now
 *					(posix_fadvise POSIX_FADV_DONTNEED)
 *
 * and no others: a page resident at the note may be the target's working
 * set.  The kernel drops no page that a process has mapped, which is
 * right for a page the target faulted in meanwhile (it is the target's
 * now); but it means a reader must not keep its own mapping of the file
 * over the restore, or the pages it touched there stay.  Pages that
 * read-ahead brought in around a read are dropped with it: the restore
 * looks at the whole file.  A page the target brings in (and does not
 * map) between the note and the restore is dropped too, so a reader
 * keeps that window short.
 *
 * A file is known by device and inode, however it was opened; noting it
 * again before the restore changes nothing.  Not thread-safe: one
 * page_cache per thread.  It sits beside the decoder's file readers
 * (elf_files.c, unwind_files.c), its only users.
 */
#ifndef FL_PAGE_CACHE_H
#define FL_PAGE_CACHE_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* One noted file. */
struct page_cache_file {
	dev_t dev;
	ino_t ino;
	int fd;			/* owned: a duplicate of the noted one */
	unsigned char *was;	/* owned: mincore's vector at the note */
	size_t npages;		/* of was: the file's pages then */
};

struct page_cache {
	struct page_cache_file *files;	/* owned: noted since the last restore */
	size_t n, cap;
	uint64_t dropped;	/* pages dropped by restores, all told */
};

void page_cache_init(struct page_cache *pc);

/* Restores, then frees what pc holds. */
void page_cache_release(struct page_cache *pc);

/*
 * Notes which pages of the file open on fd are resident now, unless it
 * was noted since the last restore.  fd stays the caller's (the note
 * keeps a duplicate).  0, or -errno: the file could not be duplicated,
 * sized or mapped (an empty file is noted as such), or -ENOMEM; a file
 * that could not be noted will not be restored.
 */
int page_cache_note(struct page_cache *pc, int fd);

/* page_cache_note of the file at path, when there is one, opened as an
 * outside file (common/outside_file.h; links followed): 0, -ENOENT and
 * the like when it cannot be opened, -EPERM when what is there is no
 * regular file (never opened blocking), or page_cache_note's error. */
int page_cache_note_path(struct page_cache *pc, const char *path);

/*
 * For every file noted since the last restore: drops the pages that
 * were not resident at its note and are now; then forgets the notes.
 */
void page_cache_restore(struct page_cache *pc);

#endif
