#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "ring.h"

int ring_attach(struct ring *r, void *mem, size_t page, size_t data_bytes)
{
	memset(r, 0, sizeof(*r));
	r->fd = -1;
	/* The largest record is 64 KiB (header.size is a u16). */
	r->wrap = malloc(1 << 16);
	if (!r->wrap)
		return -ENOMEM;
	r->meta = mem;
	r->data = (uint8_t *)mem + page;
	r->mask = data_bytes - 1;
	return 0;
}

int ring_map(struct ring *r, int fd, int cpu, size_t data_bytes)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	size_t len = page + data_bytes;
	void *m = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	int err;

	if (m == MAP_FAILED)
		return -errno;
	err = ring_attach(r, m, page, data_bytes);
	if (err < 0) {
		munmap(m, len);
		return err;
	}
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

long ring_drain(struct ring *r, ring_rec_fn fn, void *ctx)
{
	uint64_t head = __atomic_load_n(&r->meta->data_head, __ATOMIC_ACQUIRE);
	uint64_t tail = r->meta->data_tail;	/* only we write it */
	uint64_t start = tail;
	int err = 0;

	while (tail < head) {
		uint64_t off = tail & r->mask;
		struct perf_event_header h;
		const void *rec;

		/* A header never straddles: records are 8-aligned, the
		 * header is 8 bytes and the data size a multiple of 8. */
		memcpy(&h, r->data + off, sizeof(h));
		if (h.size < sizeof(h) || h.size > head - tail || (h.size & 7)) {
			/* Impossible framing: nothing after it can be trusted. */
			r->framing_errors++;
			tail = head;
			break;
		}
		if (off + h.size > r->mask + 1) {
			size_t first = r->mask + 1 - off;

			memcpy(r->wrap, r->data + off, first);
			memcpy(r->wrap + first, r->data, h.size - first);
			rec = r->wrap;
		} else {
			rec = r->data + off;
		}
		err = fn(ctx, rec, h.size);
		if (err < 0)
			break;
		tail += h.size;
	}
	__atomic_store_n(&r->meta->data_tail, tail, __ATOMIC_RELEASE);
	return err < 0 ? err : (long)(tail - start);
}
