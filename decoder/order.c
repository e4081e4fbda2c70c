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
	order_queue_init(q);
}

int order_queue_push(struct order_queue *q, const struct ev *e)
{
	if (ARRAY_RESERVE(q->v, q->cap, q->n + 1) < 0)
		return -ENOMEM;
	if (q->flushed_to && e->mono_ts <= q->flushed_to)
		q->late++;
	if (q->n && e->mono_ts < q->v[q->n - 1].mono_ts)
		q->sorted = 0;
	q->v[q->n] = *e;
	q->v[q->n].seq = q->next_seq++;
	q->n++;
	return 0;
}

static int ev_cmp(const void *a, const void *b)
{
	const struct ev *x = a, *y = b;

	if (x->mono_ts != y->mono_ts)
		return x->mono_ts < y->mono_ts ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
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

	if (!q->sorted) {
		qsort(q->v, q->n, sizeof(*q->v), ev_cmp);
		q->sorted = 1;
	}
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
