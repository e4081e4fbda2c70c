#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "../common/array.h"
#include "held_records.h"

void held_records_init(struct held_records *h)
{
	memset(h, 0, sizeof(*h));
}

static void forget_all(struct held_records *h)
{
	for (size_t i = 0; i < h->n; i++)
		free(h->v[i].bytes);
	h->n = 0;
}

void held_records_release(struct held_records *h)
{
	forget_all(h);
	free(h->v);
	held_records_init(h);
}

int held_records_push(struct held_records *h, uint64_t mono_ts, int cpu,
		      const void *bytes, size_t len)
{
	struct held_record *r;

	if (ARRAY_RESERVE(h->v, h->cap, h->n + 1) < 0)
		return -ENOMEM;
	r = &h->v[h->n];
	r->bytes = malloc(len ? len : 1);
	if (!r->bytes)
		return -ENOMEM;
	memcpy(r->bytes, bytes, len);
	r->len = len;
	r->mono_ts = mono_ts;
	r->cpu = cpu;
	r->seq = h->seq++;
	h->n++;
	return 0;
}

static int by_time(const void *a, const void *b)
{
	const struct held_record *x = a, *y = b;

	if (x->mono_ts != y->mono_ts)
		return x->mono_ts < y->mono_ts ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

int held_records_replay(struct held_records *h,
			int (*fn)(void *ctx, int cpu, const void *bytes,
				  size_t len),
			void *ctx)
{
	int err = 0;

	if (!h->n)
		return 0;	/* h->v may be NULL, which qsort must not get */
	qsort(h->v, h->n, sizeof(*h->v), by_time);
	for (size_t i = 0; i < h->n && err == 0; i++)
		err = fn(ctx, h->v[i].cpu, h->v[i].bytes, h->v[i].len);
	forget_all(h);
	return err;
}
