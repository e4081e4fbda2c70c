/*
 * flight_workload: seconds of normal work with one stall at a random
 * moment, for the flight recorder's tests.
 *
 * Usage: flight_workload INFO_FILE SECONDS STALL_MS SEED
 * Waits for SIGUSR1 (blocked by whoever starts it, so one sent early is
 * not missed), then for SECONDS: sleeps 2 ms and touches a fresh page,
 * over and over; once, at a moment drawn from SEED between a third and
 * two thirds of the way, it sleeps STALL_MS instead.  INFO_FILE gets,
 * flushed at once:
 *   mem=ADDR mem_end=ADDR         the pages it touches, at the start
 *   tid=T stall_begin=NS          just before the stall (CLOCK_REALTIME)
 *   stall_end=NS                  just after it
 *   done sleeps=N pages=P         at the end
 * and INFO_FILE.sleeps, at the end, one line per short sleep: its
 * CLOCK_REALTIME ns just before and just after.
 */
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define PAGE 4096
#define SHORT_SLEEP_NS 2000000L

static long long now_ns(clockid_t c)
{
	struct timespec t;

	clock_gettime(c, &t);
	return t.tv_sec * 1000000000ll + t.tv_nsec;
}

static void sleep_ns(long long ns)
{
	struct timespec t = { ns / 1000000000ll, ns % 1000000000ll };

	while (nanosleep(&t, &t) < 0)
		;
}

int main(int argc, char **argv)
{
	long long end, stall_at, started;
	long seconds, stall_ms, pages = 0, sleeps = 0, npages;
	long long (*log)[2];
	char path[512];
	sigset_t usr1;
	unsigned char *mem;
	FILE *info;
	int sig;

	if (argc != 5) {
		fprintf(stderr, "usage: flight_workload INFO SECONDS STALL_MS SEED\n");
		return 2;
	}
	seconds = atol(argv[2]);
	stall_ms = atol(argv[3]);
	srand((unsigned)strtoul(argv[4], NULL, 10));
	info = fopen(argv[1], "w");
	npages = seconds * 1000 / 2 + 16;
	mem = mmap(NULL, (size_t)npages * PAGE, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	log = calloc((size_t)npages, sizeof(*log));
	if (!info || mem == MAP_FAILED || !log)
		return 2;
	/* One fault per page touched, not one per huge page. */
	madvise(mem, (size_t)npages * PAGE, MADV_NOHUGEPAGE);
	fprintf(info, "mem=%lld mem_end=%lld\n", (long long)(uintptr_t)mem,
		(long long)(uintptr_t)(mem + (size_t)npages * PAGE));
	fflush(info);
	sigemptyset(&usr1);
	sigaddset(&usr1, SIGUSR1);
	sigprocmask(SIG_BLOCK, &usr1, NULL);
	sigwait(&usr1, &sig);

	started = now_ns(CLOCK_MONOTONIC);
	end = started + seconds * 1000000000ll;
	stall_at = started + seconds * 1000000000ll / 3 +
		   (long long)(rand() % 1000) * seconds * 1000000ll / 3;
	while (now_ns(CLOCK_MONOTONIC) < end) {
		if (stall_at && now_ns(CLOCK_MONOTONIC) >= stall_at) {
			fprintf(info, "tid=%ld stall_begin=%lld\n",
				(long)syscall(SYS_gettid), now_ns(CLOCK_REALTIME));
			fflush(info);
			sleep_ns(stall_ms * 1000000ll);
			fprintf(info, "stall_end=%lld\n", now_ns(CLOCK_REALTIME));
			fflush(info);
			stall_at = 0;
			continue;
		}
		if (sleeps < npages)
			log[sleeps][0] = now_ns(CLOCK_REALTIME);
		sleep_ns(SHORT_SLEEP_NS);
		if (sleeps < npages)
			log[sleeps][1] = now_ns(CLOCK_REALTIME);
		sleeps++;
		if (pages < npages)
			mem[(size_t)pages++ * PAGE] = 1;
	}
	snprintf(path, sizeof(path), "%s.sleeps", argv[1]);
	info = freopen(path, "w", info);
	for (long i = 0; info && i < sleeps && i < npages; i++)
		fprintf(info, "%lld %lld\n", log[i][0], log[i][1]);
	free(log);
	if (!info)
		return 2;
	fclose(info);
	snprintf(path, sizeof(path), "%s", argv[1]);
	info = fopen(path, "a");
	if (!info)
		return 2;
	fprintf(info, "done sleeps=%ld pages=%ld\n", sleeps, pages);
	fclose(info);
	return 0;
}
