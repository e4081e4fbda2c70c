/*
 * syscall_events: raw_syscalls:sys_enter and sys_exit, for record
 * --syscalls.  For per-thread targets they open with the fault events,
 * per thread (a per-task tracepoint fires only in its own thread, so
 * other threads' calls cost nothing); with -a or --comm, on every CPU for
 * every thread.  Either way a kernel filter passes only the calls of the
 * set (collector/syscall_set.h), so the others never reach a ring.
 */
#ifndef FL_SYSCALL_EVENTS_H
#define FL_SYSCALL_EVENTS_H

#include "event_set.h"
#include "fault_events.h"
#include "syscall_set.h"
#include "targets.h"

/*
 * With calls (NULL: none, 0), loads the two formats into set->tep and,
 * for per-thread targets, adds both to fa with their filter
 * (fault_events_open applies it).  Before fault_events_open.  0, or
 * -errno with e saying what to check.
 */
int syscall_events_prepare(struct event_set *set, const struct syscall_set *calls,
			   const struct target_set *targets, struct fault_attrs *fa,
			   struct errmsg *e);

/* With calls and -a or --comm: opens both on every CPU.  0 or -errno
 * with e. */
int syscall_events_open_cpu_wide(struct event_set *set,
				 const struct syscall_set *calls,
				 const struct target_set *targets, struct errmsg *e);

#endif
