#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "spill_file.h"

/* Space read back is given back to the file system this many bytes at a
 * time: a hole punch per entry would be a system call per ring's worth. */
#define PUNCH_STEP (8ull << 20)

void spill_file_none(struct spill_file *f)
{
	*f = (struct spill_file){ .fd = -1 };
}

/* A named temporary file, unlinked at once, where the file system (or an
 * older kernel) has no O_TMPFILE. */
static int open_unlinked(const char *dir)
{
	char path[PATH_MAX];
	int fd;

	if (snprintf(path, sizeof(path), "%s/.faultline-spill-XXXXXX", dir) >=
	    (int)sizeof(path))
		return -ENAMETOOLONG;
	fd = mkostemp(path, O_CLOEXEC);
	if (fd < 0)
		return -errno;
	unlink(path);
	return fd;
}

int spill_file_open(struct spill_file *f, const char *dir, uint64_t cap)
{
	int fd;

	spill_file_none(f);
	fd = open(dir, O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
	if (fd < 0 && (errno == EOPNOTSUPP || errno == EISDIR || errno == EINVAL))
		fd = open_unlinked(dir);
	else if (fd < 0)
		fd = -errno;
	if (fd < 0)
		return fd;
	f->fd = fd;
	f->cap = cap;
	return 0;
}

void spill_file_close(struct spill_file *f)
{
	if (f->fd >= 0)
		close(f->fd);
	f->fd = -1;
}

uint64_t spill_file_waiting(const struct spill_file *f)
{
	uint64_t read = __atomic_load_n(&f->read, __ATOMIC_ACQUIRE);

	return __atomic_load_n(&f->written, __ATOMIC_ACQUIRE) - read;
}

int spill_file_has_room(struct spill_file *f, uint64_t n)
{
	return f->fd >= 0 && !f->write_errno && spill_file_waiting(f) + n <= f->cap;
}

int64_t spill_file_append(struct spill_file *f, const void *buf, size_t n)
{
	uint64_t off = f->written, waiting;
	size_t done = 0;

	if (!spill_file_has_room(f, n))
		return -ENOSPC;
	while (done < n) {
		ssize_t w = pwrite(f->fd, (const char *)buf + done, n - done,
				   (off_t)(off + done));

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0) {
			/* A full file system stays full for a while: stop
			 * spilling rather than try at every round. */
			f->write_errno = w < 0 ? errno : ENOSPC;
			return -f->write_errno;
		}
		done += (size_t)w;
	}
	f->total += n;
	__atomic_store_n(&f->written, off + n, __ATOMIC_RELEASE);
	waiting = spill_file_waiting(f);
	if (waiting > f->peak)
		f->peak = waiting;
	return (int64_t)off;
}

int spill_file_read(struct spill_file *f, uint64_t off, void *buf, size_t n)
{
	size_t done = 0;

	while (done < n) {
		ssize_t r = pread(f->fd, (char *)buf + done, n - done,
				  (off_t)(off + done));

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return r < 0 ? -errno : -EIO;
		done += (size_t)r;
	}
	return 0;
}

void spill_file_done(struct spill_file *f, uint64_t upto)
{
	__atomic_store_n(&f->read, upto, __ATOMIC_RELEASE);
	if (upto - f->punched < PUNCH_STEP)
		return;
	/* What was read back leaves the disk and the page cache; a file
	 * system without hole punching keeps it until the file is closed. */
	fallocate(f->fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE,
		  (off_t)f->punched, (off_t)(upto - f->punched));
	f->punched = upto;
}
