/*
 * event_resolve: an event name ("page-faults", "major-faults", a PMU
 * event) to the perf_event_attr fields that select it, through libpfm4.
 *
 * libpfm4's headers define their own struct perf_event_attr, which clashes
 * with <linux/perf_event.h>, so this is the one file that includes them
 * and it hands back a neutral struct.
 */
#ifndef FL_EVENT_RESOLVE_H
#define FL_EVENT_RESOLVE_H

#include <stdint.h>

#include "../common/errmsg.h"

struct event_code {
	uint32_t type;			/* PERF_TYPE_* or a dynamic PMU type */
	uint64_t config, config1, config2;
	int exclude_user, exclude_kernel, exclude_hv;
	char canonical[128];		/* libpfm4's fully qualified name */
};

/* Resolves name for user and kernel privilege levels.  Returns 0 or
 * -ENOENT (unknown name) / -EINVAL, with e set. */
int event_resolve(const char *name, struct event_code *out, struct errmsg *e);

#endif
