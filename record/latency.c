#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "../decoder/tracepoint.h"
#include "latency.h"

int record_latency_init(struct record_latency *rl,
			const struct lat_spec_list *specs,
			struct tep_event *const *events)
{
	memset(rl, 0, sizeof(*rl));
	strbuf_init(&rl->json);
	if (!specs || !specs->n)
		return 0;
	rl->specs = specs;
	rl->events = events;
	rl->pending = calloc(specs->n, sizeof(*rl->pending));
	return rl->pending ? 0 : -ENOMEM;
}

void record_latency_release(struct record_latency *rl)
{
	for (size_t i = 0; rl->specs && i < rl->specs->n; i++)
		lat_pending_release(&rl->pending[i]);
	free(rl->pending);
	strbuf_release(&rl->json);
	memset(rl, 0, sizeof(*rl));
}

/* FIELD's value in s's raw data: 1 with *key, 0 when too short. */
static int read_key(struct tep_event *ev, const char *name,
		    const struct sample *s, uint64_t *key)
{
	struct tep_format_field *f = tep_find_any_field(ev, name);
	unsigned long long v;

	if (!f || (size_t)f->offset + (size_t)f->size > s->raw_size ||
	    tep_read_number_field(f, s->raw, &v) < 0)
		return 0;
	*key = v;
	return 1;
}

int record_latency_ev(struct record_latency *rl, int end, uint16_t idx,
		      int cpu, const struct sample *s, struct ev *out)
{
	struct tep_event *ev = rl->events[2 * (size_t)idx + (end ? 1 : 0)];
	const char *key = rl->specs->v[idx].key;
	int err;

	memset(out, 0, sizeof(*out));
	out->kind = end ? EV_LAT_END : EV_LAT_START;
	out->mono_ts = s->sid.time;
	out->pid = s->sid.pid;
	out->tid = s->sid.tid;
	out->cpu = (uint32_t)cpu;
	out->cpu_wide = 1;
	out->u.tp.idx = idx;
	out->u.tp.keyed = key != NULL;
	out->u.tp.key = s->sid.tid;
	if (key && !read_key(ev, key, s, &out->u.tp.key))
		return 0;
	if (!end)
		return 1;
	err = tp_fields_json(ev, s->raw, s->raw_size, &rl->json);
	if (err == -ENOMEM)
		return -ENOMEM;
	if (err < 0)
		return 0;
	out->u.tp.fields = strdup(strbuf_str(&rl->json));
	return out->u.tp.fields ? 1 : -ENOMEM;
}

int record_latency_hit(struct record_latency *rl, struct loader *l,
		       const struct ev *e, struct errmsg *err)
{
	struct lat_pending *p = &rl->pending[e->u.tp.idx];
	const char *name = rl->specs->v[e->u.tp.idx].name;
	struct lat_start s = { e->u.tp.key, e->mono_ts, e->tid, e->pid, e->cpu };
	struct lat_start old;
	uint64_t dur_ns;
	int res;

	if (e->kind == EV_LAT_START) {
		res = lat_pair_start(p, &s, &old);
		if (res < 0)
			return errmsg_set(err, ENOMEM, "out of memory pairing --latency");
		return res ? loader_latency(l, name, &old, LAT_NO_DUR, 0, NULL, err) : 0;
	}
	if (!lat_pair_end(p, e->u.tp.key, e->mono_ts, &old, &dur_ns))
		return 0;
	return loader_latency(l, name, &old, dur_ns, e->tid, e->u.tp.fields, err);
}

int record_latency_finish(struct record_latency *rl, struct loader *l,
			  struct errmsg *e)
{
	struct lat_start s;
	int err = 0;

	for (size_t i = 0; rl->specs && i < rl->specs->n && err == 0; i++) {
		while (err == 0 && lat_pair_drain(&rl->pending[i], &s))
			err = loader_latency(l, rl->specs->v[i].name, &s, LAT_NO_DUR,
					     0, NULL, e);
		if (err == 0)
			err = loader_latency_count(l, rl->specs->v[i].name,
						   &rl->pending[i], e);
	}
	return err;
}
