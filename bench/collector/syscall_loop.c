/*
 * syscall_loop: CALLS one-byte preads of /dev/zero, as fast as the
 * kernel allows, for bench/collector/syscall_overhead.sh.  Prints
 *   calls=1000000 ns_per_call=310.2 cpu_ns=310000000
 * (cpu_ns: its own CPU time, user and system, which holds what the
 * kernel does for a recorder in this thread).
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "loop_clock.h"

int main(int argc, char **argv)
{
	long calls = argc > 1 ? atol(argv[1]) : 1000000;
	int fd = open("/dev/zero", O_RDONLY);
	double start, end;
	char c;

	if (fd < 0 || calls <= 0) {
		fprintf(stderr, "usage: syscall_loop [CALLS]\n");
		return 2;
	}
	start = now_ns();
	for (long i = 0; i < calls; i++)
		if (pread(fd, &c, 1, 0) != 1)
			return perror("pread"), 1;
	end = now_ns();
	printf("calls=%ld ns_per_call=%.1f cpu_ns=%lld\n", calls,
	       (end - start) / (double)calls, cpu_ns());
	return 0;
}
