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

#include "../common/clock.h"
#include "fault_events.h"
#include "perf_open.h"
#include "procfs.h"
#include "recorder.h"

void recorder_init(struct recorder *r)
{
	memset(r, 0, sizeof(*r));
	idmap_init(&r->ids);
	errmsg_init(&r->warning);
	r->sigfd = -1;
	r->child_pidfd = -1;
	r->child_status = -1;
}

int recorder_keep_fd(struct recorder *r, int fd)
{
	if (r->nfds == r->capfds) {
		size_t cap = r->capfds ? r->capfds * 2 : 64;
		int *v = realloc(r->fds, cap * sizeof(*v));

		if (!v) {
			close(fd);
			return -ENOMEM;
		}
		r->fds = v;
		r->capfds = cap;
	}
	r->fds[r->nfds++] = fd;
	return 0;
}

int recorder_map_ring(struct recorder *r, struct ring *ring, int idx, int fd,
		      struct errmsg *e)
{
	int err = ring_map(ring, fd, r->cpus[idx], r->cfg.ring_bytes);

	if ((err == -EPERM || err == -ENOMEM) && geteuid() != 0)
		return errmsg_set(e, -err, "cannot map a %zu KiB ring on CPU %d: "
				  "over the locked-memory limit "
				  "(/proc/sys/kernel/perf_event_mlock_kb and ulimit -l); "
				  "use a smaller --buffer-size or run as root",
				  r->cfg.ring_bytes >> 10, r->cpus[idx]);
	if (err == -EPERM || err == -ENOMEM)
		return errmsg_set(e, -err, "cannot map a %zu KiB ring on CPU %d: "
				  "the kernel could not allocate it; use a smaller "
				  "--buffer-size", r->cfg.ring_bytes >> 10, r->cpus[idx]);
	if (err < 0)
		return errmsg_set(e, -err, "cannot map the ring on CPU %d: %s",
				  r->cpus[idx], strerror(-err));
	return 0;
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
		err = fault_events_open(r, fa, tids[i], 1, 0, &gone, e);
		opened += !gone;
	}
	free(tids);
	if (err == 0 && !opened)
		return errmsg_set(e, ESRCH, "process %d exited before recording "
				  "began", (int)pid);
	return err;
}

/* sched_switch and sched_waking on every CPU.  They only refine the
 * timelines, so a failure (no permission for CPU-wide tracepoints) is a
 * warning; what opened of them stays, and their samples are ignored. */
static int open_sched_tracepoints(struct recorder *r)
{
	struct errmsg why;
	int err = 0;

	errmsg_init(&why);
	r->sched_switch = tracepoint_load(r->tep, "sched", "sched_switch", &why);
	r->sched_waking = r->sched_switch ?
			  tracepoint_load(r->tep, "sched", "sched_waking", &why) : NULL;
	if (!r->sched_waking)
		err = -ENOENT;
	if (err == 0)
		err = tracepoint_open(r, r->sched_switch, ROLE_TP_SCHED_SWITCH, 0,
				      NULL, &why);
	if (err == 0 && r->sched_waking)
		err = tracepoint_open(r, r->sched_waking, ROLE_TP_SCHED_WAKING, 0,
				      NULL, &why);
	if (err == -ENOMEM)
		return err;
	if (err < 0) {
		r->sched_switch = r->sched_waking = NULL;
		errmsg_set(&r->warning, -err, "thread states will not tell sleeping "
			   "from blocked, nor name wakers: %s", why.text);
	}
	return 0;
}

/*
 * sched_switch (prev_state: S or D) and sched_waking (who woke whom) on
 * every CPU, refining the timelines; then the -e tracepoints.  Without
 * tracefs, timelines still come from the switch records: that is a
 * warning, unless -e asked for tracepoints.
 */
static int open_tracepoints(struct recorder *r, struct errmsg *e)
{
	struct errmsg why;
	int err;

	errmsg_init(&why);
	err = tracepoints_init(&r->tep, &why);
	if (err < 0 && !r->cfg.ntracepoints) {
		errmsg_set(&r->warning, -err, "thread states will not tell sleeping "
			   "from blocked, nor name wakers: %s", why.text);
		return 0;
	}
	if (err < 0) {
		*e = why;
		return err;
	}
	err = open_sched_tracepoints(r);
	if (err < 0)
		return err;
	r->user_events = calloc(r->cfg.ntracepoints + 1, sizeof(*r->user_events));
	if (!r->user_events)
		return -ENOMEM;
	for (size_t i = 0; i < r->cfg.ntracepoints && err == 0; i++) {
		const struct tp_spec *sp = &r->cfg.tracepoints[i];

		r->user_events[i] = tracepoint_load(r->tep, sp->system, sp->name, e);
		err = r->user_events[i] ? tracepoint_open(r, r->user_events[i],
				ROLE_TP_USER, (uint16_t)i, sp->filter, e) : -ENOENT;
	}
	return err;
}

static int open_targets(struct recorder *r, struct fault_attrs *fa,
			struct errmsg *e)
{
	struct target_set *t = r->cfg.targets;
	int gone, err = ring_owners_open(r, fa, e);

	if (err == 0 && target_system_wide(t))
		/* These see the command too: target_wanted knows its pid. */
		err = fault_events_open(r, fa, -1, 0, 0, &gone, e);
	for (size_t i = 0; i < t->npids && err == 0 && !target_system_wide(t); i++)
		err = open_process(r, fa, t->pids[i], e);
	for (size_t i = 0; i < t->ntids && err == 0 && !target_system_wide(t); i++) {
		err = fault_events_open(r, fa, t->tids[i], 0, 0, &gone, e);
		if (err == 0 && gone)
			err = errmsg_set(e, ESRCH, "thread %d exited before "
					 "recording began", (int)t->tids[i]);
	}
	if (err == 0)
		err = open_tracepoints(r, e);
	/* Everything so far is enabled by ioctl; the command's own events,
	 * opened last, by its exec. */
	r->nfds_to_enable = r->nfds;
	if (err == 0 && t->child && !target_system_wide(t))
		err = fault_events_open(r, fa, t->child, 1, 1, &gone, e);
	if (err == 0 && fa->kernel_refused && !r->warning.text[0])
		errmsg_set(&r->warning, EACCES, "stacks leave out kernel frames: "
			   "the kernel refused them (perf_event_paranoid=%d); "
			   "run as root or grant CAP_PERFMON", perf_paranoid());
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

int recorder_open(struct recorder *r, const struct recorder_config *cfg,
		  struct errmsg *e)
{
	struct fault_attrs fa;
	int err;

	r->cfg = *cfg;
	fault_sample_fmt(&r->fmt);
	stack_sample_fmt(&r->stack_fmt, &r->fmt, &cfg->stacks);
	err = proc_online_cpus(&r->cpus, &r->ncpus);
	if (err < 0)
		return errmsg_set(e, -err, "cannot list online CPUs from "
				  "/sys/devices/system/cpu/online: %s",
				  strerror(-err));
	r->rings = calloc((size_t)r->ncpus, sizeof(*r->rings));
	r->tp_rings = calloc((size_t)r->ncpus, sizeof(*r->tp_rings));
	if (!r->rings || !r->tp_rings)
		return -ENOMEM;
	raise_fd_limit();
	err = fault_attrs_build(&fa, cfg->ring_bytes, &cfg->stacks, e);
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

/* Every event but the command's, which its exec enables (enable_on_exec)
 * once target_start lets it run. */
static int enable_all(struct recorder *r, struct errmsg *e)
{
	for (size_t i = 0; i < r->nfds_to_enable; i++)
		if (ioctl(r->fds[i], PERF_EVENT_IOC_ENABLE, 0) < 0)
			return errmsg_set(e, errno, "cannot enable events: %s",
					  strerror(errno));
	if (r->cfg.targets->child)
		return target_start(r->cfg.targets, e);
	return 0;
}

/* The target events; the ring owners stay enabled for
 * recorder_flush_lost (they are the first ncpus fds). */
static void disable_all(struct recorder *r)
{
	for (size_t i = (size_t)r->ncpus; i < r->nfds; i++)
		ioctl(r->fds[i], PERF_EVENT_IOC_DISABLE, 0);
}

struct drain_ctx {
	const struct recorder_sink *sink;
	struct recorder *r;
	int cpu;
	int monotonic;
};

static int one_record(void *ctx, const void *rec, size_t len)
{
	struct drain_ctx *d = ctx;

	d->r->records++;
	return d->sink->record(d->sink->ctx, d->cpu, d->monotonic, rec, len);
}

static int drain_set(struct recorder *r, struct ring *rings,
		     struct drain_ctx *d)
{
	for (int i = 0; i < r->ncpus; i++) {
		struct ring *ring = &rings[i];
		uint64_t bad = ring->framing_errors;
		long n;

		if (!ring->meta)
			continue;
		d->cpu = ring->cpu;
		n = ring_drain(ring, one_record, d);
		if (n < 0)
			return (int)n;
		r->bytes += (uint64_t)n;
		r->framing_errors += ring->framing_errors - bad;
	}
	return 0;
}

/* One pass over every ring.  The watermark is taken before the first
 * head is read (see RECORDER_ORDER_SLACK_NS). */
static int drain_round(struct recorder *r, const struct recorder_sink *sink,
		       int final)
{
	uint64_t watermark = final ? UINT64_MAX :
			     realtime_ns() - RECORDER_ORDER_SLACK_NS;
	struct drain_ctx d = { sink, r, 0, 0 };
	int err = drain_set(r, r->rings, &d);

	d.monotonic = 1;
	if (err == 0)
		err = drain_set(r, r->tp_rings, &d);
	return err ? err : sink->round(sink->ctx, watermark);
}

/* Reaps the command if its pidfd says it exited. */
static void check_child(struct recorder *r)
{
	int status;

	if (waitpid(r->cfg.targets->child, &status, WNOHANG) ==
	    r->cfg.targets->child) {
		r->child_status = status;
		r->cfg.targets->child_reaped = 1;
		r->stop = STOP_TARGETS_GONE;
	}
}

/* -p processes are watched by pidfd, -t threads by signal 0. */
static void check_targets(struct recorder *r, struct pollfd *pfds, size_t base)
{
	struct target_set *t = r->cfg.targets;
	size_t alive = 0;

	if (target_system_wide(t) || t->child)
		return;
	for (size_t i = 0; i < r->npidfds; i++) {
		if (r->pidfds[i] >= 0 && (pfds[base + i].revents & POLLIN)) {
			close(r->pidfds[i]);
			r->pidfds[i] = -1;
			pfds[base + i].fd = -1;
		}
		alive += r->pidfds[i] >= 0;
	}
	for (size_t i = 0; i < t->ntids; i++)
		alive += kill(t->tids[i], 0) == 0;
	if (!alive)
		r->stop = STOP_TARGETS_GONE;
}

static void check_signal(struct recorder *r)
{
	struct signalfd_siginfo si;

	if (read(r->sigfd, &si, sizeof(si)) == (ssize_t)sizeof(si)) {
		r->stop = STOP_SIGNAL;
		r->stop_signal = (int)si.ssi_signo;
	}
}

/* pfds: the signal fd, the command's pidfd, the -p pidfds, then each
 * CPU's ring owners (fault ring, tracepoint ring).  The owners are
 * faultline's own thread or CPU-wide events: they never hang up. */
static struct pollfd *poll_set(struct recorder *r, size_t *n)
{
	size_t cnt = 2 + r->npidfds + 2 * (size_t)r->ncpus, k = 0;
	struct pollfd *p = calloc(cnt, sizeof(*p));

	if (!p)
		return NULL;
	p[k++] = (struct pollfd){ .fd = r->sigfd, .events = POLLIN };
	p[k++] = (struct pollfd){ .fd = r->child_pidfd, .events = POLLIN };
	for (size_t i = 0; i < r->npidfds; i++)
		p[k++] = (struct pollfd){ .fd = r->pidfds[i], .events = POLLIN };
	for (int i = 0; i < r->ncpus; i++)
		p[k++] = (struct pollfd){ .fd = r->rings[i].meta ?
					  r->rings[i].fd : -1, .events = POLLIN };
	for (int i = 0; i < r->ncpus; i++)
		p[k++] = (struct pollfd){ .fd = r->tp_rings[i].meta ?
					  r->tp_rings[i].fd : -1, .events = POLLIN };
	*n = cnt;
	return p;
}

static int poll_timeout_ms(const struct recorder *r, uint64_t start_mono,
			   uint64_t next_tick)
{
	uint64_t now = monotonic_ns(), until = next_tick;

	if (r->cfg.duration_ns && start_mono + r->cfg.duration_ns < until)
		until = start_mono + r->cfg.duration_ns;
	if (until <= now)
		return 0;
	return (int)((until - now + 999999) / 1000000);
}

static int record_loop(struct recorder *r, const struct recorder_sink *sink,
		       struct pollfd *pfds, size_t npfds)
{
	uint64_t start = monotonic_ns();
	uint64_t next_tick = start + RECORDER_TICK_MS * 1000000ull;
	int err = 0;

	while (r->stop == STOP_NONE && err == 0) {
		if (poll(pfds, npfds, poll_timeout_ms(r, start, next_tick)) < 0 &&
		    errno != EINTR)
			return -errno;
		if (pfds[0].revents & POLLIN)
			check_signal(r);
		if (pfds[1].revents & POLLIN)
			check_child(r);
		check_targets(r, pfds, 2);
		if (r->cfg.duration_ns && monotonic_ns() - start >= r->cfg.duration_ns)
			r->stop = r->stop == STOP_NONE ? STOP_DURATION : r->stop;
		err = drain_round(r, sink, 0);
		if (err == 0 && monotonic_ns() >= next_tick) {
			next_tick += RECORDER_TICK_MS * 1000000ull;
			err = sink->tick(sink->ctx);
		}
	}
	return err;
}

/*
 * The kernel counts records it drops for a full ring and writes the count
 * as a PERF_RECORD_LOST only before the next record that fits.  When the
 * targets go quiet after a loss, no record follows and the count would
 * stay in the kernel.  Renaming faultline's own thread on each CPU makes
 * the ring owner (attr.comm) write one COMM record there, so any pending
 * LOST record goes first.  The COMM records carry the owner's id, which
 * the sink drops.
 */
static void recorder_flush_lost(struct recorder *r)
{
	char comm[16] = "";
	cpu_set_t saved, one;

	if (sched_getaffinity(0, sizeof(saved), &saved) < 0 ||
	    prctl(PR_GET_NAME, comm, 0, 0, 0) < 0)
		return;
	for (int i = 0; i < r->ncpus; i++) {
		CPU_ZERO(&one);
		CPU_SET(r->cpus[i], &one);
		if (sched_setaffinity(0, sizeof(one), &one) == 0)
			prctl(PR_SET_NAME, comm, 0, 0, 0);
	}
	sched_setaffinity(0, sizeof(saved), &saved);
}

int recorder_run(struct recorder *r, const struct recorder_sink *sink,
		 struct errmsg *e)
{
	struct pollfd *pfds;
	size_t npfds;
	int err;

	pfds = poll_set(r, &npfds);
	if (!pfds)
		return -ENOMEM;
	err = enable_all(r, e);
	if (err == 0)
		err = record_loop(r, sink, pfds, npfds);
	/* Drain to make room, have the kernel write its pending LOST counts
	 * (moving across the CPUs also fires sched_switch there, which does
	 * the same for the tracepoint rings), stop every target event, and
	 * read what is left. */
	if (err == 0)
		err = drain_round(r, sink, 0);
	recorder_flush_lost(r);
	disable_all(r);
	if (err == 0)
		err = drain_round(r, sink, 1);
	free(pfds);
	return err;
}

void recorder_release(struct recorder *r)
{
	for (int i = 0; r->rings && i < r->ncpus; i++)
		ring_unmap(&r->rings[i]);
	for (int i = 0; r->tp_rings && i < r->ncpus; i++)
		ring_unmap(&r->tp_rings[i]);
	free(r->tp_rings);
	for (size_t i = 0; i < r->nfds; i++)
		close(r->fds[i]);
	for (size_t i = 0; i < r->npidfds; i++)
		if (r->pidfds[i] >= 0)
			close(r->pidfds[i]);
	if (r->sigfd >= 0)
		close(r->sigfd);
	if (r->child_pidfd >= 0)
		close(r->child_pidfd);
	free(r->rings);
	free(r->fds);
	free(r->pidfds);
	free(r->cpus);
	free(r->user_events);
	if (r->tep)
		tep_free(r->tep);
	idmap_release(&r->ids);
	recorder_init(r);
}
