/*
 * block_workload: a known number of direct reads of a known size, for
 * tests/integration/test_block_io.c.
 *
 * Usage: block_workload FILE COUNT SIZE INFO_FILE
 * Writes FILE (8 * COUNT * SIZE bytes), syncs it, then reads COUNT
 * blocks of SIZE bytes (a multiple of 4096) with O_DIRECT, each one
 * inside one extent of the file (FIEMAP says where they are), so each
 * read is one block request of SIZE bytes: no page cache in between, no
 * read-ahead, no bio split at an extent's end.  INFO_FILE gets "tid=N"
 * (the reading thread), "reads=N" and "read_ns=N" (the reads' wall time,
 * CLOCK_MONOTONIC, for bench/collector/block_io_overhead.sh); then it
 * lives LINGER_MS more (environment; default 0), FILE still open, so a
 * recorder can name its descriptor.  Exit 77: the file system cannot
 * do it (no O_DIRECT, no FIEMAP, too few extents large enough).
 */
#include <fcntl.h>
#include <linux/fiemap.h>
#include <linux/fs.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

#define MAX_EXTENTS 256

static int write_file(const char *path, size_t bytes)
{
	char block[65536];
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);

	if (fd < 0)
		return -1;
	for (size_t i = 0; i < sizeof(block); i++)
		block[i] = (char)(i * 7 + 3);
	for (size_t done = 0; done < bytes; done += sizeof(block))
		if (write(fd, block, sizeof(block)) != (ssize_t)sizeof(block))
			return -1;
	return fsync(fd) < 0 ? -1 : close(fd);
}

/* The offsets of count reads of size bytes, each inside one extent, two
 * sizes apart; 0, or -1 when the extents do not hold them. */
static int plan(int fd, size_t count, size_t size, off_t *at)
{
	struct fiemap *fm = calloc(1, sizeof(*fm) + MAX_EXTENTS *
				   sizeof(struct fiemap_extent));
	size_t n = 0;

	if (!fm)
		return -1;
	fm->fm_length = FIEMAP_MAX_OFFSET;
	fm->fm_flags = FIEMAP_FLAG_SYNC;
	fm->fm_extent_count = MAX_EXTENTS;
	if (ioctl(fd, FS_IOC_FIEMAP, fm) < 0) {
		free(fm);
		return -1;
	}
	for (unsigned i = 0; i < fm->fm_mapped_extents && n < count; i++) {
		const struct fiemap_extent *x = &fm->fm_extents[i];
		off_t o = (off_t)((x->fe_logical + size - 1) / size * size);

		if (x->fe_flags & (FIEMAP_EXTENT_UNKNOWN | FIEMAP_EXTENT_ENCODED |
				   FIEMAP_EXTENT_UNWRITTEN | FIEMAP_EXTENT_NOT_ALIGNED))
			continue;
		for (; (uint64_t)o + size <= x->fe_logical + x->fe_length &&
		       n < count; o += 2 * (off_t)size)
			at[n++] = o;
	}
	free(fm);
	return n == count ? 0 : -1;
}

int main(int argc, char **argv)
{
	struct timespec t0, t1;
	size_t count, size;
	off_t *at;
	void *buf;
	FILE *info;
	int fd;

	if (argc != 5)
		return 2;
	count = strtoul(argv[2], NULL, 10);
	size = strtoul(argv[3], NULL, 10);
	at = calloc(count, sizeof(*at));
	if (!at || !size || size % 4096 || posix_memalign(&buf, 4096, size))
		return 2;
	if (write_file(argv[1], 8 * count * size) < 0)
		return 1;
	fd = open(argv[1], O_RDONLY | O_DIRECT);
	/* Freed on the ways out that a test reads (77, 0): a build under
	 * LeakSanitizer would end otherwise. */
	if (fd < 0 || plan(fd, count, size, at) < 0) {
		free(at);
		free(buf);
		return 77;
	}
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (size_t i = 0; i < count; i++)
		if (pread(fd, buf, size, at[i]) != (ssize_t)size)
			return 1;
	clock_gettime(CLOCK_MONOTONIC, &t1);
	free(at);
	free(buf);
	info = fopen(argv[4], "w");
	if (!info)
		return 1;
	fprintf(info, "tid=%d\nreads=%zu\nread_ns=%lld\n", gettid(), count,
		(long long)(t1.tv_sec - t0.tv_sec) * 1000000000ll +
		(t1.tv_nsec - t0.tv_nsec));
	if (fclose(info) != 0)
		return 1;
	if (getenv("LINGER_MS"))
		usleep((useconds_t)atoi(getenv("LINGER_MS")) * 1000);
	return 0;
}
