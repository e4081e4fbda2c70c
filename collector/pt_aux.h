/*
 * pt_aux: the AUX area of a perf ring, where Intel PT writes its trace,
 * and the reader's side of its two protocols.
 *
 * The AUX area is a second mapping of the event's fd, at the offset the
 * reader writes into the meta page (aux_offset: after the data area) and
 * of the size it writes there (aux_size: a power-of-two number of pages).
 * Its pages count against the same locked-memory budget as the ring's
 * (perf_event_mlock_kb per CPU, then RLIMIT_MEMLOCK).
 *
 * Full mode (mapped read-write): the kernel writes at aux_head and never
 * past the reader's aux_tail; when there is no room it stops the trace
 * and flags the next PERF_RECORD_AUX TRUNCATED.  The reader
 *   1. loads aux_head with acquire ordering (the kernel's wmb after the
 *      trace bytes and before aux_head pairs with it),
 *   2. copies bytes between aux_tail and that head, in order: the range
 *      each PERF_RECORD_AUX announces (aux_offset, aux_size; the record's
 *      sample_id says whose trace it is),
 *   3. stores aux_tail with release ordering past what it copied.
 * All are byte counts since the start, taken modulo the area's size.
 *
 * Snapshot (overwrite) mode (mapped read-only): the kernel ignores
 * aux_tail and overwrites the oldest trace.  For intel_pt, aux_head, and
 * the aux_offset of each PERF_RECORD_AUX it writes when the event stops
 * (on a context switch of a per-thread event, on disable), is an offset
 * inside the area, not a count: how much was ever written is not
 * published.  The area starts zeroed, so until it has wrapped once the
 * bytes from the offset to the end are zero (tools/perf's
 * intel_pt_first_wrap test); after that, every byte is trace.
 */
#ifndef FL_PT_AUX_H
#define FL_PT_AUX_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <linux/perf_event.h>

#include "../common/errmsg.h"
#include "ring.h"

struct pt_aux {
	struct perf_event_mmap_page *meta;	/* borrowed: the ring's meta page */
	uint8_t *data;		/* the area: a mapping, or the test's memory */
	size_t size;		/* a power of two */
	size_t map_len;		/* 0 when attached to memory, not mapped */
	int overwrite;		/* snapshot mode */
	int wrapped;		/* overwrite mode: the area has filled once */
};

/*
 * Maps size bytes (a power of two of pages) of AUX area after ring r's
 * data area; read-only (overwrite) for the snapshot modes.  0, or the
 * negative errno of mmap (EPERM or ENOMEM: see pt_aux_explain).
 */
int pt_aux_map(struct pt_aux *a, struct ring *r, size_t size, int overwrite);

/* Uses mem (size bytes) as the area of meta's ring without mapping
 * anything: how tests build AUX contents.  mem stays the caller's. */
void pt_aux_attach(struct pt_aux *a, struct perf_event_mmap_page *meta,
		   void *mem, size_t size, int overwrite);

void pt_aux_unmap(struct pt_aux *a);

/*
 * e for a failed pt_aux_map that returned -err, for the PT buffer of
 * `what` ("CPU 3", "thread 4242"): over the locked-memory limit
 * (perf_event_mlock_kb, RLIMIT_MEMLOCK) unless root, or the kernel could
 * not allocate it.  Returns -err.
 */
int pt_aux_explain(int err, size_t size, const char *what, struct errmsg *e);

/*
 * Full mode: copies the `size` bytes the kernel announced at AUX offset
 * `off` (a PERF_RECORD_AUX's aux_offset and aux_size: a count since the
 * start) into out, oldest first.  0, or -ERANGE when the range is not
 * between aux_tail and aux_head (already released, or not yet written):
 * nothing is copied then.
 */
int pt_aux_take(const struct pt_aux *a, uint64_t off, uint64_t size,
		uint8_t *out);

/* Full mode: gives the bytes before `upto` back to the kernel. */
void pt_aux_release(struct pt_aux *a, uint64_t upto);

/*
 * Copies into out the `want` bytes of a ring of `size` bytes (a power of
 * two) that end at position end (a count or an offset: taken modulo
 * size), oldest first, of which only `avail` exist (the bytes before the
 * first wrap).  Returns how many it copied: min(want, avail, size).
 * Pure: what the snapshot modes use, and what the tests drive.
 */
size_t pt_ring_copy_back(const uint8_t *ring, size_t size, uint64_t end,
			 uint64_t avail, size_t want, uint8_t *out);

/*
 * Overwrite mode: the `want` bytes that end at offset `end` of the area,
 * into out; it notices the first wrap (a non-zero byte in the area's
 * last 4 KiB, which the kernel fills only on reaching the end) and from
 * then on takes any byte as trace.  Returns the bytes copied.
 */
size_t pt_aux_snapshot(struct pt_aux *a, uint64_t end, size_t want,
		       uint8_t *out);

/* Overwrite mode: the current head offset, read with acquire ordering. */
uint64_t pt_aux_head(const struct pt_aux *a);

#endif
