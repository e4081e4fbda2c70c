/*
 * ring: one perf mmap ring buffer, and the reader's side of its protocol.
 *
 * The kernel writes records at data_head and never overwrites bytes the
 * reader has not released by advancing data_tail; when there is no room
 * it drops the record and later writes a PERF_RECORD_LOST.  The reader:
 *
 *   1. loads data_head with acquire ordering (pairs with the kernel's
 *      release store after it wrote the records below head),
 *   2. reads records from data_tail up to that head,
 *   3. stores data_tail with release ordering (the kernel may reuse the
 *      bytes only after our reads of them are done).
 *
 * Records are 8-byte aligned and never split in the kernel's view, but
 * one can straddle the end of the mapping; ring_move joins it.
 */
#ifndef FL_RING_H
#define FL_RING_H

#include <stddef.h>
#include <stdint.h>
#include <linux/perf_event.h>

struct ring {
	int fd;				/* borrowed: the event that owns the buffer */
	int cpu;
	struct perf_event_mmap_page *meta;	/* owned mapping: meta page + data */
	size_t map_len;			/* 0 when attached, not mapped */
	uint8_t *data;			/* inside the mapping */
	uint64_t mask;			/* data size - 1 (a power of two) */
	uint64_t framing_errors;	/* times a header was impossible and the rest of the data was skipped */
	uint8_t *wrap;			/* owned: malloc'd on first need, for
					 * ring_drain's straddling records */
};

/* Uses mem (a meta page of `page` bytes, then data_bytes of data) as the
 * ring without mapping anything: how tests build ring contents by hand.
 * mem stays the caller's. */
void ring_attach(struct ring *r, void *mem, size_t page, size_t data_bytes);

/* Maps data_bytes (a power of two multiple of the page size) of ring for
 * fd.  Returns 0 or -errno (mmap's). */
int ring_map(struct ring *r, int fd, int cpu, size_t data_bytes);
void ring_unmap(struct ring *r);

/* What ring_move did with the records it released. */
struct ring_moved {
	size_t bytes;			/* copied into the caller's buffer */
	uint64_t dropped_records;	/* released without a copy: no room */
	uint64_t dropped_bytes;
};

/*
 * Moves the records now in the ring into dst: as many whole records as
 * fit in cap bytes, in order, as one contiguous run (a record that wraps
 * the end of the mapping is joined), then releases everything that was in
 * the ring, copied or not, to the kernel: what did not fit is counted in
 * *out as dropped, by the caller's choice to never leave the kernel
 * without room.  When everything fits, bytes are copied as they are, not
 * looked at (the reader checks the framing); otherwise the headers are
 * walked to find the cut, and impossible framing (nothing after it can be
 * trusted) counts in framing_errors and drops the rest.
 */
void ring_move(struct ring *r, void *dst, size_t cap, struct ring_moved *out);

/* Called once per record by ring_drain: rec points at the header, len is
 * its size.  rec is borrowed: valid until the callback returns. */
typedef int (*ring_rec_fn)(void *ctx, const void *rec, size_t len);

/*
 * Hands every record now in the ring to fn, one by one, then releases
 * them to the kernel: for a reader that decodes as it reads (the Intel
 * PT buffers, the clock calibration ring), where the records are few.  A
 * record that straddles the end of the mapping is copied whole first.
 * Returns the bytes consumed, or fn's negative return (records up to the
 * failing one are released), or -ENOMEM.
 */
long ring_drain(struct ring *r, ring_rec_fn fn, void *ctx);

/* Bytes the kernel has published and the reader not yet released. */
uint64_t ring_pending(const struct ring *r);

#endif
