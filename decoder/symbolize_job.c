#include <assert.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../common/array.h"
#include "kallsyms.h"
#include "perf_map.h"
#include "symbolize_job.h"

/* ---- input ----------------------------------------------------------- */

void sym_input_init(struct sym_input *in)
{
	memset(in, 0, sizeof(*in));
}

void sym_input_release(struct sym_input *in)
{
	for (size_t i = 0; i < in->nprocs; i++) {
		struct addr_space *s = &in->procs[i].space;

		for (size_t k = 0; k < s->n; k++) {
			free((char *)s->v[k].path);
			free((char *)s->v[k].build_id);
		}
		addr_space_release(s);
	}
	free(in->procs);
	free(in->frames);
	sym_input_init(in);
}

int sym_input_add_frame(struct sym_input *in, const struct sym_frame *f)
{
	if (ARRAY_RESERVE(in->frames, in->frames_cap, in->nframes + 1) < 0)
		return -ENOMEM;
	in->frames[in->nframes++] = *f;
	return 0;
}

/* Where pid is, or would go, in v[0..n) (ascending pids). */
static size_t proc_slot(const struct sym_proc *v, size_t n, int64_t pid)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (v[mid].pid < pid)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* pid's entry, made (in its place, so procs stay sorted) if new. */
static struct sym_proc *input_proc(struct sym_input *in, int64_t pid)
{
	size_t n = in->nprocs, i;

	if (n && in->procs[n - 1].pid == pid)
		return &in->procs[n - 1];
	i = !n || in->procs[n - 1].pid < pid ? n : proc_slot(in->procs, n, pid);
	if (i < n && in->procs[i].pid == pid)
		return &in->procs[i];
	if (ARRAY_RESERVE(in->procs, in->procs_cap, n + 1) < 0)
		return NULL;
	memmove(&in->procs[i + 1], &in->procs[i], (n - i) * sizeof(*in->procs));
	in->procs[i].pid = pid;
	addr_space_init(&in->procs[i].space);
	in->nprocs++;
	return &in->procs[i];
}

int sym_input_add_mapping(struct sym_input *in, int64_t pid,
			  const struct sym_mapping *m)
{
	struct sym_proc *p = input_proc(in, pid);
	struct sym_mapping copy = *m;

	if (!p)
		return -ENOMEM;
	copy.path = strdup(m->path ? m->path : "");
	copy.build_id = m->build_id ? strdup(m->build_id) : NULL;
	if (!copy.path || (m->build_id && !copy.build_id) ||
	    addr_space_add(&p->space, &copy) < 0) {
		free((char *)copy.path);
		free((char *)copy.build_id);
		return -ENOMEM;
	}
	return 0;
}

int sym_input_kernel_addrs(const struct sym_input *in, uint64_t **addrs,
			   size_t *n)
{
	uint64_t *v = NULL;
	size_t cap = 0, k = 0;

	for (size_t i = 0; i < in->nframes; i++) {
		const struct sym_frame *f = &in->frames[i];

		if (!f->kernel)
			continue;
		if (ARRAY_RESERVE(v, cap, k + 1) < 0) {
			free(v);
			return -ENOMEM;
		}
		v[k++] = f->addr - (uint64_t)f->return_addr;
	}
	*addrs = v;
	*n = k;
	return 0;
}

static int by_value(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return (x > y) - (x < y);
}

int sym_input_user_pids(const struct sym_input *in, int64_t **pids, size_t *n)
{
	int64_t *v = NULL;
	size_t cap = 0, k = 0, out = 0;

	/* Frames usually come grouped by process: skipping repeats first
	 * leaves little to sort. */
	for (size_t i = 0; i < in->nframes; i++) {
		const struct sym_frame *f = &in->frames[i];

		if (f->kernel || (k && v[k - 1] == f->pid))
			continue;
		if (ARRAY_RESERVE(v, cap, k + 1) < 0) {
			free(v);
			return -ENOMEM;
		}
		v[k++] = f->pid;
	}
	if (k)
		qsort(v, k, sizeof(*v), by_value);
	for (size_t i = 0; i < k; i++)
		if (!out || v[out - 1] != v[i])
			v[out++] = v[i];
	*pids = v;
	*n = out;
	return 0;
}

/* ---- the job --------------------------------------------------------- */

void symbolize_job_init(struct symbolize_job *j)
{
	memset(j, 0, sizeof(*j));
	addr_syms_init(&j->kallsyms);
}

void symbolize_job_release(struct symbolize_job *j)
{
	for (size_t i = 0; i < j->nprocs; i++)
		addr_syms_release(&j->procs[i].jit);
	free(j->procs);
	free(j->named);
	free(j->funcs);
	addr_syms_release(&j->kallsyms);
	symbolizer_free(j->sym);
	symbolize_job_init(j);
}

static int nomem(struct errmsg *e)
{
	return errmsg_set(e, ENOMEM, "out of memory while symbolizing");
}

static const struct sym_perf_map *perf_map_of(const struct sym_sources *src,
					      int64_t pid)
{
	size_t lo = 0, hi = src->nperf_maps;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (src->perf_maps[mid].pid == pid)
			return &src->perf_maps[mid];
		if (src->perf_maps[mid].pid < pid)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

/* One entry per process of a user frame: its mappings (if any were
 * recorded) and its perf map, parsed.  0 or -ENOMEM. */
static int make_procs(struct symbolize_job *j, struct sym_input *in,
		      const struct sym_sources *src)
{
	int64_t *pids;
	size_t n;
	int err = sym_input_user_pids(in, &pids, &n);

	if (err < 0)
		return err;
	j->procs = calloc(n ? n : 1, sizeof(*j->procs));
	for (size_t i = 0; j->procs && i < n && err == 0; i++) {
		struct sym_job_proc *p = &j->procs[j->nprocs++];
		const struct sym_perf_map *map = perf_map_of(src, pids[i]);
		size_t k = proc_slot(in->procs, in->nprocs, pids[i]);

		p->pid = pids[i];
		addr_syms_init(&p->jit);
		if (k < in->nprocs && in->procs[k].pid == p->pid)
			p->space = &in->procs[k].space;
		if (map && map->text) {
			err = perf_map_parse(&p->jit, map->text, map->len);
			p->has_jit = err == 0;
			snprintf(p->jit_dso, sizeof(p->jit_dso), "[jit] %s", map->path);
		}
	}
	free(pids);
	return j->procs ? err : -ENOMEM;
}

/* pid's entry; every user frame's process has one (make_procs). */
static struct sym_job_proc *job_proc(struct symbolize_job *j, int64_t pid,
				     struct sym_job_proc *last)
{
	size_t lo = 0, hi = j->nprocs;

	if (last && last->pid == pid)
		return last;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (j->procs[mid].pid < pid)
			lo = mid + 1;
		else
			hi = mid;
	}
	assert(lo < j->nprocs && j->procs[lo].pid == pid);
	return &j->procs[lo];
}

/* *r for frame f; *p caches the process of the last user frame.  0 or
 * -ENOMEM. */
static int name_frame(struct symbolize_job *j, const struct sym_frame *f,
		      struct sym_job_proc **p, struct sym_result *r)
{
	const struct sym_mapping *m = NULL;
	int err = 0;

	if (f->kernel)
		return symbolize_kernel(j->sym, f->addr, f->return_addr, r);
	*p = job_proc(j, f->pid, *p);
	if ((*p)->space)
		m = addr_space_find((*p)->space, f->addr, &err);
	if (err < 0)
		return err;
	/* No mapping held it: a JIT map may still name it. */
	return symbolize_user(j->sym, m, f->addr, f->return_addr,
			      (*p)->has_jit ? &(*p)->jit : NULL, (*p)->jit_dso, r);
}

static void count(struct symbolize_counts *c, enum sym_status st)
{
	c->frames++;
	switch (st) {
	case SYM_OK: c->ok++; break;
	case SYM_NO_MAPPING: c->no_mapping++; break;
	/* In no code either: counted with the addresses in no mapping. */
	case SYM_NOT_CODE: c->no_mapping++; break;
	case SYM_NO_FILE: c->no_file++; break;
	case SYM_BUILD_ID_MISMATCH: c->build_id_mismatch++; break;
	case SYM_NO_SYMBOL: c->no_symbol++; break;
	}
}

/* Appends r to the results, its functions copied out of the
 * symbolizer's scratch.  0 or -ENOMEM. */
static int keep(struct symbolize_job *j, const struct sym_result *r)
{
	if (ARRAY_RESERVE(j->funcs, j->funcs_cap, j->nfuncs + r->nfuncs) < 0)
		return -ENOMEM;
	if (r->nfuncs)
		memcpy(&j->funcs[j->nfuncs], r->funcs, r->nfuncs * sizeof(*r->funcs));
	j->named[j->nnamed++] = (struct sym_named){
		r->status, r->has_dso_offset, r->dso, r->dso_offset,
		r->build_id, j->nfuncs, r->nfuncs };
	j->nfuncs += r->nfuncs;
	count(&j->counts, r->status);
	return 0;
}

int symbolize_job_run(struct symbolize_job *j, struct sym_input *in,
		      const struct sym_sources *src, struct errmsg *e)
{
	struct symbolizer_config c = { src->debuginfo_path, src->vdso,
				       src->vdso_len, NULL };
	struct sym_job_proc *p = NULL;
	int hidden, err;

	if (src->kallsyms && kallsyms_parse(&j->kallsyms, src->kallsyms,
					    src->kallsyms_len, &hidden) < 0)
		return nomem(e);
	/* No code symbol at all is no kallsyms: kernel frames 'no-file'.
	 * Hidden addresses are symbols that hold nothing: 'no-symbol'. */
	if (j->kallsyms.n)
		c.kallsyms = &j->kallsyms;
	if (make_procs(j, in, src) < 0)
		return nomem(e);
	if ((err = symbolizer_new(&c, &j->sym, e)) < 0)
		return err;
	if (ARRAY_RESERVE(j->named, j->named_cap, in->nframes) < 0)
		return nomem(e);
	for (size_t i = 0; i < in->nframes && err == 0; i++) {
		struct sym_result r;

		err = name_frame(j, &in->frames[i], &p, &r);
		if (err == 0)
			err = keep(j, &r);
	}
	return err < 0 ? nomem(e) : 0;
}

void symbolize_job_result(const struct symbolize_job *j, size_t i,
			  struct sym_result *r)
{
	const struct sym_named *n = &j->named[i];

	assert(i < j->nnamed);
	*r = (struct sym_result){
		n->status, n->dso, n->has_dso_offset, n->dso_offset, n->build_id,
		n->nfuncs ? &j->funcs[n->func] : NULL, n->nfuncs };
}
