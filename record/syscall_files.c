#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "syscall_files.h"

void syscall_files_init(struct syscall_files *f)
{
	memset(f, 0, sizeof(*f));
}

void syscall_files_release(struct syscall_files *f)
{
	for (size_t i = 0; i < f->nslots; i++)
		free(f->slots[i].fd_name);
	free(f->slots);
	syscall_files_init(f);
}

/* FNV-1a over the key. */
static uint64_t hash_of(uint32_t tid, int32_t nr, const char *name)
{
	uint64_t h = 0xcbf29ce484222325ull;

	h = (h ^ tid) * 0x100000001b3ull;
	h = (h ^ (uint32_t)nr) * 0x100000001b3ull;
	for (const char *c = name ? name : ""; *c; c++)
		h = (h ^ (unsigned char)*c) * 0x100000001b3ull;
	return (h ^ (name != NULL)) * 0x100000001b3ull;
}

static int same(const struct syscall_file_sum *s, uint32_t tid, int32_t nr,
		const char *name)
{
	return s->tid == tid && s->nr == nr &&
	       (s->fd_name && name ? !strcmp(s->fd_name, name) :
				     !s->fd_name && !name);
}

static size_t slot_of(const struct syscall_files *f, uint32_t tid, int32_t nr,
		      const char *name)
{
	size_t i = (size_t)hash_of(tid, nr, name) & (f->nslots - 1);

	while (f->slots[i].calls && !same(&f->slots[i], tid, nr, name))
		i = (i + 1) & (f->nslots - 1);
	return i;
}

/* Doubles the table when it is half full.  0 or -ENOMEM. */
static int make_room(struct syscall_files *f)
{
	struct syscall_files bigger;

	if (f->nslots && f->n < f->nslots / 2)
		return 0;
	bigger.nslots = f->nslots ? f->nslots * 2 : 64;
	bigger.n = f->n;
	bigger.slots = calloc(bigger.nslots, sizeof(*bigger.slots));
	if (!bigger.slots)
		return -ENOMEM;
	for (size_t i = 0; i < f->nslots; i++) {
		const struct syscall_file_sum *s = &f->slots[i];

		if (s->calls)
			bigger.slots[slot_of(&bigger, s->tid, s->nr, s->fd_name)] = *s;
	}
	free(f->slots);
	*f = bigger;
	return 0;
}

int syscall_files_add(struct syscall_files *f, uint32_t tid, uint32_t pid,
		      int32_t nr, const char *fd_name, uint64_t dur_ns,
		      uint64_t blocked_ns)
{
	struct syscall_file_sum *s;

	if (make_room(f) < 0)
		return -ENOMEM;
	s = &f->slots[slot_of(f, tid, nr, fd_name)];
	if (!s->calls) {
		if (fd_name && !(s->fd_name = strdup(fd_name)))
			return -ENOMEM;
		s->tid = tid;
		s->pid = pid;
		s->nr = nr;
		f->n++;
	}
	s->calls++;
	s->total_ns += dur_ns;
	s->blocked_ns += blocked_ns;
	if (dur_ns > s->max_ns)
		s->max_ns = dur_ns;
	return 0;
}
