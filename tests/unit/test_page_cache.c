/*
 * page_cache: a note, reads, a restore, on a file of this test's own in
 * the suite's temporary directory (on disk: pages on a tmpfs cannot
 * leave memory, and a test there skips, saying so).
 */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include "../integration/run.h"
#include "../../decoder/page_cache.h"

#define PAGES 64

static char scratch[128];
static char path[256];
static long page;

/* The file's resident pages, as mincore says: vec gets PAGES entries. */
static int resident(unsigned char *vec)
{
	int fd = open(path, O_RDONLY), n = 0;
	void *m;

	assert_true(fd >= 0);
	m = mmap(NULL, (size_t)(PAGES * page), PROT_READ, MAP_SHARED, fd, 0);
	assert_true(m != MAP_FAILED);
	assert_int_equal(mincore(m, (size_t)(PAGES * page), vec), 0);
	munmap(m, (size_t)(PAGES * page));
	close(fd);
	for (int i = 0; i < PAGES; i++)
		n += vec[i] & 1;
	return n;
}

/* A fresh PAGES-page file, synced (dirty pages cannot be dropped) and
 * dropped from the page cache; skips where its pages stay. */
static int cold_file(void)
{
	unsigned char vec[PAGES];
	char *buf = calloc(PAGES, (size_t)page);
	int fd, n;

	assert_non_null(buf);
	fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0644);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, buf, (size_t)(PAGES * page)), PAGES * page);
	free(buf);
	assert_int_equal(fsync(fd), 0);
	assert_int_equal(posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED), 0);
	if ((n = resident(vec)) != 0)
		skip_msg("%d of %d pages of %s stayed cached after "
			 "POSIX_FADV_DONTNEED (a tmpfs?)", n, PAGES, path);
	/* Read-ahead off: each read brings exactly its own pages. */
	assert_int_equal(posix_fadvise(fd, 0, 0, POSIX_FADV_RANDOM), 0);
	return fd;
}

static void read_pages(int fd, int first, int count)
{
	char *buf = malloc((size_t)(count * page));

	assert_non_null(buf);
	assert_int_equal(pread(fd, buf, (size_t)(count * page), first * page),
			 count * page);
	free(buf);
}

static void a_restore_drops_the_pages_read_since_the_note_and_keeps_the_others(void **state)
{
	struct page_cache pc;
	unsigned char vec[PAGES];
	int fd = cold_file();

	(void)state;
	page_cache_init(&pc);
	read_pages(fd, 0, 4);		/* resident before the note */
	assert_int_equal(page_cache_note(&pc, fd), 0);
	read_pages(fd, 0, 8);		/* 4 of them again, 4 new */
	read_pages(fd, 40, 10);
	assert_int_equal(resident(vec), 18);
	page_cache_restore(&pc);
	assert_int_equal(resident(vec), 4);
	for (int i = 0; i < PAGES; i++)
		assert_int_equal(vec[i] & 1, i < 4);
	assert_int_equal(pc.dropped, 14);
	page_cache_release(&pc);
	close(fd);
}

static void a_file_noted_twice_keeps_its_first_note(void **state)
{
	struct page_cache pc;
	unsigned char vec[PAGES];
	int fd = cold_file(), fd2 = open(path, O_RDONLY);

	(void)state;
	assert_true(fd2 >= 0);
	page_cache_init(&pc);
	assert_int_equal(page_cache_note(&pc, fd), 0);
	read_pages(fd, 10, 2);
	/* The same file by another descriptor: not noted anew, so the two
	 * pages read since the first note still go. */
	assert_int_equal(page_cache_note(&pc, fd2), 0);
	assert_int_equal(pc.n, 1);
	read_pages(fd2, 20, 2);
	page_cache_release(&pc);	/* releasing restores */
	assert_int_equal(resident(vec), 0);
	/* After a restore a note is a new one; by path too. */
	page_cache_init(&pc);
	read_pages(fd, 30, 1);
	assert_int_equal(page_cache_note_path(&pc, path), 0);
	read_pages(fd, 31, 1);
	page_cache_restore(&pc);
	assert_int_equal(pc.n, 0);
	assert_int_equal(resident(vec), 1);
	assert_int_equal(vec[30] & 1, 1);
	page_cache_release(&pc);
	close(fd2);
	close(fd);
}

static void a_page_a_process_has_mapped_stays(void **state)
{
	struct page_cache pc;
	unsigned char vec[PAGES];
	int fd = cold_file();
	volatile char *m;

	(void)state;
	page_cache_init(&pc);
	assert_int_equal(page_cache_note(&pc, fd), 0);
	m = mmap(NULL, (size_t)(PAGES * page), PROT_READ, MAP_SHARED, fd, 0);
	assert_true(m != MAP_FAILED);
	(void)m[5 * page];	/* faulted in and mapped, as a target's page is */
	page_cache_restore(&pc);
	resident(vec);
	assert_int_equal(vec[5] & 1, 1);
	munmap((void *)m, (size_t)(PAGES * page));
	page_cache_release(&pc);
	close(fd);
}

static void what_is_no_regular_file_is_not_noted(void **state)
{
	struct page_cache pc;
	int p[2];

	(void)state;
	page_cache_init(&pc);
	assert_int_equal(pipe(p), 0);
	assert_int_equal(page_cache_note(&pc, p[0]), -EINVAL);
	assert_int_equal(page_cache_note(&pc, 12345), -EBADF);
	assert_int_equal(page_cache_note_path(&pc, "/nonexistent/file"), -ENOENT);
	/* Opened as an outside file: no regular file, never read. */
	assert_int_equal(page_cache_note_path(&pc, "/proc/self"), -EPERM);
	assert_int_equal(page_cache_note_path(&pc, "/dev/zero"), -EPERM);
	assert_int_equal(pc.n, 0);
	page_cache_release(&pc);
	close(p[0]);
	close(p[1]);
}

static int setup(void **state)
{
	(void)state;
	page = sysconf(_SC_PAGESIZE);
	if (!mkdtemp(tmp_template(scratch, sizeof(scratch), "faultline-page-cache")))
		return -1;
	snprintf(path, sizeof(path), "%s/file", scratch);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	unlink(path);
	return rmdir(scratch);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(a_restore_drops_the_pages_read_since_the_note_and_keeps_the_others),
		cmocka_unit_test(a_file_noted_twice_keeps_its_first_note),
		cmocka_unit_test(a_page_a_process_has_mapped_stays),
		cmocka_unit_test(what_is_no_regular_file_is_not_noted),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
