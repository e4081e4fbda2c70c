#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "../common/array.h"
#include "stack_table.h"

void stack_table_init(struct stack_table *t)
{
	memset(t, 0, sizeof(*t));
}

void stack_table_release(struct stack_table *t)
{
	for (size_t i = 0; i < t->nstacks; i++) {
		free(t->stacks[i].frames);
		free(t->stacks[i].truncated);
	}
	free(t->stacks);
	free(t->stack_slots);
	free(t->frames);
	free(t->frame_slots);
	free(t->seen);
	stack_table_init(t);
}

static uint64_t mix(uint64_t h, uint64_t v)
{
	h ^= v + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2);
	return h * 0xff51afd7ed558ccdull;
}

static uint64_t frame_hash(int64_t pid, uint64_t addr, uint8_t ret)
{
	return mix(mix(mix(0, (uint64_t)pid), addr), ret);
}

static size_t frame_slot(const struct stack_table *t, int64_t pid,
			 uint64_t addr, uint8_t ret)
{
	size_t mask = t->frame_nslots - 1;
	size_t i = frame_hash(pid, addr, ret) & mask;

	for (;; i = (i + 1) & mask) {
		uint32_t id = t->frame_slots[i];
		const struct st_frame *f = id ? &t->frames[id - 1] : NULL;

		if (!f || (f->pid == pid && f->addr == addr && f->return_addr == ret))
			return i;
	}
}

/* Doubles a slot array (load factor at or under one half) and re-inserts
 * every id with rehash. */
static int grow_slots(struct stack_table *t, int frames)
{
	size_t n = frames ? t->frame_nslots : t->stack_nslots;
	size_t used = frames ? t->nframes : t->nstacks;
	size_t cap = n ? n * 2 : 1024;
	uint32_t *old = frames ? t->frame_slots : t->stack_slots;
	uint32_t *slots;

	if ((used + 1) * 2 <= n)
		return 0;
	slots = calloc(cap, sizeof(*slots));
	if (!slots)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		uint32_t id = old[i];
		uint64_t h;
		size_t j;

		if (!id)
			continue;
		if (frames) {
			const struct st_frame *f = &t->frames[id - 1];

			h = frame_hash(f->pid, f->addr, f->return_addr);
		} else {
			h = t->stacks[id - 1].hash;
		}
		for (j = h & (cap - 1); slots[j]; j = (j + 1) & (cap - 1))
			;
		slots[j] = id;
	}
	free(old);
	if (frames) {
		t->frame_slots = slots;
		t->frame_nslots = cap;
	} else {
		t->stack_slots = slots;
		t->stack_nslots = cap;
	}
	return 0;
}

static int frame_intern(struct stack_table *t, int64_t pid,
			const struct stack_frame_in *in, uint32_t *id)
{
	size_t i;
	int err = grow_slots(t, 1);

	if (err == 0)
		err = ARRAY_RESERVE(t->frames, t->capframes, t->nframes + 1);
	if (err < 0)
		return err;
	i = frame_slot(t, pid, in->addr, in->return_addr);
	if (!t->frame_slots[i]) {
		struct st_frame *f = &t->frames[t->nframes++];

		f->pid = pid;
		f->addr = in->addr;
		f->kernel = in->kernel;
		f->return_addr = in->return_addr;
		f->written = 0;
		t->frame_slots[i] = (uint32_t)t->nframes;
	}
	*id = t->frame_slots[i];
	return 0;
}

static int same_stack(const struct st_stack *s, uint32_t pid,
		      enum stack_method method, const char *truncated,
		      const uint32_t *ids, size_t n)
{
	if (s->pid != pid || s->method != method || s->depth != n)
		return 0;
	if (!s->truncated != !truncated ||
	    (truncated && strcmp(s->truncated, truncated)))
		return 0;
	return memcmp(s->frames, ids, n * sizeof(*ids)) == 0;
}

static int stack_new(struct stack_table *t, uint32_t pid,
		     enum stack_method method, const char *truncated,
		     uint32_t *ids, size_t n, uint64_t h, size_t slot)
{
	struct st_stack *s;
	int err = ARRAY_RESERVE(t->stacks, t->capstacks, t->nstacks + 1);

	if (err < 0)
		return err;
	s = &t->stacks[t->nstacks];
	memset(s, 0, sizeof(*s));
	s->frames = malloc((n ? n : 1) * sizeof(*ids));
	s->truncated = truncated ? strdup(truncated) : NULL;
	if (!s->frames || (truncated && !s->truncated)) {
		free(s->frames);
		free(s->truncated);
		return -ENOMEM;
	}
	memcpy(s->frames, ids, n * sizeof(*ids));
	s->pid = pid;
	s->method = method;
	s->depth = (uint32_t)n;
	s->hash = h;
	t->nstacks++;
	t->stack_slots[slot] = (uint32_t)t->nstacks;
	return 0;
}

static int intern_slow(struct stack_table *t, uint32_t pid,
		       enum stack_method method, const char *truncated,
		       const struct stack_frame_in *frames, size_t n,
		       uint32_t *stack_id)
{
	uint32_t stack_ids[256], *ids = n <= 256 ? stack_ids : malloc(n * sizeof(*ids));
	uint64_t h = mix(mix(0, pid), method);
	size_t mask, i;
	int err = 0;

	if (!ids)
		return -ENOMEM;
	for (size_t k = 0; k < n && err == 0; k++) {
		err = frame_intern(t, frames[k].kernel ? -1 : (int64_t)pid,
				   &frames[k], &ids[k]);
		h = mix(h, ids[k]);
	}
	if (err == 0)
		err = grow_slots(t, 0);
	if (err < 0)
		goto out;
	for (const char *c = truncated; c && *c; c++)
		h = mix(h, (uint8_t)*c);
	mask = t->stack_nslots - 1;
	for (i = h & mask; t->stack_slots[i]; i = (i + 1) & mask) {
		const struct st_stack *s = &t->stacks[t->stack_slots[i] - 1];

		if (s->hash == h && same_stack(s, pid, method, truncated, ids, n)) {
			*stack_id = t->stack_slots[i];
			goto out;
		}
	}
	err = stack_new(t, pid, method, truncated, ids, n, h, i);
	if (err == 0)
		*stack_id = (uint32_t)t->nstacks;
out:
	if (ids != stack_ids)
		free(ids);
	return err;
}

/*
 * Stacks already interned, found again by their raw frames: a direct-
 * mapped cache over the table.  A server's wake-ups come from a handful
 * of kernel paths, tens of thousands of times a second; interning each
 * frame of each chain again (a hash probe per frame) was 5-9% of the
 * recorder's CPU on redis-server.  A hit is checked frame by frame, so a
 * collision of hashes only costs the slow path.
 */
#define STACK_SEEN_SLOTS 4096

/* Of the innermost RAW_HASHED frames and the depth only: it picks a
 * slot, the comparison decides, and the multiplies are serial (a wake-up
 * chain is 20 to 32 frames). */
#define RAW_HASHED 8

static uint64_t raw_hash(uint32_t pid, enum stack_method method,
			 const struct stack_frame_in *frames, size_t n)
{
	uint64_t h = mix(mix(mix(0, pid), method), n);

	for (size_t k = 0; k < n && k < RAW_HASHED; k++)
		h = mix(h, frames[k].addr ^ ((uint64_t)frames[k].kernel << 1) ^
			   frames[k].return_addr);
	return h;
}

/* Is stack id pid's stack of method made of exactly frames[0..n),
 * complete? */
static int same_raw(const struct stack_table *t, uint32_t id, uint32_t pid,
		    enum stack_method method, const struct stack_frame_in *frames,
		    size_t n)
{
	const struct st_stack *s = &t->stacks[id - 1];

	if (s->pid != pid || s->method != method || s->depth != n || s->truncated)
		return 0;
	for (size_t k = 0; k < n; k++) {
		const struct st_frame *f = &t->frames[s->frames[k] - 1];

		if (f->addr != frames[k].addr ||
		    f->return_addr != frames[k].return_addr ||
		    f->pid != (frames[k].kernel ? -1 : (int64_t)pid))
			return 0;
	}
	return 1;
}

int stack_table_intern(struct stack_table *t, uint32_t pid,
		       enum stack_method method, const char *truncated,
		       const struct stack_frame_in *frames, size_t n,
		       uint32_t *stack_id)
{
	struct st_seen *seen;
	uint64_t h;
	int err;

	if (truncated)
		return intern_slow(t, pid, method, truncated, frames, n, stack_id);
	if (!t->seen && !(t->seen = calloc(STACK_SEEN_SLOTS, sizeof(*t->seen))))
		return -ENOMEM;
	h = raw_hash(pid, method, frames, n);
	seen = &t->seen[h & (STACK_SEEN_SLOTS - 1)];
	if (seen->stack_id && seen->raw_hash == h &&
	    same_raw(t, seen->stack_id, pid, method, frames, n)) {
		*stack_id = seen->stack_id;
		return 0;
	}
	err = intern_slow(t, pid, method, NULL, frames, n, stack_id);
	if (err == 0)
		*seen = (struct st_seen){ h, *stack_id };
	return err;
}

struct st_stack *stack_table_stack(const struct stack_table *t, uint32_t id)
{
	return id && id <= t->nstacks ? &t->stacks[id - 1] : NULL;
}

struct st_frame *stack_table_frame(const struct stack_table *t, uint32_t id)
{
	return id && id <= t->nframes ? &t->frames[id - 1] : NULL;
}

const char *stack_method_name(enum stack_method m)
{
	return m == STACK_DWARF ? "dwarf" : m == STACK_KERNEL ? "kernel" : "fp";
}
