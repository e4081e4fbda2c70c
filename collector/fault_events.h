/*
 * fault_events: the entry/minor/major fault events, opened per CPU for a
 * thread (or for every thread), each CPU's events sharing one ring.
 */
#ifndef FL_FAULT_EVENTS_H
#define FL_FAULT_EVENTS_H

#include <linux/perf_event.h>

#include "event_set.h"
#include "pt_record.h"
#include "stack_events.h"

#define FAULT_EVENTS 3
/* With --stacks on switch-outs, a fourth: context-switches; for
 * per-thread targets, sched_switch too, and with --syscalls
 * raw_syscalls' sys_enter and sys_exit. */
#define FAULT_EVENTS_MAX 7

struct fault_attrs {
	struct perf_event_attr attr[FAULT_EVENTS_MAX];
	const char *name[FAULT_EVENTS_MAX];	/* static strings */
	/* a tracepoint's kernel filter, or NULL: borrowed */
	const char *filter[FAULT_EVENTS_MAX];
	enum ev_role role[FAULT_EVENTS_MAX];
	uint16_t stacked[FAULT_EVENTS_MAX];	/* idmap arg: samples carry a stack */
	int n;
	int kernel_refused;	/* kernel frames were refused and left out */
};

/* The format every fault event samples with. */
void fault_sample_fmt(struct sample_fmt *f);

/* The same, each sample also carrying its event's own id in a READ value
 * (decoder/sample_owner.h says why), where the kernel allows it (on
 * inherited events, since Linux 6.12): 1 if f gained it, else 0. */
int fault_sample_fmt_read_id(struct sample_fmt *f, int inherit);

/* Resolves the three event names (libpfm4) and fills the attrs, disabled,
 * sampling in fmt (fault_sample_fmt), with wakeups at a quarter of
 * ring_bytes, the stack bits of sc on the events that carry a stack, and
 * with switches the targets' switch records.  0 or -errno with e. */
int fault_attrs_build(struct fault_attrs *fa, const struct sample_fmt *fmt,
		      size_t ring_bytes, const struct stack_config *sc,
		      int switches, struct errmsg *e);

/* The fault events write no switch records of their own: the CPU-wide
 * ones (cpu_switches.h) say the same, once a switch instead of twice. */
void fault_attrs_drop_switch_records(struct fault_attrs *fa);

/* One more event opened with the fault events (per thread and CPU): a
 * tracepoint's attr a (tracepoint_attr), under name, with role. */
void fault_attrs_add_tracepoint(struct fault_attrs *fa,
				const struct perf_event_attr *a,
				const char *name, enum ev_role role);

/* One ring per CPU of set, owned by a dummy event on faultline's own
 * thread.  Before fault_events_open.  0 or -errno with e. */
int ring_owners_open(struct event_set *set, const struct fault_attrs *fa,
		     struct errmsg *e);

/*
 * Opens the three events for pid (a tid; -1 for every thread) on every
 * CPU of set, keeps the fds in set, their ids in set->ids, and points
 * each at its CPU's ring; with pt (--pt; else NULL), the Intel PT event
 * before them on each CPU.  inherit: threads pid creates later are traced too;
 * on_exec: enabled by the kernel at pid's next exec.  A thread that exits
 * before its events are opened sets *gone and is not an error.  When the
 * kernel refuses kernel frames in a stack, they are left out of fa's
 * attrs from then on and fa->kernel_refused is set.
 */
int fault_events_open(struct event_set *set, struct pt_recording *pt,
		      struct fault_attrs *fa, pid_t pid, int inherit, int on_exec,
		      int *gone, struct errmsg *e);

/* One fd per event, thread and CPU adds up: lift the soft limit to the
 * hard one. */
void raise_fd_limit(void);

#endif
