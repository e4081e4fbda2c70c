#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "../common/array.h"
#include "cgroup.h"

void record_cgroup_init(struct record_cgroup *c, struct cgroup_sampler *s,
			struct loader *l, uint64_t interval_ns)
{
	memset(c, 0, sizeof(*c));
	c->sampler = s;
	c->loader = l;
	c->interval_ns = interval_ns;
}

void record_cgroup_release(struct record_cgroup *c)
{
	free(c->held);
	memset(c, 0, sizeof(*c));
}

int record_cgroup_start(struct record_cgroup *c, struct errmsg *e)
{
	return cgroup_sampler_start(c->sampler, c->interval_ns, e);
}

void record_cgroup_stop(struct record_cgroup *c)
{
	cgroup_sampler_stop(c->sampler);
}

static int store(struct record_cgroup *c, const struct cgroup_reading *r,
		 struct errmsg *e)
{
	int err = loader_cgroup_cpu(c->loader, r->mono_ns, c->sampler->dir,
				    r->quota_us, r->period_us, r->stat.nr_periods,
				    r->stat.nr_throttled, r->stat.throttled_ns, e);

	c->rows += err == 0;
	return err;
}

/* Stores the held readings at or before watermark, keeps the rest. */
static int store_held(struct record_cgroup *c, uint64_t watermark,
		      struct errmsg *e)
{
	size_t kept = 0;
	int err = 0;

	for (size_t i = 0; i < c->nheld && err == 0; i++) {
		if (c->held[i].mono_ns <= watermark)
			err = store(c, &c->held[i], e);
		else
			c->held[kept++] = c->held[i];
	}
	c->nheld = err == 0 ? kept : c->nheld;
	return err;
}

int record_cgroup_flush(struct record_cgroup *c, uint64_t watermark,
			struct errmsg *e)
{
	const struct cgroup_reading *v;
	size_t n;
	int failed = cgroup_sampler_take(c->sampler, &v, &n);
	int err = store_held(c, watermark, e);

	for (size_t i = 0; i < n && err == 0; i++) {
		if (v[i].mono_ns <= watermark)
			err = store(c, &v[i], e);
		else if (ARRAY_RESERVE(c->held, c->held_cap, c->nheld + 1) < 0)
			err = errmsg_set(e, ENOMEM, "out of memory");
		else
			c->held[c->nheld++] = v[i];
	}
	if (err == 0 && failed < 0)
		err = errmsg_set(e, -failed, "cgroup sampling stopped: %s",
				 strerror(-failed));
	return err;
}
