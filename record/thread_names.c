#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "../collector/procfs.h"
#include "../common/array.h"
#include "thread_names.h"

void thread_names_init(struct thread_names *n)
{
	memset(n, 0, sizeof(*n));
}

void thread_names_release(struct thread_names *n)
{
	free(n->v);
	thread_names_init(n);
}

/* Adds tid of pid with its name now, if it is a target.  A thread that
 * is gone is left out. */
static int add_thread(struct thread_names *n, const struct target_set *t,
		      pid_t pid, pid_t tid)
{
	struct thread_name *e;
	char comm[16];

	if (proc_read_comm(pid, tid, comm) < 0 || !target_wanted(t, pid, tid, comm))
		return 0;
	if (ARRAY_RESERVE(n->v, n->cap, n->n + 1) < 0)
		return -ENOMEM;
	e = &n->v[n->n++];
	e->tid = (uint32_t)tid;
	e->pid = (uint32_t)pid;
	memcpy(e->comm, comm, sizeof(e->comm));
	return 0;
}

static int add_process(struct thread_names *n, const struct target_set *t,
		       pid_t pid)
{
	pid_t *tids = NULL;
	size_t ntids = 0;
	int err = 0;

	if (proc_list_tids(pid, &tids, &ntids) < 0)
		return 0;	/* gone */
	for (size_t i = 0; err == 0 && i < ntids; i++)
		err = add_thread(n, t, pid, tids[i]);
	free(tids);
	return err;
}

static int by_tid(const void *a, const void *b)
{
	const struct thread_name *x = a, *y = b;

	return x->tid < y->tid ? -1 : x->tid > y->tid;
}

int thread_names_read(struct thread_names *n, const struct target_set *t)
{
	pid_t *pids = NULL;
	size_t npids = 0;
	int err = 0;

	if (t->all || t->ncomms) {
		if (proc_list_pids(&pids, &npids) < 0)
			return 0;	/* no /proc: named on first sight */
		for (size_t i = 0; err == 0 && i < npids; i++)
			err = add_process(n, t, pids[i]);
		free(pids);
	} else {
		for (size_t i = 0; err == 0 && i < t->npids; i++)
			err = add_process(n, t, t->pids[i]);
		for (size_t i = 0; err == 0 && i < t->ntids; i++) {
			pid_t pid = proc_tgid(t->tids[i]);

			if (pid > 0)
				err = add_thread(n, t, pid, t->tids[i]);
		}
	}
	/* A -t thread of a -p process is there twice: same name, either. */
	if (n->n)
		qsort(n->v, n->n, sizeof(*n->v), by_tid);
	return err;
}

const struct thread_name *thread_names_find(const struct thread_names *n,
					    uint32_t tid)
{
	struct thread_name key = { .tid = tid };

	if (!n->n)
		return NULL;
	return bsearch(&key, n->v, n->n, sizeof(*n->v), by_tid);
}
