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

#include "fault_events.h"

/*
 * Loads the two formats into r->tep and, for per-thread targets, adds
 * both to fa with their filter (fault_events_open applies it).  Before
 * fault_events_open.  0, or -errno with e saying what to check.
 */
int syscall_events_prepare(struct recorder *r, struct fault_attrs *fa,
			   struct errmsg *e);

/* With -a or --comm: opens both on every CPU.  0 or -errno with e. */
int syscall_events_open_cpu_wide(struct recorder *r, struct errmsg *e);

#endif
