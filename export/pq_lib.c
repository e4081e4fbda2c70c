#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#include "pq_lib.h"

/* Filled once, under `once`, then only read (pq_lib.h says why). */
static struct pq_lib table;
static pthread_once_t once = PTHREAD_ONCE_INIT;
static int loaded;		/* 1 once every function is bound */
static char failure[256];	/* why not, when not */

static void load(void)
{
	void *h = dlopen(PQ_LIB_SONAME, RTLD_NOW | RTLD_LOCAL);
	void *f;

	if (!h) {
		snprintf(failure, sizeof(failure), "%s", dlerror());
		return;
	}
#define PQ_LIB_BIND(ret, name, params)                                        \
	if (!(f = dlsym(h, #name))) {                                         \
		snprintf(failure, sizeof(failure), "it has no %s", #name);   \
		return;                                                       \
	}                                                                     \
	*(void **)&table.name = f;
	PQ_LIB_FUNCTIONS(PQ_LIB_BIND)
#undef PQ_LIB_BIND
	loaded = 1;
}

int pq_lib_load(struct errmsg *e)
{
	pthread_once(&once, load);
	if (loaded)
		return 0;
	return errmsg_set(e, ENOENT, "cannot load %s, PostgreSQL's client library "
			  "(%s); install it (Debian: apt-get install libpq5)",
			  PQ_LIB_SONAME, failure);
}

const struct pq_lib *pq_lib(void)
{
	if (!loaded) {
		fputs("faultline: libpq called before it was loaded\n", stderr);
		abort();
	}
	return &table;
}
