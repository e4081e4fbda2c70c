#include <errno.h>
#include <stdlib.h>

#include "../common/strbuf.h"
#include "latency_events.h"
#include "event_set.h"
#include "tracepoints.h"

/* -EINVAL with e naming the fields ev has, when it lacks key. */
static int check_key(const struct tep_event *ev, const char *full,
		     const char *key, struct errmsg *e)
{
	struct strbuf sb;
	int err;

	if (tep_find_any_field((struct tep_event *)ev, key))
		return 0;
	strbuf_init(&sb);
	for (struct tep_format_field *f = ev->format.fields; f; f = f->next)
		strbuf_addf(&sb, "%s%s", sb.len ? ", " : "", f->name);
	err = errmsg_set(e, EINVAL, "tracepoint '%s' has no field '%s' to key "
			 "--latency by; its fields: %s (or a common field, e.g. "
			 "common_pid)", full, key,
			 strbuf_error(&sb) || !sb.len ? "none" : sb.buf);
	strbuf_release(&sb);
	return err;
}

int latency_events_open(struct event_set *set, const struct lat_spec_list *l,
			struct errmsg *e)
{
	int err = 0;

	if (!l || !l->n)
		return 0;
	set->lat_events = calloc(l->tps.n, sizeof(*set->lat_events));
	if (!set->lat_events)
		return -ENOMEM;
	for (size_t i = 0; i < l->tps.n && err == 0; i++) {
		const struct tp_spec *sp = &l->tps.v[i];
		const char *key = l->v[i / 2].key;

		set->lat_events[i] = tracepoint_load(set->tep, sp->system,
						     sp->name, e);
		if (!set->lat_events[i])
			return -ENOENT;
		if (key)
			err = check_key(set->lat_events[i], sp->full, key, e);
		if (err == 0)
			err = tracepoint_open(set, set->lat_events[i], i % 2 ?
					      ROLE_TP_LAT_END : ROLE_TP_LAT_START,
					      (uint16_t)(i / 2), NULL, e);
	}
	return err;
}
