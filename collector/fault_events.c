/*
 * fault_events: opening the three events that time page faults, on every
 * CPU for every target, and wiring each CPU's events to one ring.
 *
 *   page-faults   fires on fault entry (x86 do_user_addr_fault)   -> entry
 *   minor-faults  fires when a fault completes as minor            -> exit
 *   major-faults  fires when a fault completes as major            -> exit
 *
 * Every event samples every occurrence (period 1) with the same
 * sample_type, in CLOCK_MONOTONIC (perf_attr_sampling), so one struct
 * sample_fmt decodes every ring and every record shares one clock.  With --stacks the
 * events that carry a stack add its bits (recorder.stack_fmt, chosen by
 * the sample's id), and a fourth event, context-switches, may join them.
 * The entry event also carries the sideband (MMAP2, COMM, FORK/EXIT) for
 * its threads.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "event_resolve.h"
#include "fault_events.h"
#include "perf_open.h"
#include "procfs.h"

/* No PERF_SAMPLE_CPU: each CPU has its own ring, which says the CPU, and
 * every byte of a sample is paid for in the faulting thread's time. */
#define FAULT_SAMPLE_TYPE (PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | \
			   PERF_SAMPLE_TID | PERF_SAMPLE_TIME | \
			   PERF_SAMPLE_ADDR)

static const struct fault_event {
	const char *name;
	enum ev_role role;
} fault_events[FAULT_EVENTS] = {
	{ "page-faults", ROLE_FAULT_ENTRY },
	{ "minor-faults", ROLE_FAULT_MINOR },
	{ "major-faults", ROLE_FAULT_MAJOR },
};

void fault_sample_fmt(struct sample_fmt *f)
{
	memset(f, 0, sizeof(*f));
	f->sample_type = FAULT_SAMPLE_TYPE;
	f->sample_id_all = 1;
}

/* Before Linux 6.12 perf_event_open refuses PERF_SAMPLE_READ on an
 * inherited event (EINVAL): asked once, of a disabled page-faults event
 * on faultline itself. */
int fault_sample_fmt_read_id(struct sample_fmt *f, int inherit)
{
	struct perf_event_attr a;
	int fd;

	perf_attr_sampling(&a, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS,
			   f->sample_type | PERF_SAMPLE_READ, 4096);
	a.read_format = PERF_FORMAT_ID;
	a.inherit = (unsigned)!!inherit;
	a.exclude_kernel = 1;
	a.exclude_hv = 1;
	fd = perf_open(&a, 0, -1);
	if (fd < 0)
		return 0;
	close(fd);
	f->sample_type |= PERF_SAMPLE_READ;
	f->read_format = PERF_FORMAT_ID;
	return 1;
}

/* perf_attr_sampling in the fault events' format. */
static void fault_attr_sampling(struct perf_event_attr *a,
				const struct sample_fmt *fmt, uint32_t type,
				uint64_t config, size_t ring_bytes)
{
	perf_attr_sampling(a, type, config, fmt->sample_type, ring_bytes);
	a->read_format = fmt->read_format;
}

/* Which fault events carry a stack: the completions, chosen by --stacks-on
 * (the stack at completion is the faulting one: the event fires in the
 * faulting thread, sampled with the user registers of the faulting
 * instruction). */
static int fault_event_stacked(enum ev_role role, const struct stack_config *sc)
{
	if (sc->mode == STACKS_NONE)
		return 0;
	if (role == ROLE_FAULT_MAJOR)
		return !!(sc->on & (STACKS_ON_MAJOR | STACKS_ON_FAULTS));
	if (role == ROLE_FAULT_MINOR)
		return !!(sc->on & STACKS_ON_FAULTS);
	return 0;
}

/*
 * The switch-out of a target thread, with its stack: a per-thread
 * context-switches software event (period 1) is sampled in the target's
 * own switch-out path, so its user stack and callchain are the blocking
 * thread's.  PERF_RECORD_SWITCH is no sample and carries no stack; the
 * sched_switch tracepoint would need CPU-wide events in another clock and
 * samples every thread on the CPU (not measured against this: it was
 * ruled out by that).  Its sample precedes the thread's
 * SWITCH out record (perf_event_task_sched_out samples, then writes the
 * record), which is how the pipeline pairs them.
 */
static void switch_attr(struct fault_attrs *fa, const struct sample_fmt *fmt,
			size_t ring_bytes, const struct stack_config *sc)
{
	int i = fa->n++;

	fault_attr_sampling(&fa->attr[i], fmt, PERF_TYPE_SOFTWARE,
			    PERF_COUNT_SW_CONTEXT_SWITCHES, ring_bytes);
	fa->attr[i].exclude_hv = 1;
	stack_attr_apply(&fa->attr[i], sc);
	fa->name[i] = "context-switches";
	fa->role[i] = ROLE_SWITCH_SAMPLE;
	fa->stacked[i] = 1;
}

int fault_attrs_build(struct fault_attrs *fa, const struct sample_fmt *fmt,
		      size_t ring_bytes, const struct stack_config *sc,
		      int switches, struct errmsg *e)
{
	memset(fa, 0, sizeof(*fa));
	fa->n = FAULT_EVENTS;
	for (int i = 0; i < FAULT_EVENTS; i++) {
		struct perf_event_attr *a = &fa->attr[i];
		struct event_code code;
		int err = event_resolve(fault_events[i].name, &code, e);

		if (err < 0)
			return err;
		fault_attr_sampling(a, fmt, code.type, code.config, ring_bytes);
		a->exclude_hv = 1;
		if (fault_events[i].role == ROLE_FAULT_ENTRY) {
			a->mmap = 1;
			a->mmap2 = 1;
			/* Data mappings too: a fault on a mapped file names the file. */
			a->mmap_data = 1;
			/* The file's build id instead of device and inode, when
			 * the kernel has it at hand; it falls back by itself. */
			a->build_id = 1;
			/* Every switch in and out of the target threads (of
			 * every thread on the CPU, for pid -1): their
			 * timelines.  Complete where sched_switch is not. */
			a->context_switch = (unsigned)!!switches;
			a->comm = 1;
			a->comm_exec = 1;
			a->task = 1;
		}
		fa->name[i] = fault_events[i].name;
		fa->role[i] = fault_events[i].role;
		fa->stacked[i] = (uint16_t)fault_event_stacked(fa->role[i], sc);
		if (fa->stacked[i])
			stack_attr_apply(a, sc);
	}
	if (stack_config_switches(sc))
		switch_attr(fa, fmt, ring_bytes, sc);
	return 0;
}

void fault_attrs_drop_switch_records(struct fault_attrs *fa)
{
	for (int i = 0; i < fa->n; i++)
		fa->attr[i].context_switch = 0;
}

void fault_attrs_add_tracepoint(struct fault_attrs *fa,
				const struct perf_event_attr *a,
				const char *name, enum ev_role role)
{
	int i = fa->n++;

	fa->attr[i] = *a;
	fa->name[i] = name;
	fa->role[i] = role;
	fa->stacked[i] = 0;
	fa->filter[i] = NULL;
}

/* perf_open, leaving kernel frames out of a stack the kernel refuses
 * them in (perf_event_paranoid above 1 without CAP_PERFMON). */
static int open_stacked(struct fault_attrs *fa, struct perf_event_attr *a,
			pid_t pid, int cpu)
{
	int fd = perf_open(a, pid, cpu);

	if ((fd == -EACCES || fd == -EPERM) &&
	    (a->sample_type & PERF_SAMPLE_CALLCHAIN) &&
	    !a->exclude_callchain_kernel) {
		a->exclude_callchain_kernel = 1;
		fd = perf_open(a, pid, cpu);
		if (fd >= 0) {
			for (int k = 0; k < fa->n; k++)
				fa->attr[k].exclude_callchain_kernel = 1;
			fa->kernel_refused = 1;
		}
	}
	return fd;
}

/*
 * Each CPU's ring belongs to a dummy event on faultline's own thread
 * (which lives as long as the recording), not to a target's event: when a
 * target thread exits, its events' fds report POLLHUP and stop being
 * polled, and a ring owned by one of them would then wake nobody while
 * the other targets' events keep filling it.  A dummy event records
 * nothing; every fault event redirects its output into the owner's ring,
 * and the kernel wakes the owner's fd for writes from any of them.
 */
int ring_owners_open(struct event_set *set, const struct fault_attrs *fa,
		     struct errmsg *e)
{
	struct perf_event_attr a = fa->attr[0];

	a.type = PERF_TYPE_SOFTWARE;
	a.config = PERF_COUNT_SW_DUMMY;
	a.mmap = a.mmap2 = a.mmap_data = a.comm_exec = a.task = 0;
	a.build_id = 0;
	a.context_switch = 0;	/* faultline's own switches are no one's business */
	/* Its only record: faultline renaming itself, which makes the kernel
	 * write a ring's pending LOST count (recorder_flush_lost). */
	a.comm = 1;
	for (int c = 0; c < set->ncpus; c++) {
		int fd = perf_open(&a, 0, set->cpus[c]), err;
		uint64_t id;

		if (fd < 0)
			return perf_open_explain(-fd, &a, "dummy", 0, set->cpus[c], e);
		if (event_set_keep_fd(set, fd) < 0)
			return -ENOMEM;
		if (ioctl(fd, PERF_EVENT_IOC_ID, &id) < 0)
			return errmsg_set(e, errno, "cannot read an event id: %s",
					  strerror(errno));
		err = idmap_put(&set->ids, id, ROLE_RING_OWNER);
		if (err == 0)
			err = event_set_map_ring(set, &set->rings[c], c, fd, e);
		if (err < 0)
			return err;
	}
	return 0;
}

/* Intel PT: the PT event for (pid, CPU c) before the fault events;
 * *group_fd the group fault mode's carrier joins, else -1. */
static int pt_leader(struct event_set *set, struct pt_recording *pt, pid_t pid,
		     int c, int inherit, int on_exec, int *group_fd,
		     struct errmsg *e)
{
	*group_fd = -1;
	if (!pt)
		return 0;
	return pt_record_open_leader(pt, set, pid, c, inherit, on_exec,
				     group_fd, e);
}

int fault_events_open(struct event_set *set, struct pt_recording *pt,
		      struct fault_attrs *fa, pid_t pid, int inherit, int on_exec,
		      int *gone, struct errmsg *e)
{
	*gone = 0;
	for (int c = 0; c < set->ncpus; c++) {
		int group_fd, err = pt_leader(set, pt, pid, c, inherit, on_exec,
					      &group_fd, e);

		if (err == -ESRCH && pid > 0) {
			*gone = 1;	/* exited since it was listed */
			return 0;
		}
		if (err < 0)
			return err;
		for (int i = 0; i < fa->n; i++) {
			struct perf_event_attr a = fa->attr[i];
			/* Intel PT's fault mode: the carrier joins the PT group. */
			int carrier = group_fd >= 0 &&
				      pt_record_is_carrier(pt, fa->role[i]);
			uint64_t id;
			int fd;

			a.inherit = (unsigned)inherit;
			a.enable_on_exec = (unsigned)on_exec;
			if (carrier)
				pt_record_carrier(pt, &a);
			fd = carrier ? pt_record_open_carrier(pt, &a, pid,
							      set->cpus[c], group_fd)
				     : open_stacked(fa, &a, pid, set->cpus[c]);
			if (fd == -ESRCH && pid > 0) {
				*gone = 1;	/* exited since it was listed */
				return 0;
			}
			if (fd < 0)
				return perf_open_explain(-fd, &a, fa->name[i], pid,
							 set->cpus[c], e);
			if (event_set_keep_fd(set, fd) < 0)
				return -ENOMEM;
			if (ioctl(fd, PERF_EVENT_IOC_ID, &id) < 0)
				return errmsg_set(e, errno, "cannot read the id of "
						  "'%s': %s", fa->name[i],
						  strerror(errno));
			if (fa->filter[i] &&
			    ioctl(fd, PERF_EVENT_IOC_SET_FILTER, fa->filter[i]) < 0)
				return errmsg_set(e, errno, "the kernel refused the "
						  "filter of '%s': %s", fa->name[i],
						  strerror(errno));
			err = idmap_put_arg(&set->ids, id, fa->role[i],
					    fa->stacked[i]);
			if (err == 0 && carrier)
				err = pt_record_carrier_opened(pt, id);
			else if (err == 0)
				err = event_set_share_ring(set, c, fd, e);
			if (err < 0)
				return err;
		}
	}
	return 0;
}

void raise_fd_limit(void)
{
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < rl.rlim_max) {
		rl.rlim_cur = rl.rlim_max;
		setrlimit(RLIMIT_NOFILE, &rl);
	}
}
