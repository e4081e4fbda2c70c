#include <errno.h>
#include <stdlib.h>

#include "syscall_events.h"
#include "tracepoints.h"

int syscall_events_prepare(struct event_set *set, const struct syscall_set *calls,
			   const struct target_set *targets, struct fault_attrs *fa,
			   struct errmsg *e)
{
	struct perf_event_attr a;

	if (!calls)
		return 0;
	set->sys_enter = tracepoint_load(set->tep, "raw_syscalls", "sys_enter", e);
	set->sys_exit = set->sys_enter ?
			tracepoint_load(set->tep, "raw_syscalls", "sys_exit", e) : NULL;
	if (!set->sys_exit)
		return -ENOENT;
	set->sys_filter = syscall_set_filter(calls);
	if (!set->sys_filter)
		return -ENOMEM;
	if (target_system_wide(targets))
		return 0;
	tracepoint_attr(&a, set->sys_enter, set->ring_bytes);
	fault_attrs_add_tracepoint(fa, &a, "raw_syscalls:sys_enter",
				   ROLE_TP_SYS_ENTER);
	fa->filter[fa->n - 1] = set->sys_filter;
	tracepoint_attr(&a, set->sys_exit, set->ring_bytes);
	fault_attrs_add_tracepoint(fa, &a, "raw_syscalls:sys_exit",
				   ROLE_TP_SYS_EXIT);
	fa->filter[fa->n - 1] = set->sys_filter;
	return 0;
}

int syscall_events_open_cpu_wide(struct event_set *set,
				 const struct syscall_set *calls,
				 const struct target_set *targets, struct errmsg *e)
{
	int err;

	if (!calls || !target_system_wide(targets))
		return 0;
	err = tracepoint_open(set, set->sys_enter, ROLE_TP_SYS_ENTER, 0,
			      set->sys_filter, e);
	return err ? err : tracepoint_open(set, set->sys_exit, ROLE_TP_SYS_EXIT, 0,
					   set->sys_filter, e);
}
