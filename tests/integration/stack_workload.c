/*
 * stack_workload: takes a major fault inside a known call chain, for the
 * stack tests.  The Makefile builds it twice: with frame pointers (-O1)
 * and without (-O2 -fomit-frame-pointer), both with -g.
 *
 *   --major-file PATH  main -> chain_a -> chain_b -> chain_c, and chain_c
 *                      reads a file page dropped from the page cache:
 *                      one major fault three functions deep
 *   --lazy             the late first call of lazy_late_target (in
 *                      libstacklazy.so, bound lazily: -Wl,-z,lazy) after
 *                      that library's pages were evicted (MADV_PAGEOUT):
 *                      the dynamic linker faults looking the symbol up
 *   --capture FILE     with --major-file: record the fault's own sample
 *                      (user registers and stack copy) with
 *                      perf_event_open and write it to FILE, the fixture
 *                      tests/unit/test_unwind.c replays
 *   --info FILE        write what was done: pid, tid, addresses
 *
 * It first sleeps 1 ms: a switch out of a thread that does not block.
 *
 * chain_* are noinline and do work after their call, so each is a real
 * frame (no inlining, no tail call) at any optimization level.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "dropped_page.h"

int lazy_late_target(int x);

#define STACK_COPY 8192

static void die(const char *what)
{
	fprintf(stderr, "stack_workload: %s: %s\n", what, strerror(errno));
	exit(2);
}

__attribute__((noinline)) int chain_sink(int v);
__attribute__((noinline)) int chain_c(volatile char *p);
__attribute__((noinline)) int chain_b(volatile char *p);
__attribute__((noinline)) int chain_a(volatile char *p);

__attribute__((noinline)) int chain_sink(int v)
{
	__asm__ volatile("" ::: "memory");
	return v + 1;
}

/* Not a leaf: compilers leave the frame pointer out of leaf functions
 * even with -fno-omit-frame-pointer, and a frame-pointer walk from a
 * frameless leaf skips its caller. */
__attribute__((noinline)) int chain_c(volatile char *p)
{
	int v = p[0];	/* the major fault */

	return chain_sink(v) + 1;
}

__attribute__((noinline)) int chain_b(volatile char *p)
{
	int v = chain_c(p);

	__asm__ volatile("" ::: "memory");
	return v + 2;
}

__attribute__((noinline)) int chain_a(volatile char *p)
{
	int v = chain_b(p);

	__asm__ volatile("" ::: "memory");
	return v + 3;
}

/* The caller of the lazily bound function: the frame under the dynamic
 * linker's resolver. */
__attribute__((noinline)) int lazy_caller(int x);
__attribute__((noinline)) int lazy_caller(int x)
{
	int v = lazy_late_target(x);

	__asm__ volatile("" ::: "memory");
	return v + 1;
}

/* Evicts every page of the library's file mappings (advice
 * MADV_PAGEOUT); returns how many were still resident after.  Run once
 * with MADV_NORMAL first: every function it calls is then bound, so
 * their own lazy binding cannot be what faults on the evicted pages. */
static long evict_library(const char *name, int advice)
{
	char line[512], path[256];
	unsigned long start, end;
	long page = sysconf(_SC_PAGESIZE), resident = 0;
	FILE *f = fopen("/proc/self/maps", "r");

	if (!f)
		die("/proc/self/maps");
	while (fgets(line, sizeof(line), f)) {
		unsigned char vec[256];
		size_t pages;

		int fd;

		if (sscanf(line, "%lx-%lx %*s %*s %*s %*s %255s", &start, &end,
			   path) != 3 || !strstr(path, name))
			continue;
		/* A library just linked is dirty in the page cache, and dirty
		 * pages are not reclaimed until written back. */
		fd = open(path, O_RDONLY);
		if (fd < 0 || fsync(fd) < 0)
			die(path);
		close(fd);
		if (madvise((void *)start, end - start, advice) < 0)
			die("madvise");
		pages = (end - start) / (size_t)page;
		if (pages > sizeof(vec))
			pages = sizeof(vec);
		if (mincore((void *)start, pages * (size_t)page, vec) == 0)
			for (size_t i = 0; i < pages; i++)
				resident += vec[i] & 1;
	}
	fclose(f);
	return resident;
}

struct capture {
	int fd;
	void *ring;
	size_t ring_len;
};

/* major-faults on this thread, sampling the user registers and stack
 * as faultline --stacks=dwarf does. */
static void capture_open(struct capture *c)
{
	struct perf_event_attr a;

	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.type = PERF_TYPE_SOFTWARE;
	a.config = PERF_COUNT_SW_PAGE_FAULTS_MAJ;
	a.sample_period = 1;
	a.sample_type = PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER;
	a.sample_regs_user = ((1ull << 24) - 1) & ~(0xfull << 12);
	a.sample_stack_user = STACK_COPY;
	a.exclude_kernel = 1;
	a.disabled = 1;
	c->fd = (int)syscall(SYS_perf_event_open, &a, 0, -1, -1, 0);
	if (c->fd < 0)
		die("perf_event_open");
	c->ring_len = (size_t)sysconf(_SC_PAGESIZE) * 17;
	c->ring = mmap(NULL, c->ring_len, PROT_READ | PROT_WRITE, MAP_SHARED,
		       c->fd, 0);
	if (c->ring == MAP_FAILED)
		die("mmap ring");
	ioctl(c->fd, PERF_EVENT_IOC_ENABLE, 0);
}

/* The first sample, as text: regs (hex, perf order of the mask), the
 * stack copy (hex), and this program's executable mappings. */
static void capture_write(struct capture *c, const char *out)
{
	struct perf_event_mmap_page *m = c->ring;
	const uint8_t *data = (const uint8_t *)c->ring + m->data_offset;
	uint64_t head = __atomic_load_n(&m->data_head, __ATOMIC_ACQUIRE);
	struct perf_event_header h;
	uint64_t off = 0, abi, size, dyn;
	FILE *f = fopen(out, "w"), *maps;
	char line[512], self[256];
	ssize_t n;

	ioctl(c->fd, PERF_EVENT_IOC_DISABLE, 0);
	if (!f)
		die(out);
	for (;;) {	/* the sample is small enough not to wrap a fresh ring */
		if (off >= head)
			die("no sample captured");
		memcpy(&h, data + off, sizeof(h));
		if (h.type == PERF_RECORD_SAMPLE)
			break;
		off += h.size;
	}
	off += sizeof(h);
	memcpy(&abi, data + off, 8);
	off += 8;
	fprintf(f, "regs_mask=%llx\nregs=", ((1ull << 24) - 1) & ~(0xfull << 12));
	for (int i = 0; i < 20; i++, off += 8) {
		uint64_t v;

		memcpy(&v, data + off, 8);
		fprintf(f, "%s%llx", i ? " " : "", (unsigned long long)v);
	}
	memcpy(&size, data + off, 8);
	memcpy(&dyn, data + off + 8 + size, 8);
	fprintf(f, "\nstack_size=%llu\ndyn_size=%llu\nstack=",
		(unsigned long long)size, (unsigned long long)dyn);
	for (uint64_t i = 0; i < dyn; i++)
		fprintf(f, "%02x", data[off + 8 + i]);
	fputc('\n', f);
	n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	self[n > 0 ? n : 0] = '\0';
	maps = fopen("/proc/self/maps", "r");
	while (maps && fgets(line, sizeof(line), maps)) {
		unsigned long start, end, pgoff;
		char perms[8], path[256];

		if (sscanf(line, "%lx-%lx %7s %lx %*s %*s %255s", &start, &end,
			   perms, &pgoff, path) == 5 && perms[2] == 'x' &&
		    !strcmp(path, self))
			fprintf(f, "map=%lx %lx %lx\n", start, end - start, pgoff);
	}
	if (maps)
		fclose(maps);
	if (fclose(f) != 0)
		die(out);
}

int main(int argc, char **argv)
{
	const char *major_file = NULL, *info = NULL, *capture_file = NULL;
	int lazy = 0, resident = -1, v = 0;
	long lib_resident = -1;
	struct capture cap;
	char *major = NULL;
	FILE *f;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--lazy"))
			lazy = 1;
		else if (i + 1 < argc && !strcmp(argv[i], "--major-file"))
			major_file = argv[++i];
		else if (i + 1 < argc && !strcmp(argv[i], "--info"))
			info = argv[++i];
		else if (i + 1 < argc && !strcmp(argv[i], "--capture"))
			capture_file = argv[++i];
		else {
			fprintf(stderr, "stack_workload: bad argument '%s'\n", argv[i]);
			return 2;
		}
	}
	/* A voluntary sleep: a switch out that does not block. */
	nanosleep(&(struct timespec){ 0, 1000000 }, NULL);
	if (major_file) {
		major = prepare_major(major_file, &resident);
		if (capture_file)
			capture_open(&cap);
		v += chain_a(major);
		if (capture_file)
			capture_write(&cap, capture_file);
	}
	if (lazy) {
		evict_library("libstacklazy.so", MADV_NORMAL);
		lib_resident = evict_library("libstacklazy.so", MADV_PAGEOUT);
		v += lazy_caller(v);
	}
	if (info) {
		f = fopen(info, "w");
		if (!f)
			die(info);
		fprintf(f, "pid=%ld\ntid=%ld\nmajor=%lu\nmajor_was_resident=%d\n"
			"lib_resident=%ld\nchain_a=%lu\nchain_b=%lu\nchain_c=%lu\n"
			"main=%lu\nlazy_caller=%lu\nsum=%d\n", (long)getpid(),
			(long)syscall(SYS_gettid), (unsigned long)major, resident,
			lib_resident, (unsigned long)chain_a, (unsigned long)chain_b,
			(unsigned long)chain_c, (unsigned long)main,
			(unsigned long)lazy_caller, v);
		if (fclose(f) != 0)
			die(info);
	}
	return 0;
}
