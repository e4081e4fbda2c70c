/*
 * pt_image: the memory of one traced process as libipt reads it to
 * follow the trace: its executable file mappings (from MMAP2 sideband
 * records and the /proc/PID/maps lines read when recording began) and
 * its vDSO, whose bytes faultline read from the target's memory.
 *
 * Files are added through one libipt image section cache shared by
 * every process (a library mapped by many is opened and mapped once);
 * the vDSO, which is no file, through the image's read callback, so a
 * clock_gettime in the traced code decodes instead of ending the trace.
 * Anonymous executable memory (a JIT) is not in the image: the trace
 * through it becomes a 'nomap' gap.
 *
 * libipt reads the files itself (it maps them); with a page_cache set,
 * each file is noted there before it is added, so that the reader can
 * put the page cache back once libipt has let go of the files
 * (page_cache.h).
 *
 * Mappings are added in time order; a later one that overlaps an
 * earlier one replaces it (libipt shrinks or splits the old section), so
 * an image built from the mappings seen up to a time is the process's
 * memory at that time.
 */
#ifndef FL_PT_IMAGE_H
#define FL_PT_IMAGE_H

#include <stddef.h>
#include <stdint.h>

#include <intel-pt.h>

#include "page_cache.h"

/* A mapping to add: the fields of an MMAP2 record or a maps line. */
struct pt_map {
	uint64_t start, len, pgoff;
	const char *path;	/* borrowed for the call: a file, "[vdso]", ... */
	int exec;		/* PROT_EXEC (maps lines say it too) */
};

/* A file that could not be added: its range, for naming a nomap gap. */
struct pt_missing {
	uint64_t start, end;
	char *path;		/* owned */
	int err;		/* libipt's error code */
};

struct pt_space {
	struct pt_image *image;		/* owned */
	struct pt_image_section_cache *iscache;	/* borrowed, shared */
	const uint8_t *vdso;		/* borrowed: the vDSO's bytes */
	size_t vdso_len;
	uint64_t vdso_start;		/* where this process mapped it; 0: none */
	struct pt_missing *missing;	/* owned */
	size_t nmissing, capmissing;
	uint64_t sections;		/* file sections added */
	/* borrowed, or NULL: where each file is noted before libipt reads
	 * it; set after pt_space_init. */
	struct page_cache *cache;
};

/*
 * Sets s up on iscache (from pt_iscache_alloc; it must outlive s), with
 * vdso (len bytes, borrowed; NULL: none) as the bytes of any [vdso]
 * mapping.  0 or -ENOMEM.
 */
int pt_space_init(struct pt_space *s, struct pt_image_section_cache *iscache,
		  const uint8_t *vdso, size_t vdso_len);
void pt_space_release(struct pt_space *s);

/*
 * Adds a mapping: an executable file's range as a section, "[vdso]" as
 * the vDSO's place; anything else (data, anonymous memory, [stack]) is
 * left out.  A file libipt cannot open is remembered for gap messages.
 * 0, or -ENOMEM.
 */
int pt_space_add(struct pt_space *s, const struct pt_map *m);

/* The file that should have held ip but could not be read, or NULL. */
const struct pt_missing *pt_space_missing(const struct pt_space *s,
					  uint64_t ip);

#endif
