#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "flight_aside.h"

void flight_aside_init(struct flight_aside_list *a, uint64_t max_bytes)
{
	memset(a, 0, sizeof(*a));
	a->max_bytes = max_bytes;
}

void flight_aside_release(struct flight_aside_list *a)
{
	for (size_t i = a->first; i < a->n; i++)
		free(a->v[i].bytes);
	free(a->v);
	memset(a, 0, sizeof(*a));
}

static void drop_oldest(struct flight_aside_list *a)
{
	struct flight_aside *o = &a->v[a->first++];

	a->bytes -= o->len + FLIGHT_ASIDE_OVERHEAD;
	free(o->bytes);
	a->dropped++;
}

/* Room for one more slot: the dropped ones' slots are reused first (the
 * kept ones moved down once half the array is gone), then it grows. */
static int make_slot(struct flight_aside_list *a)
{
	size_t cap;
	void *v;

	if (a->first && a->first >= a->n / 2) {
		memmove(a->v, a->v + a->first, (a->n - a->first) * sizeof(*a->v));
		a->n -= a->first;
		a->first = 0;
	}
	if (a->n < a->cap)
		return 0;
	cap = a->cap ? 2 * a->cap : 64;
	v = realloc(a->v, cap * sizeof(*a->v));
	if (!v)
		return -ENOMEM;
	a->v = v;
	a->cap = cap;
	return 0;
}

int flight_aside_add(struct flight_aside_list *a, uint32_t cpu,
		     const void *rec, size_t len)
{
	uint64_t cost = len + FLIGHT_ASIDE_OVERHEAD;
	struct flight_aside *s;

	while (a->first < a->n && a->bytes + cost > a->max_bytes)
		drop_oldest(a);
	if (cost > a->max_bytes) {
		a->dropped++;
		return 0;
	}
	if (make_slot(a) < 0)
		return -ENOMEM;
	s = &a->v[a->n];
	s->bytes = malloc(len);
	if (!s->bytes)
		return -ENOMEM;
	memcpy(s->bytes, rec, len);
	s->cpu = cpu;
	s->len = (uint32_t)len;
	a->n++;
	a->bytes += cost;
	return 0;
}
