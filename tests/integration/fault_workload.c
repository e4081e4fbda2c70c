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
		else {
			fprintf(stderr, "fault_workload: bad argument '%s'\n", a);
			exit(2);
		}
	}
}

int main(int argc, char **argv)
{
	struct plan p = { 0 };
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
