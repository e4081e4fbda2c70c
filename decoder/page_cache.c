#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../common/array.h"
#include "../common/outside_file.h"
#include "page_cache.h"

void page_cache_init(struct page_cache *pc)
{
	memset(pc, 0, sizeof(*pc));
}

void page_cache_release(struct page_cache *pc)
{
	page_cache_restore(pc);
	free(pc->files);
	page_cache_init(pc);
}

/* mincore's vector for the first npages pages of the file on fd, into
 * vec: 0 or -errno.  A mapping of its own, gone before this returns:
 * mincore reads nothing, and the mapping must not outlive the call (a
 * page mapped by faultline could not be dropped). */
static int residency(int fd, size_t npages, unsigned char *vec)
{
	size_t len = npages * (size_t)sysconf(_SC_PAGESIZE);
	void *m = mmap(NULL, len, PROT_READ, MAP_SHARED, fd, 0);
	int err = 0;

	if (m == MAP_FAILED)
		return -errno;
	if (mincore(m, len, vec) < 0)
		err = -errno;
	munmap(m, len);
	return err;
}

static size_t pages_of(off_t size)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE);

	return ((size_t)size + page - 1) / page;
}

int page_cache_note(struct page_cache *pc, int fd)
{
	struct page_cache_file *f;
	struct stat st;
	int err;

	if (fstat(fd, &st) < 0)
		return -errno;
	if (!S_ISREG(st.st_mode))
		return -EINVAL;
	for (size_t i = 0; i < pc->n; i++)
		if (pc->files[i].dev == st.st_dev && pc->files[i].ino == st.st_ino)
			return 0;
	if (ARRAY_RESERVE(pc->files, pc->cap, pc->n + 1) < 0)
		return -ENOMEM;
	f = &pc->files[pc->n];
	memset(f, 0, sizeof(*f));
	f->dev = st.st_dev;
	f->ino = st.st_ino;
	f->npages = pages_of(st.st_size);
	if (f->npages && !(f->was = malloc(f->npages)))
		return -ENOMEM;
	f->fd = fcntl(fd, F_DUPFD_CLOEXEC, 0);
	if (f->fd < 0) {
		free(f->was);
		return -errno;
	}
	if (f->npages && (err = residency(fd, f->npages, f->was)) < 0) {
		close(f->fd);
		free(f->was);
		return err;
	}
	pc->n++;
	return 0;
}

int page_cache_note_path(struct page_cache *pc, const char *path)
{
	/* A candidate debug file, at a path its directory's owner may
	 * fill: a FIFO there must not block (build-id links are followed). */
	static const struct outside_rule rule = { OUTSIDE_ANY_OWNER, 1, 0 };
	struct stat st;
	const char *why;
	int fd = outside_file_open(path, &rule, &st, &why), err;

	if (fd < 0)
		return fd;
	err = page_cache_note(pc, fd);
	close(fd);
	return err;
}

/* Drops f's pages that were not resident at the note and are now, each
 * run of them with one call.  Pages past the noted size (the file grew)
 * are someone else's and stay. */
static void restore_file(struct page_cache *pc, struct page_cache_file *f)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE), n = f->npages, i = 0;
	unsigned char *now;
	struct stat st;

	if (!n || fstat(f->fd, &st) < 0)
		return;
	if (pages_of(st.st_size) < n)
		n = pages_of(st.st_size);	/* cut short meanwhile */
	now = malloc(n ? n : 1);
	if (!now || residency(f->fd, n, now) < 0) {
		free(now);
		return;
	}
	while (i < n) {
		size_t start;

		if ((f->was[i] & 1) || !(now[i] & 1)) {
			i++;
			continue;
		}
		for (start = i; i < n && !(f->was[i] & 1) && (now[i] & 1); i++)
			;
		/* Advice: a page a process has mapped, or one still locked
		 * for I/O, stays. */
		posix_fadvise(f->fd, (off_t)(start * page),
			      (off_t)((i - start) * page), POSIX_FADV_DONTNEED);
		pc->dropped += i - start;
	}
	free(now);
}

void page_cache_restore(struct page_cache *pc)
{
	for (size_t i = 0; i < pc->n; i++) {
		restore_file(pc, &pc->files[i]);
		close(pc->files[i].fd);
		free(pc->files[i].was);
	}
	pc->n = 0;
}
