#include <string.h>

#include "fault_pair.h"

int fault_pair_drain(struct fault_pending *p, uint32_t tid,
		     struct fault *orphan)
{
	if (!p->active)
		return 0;
	memset(orphan, 0, sizeof(*orphan));
	orphan->mono_ts = p->mono_ts;
	orphan->dur_ns = FAULT_NO_DUR;
	orphan->tid = tid;
	orphan->pid = p->pid;
	orphan->cpu = p->cpu;
	orphan->exit_cpu = UINT32_MAX;
	orphan->kind = FAULT_UNFINISHED;
	orphan->addr = p->addr;
	orphan->ip = p->ip;
	p->active = 0;
	return FP_ORPHAN;
}

int fault_pair_entry(struct fault_pending *p, const struct ev *e,
		     struct fault *orphan)
{
	int res = fault_pair_drain(p, e->tid, orphan);

	p->active = 1;
	p->mono_ts = e->mono_ts;
	p->addr = e->u.fault.addr;
	p->ip = e->u.fault.ip;
	p->cpu = e->cpu;
	p->pid = e->pid;
	return res;
}

int fault_pair_complete(struct fault_pending *p, const struct ev *e,
			struct fault *done, struct fault *orphan)
{
	int res = 0;

	memset(done, 0, sizeof(*done));
	done->tid = e->tid;
	done->pid = e->pid;
	done->exit_cpu = e->cpu;
	done->kind = e->kind == EV_FAULT_MAJOR ? FAULT_MAJOR : FAULT_MINOR;
	done->addr = e->u.fault.addr;
	done->ip = e->u.fault.ip;
	done->stack_id = e->u.fault.stack_id;
	if (p->active && p->addr == e->u.fault.addr && p->mono_ts <= e->mono_ts) {
		done->mono_ts = p->mono_ts;
		done->dur_ns = e->mono_ts - p->mono_ts;
		done->cpu = p->cpu;
		p->active = 0;
		return FP_DONE;
	}
	res = fault_pair_drain(p, e->tid, orphan);
	done->mono_ts = e->mono_ts;
	done->dur_ns = FAULT_NO_DUR;
	done->cpu = e->cpu;
	return res | FP_DONE;
}

const char *fault_kind_name(enum fault_kind k)
{
	switch (k) {
	case FAULT_MINOR:
		return "minor";
	case FAULT_MAJOR:
		return "major";
	default:
		return "unfinished";
	}
}
