/*
 * addr_space: one process's mappings as recorded (the mapping table:
 * MMAP2 records, and /proc/PID/maps read at the start), and which of them
 * held an address.
 *
 * Frames carry no time, so when mappings of one address overlap (an
 * munmap and a new mmap over the same range) the choice cannot follow
 * the frame: an MMAP2 record beats a /proc line (it is exact, with build
 * id), and among those the latest wins.  A stack taken before a library
 * was replaced in place is then named from the replacement's mapping.
 */
#ifndef FL_ADDR_SPACE_H
#define FL_ADDR_SPACE_H

#include <stddef.h>
#include <stdint.h>

struct sym_mapping {
	uint64_t start, end;	/* [start, end) */
	uint64_t pgoff;		/* file offset of start */
	const char *path;	/* borrowed: "", "//anon", "[vdso]", a file */
	const char *build_id;	/* borrowed; lower-case hex, or NULL */
	int exec;		/* PROT_EXEC, or 1 when not known */
	int from_mmap;		/* 1: an MMAP2 record; 0: /proc/PID/maps */
	int64_t ts;		/* when it was seen, ns, CLOCK_REALTIME */
};

struct addr_space {
	struct sym_mapping *v;	/* owned array; the strings stay borrowed */
	size_t n, cap;
	uint64_t *max_end;	/* owned; max end of v[0..i], for find */
	size_t max_end_cap;
	int sorted;
};

void addr_space_init(struct addr_space *s);
void addr_space_release(struct addr_space *s);

/* Adds a mapping (copied; its strings stay the caller's).  0 or -ENOMEM. */
int addr_space_add(struct addr_space *s, const struct sym_mapping *m);

/* The mapping holding addr as described above, or NULL.  The first call
 * after an add sorts; -ENOMEM is reported as NULL with *err set. */
const struct sym_mapping *addr_space_find(struct addr_space *s, uint64_t addr,
					  int *err);

#endif
