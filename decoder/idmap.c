#include <errno.h>
#include <stdlib.h>

#include "idmap.h"

void idmap_init(struct idmap *m)
{
	m->slots = NULL;
	m->cap = 0;
	m->n = 0;
}

void idmap_release(struct idmap *m)
{
	free(m->slots);
	idmap_init(m);
}

static size_t slot_of(uint64_t id, size_t cap)
{
	/* Ids are small consecutive integers; spread them with a multiply. */
	return (size_t)((id * 0x9e3779b97f4a7c15ull) >> 17) & (cap - 1);
}

static void insert_slot(struct idmap_slot *slots, size_t cap, uint64_t id,
			uint8_t role, uint16_t arg)
{
	size_t i = slot_of(id, cap);

	while (slots[i].id && slots[i].id != id)
		i = (i + 1) & (cap - 1);
	slots[i].id = id;
	slots[i].role = role;
	slots[i].arg = arg;
}

/* Keeps the load factor at or under one half. */
static int grow(struct idmap *m)
{
	size_t cap = m->cap ? m->cap * 2 : 64;
	struct idmap_slot *slots = calloc(cap, sizeof(*slots));

	if (!slots)
		return -ENOMEM;
	for (size_t i = 0; i < m->cap; i++)
		if (m->slots[i].id)
			insert_slot(slots, cap, m->slots[i].id, m->slots[i].role,
				    m->slots[i].arg);
	free(m->slots);
	m->slots = slots;
	m->cap = cap;
	return 0;
}

int idmap_put_arg(struct idmap *m, uint64_t id, enum ev_role role,
		  uint16_t arg)
{
	int err;

	if (id == 0)
		return -EINVAL;
	if ((m->n + 1) * 2 > m->cap && (err = grow(m)) < 0)
		return err;
	if (idmap_get(m, id) == ROLE_NONE)
		m->n++;
	insert_slot(m->slots, m->cap, id, (uint8_t)role, arg);
	return 0;
}

int idmap_put(struct idmap *m, uint64_t id, enum ev_role role)
{
	return idmap_put_arg(m, id, role, 0);
}

enum ev_role idmap_lookup(const struct idmap *m, uint64_t id, uint16_t *arg)
{
	size_t i;

	*arg = 0;
	if (!m->cap || id == 0)
		return ROLE_NONE;
	for (i = slot_of(id, m->cap); m->slots[i].id; i = (i + 1) & (m->cap - 1))
		if (m->slots[i].id == id) {
			*arg = m->slots[i].arg;
			return (enum ev_role)m->slots[i].role;
		}
	return ROLE_NONE;
}

enum ev_role idmap_get(const struct idmap *m, uint64_t id)
{
	uint16_t arg;

	return idmap_lookup(m, id, &arg);
}
