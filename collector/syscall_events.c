#include <errno.h>
#include <stdlib.h>

#include "syscall_events.h"
#include "tracepoints.h"

int syscall_events_prepare(struct recorder *r, struct fault_attrs *fa,
			   struct errmsg *e)
{
	struct perf_event_attr a;

	if (!r->cfg.syscalls)
		return 0;
	r->ev.sys_enter = tracepoint_load(r->ev.tep, "raw_syscalls", "sys_enter", e);
	r->ev.sys_exit = r->ev.sys_enter ?
		      tracepoint_load(r->ev.tep, "raw_syscalls", "sys_exit", e) : NULL;
	if (!r->ev.sys_exit)
		return -ENOENT;
	r->ev.sys_filter = syscall_set_filter(r->cfg.syscalls);
	if (!r->ev.sys_filter)
		return -ENOMEM;
	if (target_system_wide(r->cfg.targets))
		return 0;
	tracepoint_attr(&a, r->ev.sys_enter, r->cfg.ring_bytes);
	fault_attrs_add_tracepoint(fa, &a, "raw_syscalls:sys_enter",
				   ROLE_TP_SYS_ENTER);
	fa->filter[fa->n - 1] = r->ev.sys_filter;
	tracepoint_attr(&a, r->ev.sys_exit, r->cfg.ring_bytes);
	fault_attrs_add_tracepoint(fa, &a, "raw_syscalls:sys_exit",
				   ROLE_TP_SYS_EXIT);
	fa->filter[fa->n - 1] = r->ev.sys_filter;
	return 0;
}

int syscall_events_open_cpu_wide(struct recorder *r, struct errmsg *e)
{
	int err;

	if (!r->cfg.syscalls || !target_system_wide(r->cfg.targets))
		return 0;
	err = tracepoint_open(r, r->ev.sys_enter, ROLE_TP_SYS_ENTER, 0,
			      r->ev.sys_filter, e);
	return err ? err : tracepoint_open(r, r->ev.sys_exit, ROLE_TP_SYS_EXIT, 0,
					   r->ev.sys_filter, e);
}
