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
 * one can straddle the end of the mapping; such a record is copied into
 * `wrap` so the callback always sees contiguous bytes.
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
	uint8_t *wrap;			/* owned: malloc'd, for straddling records */
	uint64_t framing_errors;	/* times a header was impossible and the rest of the data was skipped */
};

/* Uses mem (a meta page of `page` bytes, then data_bytes of data) as the
 * ring without mapping anything: how tests build ring contents by hand.
 * mem stays the caller's; ring_unmap frees only the wrap buffer. */
int ring_attach(struct ring *r, void *mem, size_t page, size_t data_bytes);

/* Maps data_bytes (a power of two multiple of the page size) of ring for
 * fd.  Returns 0 or -errno (mmap's). */
int ring_map(struct ring *r, int fd, int cpu, size_t data_bytes);
void ring_unmap(struct ring *r);

/* Called once per record: rec points at the header, len is its size.
 * rec is borrowed: valid until the callback returns. */
typedef int (*ring_rec_fn)(void *ctx, const void *rec, size_t len);

/*
 * Hands every record now in the ring to fn, then releases them to the
 * kernel.  Returns the number of bytes consumed, or fn's negative return
 * (records up to the failing one are released).
 */
long ring_drain(struct ring *r, ring_rec_fn fn, void *ctx);

#endif
