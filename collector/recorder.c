#include <errno.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/signalfd.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../common/array.h"
#include "../common/clock.h"
#include "cpu_switches.h"
#include "fault_events.h"
#include "latency_events.h"
#include "syscall_events.h"
#include "perf_open.h"
#include "procfs.h"
#include "recorder.h"

void recorder_init(struct recorder *r)
{
	memset(r, 0, sizeof(*r));
	event_set_init(&r->ev);
	event_close_init(&r->closing);
	errmsg_init(&r->warning);
	r->sigfd = -1;
	r->child_pidfd = -1;
	r->child_status = -1;
	r->metrics.cfg.fifo_fd = -1;
	r->metrics.cfg.udp_fd = -1;
}

static int pidfd_open_nocheck(pid_t pid)
{
	long fd = syscall(SYS_pidfd_open, pid, 0);

	return fd < 0 ? -errno : (int)fd;
}

/* SIGINT, SIGTERM and SIGHUP arrive through a descriptor the loop polls,
 * so no handler and no global flag are needed.  The command's child
 * unblocks them before exec. */
static int signals_to_fd(struct recorder *r, struct errmsg *e)
{
	sigset_t set;

	sigemptyset(&set);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGHUP);
	if (r->cfg.flight)
		sigaddset(&set, SIGUSR2);	/* a snapshot, not a stop */
	if (sigprocmask(SIG_BLOCK, &set, NULL) < 0 ||
	    (r->sigfd = signalfd(-1, &set, SFD_CLOEXEC | SFD_NONBLOCK)) < 0)
		return errmsg_set(e, errno, "cannot set up signal handling: %s",
				  strerror(errno));
	return 0;
}

/* Every thread of process pid, each with inherited events. */
static int open_process(struct recorder *r, struct fault_attrs *fa,
			pid_t pid, struct errmsg *e)
{
	pid_t *tids = NULL;
	size_t n = 0;
	int gone, err, opened = 0;

	err = proc_list_tids(pid, &tids, &n);
	if (err < 0)
		return errmsg_set(e, ESRCH, "no such process %d; check the pid "
				  "with 'ps -e'", (int)pid);
	for (size_t i = 0; i < n && err == 0; i++) {
		err = fault_events_open(&r->ev, r->cfg.pt, fa, tids[i], 1, 0, &gone, e);
		opened += !gone;
	}
	free(tids);
	if (err == 0 && !opened)
		return errmsg_set(e, ESRCH, "process %d exited before recording "
				  "began", (int)pid);
	return err;
}

/* sched_switch and sched_waking only refine the timelines, which the
 * switch records make: without them (no tracefs, no permission) a
 * warning, and their samples, if any opened, are ignored. */
static void sched_tracing_lost(struct recorder *r, int err, const char *why)
{
	r->ev.sched_switch = r->ev.sched_waking = NULL;
	errmsg_set(&r->warning, -err, "thread states will not tell sleeping "
		   "from blocked, nor name wakers: %s", why);
}

/*
 * tracefs and the sched formats, before any event opens: per-thread
 * targets take sched_switch among their own events.  Without tracefs,
 * an error only if -e, --syscalls or --latency asked for tracepoints.
 */
static int tracing_prepare(struct recorder *r, struct errmsg *e)
{
	int asked = r->cfg.tracepoints->n || r->cfg.syscalls ||
		    (r->cfg.latencies && r->cfg.latencies->n) || r->cfg.block_io;
	struct errmsg why;
	int err;

	errmsg_init(&why);
	if (!r->cfg.thread_states && !asked)
		return 0;	/* nothing to trace */
	err = tracepoints_init(&r->ev.tep, &why);
	if (err < 0 && !asked) {
		sched_tracing_lost(r, err, why.text);
		return 0;
	}
	if (err < 0) {
		*e = why;
		return err;
	}
	if (!r->cfg.thread_states)
		return 0;
	r->ev.sched_switch = tracepoint_load(r->ev.tep, "sched", "sched_switch", &why);
	r->ev.sched_waking = r->ev.sched_switch ?
			  tracepoint_load(r->ev.tep, "sched", "sched_waking", &why) : NULL;
	if (!r->ev.sched_waking)
		sched_tracing_lost(r, -ENOENT, why.text);
	return 0;
}

/*
 * For per-thread targets, sched_switch opens with the fault events, per
 * thread: a per-task tracepoint is on a CPU only while its thread is, so
 * it records the targets' own switch-outs (prev_state, the next task)
 * and other threads' switches cost nothing.  (sched_waking fires in the
 * waker's context: it is filtered instead, waking_filter.h.)  Tried once
 * on faultline's own thread first, so a refusal is the warning, not an
 * error later.  The trial's event is returned (or -1), for the caller to
 * close once the targets' are open: closed while it is the tracepoint's
 * only event, its close waits for the kernel to unregister the
 * tracepoint (33 ms here, before the command could start).
 */
static int sched_switch_per_task(struct recorder *r, struct fault_attrs *fa)
{
	struct perf_event_attr sw;
	struct errmsg why;
	int fd;

	if (!r->ev.sched_waking || target_system_wide(r->cfg.targets))
		return -1;
	tracepoint_attr(&sw, r->ev.sched_switch, r->cfg.ring_bytes);
	fd = perf_open(&sw, 0, -1);
	if (fd < 0) {
		errmsg_init(&why);
		perf_open_explain(-fd, &sw, "sched:sched_switch", 0, -1, &why);
		sched_tracing_lost(r, fd, why.text);
		return -1;
	}
	fault_attrs_add_tracepoint(fa, &sw, "sched:sched_switch",
				   ROLE_TP_SCHED_SWITCH);
	return fd;
}

/* With -a or --comm, sched_switch and sched_waking on every CPU for
 * every thread; for per-thread targets, sched_waking filtered on them
 * (collector/waking_filter.h); no sched_waking without cfg.wakers. */
static int open_sched_tracepoints(struct recorder *r)
{
	struct errmsg why;
	int err = 0;

	if (!r->ev.sched_waking)
		return 0;
	r->ev.waking_without_stacks = r->cfg.no_wake_stacks;
	errmsg_init(&why);
	if (target_system_wide(r->cfg.targets)) {
		err = tracepoint_open(&r->ev, r->ev.sched_switch,
				      ROLE_TP_SCHED_SWITCH, 0, NULL, &why);
		if (err == 0 && r->cfg.wakers)
			err = tracepoint_open(&r->ev, r->ev.sched_waking,
					      ROLE_TP_SCHED_WAKING, 0, NULL, &why);
	} else if (r->cfg.wakers) {
		err = waking_filter_open(&r->waking, &r->ev, r->cfg.targets,
					 r->ev.sched_waking, &why);
	}
	if (err == -ENOMEM)
		return err;
	if (err < 0)
		sched_tracing_lost(r, err, why.text);
	return 0;
}

/* --block-io's formats, for the pipeline to decode the events its
 * tracefs instance gives (nothing is opened here). */
static int block_formats_load(struct recorder *r, struct errmsg *e)
{
	static const char *const names[] = {
		"block_rq_insert", "block_rq_issue", "block_rq_complete",
		"block_rq_requeue",
	};

	for (size_t i = 0; r->cfg.block_io && i < ARRAY_SIZE(names); i++)
		if (!(r->ev.blk_events[i] = tracepoint_load(r->ev.tep, "block",
							    names[i], e)))
			return -ENOENT;
	return 0;
}

/* The sched tracepoints, then the -e ones, then --latency's. */
static int open_tracepoints(struct recorder *r, struct errmsg *e)
{
	int err;

	if (!r->ev.tep)
		return 0;
	err = open_sched_tracepoints(r);
	if (err < 0)
		return err;
	r->ev.user_events = calloc(r->cfg.tracepoints->n + 1, sizeof(*r->ev.user_events));
	if (!r->ev.user_events)
		return -ENOMEM;
	for (size_t i = 0; i < r->cfg.tracepoints->n && err == 0; i++) {
		const struct tp_spec *sp = &r->cfg.tracepoints->v[i];

		r->ev.user_events[i] = tracepoint_load(r->ev.tep, sp->system, sp->name, e);
		err = r->ev.user_events[i] ? tracepoint_open(&r->ev, r->ev.user_events[i],
				ROLE_TP_USER, (uint16_t)i, sp->filter, e) : -ENOENT;
	}
	if (err == 0)
		err = latency_events_open(&r->ev, r->cfg.latencies, e);
	return err ? err : block_formats_load(r, e);
}

/*
 * What ran on the per-thread targets' CPUs while they waited for one:
 * every switch on every CPU.  Those records hold the targets' own
 * switches too, so where they open the targets' events write none: a
 * switch costs the target's CPU one record less, and the recorder one
 * record less to read.  Not with --flight: its watch reads every record
 * as it comes and skips the CPU-wide ones unread (record/pipeline.c,
 * checks_only); finding the targets' switches among them cost it more
 * than the targets' own records do (an idle -p target beside 1M
 * switches of other threads: 0.30 s of its CPU against 0.15).  0 or
 * -errno with e.
 */
static int open_cpu_switches(struct recorder *r, struct fault_attrs *fa,
			     struct errmsg *e)
{
	int opened;

	if (!r->cfg.thread_states || !r->cfg.ran_instead ||
	    target_system_wide(r->cfg.targets))
		return 0;
	opened = cpu_switches_open(&r->ev, fa, &r->warning, e);
	if (opened <= 0 || r->cfg.flight)
		return opened < 0 ? opened : 0;
	fault_attrs_drop_switch_records(fa);
	r->ev.switches_cpu_wide = 1;
	return 0;
}

static int open_targets(struct recorder *r, struct fault_attrs *fa,
			struct errmsg *e)
{
	struct target_set *t = r->cfg.targets;
	int gone, trial = -1, err = ring_owners_open(&r->ev, fa, e);

	if (err == 0)
		err = tracing_prepare(r, e);
	if (err == 0)
		err = open_cpu_switches(r, fa, e);
	if (err == 0)
		trial = sched_switch_per_task(r, fa);
	if (err == 0)
		err = syscall_events_prepare(&r->ev, r->cfg.syscalls,
					     r->cfg.targets, fa, e);
	if (err == 0 && target_system_wide(t))
		/* These see the command too: target_wanted knows its pid. */
		err = fault_events_open(&r->ev, r->cfg.pt, fa, -1, 0, 0, &gone, e);
	for (size_t i = 0; i < t->npids && err == 0 && !target_system_wide(t); i++)
		err = open_process(r, fa, t->pids[i], e);
	for (size_t i = 0; i < t->ntids && err == 0 && !target_system_wide(t); i++) {
		err = fault_events_open(&r->ev, r->cfg.pt, fa, t->tids[i], 0, 0, &gone, e);
		if (err == 0 && gone)
			err = errmsg_set(e, ESRCH, "thread %d exited before "
					 "recording began", (int)t->tids[i]);
	}
	if (err == 0)
		err = open_tracepoints(r, e);
	if (err == 0)
		err = syscall_events_open_cpu_wide(&r->ev, r->cfg.syscalls,
						   r->cfg.targets, e);
	/* Everything so far is enabled by ioctl; the command's own events,
	 * opened last, by its exec. */
	r->ev.nfds_to_enable = r->ev.nfds;
	if (err == 0 && t->child && !target_system_wide(t))
		err = fault_events_open(&r->ev, r->cfg.pt, fa, t->child, 1, 1, &gone, e);
	/* Intel PT: the vDSO and the first calibration pair. */
	if (err == 0 && r->cfg.pt)
		err = pt_record_after_open(r->cfg.pt, r, e);
	if (err == 0 && fa->kernel_refused && !r->warning.text[0])
		errmsg_set(&r->warning, EACCES, "stacks leave out kernel frames: "
			   "the kernel refused them (perf_event_paranoid=%d); "
			   "run as root or grant CAP_PERFMON", perf_paranoid());
	if (trial >= 0)
		close(trial);
	return err;
}

static int watch_processes(struct recorder *r, struct errmsg *e)
{
	struct target_set *t = r->cfg.targets;

	if (t->child) {
		r->child_pidfd = pidfd_open_nocheck(t->child);
		if (r->child_pidfd < 0)
			return errmsg_set(e, -r->child_pidfd, "cannot watch the "
					  "command: pidfd_open: %s",
					  strerror(-r->child_pidfd));
	}
	r->pidfds = calloc(t->npids ? t->npids : 1, sizeof(*r->pidfds));
	if (!r->pidfds)
		return -ENOMEM;
	for (size_t i = 0; i < t->npids; i++)
		r->pidfds[i] = pidfd_open_nocheck(t->pids[i]);
	r->npidfds = t->npids;
	return 0;
}

/*
 * Should each sample carry its own event's id (decoder/sample_owner.h)?
 * Free where no event is inherited (-a, --comm, -t).  On inherited events
 * it costs the targets: the kernel then no longer swaps the events of two
 * threads of one process at a switch but takes them out and puts them in
 * (a two-thread switch storm run as the command: 12.4 us a round trip
 * became 15.9).  The flight recorder pays it with -p: it runs unattended
 * for days beside whatever else records, and the older session is the one
 * whose samples take the other's ids; a -p process's threads that exist
 * at the start are not swapped anyway (their events were opened one by
 * one).  A command started by faultline is a run watched, not a service.
 */
static int own_ids_wanted(const struct recorder_config *cfg)
{
	const struct target_set *t = cfg->targets;

	if (target_system_wide(t))
		return 1;
	if (t->command)
		return 0;
	return !t->npids || cfg->flight;
}

int recorder_open(struct recorder *r, const struct recorder_config *cfg,
		  struct errmsg *e)
{
	struct fault_attrs fa;
	int err;

	r->cfg = *cfg;
	r->ev.ring_bytes = cfg->ring_bytes;
	fault_sample_fmt(&r->ev.fmt);
	if (own_ids_wanted(cfg))
		fault_sample_fmt_read_id(&r->ev.fmt, cfg->targets->npids > 0 &&
					 !target_system_wide(cfg->targets));
	stack_sample_fmt(&r->ev.stack_fmt, &r->ev.fmt, &cfg->stacks);
	err = proc_online_cpus(&r->ev.cpus, &r->ev.ncpus);
	if (err < 0)
		return errmsg_set(e, -err, "cannot list online CPUs from "
				  "/sys/devices/system/cpu/online: %s",
				  strerror(-err));
	r->ev.rings = calloc((size_t)r->ev.ncpus, sizeof(*r->ev.rings));
	if (!r->ev.rings)
		return -ENOMEM;
	raise_fd_limit();
	err = fault_attrs_build(&fa, &r->ev.fmt, cfg->ring_bytes, &cfg->stacks,
				cfg->thread_states, e);
	if (err == 0)
		err = signals_to_fd(r, e);
	if (err == 0 && cfg->targets->command)
		err = target_spawn(cfg->targets, e);
	if (err == 0)
		err = open_targets(r, &fa, e);
	if (err == 0)
		err = watch_processes(r, e);
	return err;
}

void recorder_close_events(struct recorder *r)
{
	for (size_t i = 0; i < r->ev.nfds; i++)
		event_close_add(&r->closing, r->ev.fds[i]);
	r->ev.nfds = r->ev.nfds_to_enable = 0;
	waking_filter_close_into(&r->waking, &r->closing);
	event_close_start(&r->closing);
}

void recorder_release(struct recorder *r)
{
	recorder_close_events(r);
	event_close_wait(&r->closing);
	for (size_t i = 0; i < r->npidfds; i++)
		if (r->pidfds[i] >= 0)
			close(r->pidfds[i]);
	if (r->sigfd >= 0)
		close(r->sigfd);
	if (r->child_pidfd >= 0)
		close(r->child_pidfd);
	free(r->pidfds);
	waking_filter_release(&r->waking);
	event_set_release(&r->ev);
	recorder_init(r);
}
