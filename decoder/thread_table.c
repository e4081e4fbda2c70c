#include <stdlib.h>
#include <string.h>

#include "../common/array.h"
#include "thread_table.h"

void thread_table_init(struct thread_table *t)
{
	memset(t, 0, sizeof(*t));
}

void thread_table_release(struct thread_table *t)
{
	for (size_t i = 0; i < t->n; i++) {
		free(t->by_order[i]->sys_hist);
		free(t->by_order[i]);
	}
	free(t->by_order);
	free(t->keys);
	free(t->vals);
	thread_table_init(t);
}

static size_t slot_of(uint32_t tid, size_t slots)
{
	return (size_t)((tid * 2654435761u) & (uint32_t)(slots - 1));
}

static void index_put(uint64_t *keys, uint32_t *vals, size_t slots,
		      uint32_t tid, uint32_t idx)
{
	size_t i = slot_of(tid, slots);

	while (keys[i])
		i = (i + 1) & (slots - 1);
	keys[i] = (uint64_t)tid + 1;
	vals[i] = idx;
}

struct thread *thread_table_find(const struct thread_table *t, uint32_t tid)
{
	if (!t->slots)
		return NULL;
	for (size_t i = slot_of(tid, t->slots); t->keys[i];
	     i = (i + 1) & (t->slots - 1))
		if (t->keys[i] == (uint64_t)tid + 1)
			return t->by_order[t->vals[i]];
	return NULL;
}

/* Doubles the index when it would pass half full, and the order array
 * when it is full. */
static int make_room(struct thread_table *t)
{
	if (ARRAY_RESERVE(t->by_order, t->cap, t->n + 1) < 0)
		return -1;
	if ((t->n + 1) * 2 > t->slots) {
		size_t slots = t->slots ? t->slots * 2 : 512;
		uint64_t *keys = calloc(slots, sizeof(*keys));
		uint32_t *vals = calloc(slots, sizeof(*vals));

		if (!keys || !vals) {
			free(keys);
			free(vals);
			return -1;
		}
		for (size_t i = 0; i < t->n; i++)
			index_put(keys, vals, slots, t->by_order[i]->tid,
				  (uint32_t)i);
		free(t->keys);
		free(t->vals);
		t->keys = keys;
		t->vals = vals;
		t->slots = slots;
	}
	return 0;
}

struct thread *thread_table_get(struct thread_table *t, uint32_t tid,
				int *created)
{
	struct thread *th = thread_table_find(t, tid);

	*created = 0;
	if (th)
		return th;
	if (make_room(t) < 0 || !(th = calloc(1, sizeof(*th))))
		return NULL;
	th->tid = tid;
	t->by_order[t->n] = th;
	index_put(t->keys, t->vals, t->slots, tid, (uint32_t)t->n);
	t->n++;
	*created = 1;
	return th;
}
