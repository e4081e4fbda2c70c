/*
 * fault_loop: the workload of bench/collector/record_overhead.sh.  Touches
 * fresh anonymous pages (one minor fault each: chunks are mapped with
 * MADV_NOHUGEPAGE and unmapped after), and prints its own cost: wall
 * time per fault, and its CPU time (user + system, which includes what
 * the kernel does for a recorder in the faulting thread's context):
 *
 *   faults=131072 ns_per_fault=1402.7 cpu_ns=183857000
 *
 * Usage: fault_loop [FAULTS]   (default 131072, in chunks of 4096 pages)
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "loop_clock.h"

#define CHUNK_PAGES 4096

int main(int argc, char **argv)
{
	long faults = argc > 1 ? atol(argv[1]) : 131072;
	long page = sysconf(_SC_PAGESIZE);
	size_t len = (size_t)(CHUNK_PAGES * page);
	double start, end;
	long done = 0;

	if (faults <= 0) {
		fprintf(stderr, "usage: fault_loop [FAULTS]\n");
		return 2;
	}
	start = now_ns();
	while (done < faults) {
		long n = faults - done < CHUNK_PAGES ? faults - done : CHUNK_PAGES;
		char *p = mmap(NULL, len, PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

		if (p == MAP_FAILED) {
			perror("mmap");
			return 1;
		}
		madvise(p, len, MADV_NOHUGEPAGE);
		for (long i = 0; i < n; i++)
			((volatile char *)p)[i * page] = 1;
		munmap(p, len);
		done += n;
	}
	end = now_ns();
	printf("faults=%ld ns_per_fault=%.1f cpu_ns=%lld\n", faults,
	       (end - start) / (double)faults, cpu_ns());
	return 0;
}
