#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "order.h"

void order_queue_init(struct order_queue *q)
{
	memset(q, 0, sizeof(*q));
	q->sorted = 1;
}

void order_queue_release(struct order_queue *q)
{
	free(q->v);
	order_queue_init(q);
}

int order_queue_push(struct order_queue *q, const struct ev *e)
{
	if (q->n == q->cap) {
		size_t cap = q->cap ? q->cap * 2 : 4096;
		struct ev *v = realloc(q->v, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		q->v = v;
		q->cap = cap;
	}
	if (q->flushed_to && e->ts <= q->flushed_to)
		q->late++;
	if (q->n && e->ts < q->v[q->n - 1].ts)
		q->sorted = 0;
	q->v[q->n] = *e;
	q->v[q->n].seq = q->next_seq++;
	q->n++;
	return 0;
}

static int ev_cmp(const void *a, const void *b)
{
	const struct ev *x = a, *y = b;

	if (x->ts != y->ts)
		return x->ts < y->ts ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* First index whose ts is above the watermark (v is sorted). */
static size_t cut_at(const struct order_queue *q, uint64_t watermark)
{
	size_t lo = 0, hi = q->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (q->v[mid].ts <= watermark)
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
			break;
	}
	if (i) {
		memmove(q->v, q->v + i, (q->n - i) * sizeof(*q->v));
		q->n -= i;
	}
	if (watermark > q->flushed_to && i == cut)
		q->flushed_to = watermark == UINT64_MAX ? q->flushed_to : watermark;
	return err < 0 ? err : (long)i;
}
