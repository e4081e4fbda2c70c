/*
 * A file page that is not in the page cache, for workloads that must take
 * a major fault: included by the test workloads, which define die().
 */
#ifndef FL_TEST_DROPPED_PAGE_H
#define FL_TEST_DROPPED_PAGE_H

#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

static void die(const char *what);

/* Dropping is advice: under load the kernel sometimes keeps the page
 * (seen once in a make check beside other work), so it is asked again,
 * 10 ms apart, up to this many times. */
#define DROP_TRIES 100

/* Drops fd's pages from the page cache until the page at probe (in a
 * mapping of fd) is not resident, or DROP_TRIES asks; returns whether it
 * still is (mincore). */
static inline int drop_cached(int fd, const char *probe)
{
	unsigned char vec = 0;

	for (int i = 0; i < DROP_TRIES; i++) {
		if (i > 0)
			usleep(10000);
		if (posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED) != 0)
			die("posix_fadvise");
		if (mincore((void *)probe, 1, &vec) < 0)
			die("mincore");
		if (!(vec & 1))
			break;
	}
	return vec & 1;
}

/* A 4-page file written, synced (dirty pages cannot be dropped), mapped,
 * then dropped from the cache; *resident says whether its first page is
 * still cached after the last try, which a test expects to be 0. */
static inline char *prepare_major(const char *path, int *resident)
{
	long page = sysconf(_SC_PAGESIZE);
	char *buf = malloc((size_t)page * 4);
	char *map;
	int fd;

	if (!buf)
		die("malloc");
	memset(buf, 'x', (size_t)page * 4);
	fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0644);
	if (fd < 0 || write(fd, buf, (size_t)page * 4) != page * 4 || fsync(fd) < 0)
		die(path);
	free(buf);
	map = mmap(NULL, (size_t)page * 4, PROT_READ, MAP_SHARED, fd, 0);
	if (map == MAP_FAILED)
		die("mmap file");
	*resident = drop_cached(fd, map);
	close(fd);
	return map;
}

#endif
