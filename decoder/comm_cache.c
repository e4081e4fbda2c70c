#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "comm_cache.h"

void comm_cache_init(struct comm_cache *c)
{
	memset(c, 0, sizeof(*c));
}

void comm_cache_release(struct comm_cache *c)
{
	free(c->slots);
	comm_cache_init(c);
}

static size_t slot_of(const struct comm_cache_slot *slots, size_t nslots,
		      uint64_t key)
{
	size_t i = (size_t)(key * 0x9e3779b97f4a7c15ull) & (nslots - 1);

	while (slots[i].key && slots[i].key != key)
		i = (i + 1) & (nslots - 1);
	return i;
}

/* Doubles the table when it would pass half full. */
static int make_room(struct comm_cache *c)
{
	size_t nslots = c->nslots ? c->nslots * 2 : 1024;
	struct comm_cache_slot *s;

	if ((c->n + 1) * 2 <= c->nslots)
		return 0;
	s = calloc(nslots, sizeof(*s));
	if (!s)
		return -ENOMEM;
	for (size_t i = 0; i < c->nslots; i++)
		if (c->slots[i].key)
			s[slot_of(s, nslots, c->slots[i].key)] = c->slots[i];
	free(c->slots);
	c->slots = s;
	c->nslots = nslots;
	return 0;
}

int comm_cache_put(struct comm_cache *c, uint32_t tid, const char *comm)
{
	uint64_t key = (uint64_t)tid + 1;
	struct comm_cache_slot *s;

	if (make_room(c) < 0)
		return -ENOMEM;
	s = &c->slots[slot_of(c->slots, c->nslots, key)];
	if (!s->key) {
		s->key = key;
		c->n++;
	}
	strncpy(s->comm, comm, COMM_CACHE_LEN - 1);
	s->comm[COMM_CACHE_LEN - 1] = '\0';
	return 0;
}

const char *comm_cache_get(const struct comm_cache *c, uint32_t tid)
{
	const struct comm_cache_slot *s;

	if (!c->nslots)
		return NULL;
	s = &c->slots[slot_of(c->slots, c->nslots, (uint64_t)tid + 1)];
	return s->key ? s->comm : NULL;
}
