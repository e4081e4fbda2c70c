#include <string.h>

#include "event.h"

/* An event's common part, the rest cleared. */
static void ev_begin(struct ev *out, uint64_t mono_ts, uint32_t pid,
		     uint32_t tid, uint32_t cpu)
{
	memset(out, 0, sizeof(*out));
	out->mono_ts = mono_ts;
	out->pid = pid;
	out->tid = tid;
	out->cpu = cpu;
}

static int fault_ev(enum ev_role role, const struct sample *s, struct ev *out)
{
	switch (role) {
	case ROLE_FAULT_ENTRY:
		out->kind = EV_FAULT_ENTRY;
		break;
	case ROLE_FAULT_MINOR:
		out->kind = EV_FAULT_MINOR;
		break;
	case ROLE_FAULT_MAJOR:
		out->kind = EV_FAULT_MAJOR;
		break;
	case ROLE_SWITCH_SAMPLE:
		out->kind = EV_SWITCH_STACK;
		break;
	default:
		return 0;
	}
	out->u.fault.addr = s->addr;
	out->u.fault.ip = s->ip;
	return 1;
}

int ev_from_rec(enum ev_role role, const struct perf_rec *r, struct ev *out)
{
	ev_begin(out, r->sid.time, r->sid.pid, r->sid.tid, r->sid.cpu);
	switch (r->type) {
	case PERF_RECORD_SAMPLE:
		return fault_ev(role, &r->u.sample, out);
	case PERF_RECORD_COMM:
		out->kind = EV_COMM;
		/* The record's own pid/tid name the renamed thread; the
		 * trailer's are the same task, but may be absent. */
		out->pid = r->u.comm.pid;
		out->tid = r->u.comm.tid;
		strncpy(out->u.comm.comm, r->u.comm.comm, COMM_LEN - 1);
		out->u.comm.exec = r->u.comm.exec;
		return 1;
	case PERF_RECORD_FORK:
	case PERF_RECORD_EXIT:
		out->kind = r->type == PERF_RECORD_FORK ? EV_FORK : EV_EXIT;
		out->pid = r->u.task.pid;
		out->tid = r->u.task.tid;
		out->u.task.ppid = r->u.task.ppid;
		out->u.task.ptid = r->u.task.ptid;
		if (!out->mono_ts)
			out->mono_ts = r->u.task.time;
		return 1;
	case PERF_RECORD_SWITCH:
	case PERF_RECORD_SWITCH_CPU_WIDE:
		/* The trailer names the task switching, in or out. */
		out->kind = r->u.sw.out ? EV_SWITCH_OUT : EV_SWITCH_IN;
		out->u.sw.preempt = r->u.sw.preempt;
		/* Every thread's switches on the CPU, targets or not. */
		out->cpu_wide = r->type == PERF_RECORD_SWITCH_CPU_WIDE;
		return 1;
	default:
		return 0;
	}
}

static const uint8_t fault_kinds[] = {
	[ROLE_FAULT_ENTRY] = EV_FAULT_ENTRY,
	[ROLE_FAULT_MINOR] = EV_FAULT_MINOR,
	[ROLE_FAULT_MAJOR] = EV_FAULT_MAJOR,
};

int ev_from_fault_sample(enum ev_role role, const struct sample_layout *l,
			 const void *rec, size_t len, struct ev *out)
{
	struct perf_event_header h;
	struct sample_fixed s;

	if (role < ROLE_FAULT_ENTRY || role > ROLE_FAULT_MAJOR || len < sizeof(h))
		return 0;
	memcpy(&h, rec, sizeof(h));	/* rec may be unaligned */
	if (h.type != PERF_RECORD_SAMPLE || h.size != len ||
	    sample_read_fixed(l, rec, len, &s) < 0)
		return 0;
	ev_begin(out, s.time, s.pid, s.tid, s.cpu);
	out->kind = fault_kinds[role];
	out->u.fault.addr = s.addr;
	out->u.fault.ip = s.ip;
	return 1;
}

int ev_from_switch_rec(const struct sample_fmt *f, const void *rec, size_t len,
		       struct ev *out)
{
	struct perf_event_header h;
	struct sample_id sid;
	size_t body;

	if (len < sizeof(h))
		return 0;
	memcpy(&h, rec, sizeof(h));	/* rec may be unaligned */
	if (h.type == PERF_RECORD_SWITCH)
		body = 0;
	else if (h.type == PERF_RECORD_SWITCH_CPU_WIDE)
		body = 2 * sizeof(uint32_t);	/* next_prev_pid, _tid */
	else
		return 0;
	if (h.size != len || len != sizeof(h) + body + sample_id_size(f) ||
	    sample_id_decode(f, (const uint8_t *)rec + sizeof(h) + body,
			     len - sizeof(h) - body, &sid) < 0)
		return 0;
	ev_begin(out, sid.time, sid.pid, sid.tid, sid.cpu);
	out->kind = h.misc & PERF_RECORD_MISC_SWITCH_OUT ? EV_SWITCH_OUT :
							    EV_SWITCH_IN;
	out->u.sw.preempt = !!(h.misc & PERF_RECORD_MISC_SWITCH_OUT_PREEMPT);
	out->cpu_wide = h.type == PERF_RECORD_SWITCH_CPU_WIDE;
	return 1;
}
