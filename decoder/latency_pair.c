#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "../common/array.h"
#include "latency_pair.h"

void lat_spec_list_init(struct lat_spec_list *l)
{
	memset(l, 0, sizeof(*l));
	tp_spec_list_init(&l->tps);
}

void lat_spec_list_release(struct lat_spec_list *l)
{
	for (size_t i = 0; i < l->n; i++) {
		free(l->v[i].name);
		free(l->v[i].key);
	}
	free(l->v);
	tp_spec_list_release(&l->tps);
	lat_spec_list_init(l);
}

static size_t ident_len(const char *s)
{
	return strspn(s, "abcdefghijklmnopqrstuvwxyz"
			 "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_");
}

/* "SUBSYS:NAME" of length len at s, into l's tracepoints. */
static int add_tp(struct lat_spec_list *l, const char *s, size_t len,
		  const char *opt, struct errmsg *e)
{
	char *one = strndup(s, len);
	int err;

	if (!one)
		return -ENOMEM;
	err = tp_spec_add(&l->tps, one, opt, e);
	free(one);
	return err;
}

int lat_spec_add(struct lat_spec_list *l, const char *arg, const char *opt,
		 struct errmsg *e)
{
	const char *slash = strchr(arg, '/'), *end = slash ? slash + 1 : NULL;
	const char *c1 = end ? strchr(end, ':') : NULL;
	const char *c2 = c1 ? strchr(c1 + 1, ':') : NULL;
	size_t end_len = !end ? 0 : c2 ? (size_t)(c2 - end) : strlen(end);
	struct lat_spec sp = { 0 };
	int err;

	if (!slash || !c1 || strchr(end, '/') ||
	    (c2 && (!c2[1] || ident_len(c2 + 1) != strlen(c2 + 1))) ||
	    memchr(arg, ':', (size_t)(slash - arg)) == NULL)
		return errmsg_set(e, EINVAL, "invalid %s '%s': expected START/END or "
				  "START/END:FIELD, each SUBSYS:NAME, e.g. "
				  "block:block_rq_issue/block:block_rq_complete:sector",
				  opt, arg);
	if (ARRAY_RESERVE(l->v, l->cap, l->n + 1) < 0)
		return -ENOMEM;
	if ((err = add_tp(l, arg, (size_t)(slash - arg), opt, e)) < 0)
		return err;
	if ((err = add_tp(l, end, end_len, opt, e)) < 0) {
		struct tp_spec *s = &l->tps.v[--l->tps.n];	/* the START's */

		free(s->system);
		free(s->name);
		free(s->full);
		free(s->filter);
		return err;
	}
	sp.name = strdup(arg);
	sp.key = c2 ? strdup(c2 + 1) : NULL;
	if (!sp.name || (c2 && !sp.key)) {
		free(sp.name);
		free(sp.key);
		return -ENOMEM;	/* the two tracepoints stay: the list is
				 * released with the error */
	}
	l->v[l->n++] = sp;
	return 0;
}

void lat_pending_init(struct lat_pending *p)
{
	memset(p, 0, sizeof(*p));
}

void lat_pending_release(struct lat_pending *p)
{
	free(p->v);
	lat_pending_init(p);
}

static struct lat_start *find(struct lat_pending *p, uint64_t key)
{
	for (size_t i = 0; i < p->n; i++)
		if (p->v[i].key == key)
			return &p->v[i];
	return NULL;
}

/* Removes *s (one of p->v) by moving the last into its place. */
static void take(struct lat_pending *p, struct lat_start *s)
{
	*s = p->v[--p->n];
}

int lat_pair_start(struct lat_pending *p, const struct lat_start *s,
		   struct lat_start *orphan)
{
	struct lat_start *old = find(p, s->key);

	if (old) {
		*orphan = *old;
		*old = *s;
		p->unfinished++;
		return 1;
	}
	if (ARRAY_RESERVE(p->v, p->cap, p->n + 1) < 0)
		return -ENOMEM;
	p->v[p->n++] = *s;
	return 0;
}

int lat_pair_end(struct lat_pending *p, uint64_t key, uint64_t mono_ts,
		 struct lat_start *start, uint64_t *dur_ns)
{
	struct lat_start *s = find(p, key);

	if (!s || s->mono_ts > mono_ts) {
		p->unmatched_ends++;
		return 0;
	}
	*start = *s;
	*dur_ns = mono_ts - s->mono_ts;
	take(p, s);
	p->paired++;
	return 1;
}

int lat_pair_drain(struct lat_pending *p, struct lat_start *out)
{
	if (!p->n)
		return 0;
	*out = p->v[p->n - 1];
	p->n--;
	p->unfinished++;
	return 1;
}
