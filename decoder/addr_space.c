#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "../common/array.h"
#include "addr_space.h"

void addr_space_init(struct addr_space *s)
{
	memset(s, 0, sizeof(*s));
}

void addr_space_release(struct addr_space *s)
{
	free(s->v);
	free(s->max_end);
	addr_space_init(s);
}

int addr_space_add(struct addr_space *s, const struct sym_mapping *m)
{
	if (ARRAY_RESERVE(s->v, s->cap, s->n + 1) < 0)
		return -ENOMEM;
	s->v[s->n++] = *m;
	s->sorted = 0;
	return 0;
}

static int by_start(const void *a, const void *b)
{
	const struct sym_mapping *x = a, *y = b;

	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return 0;
}

static int sort(struct addr_space *s)
{
	uint64_t *max_end;

	if (ARRAY_RESERVE(s->max_end, s->max_end_cap, s->n) < 0)
		return -ENOMEM;
	max_end = s->max_end;
	qsort(s->v, s->n, sizeof(*s->v), by_start);
	for (size_t i = 0; i < s->n; i++)
		max_end[i] = i && max_end[i - 1] > s->v[i].end ? max_end[i - 1]
							       : s->v[i].end;
	s->sorted = 1;
	return 0;
}

/* Does a beat b for the same address? */
static int better(const struct sym_mapping *a, const struct sym_mapping *b)
{
	if (a->from_mmap != b->from_mmap)
		return a->from_mmap;
	return a->ts > b->ts;
}

const struct sym_mapping *addr_space_find(struct addr_space *s, uint64_t addr,
					  int *err)
{
	const struct sym_mapping *best = NULL;
	size_t lo = 0, hi = s->n;

	*err = 0;
	if (s->n == 0)
		return NULL;
	if (!s->sorted && (*err = sort(s)) < 0)
		return NULL;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (s->v[mid].start <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	/* v[0..lo) start at or below addr; walk back while one of them can
	 * still reach past addr. */
	while (lo > 0 && s->max_end[lo - 1] > addr) {
		const struct sym_mapping *m = &s->v[--lo];

		if (addr < m->end && (!best || better(m, best)))
			best = m;
	}
	return best;
}
