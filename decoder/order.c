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
		ev_free(&q->v[i]);
	free(q->v);
	free(q->runs);
	order_queue_init(q);
}

/*
 * Moves the queued events to the array's start once those handed out
 * are as many as those left (each event is moved at most about once),
 * or, with always, at once.  Moving them at every flush was 5% of the
 * armed recorder's CPU in a switch storm, where the slack keeps many
 * events queued past each watermark.
 */
static void compact(struct order_queue *q, int always)
{
	size_t left = q->n - q->head;

	if (!q->head || (!always && q->head < left))
		return;	/* nothing handed out (v may be NULL yet), or too few */
	memmove(q->v, q->v + q->head, left * sizeof(*q->v));
	for (size_t k = 0; k < q->nruns; k++)	/* pushes since the flush */
		q->runs[k] -= q->head;
	q->n = left;
	q->head = 0;
}

size_t order_queue_count(const struct order_queue *q)
{
	return q->n - q->head;
}

int order_queue_push(struct order_queue *q, const struct ev *e)
{
	/* Room first from the events handed out: the array grows only
	 * past the most events ever queued at once. */
	if (q->n == q->cap && q->head)
		compact(q, 1);
	if (ARRAY_RESERVE(q->v, q->cap, q->n + 1) < 0)
		return -ENOMEM;
	if (q->flushed_to && e->mono_ts <= q->flushed_to)
		q->late++;
	if (q->n > q->head && e->mono_ts < q->v[q->n - 1].mono_ts) {
		if (ARRAY_RESERVE(q->runs, q->runs_cap, q->nruns + 1) < 0)
			return -ENOMEM;
		q->runs[q->nruns++] = q->n;
		q->sorted = 0;
	}
	q->v[q->n] = *e;
	q->v[q->n].seq = q->next_seq++;
	q->n++;
	return 0;
}

/* Merges the sorted runs src[a..b) and src[b..c) of indices into v into
 * dst[a..c); on equal timestamps the first run's event first: it was
 * pushed first. */
static void merge_two(const struct ev *v, const uint32_t *src, uint32_t *dst,
		      size_t a, size_t b, size_t c)
{
	size_t i = a, j = b, k = a;

	while (i < b && j < c)
		dst[k++] = v[src[j]].mono_ts < v[src[i]].mono_ts ? src[j++] : src[i++];
	memcpy(dst + k, src + i, (b - i) * sizeof(*dst));
	k += b - i;
	memcpy(dst + k, src + j, (c - j) * sizeof(*dst));
}

/* Puts v[perm[k]] at v[k] for every k, in place, a cycle at a time;
 * perm is used up (each entry marked done as its place is filled). */
static void permute(struct ev *v, uint32_t *perm, size_t n)
{
	for (size_t k = 0; k < n; k++) {
		struct ev first;
		size_t j = k;

		if (perm[k] == k)
			continue;
		first = v[k];
		for (;;) {
			size_t from = perm[j];

			perm[j] = (uint32_t)j;
			if (from == k) {
				v[j] = first;
				break;
			}
			v[j] = v[from];
			j = from;
		}
	}
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
	const struct ev *v = q->v + q->head;
	size_t lo = 0, hi = q->runs[0] - q->head;
	uint64_t first = UINT64_MAX;

	for (size_t k = 0; k < q->nruns; k++)
		if (v[q->runs[k] - q->head].mono_ts < first)
			first = v[q->runs[k] - q->head].mono_ts;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (v[mid].mono_ts <= first)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/*
 * Sorts v by (mono_ts, seq) by merging its runs pairwise, a pass at a
 * time: the rings of a round arrive as a few runs (one per CPU, and the
 * sorted rest of the last flush), so a few passes do what a full sort
 * did over every event in every flush (12% of the recorder's CPU on the
 * fault loop, most of it copying 96-byte events through qsort's
 * levels).  seq grows with the index, so a stable merge keeps it.
 *
 * The merges move 4-byte indices, and the events move once, in place:
 * the flush's own memory is 8 bytes an event.  A buffer of the events
 * themselves, malloc'd and freed at each flush in sizes that vary with
 * the round, grew the pipeline thread's arena by 30 MB over the first
 * half-minute of the soak's recording.
 */
static int sort_runs(struct order_queue *q)
{
	size_t skip = q->head + settled(q), n = q->n - skip, nb = q->nruns + 1;
	struct ev *v = q->v + skip;	/* the events to sort, from 0 */
	uint32_t *idx = malloc(2 * n * sizeof(*idx));
	uint32_t *src = idx, *dst = idx + n;

	if (!idx)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++)
		idx[i] = (uint32_t)i;
	for (size_t k = 0; k < q->nruns; k++)
		q->runs[k] -= skip;
	while (nb > 1) {
		size_t out = 0;

		/* bounds: run k is [start(k), start(k + 1)), start(0) = 0 */
		for (size_t k = 0; k < nb; k += 2) {
			size_t a = k ? q->runs[k - 1] : 0;
			size_t b = k + 1 < nb ? q->runs[k] : n;
			size_t c = k + 2 < nb ? q->runs[k + 1] : n;

			merge_two(v, src, dst, a, b, c);
			if (k)
				q->runs[out - 1] = a;
			out++;
		}
		nb = out;
		src = dst;
		dst = dst == idx ? idx + n : idx;
	}
	permute(v, src, n);
	free(idx);
	q->nruns = 0;
	q->sorted = 1;
	return 0;
}

/* First index whose ts is above the watermark (v is sorted). */
static size_t cut_at(const struct order_queue *q, uint64_t watermark)
{
	size_t lo = q->head, hi = q->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (q->v[mid].mono_ts <= watermark)
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
		err = fn(ctx, &q->v[i]);
		if (err < 0)
			break;	/* it stays queued, what it owns too */
		ev_free(&q->v[i]);
	}
	n = i - q->head;
	q->head = i;
	compact(q, 0);
	if (watermark > q->flushed_to && i == cut)
		q->flushed_to = watermark == UINT64_MAX ? q->flushed_to : watermark;
	return err < 0 ? err : (long)n;
}
