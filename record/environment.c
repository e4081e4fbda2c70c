#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <unistd.h>

#include "../collector/procfs.h"
#include "../collector/sys_env.h"
#include "../common/array.h"
#include "../decoder/build_id.h"
#include "environment.h"

extern char **environ;

/* The pairs read, held until every file is read: no file is read while
 * the loader's write transaction is open. */
struct env_pairs {
	char **kv;		/* owned: key, value, key, value..., each owned */
	size_t n, cap;		/* strings in kv */
};

static int hold(void *ctx, const char *key, const char *value)
{
	struct env_pairs *p = ctx;

	if (ARRAY_RESERVE(p->kv, p->cap, p->n + 2) < 0 ||
	    !(p->kv[p->n] = strdup(key)))
		return -ENOMEM;
	if (!(p->kv[p->n + 1] = strdup(value))) {
		free(p->kv[p->n]);
		return -ENOMEM;
	}
	p->n += 2;
	return 0;
}

static void pairs_release(struct env_pairs *p)
{
	for (size_t i = 0; i < p->n; i++)
		free(p->kv[i]);
	free(p->kv);
}

/* The process whose settings stand for the targets', or 0 for none. */
static pid_t first_process(const struct target_set *t)
{
	pid_t tgid;

	if (t->child > 0)
		return t->child;
	if (t->npids)
		return t->pids[0];
	if (t->ntids && (tgid = proc_tgid(t->tids[0])) > 0)
		return tgid;
	return 0;
}

/* The files a running process has mapped, each once (by path). */
struct mapped {
	char **paths;		/* owned, each owned */
	size_t n, cap;
};

static int note_mapping(void *ctx, const struct rec_mmap *m)
{
	struct mapped *seen = ctx;
	char *copy;

	if (m->filename[0] != '/')
		return 0;	/* [vdso], [heap], anonymous */
	for (size_t i = seen->n; i-- > 0;)
		if (!strcmp(seen->paths[i], m->filename))
			return 0;
	if (ARRAY_RESERVE(seen->paths, seen->cap, seen->n + 1) < 0 ||
	    !(copy = strdup(m->filename)))
		return -ENOMEM;
	seen->paths[seen->n++] = copy;
	return 0;
}

/*
 * build_id.PATH of each file process pid has mapped now: the mapping
 * rows written for what existed before recording have none (the kernel
 * says it only in MMAP2 records).  The notes are read with the page
 * cache put back as found.  A file without a build id, or gone, has no
 * row.
 */
static int mapped_build_ids(pid_t pid, struct env_pairs *s)
{
	struct mapped seen = { NULL, 0, 0 };
	struct page_cache pc;
	char hex[129], key[4200];
	int err;

	page_cache_init(&pc);
	err = proc_maps_each(pid, note_mapping, &seen);
	/* A process gone or its maps unreadable: the files seen, if any. */
	if (err < 0 && err != -ENOMEM)
		err = 0;
	for (size_t i = 0; err == 0 && i < seen.n; i++) {
		if (elf_build_id_path(seen.paths[i], &pc, hex, sizeof(hex)) < 0 ||
		    (size_t)snprintf(key, sizeof(key), "build_id.%s",
				     seen.paths[i]) >= sizeof(key))
			continue;
		err = hold(s, key, hex);
	}
	for (size_t i = 0; i < seen.n; i++)
		free(seen.paths[i]);
	free(seen.paths);
	page_cache_release(&pc);
	return err;
}

int record_environment_begin(struct loader *l, const struct target_set *t,
			     struct errmsg *e)
{
	struct env_pairs p = { NULL, 0, 0 };
	pid_t pid = first_process(t);
	int err = sys_env_host(hold, &p);

	/* The command is held before its exec: /proc/PID/environ is still
	 * the block faultline started with, not what execvp passes on. */
	if (err == 0 && pid > 0)
		err = sys_env_process(pid, t->child > 0 ? environ : NULL, hold, &p);
	/* The command has not run yet: what it maps comes in MMAP2
	 * records, with build ids (record_environment_end). */
	if (err == 0 && pid > 0 && t->child <= 0)
		err = mapped_build_ids(pid, &p);
	if (err < 0)
		err = errmsg_set(e, ENOMEM, "out of memory");
	for (size_t i = 0; err == 0 && i < p.n; i += 2)
		err = loader_env(l, p.kv[i], p.kv[i + 1], e);
	pairs_release(&p);
	return err;
}

int record_environment_end(struct loader *l, struct errmsg *e)
{
	return loader_env_build_ids(l, e);
}
