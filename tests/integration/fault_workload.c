/*
 * fault_workload: makes a known number of page faults, so tests can hold
 * faultline's rows against it exactly.
 *
 *   --pages N          touch N fresh anonymous pages: N minor faults
 *   --major-file PATH  drop one file page from the page cache, then read
 *                      it through a mapping: one major fault
 *   --thread           fault in a new thread (created after any wait)
 *   --threads N        fault in N new threads at once, each as planned
 *   --getppid K        each faulting thread calls getppid(2) K times
 *                      (sys_enter_getppid: a tracepoint hit a known
 *                      number of times)
 *   --name NAME        the faulting thread renames itself first
 *   --wait-signal      wait for SIGUSR1 before faulting
 *   --info FILE        write what was done: tid, addresses, counts (one
 *                      "thread=TID anon=ADDR" line per thread too)
 *   --storm SECONDS    instead: for SECONDS (0: until killed), fault fresh
 *                      pages and switch to a second thread and back
 *                      through two pipes, without a pause
 *   --per-ms N         with --storm: N faults and N round trips, then
 *                      sleep to the next millisecond (a storm a recorder
 *                      can keep up with for as long as it lasts)
 *   --trickle SECONDS  instead: one fresh page every 10 ms for SECONDS
 *                      (0: until killed)
 *
 * Anonymous pages are mapped with MADV_NOHUGEPAGE so each touch is one
 * fault; each page is touched at its first byte, which is the address the
 * kernel reports.  The file page is fsync'd first: dirty pages cannot be
 * dropped (DESIGN.md), and mincore() confirms it left the cache.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "dropped_page.h"

struct plan {
	long pages;
	const char *major_file;
	const char *name;
	const char *info;
	int thread;
	long threads;
	long getppid;
	int wait_signal;
	long storm_s, trickle_s;	/* -1: not asked */
	long per_ms;
};

struct result {
	long tid;
	char *anon;
	char *major_addr;
	int major_was_resident;
	long sum;
};

static void die(const char *what)
{
	fprintf(stderr, "fault_workload: %s: %s\n", what, strerror(errno));
	exit(2);
}

static void *do_faults(void *arg)
{
	const struct plan *p = ((void **)arg)[0];
	struct result *r = ((void **)arg)[1];
	long page = sysconf(_SC_PAGESIZE);

	if (p->name)
		prctl(PR_SET_NAME, p->name, 0, 0, 0);
	r->tid = syscall(SYS_gettid);
	if (p->major_file)
		r->major_addr = prepare_major(p->major_file, &r->major_was_resident);
	if (p->pages) {
		r->anon = mmap(NULL, (size_t)(p->pages * page), PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (r->anon == MAP_FAILED)
			die("mmap anon");
		madvise(r->anon, (size_t)(p->pages * page), MADV_NOHUGEPAGE);
		for (long i = 0; i < p->pages; i++)
			((volatile char *)r->anon)[i * page] = 1;
	}
	if (r->major_addr)
		r->sum += ((volatile char *)r->major_addr)[0];
	for (long i = 0; i < p->getppid; i++)
		syscall(SYS_getppid);
	return NULL;
}

static void write_info(const struct plan *p, const struct result *r, long n)
{
	FILE *f = fopen(p->info, "w");

	if (!f)
		die(p->info);
	fprintf(f, "pid=%ld\ntid=%ld\nanon=%lu\npages=%ld\nmajor=%lu\n"
		"major_was_resident=%d\n", (long)getpid(), r->tid,
		(unsigned long)r->anon, p->pages, (unsigned long)r->major_addr,
		r->major_was_resident);
	for (long i = 0; i < n; i++)
		fprintf(f, "thread=%ld anon=%lu\n", r[i].tid, (unsigned long)r[i].anon);
	if (fclose(f) != 0)
		die(p->info);
}

/* --threads: every thread runs the plan at once. */
static void run_threads(struct plan *p, struct result *r)
{
	pthread_t t[64];
	void *args[64][2];

	if (p->threads > 64)
		p->threads = 64;
	for (long i = 0; i < p->threads; i++) {
		args[i][0] = p;
		args[i][1] = &r[i];
		if (pthread_create(&t[i], NULL, do_faults, args[i]) != 0)
			die("pthread_create");
	}
	for (long i = 0; i < p->threads; i++)
		if (pthread_join(t[i], NULL) != 0)
			die("pthread_join");
}

static void parse(struct plan *p, int argc, char **argv)
{
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		const char *v = i + 1 < argc ? argv[i + 1] : NULL;

		if (!strcmp(a, "--thread"))
			p->thread = 1;
		else if (!strcmp(a, "--wait-signal"))
			p->wait_signal = 1;
		else if (v && !strcmp(a, "--threads"))
			p->threads = atol(argv[++i]);
		else if (v && !strcmp(a, "--getppid"))
			p->getppid = atol(argv[++i]);
		else if (v && !strcmp(a, "--pages"))
			p->pages = atol(argv[++i]);
		else if (v && !strcmp(a, "--major-file"))
			p->major_file = argv[++i];
		else if (v && !strcmp(a, "--name"))
			p->name = argv[++i];
		else if (v && !strcmp(a, "--info"))
			p->info = argv[++i];
		else if (v && !strcmp(a, "--storm"))
			p->storm_s = atol(argv[++i]);
		else if (v && !strcmp(a, "--per-ms"))
			p->per_ms = atol(argv[++i]);
		else if (v && !strcmp(a, "--trickle"))
			p->trickle_s = atol(argv[++i]);
		else {
			fprintf(stderr, "fault_workload: bad argument '%s'\n", a);
			exit(2);
		}
	}
}

static long long now_ns(clockid_t c)
{
	struct timespec t;

	clock_gettime(c, &t);
	return t.tv_sec * 1000000000ll + t.tv_nsec;
}

/* The storm's second thread: answers each byte with one. */
static void *pong(void *arg)
{
	int *fds = arg;
	char b;

	while (read(fds[0], &b, 1) == 1 && write(fds[1], &b, 1) == 1)
		;
	return NULL;
}

/* A fresh page, touched and given back: one minor fault each time. */
static void fault_once(long page)
{
	char *m = mmap(NULL, (size_t)page, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (m == MAP_FAILED)
		die("mmap");
	((volatile char *)m)[0] = 1;
	munmap(m, (size_t)page);
}

static void storm(const struct plan *p)
{
	long page = sysconf(_SC_PAGESIZE);
	long long end = now_ns(CLOCK_MONOTONIC) + p->storm_s * 1000000000ll;
	int ping[2], back[2], fds[2];
	pthread_t t;
	char b = 0;

	if (pipe(ping) < 0 || pipe(back) < 0)
		die("pipe");
	fds[0] = ping[0];
	fds[1] = back[1];
	if (pthread_create(&t, NULL, pong, fds) != 0)
		die("pthread_create");
	while (!p->storm_s || now_ns(CLOCK_MONOTONIC) < end) {
		long n = p->per_ms ? p->per_ms : 64;

		for (long i = 0; i < n; i++) {
			fault_once(page);
			if (write(ping[1], &b, 1) != 1 || read(back[0], &b, 1) != 1)
				die("pipe round trip");
		}
		if (p->per_ms) {
			struct timespec ms = { 0, 1000000 };

			nanosleep(&ms, NULL);
		}
	}
}

static void trickle(const struct plan *p)
{
	long page = sysconf(_SC_PAGESIZE);
	long long end = now_ns(CLOCK_MONOTONIC) + p->trickle_s * 1000000000ll;
	struct timespec tick = { 0, 10000000 };

	while (!p->trickle_s || now_ns(CLOCK_MONOTONIC) < end) {
		fault_once(page);
		nanosleep(&tick, NULL);
	}
}

int main(int argc, char **argv)
{
	struct plan p = { .storm_s = -1, .trickle_s = -1 };
	static struct result r[64];
	void *arg[2] = { &p, &r[0] };
	sigset_t set;
	int sig;

	parse(&p, argc, argv);
	if (p.wait_signal) {
		sigemptyset(&set);
		sigaddset(&set, SIGUSR1);
		sigprocmask(SIG_BLOCK, &set, NULL);
		if (sigwait(&set, &sig) != 0)
			die("sigwait");
	}
	if (p.storm_s >= 0) {
		storm(&p);
		return 0;
	}
	if (p.trickle_s >= 0) {
		trickle(&p);
		return 0;
	}
	if (p.threads) {
		run_threads(&p, r);
	} else if (p.thread) {
		pthread_t t;

		if (pthread_create(&t, NULL, do_faults, arg) != 0 ||
		    pthread_join(t, NULL) != 0)
			die("pthread");
	} else {
		do_faults(arg);
	}
	if (p.info)
		write_info(&p, r, p.threads);
	return 0;
}
