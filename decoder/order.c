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
	for (size_t i = 0; i < q->n; i++)
		ev_free(&q->v[i]);
	free(q->v);
	free(q->runs);
	order_queue_init(q);
}

int order_queue_push(struct order_queue *q, const struct ev *e)
{
	if (ARRAY_RESERVE(q->v, q->cap, q->n + 1) < 0)
		return -ENOMEM;
	if (q->flushed_to && e->mono_ts <= q->flushed_to)
		q->late++;
	if (q->n && e->mono_ts < q->v[q->n - 1].mono_ts) {
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

/* Merges the sorted runs src[a..b) and src[b..c) into dst[a..c); on
 * equal timestamps the first run's event first: it was pushed first. */
static void merge_two(const struct ev *src, struct ev *dst, size_t a,
		      size_t b, size_t c)
{
	size_t i = a, j = b, k = a;

	while (i < b && j < c)
		dst[k++] = src[j].mono_ts < src[i].mono_ts ? src[j++] : src[i++];
	memcpy(dst + k, src + i, (b - i) * sizeof(*dst));
	k += b - i;
	memcpy(dst + k, src + j, (c - j) * sizeof(*dst));
}

/*
 * Sorts v by (mono_ts, seq) by merging its runs pairwise, a pass at a
 * time: the rings of a round arrive as a few runs (one per CPU, and the
 * sorted rest of the last flush), so a few passes do what a full sort
 * did over every event in every flush (12% of the recorder's CPU on the
 * fault loop, most of it copying 96-byte events through qsort's
 * levels).  seq grows with the index, so a stable merge keeps it.
 */
static int sort_runs(struct order_queue *q)
{
	struct ev *tmp = malloc(q->n * sizeof(*tmp)), *src = q->v, *dst = tmp;
	size_t nb = q->nruns + 1;

	if (!tmp)
		return -ENOMEM;
	while (nb > 1) {
		size_t out = 0;

		/* bounds: run k is [start(k), start(k + 1)), start(0) = 0 */
		for (size_t k = 0; k < nb; k += 2) {
			size_t a = k ? q->runs[k - 1] : 0;
			size_t b = k + 1 < nb ? q->runs[k] : q->n;
			size_t c = k + 2 < nb ? q->runs[k + 1] : q->n;

			merge_two(src, dst, a, b, c);
			if (k)
				q->runs[out - 1] = a;
			out++;
		}
		nb = out;
		src = dst;
		dst = dst == tmp ? q->v : tmp;
	}
	/* Back in v, which keeps its capacity: the queue's memory is then
	 * what a sort's would be, a buffer of the events for the flush. */
	if (src != q->v)
		memcpy(q->v, src, q->n * sizeof(*src));
	free(tmp);
	q->nruns = 0;
	q->sorted = 1;
	return 0;
}

/* First index whose ts is above the watermark (v is sorted). */
static size_t cut_at(const struct order_queue *q, uint64_t watermark)
{
	size_t lo = 0, hi = q->n;

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
	size_t cut, i;
	int err = 0;

	if (!q->sorted && sort_runs(q) < 0)
		return -ENOMEM;
	cut = cut_at(q, watermark);
	for (i = 0; i < cut; i++) {
		err = fn(ctx, &q->v[i]);
		if (err < 0)
			break;	/* it stays queued, what it owns too */
		ev_free(&q->v[i]);
	}
	if (i) {
		memmove(q->v, q->v + i, (q->n - i) * sizeof(*q->v));
		q->n -= i;
	}
	if (watermark > q->flushed_to && i == cut)
		q->flushed_to = watermark == UINT64_MAX ? q->flushed_to : watermark;
	return err < 0 ? err : (long)i;
}
