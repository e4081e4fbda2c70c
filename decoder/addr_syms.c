#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "../common/array.h"
#include "addr_syms.h"

void addr_syms_init(struct addr_syms *t)
{
	memset(t, 0, sizeof(*t));
}

void addr_syms_release(struct addr_syms *t)
{
	free(t->v);
	free(t->text);
	addr_syms_init(t);
}

int addr_syms_add(struct addr_syms *t, uint64_t start, uint64_t size,
		  const char *name, const char *module)
{
	if (ARRAY_RESERVE(t->v, t->cap, t->n + 1) < 0)
		return -ENOMEM;
	t->v[t->n] = (struct addr_sym){ start, size, name, module, 0,
					(uint32_t)t->n };
	t->n++;
	return 0;
}

static int by_start(const void *a, const void *b)
{
	const struct addr_sym *x = a, *y = b;

	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return x->order < y->order ? -1 : x->order > y->order;
}

void addr_syms_sort(struct addr_syms *t)
{
	if (t->n > 1)
		qsort(t->v, t->n, sizeof(*t->v), by_start);
	t->max_size = 0;
	for (size_t i = 0; i < t->n; i++)
		if (t->v[i].size > t->max_size)
			t->max_size = t->v[i].size;
}

const struct addr_sym *addr_syms_find(const struct addr_syms *t,
				      uint64_t addr)
{
	size_t lo = 0, hi = t->n;

	/* The first entry starting after addr; the candidates precede it. */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (t->v[mid].start <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	/* A range holding addr starts after addr - max_size: stop there.
	 * The latest start wins, so an overwritten JIT region loses to
	 * the code that replaced it. */
	while (lo > 0 && addr - t->v[lo - 1].start < t->max_size) {
		const struct addr_sym *s = &t->v[--lo];

		if (addr - s->start < s->size)
			return s;
	}
	return NULL;
}

int addr_syms_take_text(struct addr_syms *t, const char *text, size_t len)
{
	free(t->text);
	t->text = malloc(len + 1);
	if (!t->text)
		return -ENOMEM;
	memcpy(t->text, text, len);
	t->text[len] = '\0';
	return 0;
}
