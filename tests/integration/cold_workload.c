/*
 * cold_workload: the observer-effect probe.  Does recording a program
 * bring back pages of its files that had left the page cache?
 *
 *   cold_workload --major FILE [--ready FILE] [--wait] [--pause MS]
 *                 [--info FILE]
 *
 * It evicts libstacklazy.so (linked lazily, -Wl,-z,lazy, found beside
 * it), then takes a major fault on a dropped page of FILE in main ->
 * fault_outer -> fault_inner: a stack for a recorder to unwind.  With
 * --wait it then waits for SIGUSR1, at most 60 s (the test sends it once
 * the recorder has stored that fault, so its stack has been unwound);
 * with --pause it sleeps that long instead (for measuring by hand).
 * Then it counts the library's resident pages and makes the first call of
 * lazy_late_target, whose lookup reads the library's symbol tables: a
 * major fault in the dynamic linker when they are still evicted.
 *
 * --ready FILE gets pid= and major= (the faulting address) before the
 * eviction; --info FILE at the end:
 *   evicted_resident  library pages still resident after the eviction
 *   evict_tries       page-outs it took (at most EVICT_TRIES)
 *   resident_after    library pages resident after the fault (and the
 *                     SIGUSR1), before the lazy call
 *   lazy_major        major faults of the lazy call (RUSAGE_THREAD)
 *   major_was_resident the faulting page was cached before (expect 0)
 *
 * Every function called between the eviction and the lazy call is
 * called once before the eviction: a first call is bound lazily too, and
 * its lookup would read the evicted library's symbol tables itself.
 */
#define _GNU_SOURCE	/* RUSAGE_THREAD */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "dropped_page.h"

#define LIBRARY "libstacklazy.so"

/* MADV_PAGEOUT is advice (DESIGN.md): a bounded number of tries. */
#define EVICT_TRIES 5

int lazy_late_target(int x);

static void die(const char *what)
{
	fprintf(stderr, "cold_workload: %s: %s\n", what, strerror(errno));
	exit(2);
}

__attribute__((noinline)) int fault_inner(volatile char *p);
__attribute__((noinline)) int fault_outer(volatile char *p);

__attribute__((noinline)) int fault_inner(volatile char *p)
{
	int v = p[0];	/* the major fault */

	__asm__ volatile("" ::: "memory");
	return v + 1;
}

__attribute__((noinline)) int fault_outer(volatile char *p)
{
	int v = fault_inner(p);

	__asm__ volatile("" ::: "memory");
	return v + 2;
}

/*
 * Applies advice to every mapping of the library, then returns how many
 * pages of its file are in the page cache: mincore on a mapping of the
 * whole file of its own, which reads nothing (on the library's private
 * mappings mincore would count the relocated pages too, which are
 * anonymous copies and stay).  MADV_NORMAL only counts.  The file is
 * synced first: a library just copied is dirty in the page cache, and
 * dirty pages are not dropped until written back.
 */
static long library_pages(int advice)
{
	char line[512], path[256], lib[256] = "";
	unsigned long start, end;
	long page = sysconf(_SC_PAGESIZE), resident = 0;
	FILE *f = fopen("/proc/self/maps", "r");
	unsigned char vec[1024];
	struct stat st;
	size_t pages;
	void *m;
	int fd;

	if (!f)
		die("/proc/self/maps");
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%lx-%lx %*s %*s %*s %*s %255s", &start, &end,
			   path) != 3 || !strstr(path, LIBRARY))
			continue;
		/* MADV_NORMAL too: madvise is then bound before it matters. */
		if (madvise((void *)start, end - start, advice) < 0)
			die("madvise");
		memcpy(lib, path, sizeof(lib));
	}
	fclose(f);
	fd = open(lib, O_RDONLY);
	if (fd < 0 || fsync(fd) < 0 || fstat(fd, &st) < 0)
		die(lib);
	if (advice != MADV_NORMAL &&
	    posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED) != 0)
		die("posix_fadvise");
	pages = ((size_t)st.st_size + (size_t)page - 1) / (size_t)page;
	if (pages > sizeof(vec))
		die("library too large");
	m = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_SHARED, fd, 0);
	if (m == MAP_FAILED || mincore(m, (size_t)st.st_size, vec) < 0)
		die("mincore");
	for (size_t i = 0; i < pages; i++)
		resident += vec[i] & 1;
	munmap(m, (size_t)st.st_size);
	close(fd);
	return resident;
}

int main(int argc, char **argv)
{
	const char *major_file = NULL, *ready = NULL, *info = NULL;
	long evicted = -1, after, lazy_major;
	struct timespec zero = { 0, 0 };
	struct rusage ru0, ru1;
	long pause_ms = 0;
	int wait = 0, resident, tries, v;
	sigset_t usr1;
	char *major;
	FILE *f;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--wait"))
			wait = 1;
		else if (i + 1 < argc && !strcmp(argv[i], "--major"))
			major_file = argv[++i];
		else if (i + 1 < argc && !strcmp(argv[i], "--pause"))
			pause_ms = atol(argv[++i]);
		else if (i + 1 < argc && !strcmp(argv[i], "--ready"))
			ready = argv[++i];
		else if (i + 1 < argc && !strcmp(argv[i], "--info"))
			info = argv[++i];
		else {
			fprintf(stderr, "cold_workload: bad argument '%s'\n", argv[i]);
			return 2;
		}
	}
	if (!major_file) {
		fprintf(stderr, "cold_workload: --major FILE is required\n");
		return 2;
	}
	sigemptyset(&usr1);
	sigaddset(&usr1, SIGUSR1);
	sigprocmask(SIG_BLOCK, &usr1, NULL);
	major = prepare_major(major_file, &resident);
	/* Bound now, as said above. */
	sigtimedwait(&usr1, NULL, &zero);
	nanosleep(&zero, NULL);
	getrusage(RUSAGE_THREAD, &ru0);
	library_pages(MADV_NORMAL);
	if (ready) {
		f = fopen(ready, "w");
		if (!f)
			die(ready);
		fprintf(f, "pid=%ld\nmajor=%lu\n", (long)getpid(),
			(unsigned long)major);
		if (fclose(f) != 0)
			die(ready);
	}
	for (tries = 1; tries <= EVICT_TRIES; tries++)
		if ((evicted = library_pages(MADV_PAGEOUT)) == 0)
			break;
	v = fault_outer(major);
	if (wait) {
		/* Not forever: a test that failed before sending it must
		 * not leave this waiting. */
		struct timespec limit = { 60, 0 };

		sigtimedwait(&usr1, NULL, &limit);
	}
	if (pause_ms > 0) {
		struct timespec t = { pause_ms / 1000, pause_ms % 1000 * 1000000 };

		nanosleep(&t, NULL);
	}
	after = library_pages(MADV_NORMAL);
	getrusage(RUSAGE_THREAD, &ru0);
	v += lazy_late_target(v);
	getrusage(RUSAGE_THREAD, &ru1);
	lazy_major = ru1.ru_majflt - ru0.ru_majflt;
	if (info) {
		f = fopen(info, "w");
		if (!f)
			die(info);
		fprintf(f, "pid=%ld\nevicted_resident=%ld\nevict_tries=%d\n"
			"resident_after=%ld\nlazy_major=%ld\nmajor_was_resident=%d\n"
			"sum=%d\n", (long)getpid(), evicted,
			tries > EVICT_TRIES ? EVICT_TRIES : tries, after, lazy_major,
			resident, v);
		if (fclose(f) != 0)
			die(info);
	}
	return 0;
}
