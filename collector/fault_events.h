/*
 * fault_events: the entry/minor/major fault events, opened per CPU for a
 * thread (or for every thread), each CPU's events sharing one ring.
 */
#ifndef FL_FAULT_EVENTS_H
#define FL_FAULT_EVENTS_H

#include <linux/perf_event.h>

#include "recorder.h"

#define FAULT_EVENTS 3

struct fault_attrs {
	struct perf_event_attr attr[FAULT_EVENTS];
	const char *name[FAULT_EVENTS];		/* static strings */
	enum ev_role role[FAULT_EVENTS];
};

/* The format every fault event samples with. */
void fault_sample_fmt(struct sample_fmt *f);

/* Resolves the three event names (libpfm4) and fills the attrs, disabled,
 * with wakeups at a quarter of ring_bytes.  0 or -errno with e. */
int fault_attrs_build(struct fault_attrs *fa, size_t ring_bytes,
		      struct errmsg *e);

/* One ring per CPU of r, owned by a dummy event on faultline's own
 * thread.  Before fault_events_open.  0 or -errno with e. */
int ring_owners_open(struct recorder *r, const struct fault_attrs *fa,
		     struct errmsg *e);

/*
 * Opens the three events for pid (a tid; -1 for every thread) on every
 * CPU of r, keeps the fds in r, their ids in r->ids, and points each at
 * its CPU's ring.  inherit: threads pid creates later are traced too;
 * on_exec: enabled by the kernel at pid's next exec.  A thread that exits
 * before its events are opened sets *gone and is not an error.
 */
int fault_events_open(struct recorder *r, const struct fault_attrs *fa,
		      pid_t pid, int inherit, int on_exec, int *gone,
		      struct errmsg *e);

/* One fd per event, thread and CPU adds up: lift the soft limit to the
 * hard one. */
void raise_fd_limit(void);

#endif
