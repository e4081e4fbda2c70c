#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "ring.h"

void ring_attach(struct ring *r, void *mem, size_t page, size_t data_bytes)
{
	memset(r, 0, sizeof(*r));
	r->fd = -1;
	r->meta = mem;
	r->data = (uint8_t *)mem + page;
	r->mask = data_bytes - 1;
}

int ring_map(struct ring *r, int fd, int cpu, size_t data_bytes)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	size_t len = page + data_bytes;
	void *m = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);

	if (m == MAP_FAILED)
		return -errno;
	ring_attach(r, m, page, data_bytes);
	r->fd = fd;
	r->cpu = cpu;
	r->map_len = len;
	return 0;
}

void ring_unmap(struct ring *r)
{
	if (r->meta && r->map_len)
		munmap(r->meta, r->map_len);
	free(r->wrap);
	r->meta = NULL;
	r->wrap = NULL;
}

uint64_t ring_pending(const struct ring *r)
{
	return __atomic_load_n(&r->meta->data_head, __ATOMIC_ACQUIRE) -
	       r->meta->data_tail;
}

/* Copies n bytes from ring position pos to dst, joining the wrap.  dst
 * may be NULL when n is 0 (a full spool offers no room). */
static void copy_out(const struct ring *r, uint64_t pos, void *dst, size_t n)
{
	size_t off = pos & r->mask, first = r->mask + 1 - off;

	if (n == 0)
		return;
	if (n <= first) {
		memcpy(dst, r->data + off, n);
	} else {
		memcpy(dst, r->data + off, first);
		memcpy((uint8_t *)dst + first, r->data, n - first);
	}
}

/* The size of the record at pos, or 0 for impossible framing.  A header
 * never straddles: records are 8-aligned, the header is 8 bytes and the
 * data size a multiple of 8. */
static uint16_t record_size(const struct ring *r, uint64_t pos, uint64_t head)
{
	struct perf_event_header h;

	memcpy(&h, r->data + (pos & r->mask), sizeof(h));
	if (h.size < sizeof(h) || h.size > head - pos || (h.size & 7))
		return 0;
	return h.size;
}

void ring_move(struct ring *r, void *dst, size_t cap, struct ring_moved *out)
{
	uint64_t head = __atomic_load_n(&r->meta->data_head, __ATOMIC_ACQUIRE);
	uint64_t tail = r->meta->data_tail;	/* only we write it */
	uint64_t pos = tail;

	memset(out, 0, sizeof(*out));
	if (head - tail <= cap) {
		pos = head;		/* all of it, as it is */
	} else {
		uint16_t n;

		while (pos < head && (n = record_size(r, pos, head)) &&
		       pos + n - tail <= cap)
			pos += n;
	}
	out->bytes = (size_t)(pos - tail);
	copy_out(r, tail, dst, out->bytes);
	while (pos < head) {
		uint16_t n = record_size(r, pos, head);

		if (!n) {
			/* Impossible framing: nothing after it can be trusted. */
			r->framing_errors++;
			out->dropped_records++;
			out->dropped_bytes += head - pos;
			break;
		}
		out->dropped_records++;
		out->dropped_bytes += n;
		pos += n;
	}
	/* The kernel may reuse the bytes only after our reads of them. */
	__atomic_store_n(&r->meta->data_tail, head, __ATOMIC_RELEASE);
}

long ring_drain(struct ring *r, ring_rec_fn fn, void *ctx)
{
	uint64_t head = __atomic_load_n(&r->meta->data_head, __ATOMIC_ACQUIRE);
	uint64_t tail = r->meta->data_tail;	/* only we write it */
	uint64_t start = tail;
	int err = 0;

	while (tail < head) {
		uint16_t n = record_size(r, tail, head);
		const void *rec = r->data + (tail & r->mask);

		if (!n) {
			/* Impossible framing: nothing after it can be trusted. */
			r->framing_errors++;
			tail = head;
			break;
		}
		if ((tail & r->mask) + n > r->mask + 1) {
			/* The largest record is 64 KiB (header.size is a u16). */
			if (!r->wrap && !(r->wrap = malloc(1 << 16))) {
				err = -ENOMEM;
				break;
			}
			copy_out(r, tail, r->wrap, n);
			rec = r->wrap;
		}
		err = fn(ctx, rec, n);
		if (err < 0)
			break;
		tail += n;
	}
	__atomic_store_n(&r->meta->data_tail, tail, __ATOMIC_RELEASE);
	return err < 0 ? err : (long)(tail - start);
}
