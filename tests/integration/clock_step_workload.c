/*
 * clock_step_workload: two waits of known length that a test steps the
 * wall clock in the middle of.
 *
 *   clock_step_workload READY_FIFO INFO_FILE HOLD_MS
 *
 * - a page fault held for HOLD_MS: a userfaultfd region is touched, and
 *   the handler thread resolves the fault HOLD_MS after it saw it;
 * - a thread blocked (D, wait_for_vfork_done) for HOLD_MS: it vforks, and
 *   the child sleeps HOLD_MS before it exits.
 * When both waits have begun it writes "ready" to READY_FIFO; at the end
 * it writes what it measured (CLOCK_MONOTONIC ns) to INFO_FILE as
 * key=value lines: fault_tid, fault_t0/fault_t1 (around the touch),
 * held_from/held_to (the handler saw the fault / resolved it),
 * vfork_tid, vfork_t0/vfork_t1 (around vfork), child_from/child_to (the
 * child's sleep).
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/userfaultfd.h>
#include <poll.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static uint64_t mono(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000000000ull + (uint64_t)t.tv_nsec;
}

static void die(const char *what)
{
	perror(what);
	exit(1);
}

static void sleep_until(uint64_t t)
{
	struct timespec ts = { (time_t)(t / 1000000000ull), (long)(t % 1000000000ull) };

	while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
		;
}

static uint64_t hold_ns;
static int started[2];		/* pipe: each wait says it began */
static long page;
static char *region;
static int uffd;

static struct {
	pid_t fault_tid, vfork_tid;
	uint64_t fault_t0, fault_t1, held_from, held_to;
	uint64_t vfork_t0, vfork_t1, child_from, child_to;
} m;

static void say_started(void)
{
	if (write(started[1], "x", 1) != 1)
		die("write");
}

/* Resolves the one fault HOLD after it arrives. */
static void *handler(void *arg)
{
	struct pollfd p = { uffd, POLLIN, 0 };
	struct uffd_msg msg;
	struct uffdio_zeropage z;

	(void)arg;
	while (poll(&p, 1, -1) < 0 && errno == EINTR)
		;
	if (read(uffd, &msg, sizeof(msg)) != sizeof(msg) ||
	    msg.event != UFFD_EVENT_PAGEFAULT)
		die("userfaultfd read");
	m.held_from = mono();
	say_started();
	sleep_until(m.held_from + hold_ns);
	z.range.start = (uint64_t)(uintptr_t)region;
	z.range.len = (uint64_t)page;
	z.mode = 0;
	m.held_to = mono();
	if (ioctl(uffd, UFFDIO_ZEROPAGE, &z) < 0)
		die("UFFDIO_ZEROPAGE");
	return NULL;
}

static void *faulter(void *arg)
{
	(void)arg;
	m.fault_tid = (pid_t)syscall(SYS_gettid);
	m.fault_t0 = mono();
	*(volatile char *)region = 1;
	m.fault_t1 = mono();
	return NULL;
}

static void *vforker(void *arg)
{
	pid_t child;

	(void)arg;
	m.vfork_tid = (pid_t)syscall(SYS_gettid);
	m.vfork_t0 = mono();
	child = vfork();
	if (child == 0) {
		/* Shares the parent's memory: syscalls only, then _exit. */
		m.child_from = mono();
		say_started();
		sleep_until(m.child_from + hold_ns);
		m.child_to = mono();
		_exit(0);
	}
	m.vfork_t1 = mono();
	if (child < 0)
		die("vfork");
	waitpid(child, NULL, 0);
	return NULL;
}

static void setup_uffd(void)
{
	struct uffdio_api api = { .api = UFFD_API };
	struct uffdio_register reg;

	page = sysconf(_SC_PAGESIZE);
	region = mmap(NULL, (size_t)page, PROT_READ | PROT_WRITE,
		      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	uffd = (int)syscall(SYS_userfaultfd, O_CLOEXEC);
	if (region == MAP_FAILED || uffd < 0 || ioctl(uffd, UFFDIO_API, &api) < 0)
		die("userfaultfd");
	reg.range.start = (uint64_t)(uintptr_t)region;
	reg.range.len = (uint64_t)page;
	reg.mode = UFFDIO_REGISTER_MODE_MISSING;
	if (ioctl(uffd, UFFDIO_REGISTER, &reg) < 0)
		die("UFFDIO_REGISTER");
}

static void write_info(const char *path)
{
	FILE *f = fopen(path, "w");

	if (!f)
		die(path);
	fprintf(f, "fault_tid=%d\nvfork_tid=%d\n", (int)m.fault_tid, (int)m.vfork_tid);
	fprintf(f, "fault_t0=%llu\nfault_t1=%llu\nheld_from=%llu\nheld_to=%llu\n",
		(unsigned long long)m.fault_t0, (unsigned long long)m.fault_t1,
		(unsigned long long)m.held_from, (unsigned long long)m.held_to);
	fprintf(f, "vfork_t0=%llu\nvfork_t1=%llu\nchild_from=%llu\nchild_to=%llu\n",
		(unsigned long long)m.vfork_t0, (unsigned long long)m.vfork_t1,
		(unsigned long long)m.child_from, (unsigned long long)m.child_to);
	fclose(f);
}

int main(int argc, char **argv)
{
	pthread_t h, f, v;
	char c;
	int fifo;

	if (argc != 4) {
		fprintf(stderr, "usage: %s READY_FIFO INFO_FILE HOLD_MS\n", argv[0]);
		return 2;
	}
	hold_ns = strtoull(argv[3], NULL, 10) * 1000000ull;
	if (pipe(started) < 0)
		die("pipe");
	setup_uffd();
	if (pthread_create(&h, NULL, handler, NULL) ||
	    pthread_create(&f, NULL, faulter, NULL) ||
	    pthread_create(&v, NULL, vforker, NULL))
		die("pthread_create");
	for (int i = 0; i < 2; i++)
		if (read(started[0], &c, 1) != 1)
			die("read");
	fifo = open(argv[1], O_WRONLY);
	if (fifo < 0 || write(fifo, "ready\n", 6) != 6)
		die(argv[1]);
	close(fifo);
	pthread_join(f, NULL);
	pthread_join(v, NULL);
	pthread_join(h, NULL);
	write_info(argv[2]);
	return 0;
}
