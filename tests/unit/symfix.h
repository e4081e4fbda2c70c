/*
 * symfix: the symbolizer's fixture library for the tests that name its
 * frames (test_symbolize.c, test_symbolize_job.c): built by the Makefile
 * from tests/fixtures/symbolize/symfix.c under $BUILD/tests/symfix, and
 * loaded into the test process, so its mappings and addresses are real
 * ones, from /proc/self/maps.  Include after <cmocka.h>.
 */
#ifndef FL_TEST_SYMFIX_H
#define FL_TEST_SYMFIX_H

#include <dlfcn.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char build_dir[PATH_MAX];	/* $BUILD/tests/symfix */

/* The fixture library, loaded once; its functions return frame addresses. */
static void *(*fix_outer)(void), *(*fix_plain)(void), *(*fix_capture)(void);

static const char *fixture(const char *name)
{
	static char paths[4][PATH_MAX + 64];
	static int next;
	char *p = paths[next++ % 4];

	snprintf(p, sizeof(paths[0]), "%s/%s", build_dir, name);
	return p;
}

/* The line of the source marked "LINE:<mark>". */
static int marked_line(const char *mark)
{
	char want[64], line[256];
	FILE *f = fopen("tests/fixtures/symbolize/symfix.c", "r");
	int n = 0, found = 0;

	assert_non_null(f);
	snprintf(want, sizeof(want), "LINE:%s ", mark);
	while (!found && fgets(line, sizeof(line), f)) {
		n++;
		found = strstr(line, want) != NULL;
	}
	fclose(f);
	if (!found)
		fail_msg("no LINE:%s marker in symfix.c", mark);
	return n;
}

/* One line of /proc/self/maps. */
struct self_map {
	unsigned long long start, end, pgoff;
	int prot;		/* PROT_READ 1 | PROT_WRITE 2 | PROT_EXEC 4 */
	char path[768];
};

/* This process's mappings of the file whose path ends in match, into
 * out[0..max); how many (at least one). */
static size_t self_maps(const char *match, struct self_map *out, size_t max)
{
	char line[1024];
	FILE *f = fopen("/proc/self/maps", "r");
	size_t n = 0;

	assert_non_null(f);
	while (n < max && fgets(line, sizeof(line), f)) {
		struct self_map *m = &out[n];
		char perms[8];
		size_t mlen = strlen(match), plen;

		m->path[0] = '\0';
		if (sscanf(line, "%llx-%llx %7s %llx %*s %*s %767s", &m->start, &m->end,
			   perms, &m->pgoff, m->path) < 4)
			continue;
		plen = strlen(m->path);
		if (plen < mlen || strcmp(m->path + plen - mlen, match))
			continue;
		m->prot = (perms[0] == 'r') | (perms[1] == 'w') << 1 | (perms[2] == 'x') << 2;
		n++;
	}
	fclose(f);
	assert_true(n > 0);
	return n;
}

/* A pid no process can have (above 2^22, the largest pid_max) and no
 * other run of these tests uses at the same time (k < 16): the
 * /tmp/perf-PID.map a test writes for it is its own. */
static int unused_pid(int k)
{
	return (1 << 22) + 16 * (int)getpid() + k;
}

/* Finds the fixture directory ($BUILD, else build/release) and loads the
 * library: 0, or -1 with the reason on stderr (for a group setup). */
static int symfix_load(void)
{
	const char *build = getenv("BUILD");
	char rel[512];
	void *h;

	snprintf(rel, sizeof(rel), "%s/tests/symfix", build ? build : "build/release");
	if (strlen(rel) >= PATH_MAX / 2 || !realpath(rel, build_dir)) {
		fprintf(stderr, "no fixture directory %s: run make\n", rel);
		return -1;
	}
	h = dlopen(fixture("libsymfix.so"), RTLD_NOW);
	if (!h) {
		fprintf(stderr, "dlopen: %s\n", dlerror());
		return -1;
	}
	*(void **)&fix_outer = dlsym(h, "fix_outer");
	*(void **)&fix_plain = dlsym(h, "fix_plain");
	*(void **)&fix_capture = dlsym(h, "fix_capture");
	return fix_outer && fix_plain && fix_capture ? 0 : -1;
}

#endif
