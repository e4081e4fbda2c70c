#include <string.h>

#include "syscall_pair.h"

int syscall_pair_enter(struct syscall_pending *p, const struct ev *e)
{
	int dropped = p->active;

	p->active = 1;
	p->mono_ts = e->mono_ts;
	p->cpu = e->cpu;
	p->pid = e->pid;
	p->nr = e->u.sys.nr;
	p->blocked_ns = 0;
	memcpy(p->args, e->u.sys.args, sizeof(p->args));
	return dropped ? SP_UNPAIRED : 0;
}

int syscall_pair_exit(struct syscall_pending *p, const struct ev *e,
		      struct syscall_call *done)
{
	if (!p->active || p->nr != e->u.sys.nr || e->mono_ts < p->mono_ts) {
		p->active = 0;
		return SP_UNPAIRED;
	}
	memset(done, 0, sizeof(*done));
	done->mono_ts = p->mono_ts;
	done->dur_ns = e->mono_ts - p->mono_ts;
	done->tid = e->tid;
	done->pid = p->pid ? p->pid : e->pid;
	done->cpu = p->cpu;
	done->nr = p->nr;
	done->ret = e->u.sys.ret;
	done->blocked_ns = p->blocked_ns;
	memcpy(done->args, p->args, sizeof(done->args));
	p->active = 0;
	return SP_DONE;
}

int syscall_pair_drain(struct syscall_pending *p, uint32_t tid,
		       struct syscall_call *out)
{
	if (!p->active)
		return 0;
	memset(out, 0, sizeof(*out));
	out->mono_ts = p->mono_ts;
	out->dur_ns = SYSCALL_NO_DUR;
	out->tid = tid;
	out->pid = p->pid;
	out->cpu = p->cpu;
	out->nr = p->nr;
	out->blocked_ns = p->blocked_ns;
	memcpy(out->args, p->args, sizeof(out->args));
	p->active = 0;
	return 1;
}
