#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <unistd.h>

#include "pt_aux.h"

int pt_aux_map(struct pt_aux *a, struct ring *r, size_t size, int overwrite)
{
	void *m;

	memset(a, 0, sizeof(*a));
	/* The area's place and size are the reader's to choose: right after
	 * the data area.  The kernel reads both at the mmap. */
	r->meta->aux_offset = r->map_len;
	r->meta->aux_size = size;
	m = mmap(NULL, size, PROT_READ | (overwrite ? 0 : PROT_WRITE), MAP_SHARED,
		 r->fd, (off_t)r->map_len);
	if (m == MAP_FAILED)
		return -errno;
	a->meta = r->meta;
	a->data = m;
	a->size = size;
	a->map_len = size;
	a->overwrite = overwrite;
	return 0;
}

void pt_aux_attach(struct pt_aux *a, struct perf_event_mmap_page *meta,
		   void *mem, size_t size, int overwrite)
{
	memset(a, 0, sizeof(*a));
	a->meta = meta;
	a->data = mem;
	a->size = size;
	a->overwrite = overwrite;
}

void pt_aux_unmap(struct pt_aux *a)
{
	if (a->data && a->map_len)
		munmap(a->data, a->map_len);
	memset(a, 0, sizeof(*a));
}

static int read_int(const char *path, long *v)
{
	FILE *f = fopen(path, "r");
	int ok;

	if (!f)
		return -1;
	ok = fscanf(f, "%ld", v) == 1;
	fclose(f);
	return ok ? 0 : -1;
}

int pt_aux_explain(int err, size_t size, const char *what, struct errmsg *e)
{
	struct rlimit rl;
	long mlock_kb = -1;
	char limit[64] = "unlimited";

	if (err != EPERM && err != ENOMEM)
		return errmsg_set(e, err, "cannot map the %zu KiB Intel PT area "
				  "of %s: %s", size >> 10, what, strerror(err));
	if (geteuid() == 0 && err == ENOMEM)
		return errmsg_set(e, err, "cannot map the %zu KiB Intel PT area "
				  "of %s: the kernel could not allocate it; use a "
				  "smaller --pt-size", size >> 10, what);
	read_int("/proc/sys/kernel/perf_event_mlock_kb", &mlock_kb);
	if (getrlimit(RLIMIT_MEMLOCK, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY)
		snprintf(limit, sizeof(limit), "%llu KiB",
			 (unsigned long long)(rl.rlim_cur >> 10));
	return errmsg_set(e, err, "cannot map the %zu KiB Intel PT area of %s: "
			  "over the locked-memory limit (perf_event_mlock_kb=%ld "
			  "per CPU for the rings and PT areas together, then "
			  "ulimit -l, here %s); use a smaller --pt-size or "
			  "--buffer-size, raise /proc/sys/kernel/perf_event_mlock_kb, "
			  "or run as root", size >> 10, what, mlock_kb, limit);
}

size_t pt_ring_copy_back(const uint8_t *ring, size_t size, uint64_t end,
			 uint64_t avail, size_t want, uint8_t *out)
{
	size_t n = want, off, first;

	if (n > size)
		n = size;
	if (n > avail)
		n = (size_t)avail;
	/* The n bytes are [end - n, end) modulo size: at most two pieces,
	 * the tail of the ring, then its start. */
	off = (size_t)((end - n) & (size - 1));
	first = size - off < n ? size - off : n;
	memcpy(out, ring + off, first);
	memcpy(out + first, ring, n - first);
	return n;
}

int pt_aux_take(const struct pt_aux *a, uint64_t off, uint64_t size,
		uint8_t *out)
{
	uint64_t head = __atomic_load_n(&a->meta->aux_head, __ATOMIC_ACQUIRE);
	uint64_t tail = a->meta->aux_tail;	/* only we write it */

	/* The kernel writes no further than aux_tail + size: a range outside
	 * [tail, head], or longer than the area, was overwritten or is not
	 * there yet. */
	if (off < tail || off + size > head || off + size < off || size > a->size)
		return -ERANGE;
	pt_ring_copy_back(a->data, a->size, off + size, size, (size_t)size, out);
	return 0;
}

void pt_aux_release(struct pt_aux *a, uint64_t upto)
{
	if (upto > a->meta->aux_tail)
		__atomic_store_n(&a->meta->aux_tail, upto, __ATOMIC_RELEASE);
}

/* tools/perf's test: the kernel writes the area front to back, so the
 * bytes after the head, up to the end, stay zero until the first time it
 * reaches the end.  Only the last 4 KiB of them are looked at (PAD
 * packets are zero bytes, so a long run of zeros proves nothing). */
static int has_wrapped(const uint8_t *data, size_t size, size_t head)
{
	size_t from = size > 4096 ? size - 4096 : 0;

	if (from < head)
		from = head;
	for (size_t i = from; i < size; i++)
		if (data[i])
			return 1;
	return 0;
}

size_t pt_aux_snapshot(struct pt_aux *a, uint64_t end, size_t want,
		       uint8_t *out)
{
	uint64_t off = end & (a->size - 1);

	if (!a->wrapped && has_wrapped(a->data, a->size, (size_t)off))
		a->wrapped = 1;
	return pt_ring_copy_back(a->data, a->size, off, a->wrapped ? a->size : off,
				 want, out);
}

uint64_t pt_aux_head(const struct pt_aux *a)
{
	return __atomic_load_n(&a->meta->aux_head, __ATOMIC_ACQUIRE);
}
