#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "../common/array.h"
#include "order.h"

void order_queue_init(struct order_queue *q)
{
	memset(q, 0, sizeof(*q));
	q->sorted = 1;
}

/* What an event owns (order.h): freed once it is handed out. */
static void ev_free(struct ev *e)
{
	if (e->kind == EV_TRACEPOINT || e->kind == EV_LAT_START ||
	    e->kind == EV_LAT_END)
		free(e->u.tp.fields);
}

void order_queue_release(struct order_queue *q)
{
	for (size_t i = q->head; i < q->n; i++)
		ev_free(&q->slab[q->q[i]]);
	free(q->slab);
	free(q->free);
	free(q->q);
	free(q->runs);
	order_queue_init(q);
}

/* The queued event at q[i]. */
static const struct ev *at(const struct order_queue *q, size_t i)
{
	return &q->slab[q->q[i]];
}

/*
 * Moves the queued slots to the array's start once those handed out
 * are as many as those left (each slot is moved at most about once);
 * else the array grows.  Slots are 4 bytes: the array stays under 4
 * times the most events ever queued at once, 16 bytes an event.
 */
static void compact(struct order_queue *q)
{
	size_t left = q->n - q->head;

	if (!q->head || q->head < left)
		return;	/* nothing handed out (q may be NULL yet), or too few */
	memmove(q->q, q->q + q->head, left * sizeof(*q->q));
	for (size_t k = 0; k < q->nruns; k++)	/* pushes since the flush */
		q->runs[k] -= q->head;
	q->n = left;
	q->head = 0;
}

size_t order_queue_count(const struct order_queue *q)
{
	return q->n - q->head;
}

/* A free slot of the slab, which grows when none is (and the free
 * stack with it, to hold every slot): 0 or -ENOMEM. */
static int take_slot(struct order_queue *q, uint32_t *slot)
{
	if (q->nfree) {
		*slot = q->free[--q->nfree];
		return 0;
	}
	if (q->slab_n == UINT32_MAX ||
	    ARRAY_RESERVE(q->slab, q->slab_cap, q->slab_n + 1) < 0 ||
	    ARRAY_RESERVE(q->free, q->free_cap, q->slab_n + 1) < 0)
		return -ENOMEM;
	*slot = (uint32_t)q->slab_n++;
	return 0;
}

int order_queue_push(struct order_queue *q, const struct ev *e)
{
	int new_run = q->n > q->head && e->mono_ts < at(q, q->n - 1)->mono_ts;
	uint32_t slot;

	if (q->n == q->cap) {
		compact(q);
		if (q->n == q->cap && ARRAY_RESERVE(q->q, q->cap, q->n + 1) < 0)
			return -ENOMEM;
	}
	if (new_run && ARRAY_RESERVE(q->runs, q->runs_cap, q->nruns + 1) < 0)
		return -ENOMEM;
	if (take_slot(q, &slot) < 0)
		return -ENOMEM;
	if (new_run) {
		q->runs[q->nruns++] = q->n;
		q->sorted = 0;
	}
	if (q->flushed_to && e->mono_ts <= q->flushed_to)
		q->late++;
	q->slab[slot] = *e;
	q->slab[slot].seq = q->next_seq++;
	q->q[q->n++] = slot;
	return 0;
}

/* Merges the sorted runs src[a..b) and src[b..c) of slots into
 * dst[a..c); on equal timestamps the first run's event first: it was
 * pushed first. */
static void merge_two(const struct ev *slab, const uint32_t *src, uint32_t *dst,
		      size_t a, size_t b, size_t c)
{
	size_t i = a, j = b, k = a;

	while (i < b && j < c)
		dst[k++] = slab[src[j]].mono_ts < slab[src[i]].mono_ts ?
			   src[j++] : src[i++];
	memcpy(dst + k, src + i, (b - i) * sizeof(*dst));
	k += b - i;
	memcpy(dst + k, src + j, (c - j) * sizeof(*dst));
}

/*
 * How many of the queued events, from the first, are in their places
 * already: those of the first run no later than the earliest event of
 * the others (a run is sorted: its first).  On a tie the first run's
 * goes first, pushed first.  The first run holds what the last flush
 * left (the slack behind its watermark, in a switch storm three times
 * what it handed out) and the rings drained since start past nearly all
 * of it: merging only the rest made the sort a fraction of its cost.
 */
static size_t settled(const struct order_queue *q)
{
	size_t lo = 0, hi = q->runs[0] - q->head;
	uint64_t first = UINT64_MAX;

	for (size_t k = 0; k < q->nruns; k++)
		if (at(q, q->runs[k])->mono_ts < first)
			first = at(q, q->runs[k])->mono_ts;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (at(q, q->head + mid)->mono_ts <= first)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/*
 * Sorts q by (mono_ts, seq) by merging its runs pairwise, a pass at a
 * time: the rings of a round arrive as a few runs (one per CPU, and the
 * sorted rest of the last flush), so a few passes do what a full sort
 * did over every event in every flush (12% of the recorder's CPU on the
 * fault loop, most of it copying 96-byte events through qsort's
 * levels).  seq grows with the position, so a stable merge keeps it.
 * The merges move 4-byte slots; the events stay where they are.
 */
static int sort_runs(struct order_queue *q)
{
	size_t skip = q->head + settled(q), n = q->n - skip, nb = q->nruns + 1;
	uint32_t *tmp = malloc(n * sizeof(*tmp));
	uint32_t *src = q->q + skip, *dst = tmp;

	if (!tmp)
		return -ENOMEM;
	for (size_t k = 0; k < q->nruns; k++)
		q->runs[k] -= skip;
	while (nb > 1) {
		size_t out = 0;
		uint32_t *t;

		/* bounds: run k is [start(k), start(k + 1)), start(0) = 0 */
		for (size_t k = 0; k < nb; k += 2) {
			size_t a = k ? q->runs[k - 1] : 0;
			size_t b = k + 1 < nb ? q->runs[k] : n;
			size_t c = k + 2 < nb ? q->runs[k + 1] : n;

			merge_two(q->slab, src, dst, a, b, c);
			if (k)
				q->runs[out - 1] = a;
			out++;
		}
		nb = out;
		t = src;
		src = dst;
		dst = t;
	}
	if (src != q->q + skip)
		memcpy(q->q + skip, src, n * sizeof(*src));
	free(tmp);
	q->nruns = 0;
	q->sorted = 1;
	return 0;
}

/* First position whose ts is above the watermark (q is sorted). */
static size_t cut_at(const struct order_queue *q, uint64_t watermark)
{
	size_t lo = q->head, hi = q->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (at(q, mid)->mono_ts <= watermark)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

long order_queue_flush(struct order_queue *q, uint64_t watermark,
		       ev_fn fn, void *ctx)
{
	size_t cut, i, n;
	int err = 0;

	if (!q->sorted && sort_runs(q) < 0)
		return -ENOMEM;
	cut = cut_at(q, watermark);
	for (i = q->head; i < cut; i++) {
		struct ev *e = &q->slab[q->q[i]];

		err = fn(ctx, e);
		if (err < 0)
			break;	/* it stays queued, what it owns too */
		ev_free(e);
		q->free[q->nfree++] = q->q[i];
	}
	n = i - q->head;
	q->head = i;
	compact(q);
	if (watermark > q->flushed_to && i == cut)
		q->flushed_to = watermark == UINT64_MAX ? q->flushed_to : watermark;
	return err < 0 ? err : (long)n;
}
