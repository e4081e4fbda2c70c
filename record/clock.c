#include <errno.h>

#include "clock.h"

void record_clock_init(struct record_clock *c)
{
	clock_map_init(&c->map);
	c->last.mono_ns = 0;
}

void record_clock_release(struct record_clock *c)
{
	clock_map_release(&c->map);
}

int record_clock_start(struct record_clock *c, struct clock_anchor *first)
{
	struct clock_step unused;

	clock_anchor_take(first);
	c->last = *first;
	return clock_map_add(&c->map, first, &unused) == -ENOMEM ? -ENOMEM : 0;
}

int record_clock_add(struct record_clock *c, struct loader *l,
		     const struct clock_anchor *a, struct errmsg *e)
{
	struct clock_step step;
	int res = clock_map_add(&c->map, a, &step), err;

	if (res == -EINVAL)
		return 0;	/* no later than the last: nothing new */
	if (res == -ENOMEM)
		return errmsg_set(e, ENOMEM, "out of memory keeping clock anchors");
	c->last = *a;
	err = loader_anchor(l, a, e);
	if (err == 0 && res == 1)
		err = loader_clock_step(l, &step, e);
	return err;
}
