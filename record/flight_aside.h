/*
 * flight_aside: the records a flight dump needs from before its window
 * (record/flight.h): MMAP, MMAP2 and COMM records, copied out of the
 * history's rounds as they are dropped, in the order met.
 *
 * Bounded: a program that maps files without end (the fault storm of
 * tests/soak.sh maps one about 2,500 times a second) would otherwise grow
 * it for as long as the recorder runs.  Past max_bytes the oldest go
 * first, counted; a dump whose window needs one of them then lacks that
 * mapping or name (its /proc mappings, read when the dump is made, and
 * the thread's name from /proc, are there still).
 */
#ifndef FL_RECORD_FLIGHT_ASIDE_H
#define FL_RECORD_FLIGHT_ASIDE_H

#include <stddef.h>
#include <stdint.h>

struct flight_aside {
	uint32_t cpu;
	uint32_t len;
	uint8_t *bytes;			/* owned */
};

struct flight_aside_list {
	struct flight_aside *v;		/* owned: v[first..n) are kept */
	size_t first, n, cap;
	uint64_t bytes, max_bytes;	/* held, and the most it may hold */
	uint64_t dropped;		/* records dropped, oldest first */
};

void flight_aside_init(struct flight_aside_list *a, uint64_t max_bytes);
void flight_aside_release(struct flight_aside_list *a);

/* Keeps a copy of rec (len bytes, from cpu's ring), dropping the oldest
 * past max_bytes.  0 or -ENOMEM. */
int flight_aside_add(struct flight_aside_list *a, uint32_t cpu,
		     const void *rec, size_t len);

/* What a kept record costs: its bytes and its slot, with malloc's own. */
#define FLIGHT_ASIDE_OVERHEAD (sizeof(struct flight_aside) + 16)

#endif
