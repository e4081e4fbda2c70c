#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "../common/array.h"
#include "cpu_runs.h"

void cpu_runs_init(struct cpu_runs *r)
{
	memset(r, 0, sizeof(*r));
}

void cpu_runs_release(struct cpu_runs *r)
{
	for (size_t i = 0; i < r->ncpu; i++)
		free(r->cpu[i].v);
	free(r->cpu);
	cpu_runs_init(r);
}

static struct cpu_history *history_of(struct cpu_runs *r, uint32_t cpu)
{
	size_t cap = r->ncpu;

	if (cpu < r->ncpu)
		return &r->cpu[cpu];
	if (ARRAY_RESERVE(r->cpu, cap, (size_t)cpu + 1) < 0)
		return NULL;
	memset(r->cpu + r->ncpu, 0, (cap - r->ncpu) * sizeof(*r->cpu));
	r->ncpu = cap;
	return &r->cpu[cpu];
}

/* Forgets what lies wholly before the horizon, or over the bound, and
 * moves the live entries down once half the array is dead. */
static void forget_old(struct cpu_history *h, uint64_t now)
{
	uint64_t horizon = now > CPU_RUNS_HORIZON_NS ? now - CPU_RUNS_HORIZON_NS : 0;

	while (h->n - h->head > 1 &&
	       (h->v[h->head + 1].since <= horizon || h->n - h->head > CPU_RUNS_MAX))
		h->head++;
	if (h->head > h->n / 2) {
		memmove(h->v, h->v + h->head, (h->n - h->head) * sizeof(*h->v));
		h->n -= h->head;
		h->head = 0;
	}
}

int cpu_runs_switch_in(struct cpu_runs *r, uint32_t cpu, uint32_t tid,
		       uint64_t mono_ts)
{
	struct cpu_history *h = history_of(r, cpu);

	if (!h)
		return -ENOMEM;
	if (h->n > h->head && h->v[h->n - 1].tid == tid)
		return 0;	/* the same thread again: no change of hands */
	forget_old(h, mono_ts);
	if (ARRAY_RESERVE(h->v, h->cap, h->n + 1) < 0)
		return -ENOMEM;
	h->v[h->n].since = mono_ts;
	h->v[h->n].tid = tid;
	h->n++;
	return 0;
}

static int by_tid(const void *a, const void *b)
{
	const struct cpu_share *x = a, *y = b;

	return x->tid < y->tid ? -1 : x->tid > y->tid;
}

static int by_ns_desc(const void *a, const void *b)
{
	const struct cpu_share *x = a, *y = b;

	return x->ns < y->ns ? 1 : x->ns > y->ns ? -1 :
	       x->tid < y->tid ? -1 : x->tid > y->tid;
}

/* The first live entry still holding the CPU at `from`: the last one
 * that began at or before it (or the oldest live one). */
static size_t first_in(const struct cpu_history *h, uint64_t from)
{
	size_t lo = h->head, hi = h->n;	/* the answer lies in [lo, hi) */

	while (hi - lo > 1) {
		size_t mid = lo + (hi - lo) / 2;

		if (h->v[mid].since <= from)
			lo = mid;
		else
			hi = mid;
	}
	return lo;
}

/* Sums all[0..n) per tid, in place; returns the number of tids. */
static size_t sum_by_tid(struct cpu_share *all, size_t n)
{
	size_t m = 0;

	qsort(all, n, sizeof(*all), by_tid);
	for (size_t i = 0; i < n; i++) {
		if (m && all[m - 1].tid == all[i].tid)
			all[m - 1].ns += all[i].ns;
		else
			all[m++] = all[i];
	}
	return m;
}

/*
 * Called at the end of every runnable wait, so it reads only the entries
 * inside the wait (a binary search to its start): a switch storm keeps
 * tens of thousands of entries per CPU, and a few lie in any one wait.
 */
size_t cpu_runs_shares(const struct cpu_runs *r, uint32_t cpu, uint64_t from,
		       uint64_t to, uint32_t self, struct cpu_share *out)
{
	const struct cpu_history *h;
	struct cpu_share small[64], *all = small;
	size_t n = 0, kept, first, last;

	if (cpu >= r->ncpu || to <= from)
		return 0;
	h = &r->cpu[cpu];
	if (h->n == h->head)
		return 0;
	first = first_in(h, from);
	for (last = first; last < h->n && h->v[last].since < to; last++)
		;
	if (last - first > sizeof(small) / sizeof(small[0])) {
		all = malloc((last - first) * sizeof(*all));
		if (!all)
			return 0;	/* the shares are a detail: none, not a failure */
	}
	for (size_t i = first; i < last; i++) {
		uint64_t a = h->v[i].since;
		uint64_t b = i + 1 < h->n ? h->v[i + 1].since : to;

		if (a < from)
			a = from;
		if (b > to)
			b = to;
		if (b > a && h->v[i].tid != self) {
			memset(&all[n], 0, sizeof(all[n]));
			all[n].tid = h->v[i].tid;
			all[n].ns = b - a;
			n++;
		}
	}
	n = sum_by_tid(all, n);
	qsort(all, n, sizeof(*all), by_ns_desc);
	kept = n < CPU_SHARES_MAX ? n : CPU_SHARES_MAX;
	memcpy(out, all, kept * sizeof(*out));
	if (n > kept) {
		memset(&out[kept], 0, sizeof(out[kept]));
		out[kept].tid = -1;
		for (size_t i = kept; i < n; i++)
			out[kept].ns += all[i].ns;
		kept++;
	}
	if (all != small)
		free(all);
	return kept;
}
