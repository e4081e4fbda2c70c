#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "../common/clock.h"
#include "flight_block.h"

#define MIN_SLOTS 64

int flight_block_init(struct flight_block *fb, size_t bytes,
		      struct block_trace *trace)
{
	size_t cap = bytes / sizeof(*fb->v);
	void *m;

	memset(fb, 0, sizeof(*fb));
	fb->trace = trace;
	if (cap < MIN_SLOTS)
		cap = MIN_SLOTS;
	/* As the history's: pages become resident as the ring first reaches
	 * them, so cap is what it may hold. */
	m = mmap(NULL, cap * sizeof(*fb->v), PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (m == MAP_FAILED)
		return -ENOMEM;
	fb->v = m;
	fb->cap = cap;
	fb->ncpus = trace ? trace->ncpus : 0;
	fb->overrun_seen = calloc((size_t)fb->ncpus + 1, sizeof(uint64_t));
	fb->dropped_seen = calloc((size_t)fb->ncpus + 1, sizeof(uint64_t));
	return fb->overrun_seen && fb->dropped_seen ? 0 : -ENOMEM;
}

void flight_block_release(struct flight_block *fb)
{
	if (fb->v)
		munmap(fb->v, fb->cap * sizeof(*fb->v));
	free(fb->overrun_seen);
	free(fb->dropped_seen);
	memset(fb, 0, sizeof(*fb));
}

/* The next slot, the oldest dropped to make room (see the header). */
static struct flight_block_slot *next_slot(struct flight_block *fb)
{
	struct flight_block_slot *s;

	if (fb->head - fb->tail == fb->cap) {
		s = &fb->v[fb->tail++ % fb->cap];
		fb->dropped += !s->loss;
		/* A loss dropped: the events of its span go unsaid, so the
		 * memory is whole only after it too. */
		if (s->mono_ns + 1 > fb->whole_from)
			fb->whole_from = s->mono_ns + 1;
	}
	s = &fb->v[fb->head++ % fb->cap];
	memset(s, 0, sizeof(*s));
	return s;
}

void flight_block_keep(struct flight_block *fb, const struct block_reading *r)
{
	struct flight_block_slot *s;

	if (r->kind == BLOCK_READ_UNTIL) {
		fb->until = r->mono_ns;
		return;
	}
	s = next_slot(fb);
	s->mono_ns = r->mono_ns;
	s->cpu = r->cpu;
	s->size = r->size <= BLOCK_RAW_MAX ? r->size : BLOCK_RAW_MAX;
	memcpy(s->u.raw, r->raw, s->size);
}

static int keep(void *ctx, const struct block_reading *r)
{
	flight_block_keep(ctx, r);
	return 0;
}

/* The index of cpu among the reader's; ncpus when not one of them. */
static int cpu_index(const struct flight_block *fb, int cpu)
{
	int i = 0;

	while (i < fb->ncpus && fb->trace->cpus[i] != cpu)
		i++;
	return i;
}

void flight_block_loss(struct flight_block *fb, int cpu, uint64_t overrun,
		       uint64_t dropped, uint64_t since_ns, uint64_t mono_ns)
{
	int i = cpu_index(fb, cpu);
	struct flight_block_slot *s;

	if (overrun <= fb->overrun_seen[i] && dropped <= fb->dropped_seen[i])
		return;
	s = next_slot(fb);
	s->loss = 1;
	s->cpu = (uint32_t)cpu;
	s->mono_ns = mono_ns;
	s->since_ns = since_ns;
	s->u.n.overrun = overrun > fb->overrun_seen[i] ?
			 overrun - fb->overrun_seen[i] : 0;
	s->u.n.dropped = dropped > fb->dropped_seen[i] ?
			 dropped - fb->dropped_seen[i] : 0;
	fb->overrun_seen[i] = overrun;
	fb->dropped_seen[i] = dropped;
}

struct loss_walk {
	struct flight_block *fb;
	uint64_t since_ns, mono_ns;
};

static int note_loss(void *ctx, int cpu, uint64_t overrun, uint64_t dropped)
{
	struct loss_walk *w = ctx;

	flight_block_loss(w->fb, cpu, overrun, dropped, w->since_ns, w->mono_ns);
	return 0;
}

int flight_block_take(struct flight_block *fb)
{
	uint64_t before = fb->until, now;
	struct loss_walk w;
	int err;

	if (!fb->trace)
		return 0;
	err = block_trace_take(fb->trace, keep, fb);
	if (err < 0 || fb->until == before)
		return err;
	/* A pass was taken: the instance's losses since the one before.
	 * (The last pass, at the stop, says UINT64_MAX: stamped now.) */
	now = monotonic_ns();
	w.fb = fb;
	w.since_ns = before;
	w.mono_ns = fb->until < now ? fb->until : now;
	/* And the events the reader could not queue, on no one CPU. */
	flight_block_loss(fb, -1, 0, block_trace_queue_dropped(fb->trace),
			  w.since_ns, w.mono_ns);
	return block_trace_losses(fb->trace, note_loss, &w);
}

int flight_block_each(const struct flight_block *fb, uint64_t start_ns,
		      uint64_t end_ns,
		      int (*fn)(void *ctx, const struct flight_block_slot *s),
		      void *ctx)
{
	int err = 0;

	for (uint64_t i = fb->tail; i != fb->head && err == 0; i++) {
		const struct flight_block_slot *s = &fb->v[i % fb->cap];
		int in = s->loss ? s->mono_ns >= start_ns && s->since_ns <= end_ns :
			 s->mono_ns >= start_ns && s->mono_ns <= end_ns;

		if (in)
			err = fn(ctx, s);
	}
	return err;
}
