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

static long long cpu_ns(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return (ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1000000000ll +
	       (ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) * 1000ll;
}

static double now_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec * 1e9 + (double)t.tv_nsec;
}

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
