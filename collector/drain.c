#include <errno.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/signalfd.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../common/clock.h"
#include "../decoder/clock_map.h"
#include "drain.h"

/* Every event but the command's, which its exec enables (enable_on_exec)
 * once target_start lets it run. */
static int enable_all(struct recorder *r, struct errmsg *e)
{
	int err;

	for (size_t i = 0; i < r->ev.nfds_to_enable; i++)
		if (ioctl(r->ev.fds[i], PERF_EVENT_IOC_ENABLE, 0) < 0)
			return errmsg_set(e, errno, "cannot enable events: %s",
					  strerror(errno));
	err = waking_filter_start(&r->waking, e);
	if (err == 0 && r->cfg.targets->child)
		err = target_start(r->cfg.targets, e);
	return err;
}

/* The target events; the ring owners stay enabled for
 * recorder_flush_lost (they are the first ncpus fds). */
static void disable_all(struct recorder *r)
{
	for (size_t i = (size_t)r->ev.ncpus; i < r->ev.nfds; i++)
		ioctl(r->ev.fds[i], PERF_EVENT_IOC_DISABLE, 0);
	waking_filter_stop(&r->waking);
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

/* record --flight: a snapshot asked for now, in order with the records
 * (spool.h's SPOOL_TRIGGER). */
static void push_trigger(struct spool *sp, enum spool_trigger_source source)
{
	struct spool_entry e;

	memset(&e, 0, sizeof(e));
	e.kind = SPOOL_TRIGGER;
	e.u.trigger.mono_ns = monotonic_ns();
	e.u.trigger.source = source;
	spool_push(sp, &e);
}

/* metric_feed's: a line of a watched metric, in order with the
 * records (spool.h's SPOOL_METRIC). */
static void push_metric(void *ctx, const struct metric_sample *m)
{
	struct spool_entry e;

	memset(&e, 0, sizeof(e));
	e.kind = SPOOL_METRIC;
	e.u.metric = *m;
	spool_push(ctx, &e);
}

static void check_signal(struct recorder *r, struct spool *sp)
{
	struct signalfd_siginfo si;

	if (read(r->sigfd, &si, sizeof(si)) != (ssize_t)sizeof(si))
		return;
	if (r->cfg.flight && si.ssi_signo == SIGUSR2) {
		push_trigger(sp, TRIGGER_SIGNAL);
		return;
	}
	r->stop = STOP_SIGNAL;
	r->stop_signal = (int)si.ssi_signo;
}

/* One line of --control, as perf's --control takes them: 'snapshot' or
 * 'stop'; anything else is ignored (a FIFO has no way to answer). */
static void control_line(struct recorder *r, struct spool *sp, const char *line)
{
	if (!strcmp(line, "snapshot"))
		push_trigger(sp, TRIGGER_CONTROL);
	else if (!strcmp(line, "stop"))
		r->stop = STOP_CONTROL;
}

/* What the --control FIFO has; opened read-write, so it never reads EOF
 * when a writer closes it.  A line longer than the buffer is dropped. */
static void check_control(struct recorder *r, struct spool *sp)
{
	char buf[256];
	ssize_t n = read(r->cfg.control_fd, buf, sizeof(buf));

	for (ssize_t i = 0; i < n; i++) {
		if (buf[i] != '\n') {
			if (r->control_len < sizeof(r->control_line) - 1)
				r->control_line[r->control_len] = buf[i];
			r->control_len++;
			continue;
		}
		if (r->control_len < sizeof(r->control_line)) {
			r->control_line[r->control_len] = '\0';
			control_line(r, sp, r->control_line);
		}
		r->control_len = 0;
	}
}

/* The last POLL_TAIL of the poll set, from its end. */
enum { POLL_CONTROL = 3, POLL_METRIC_FIFO = 2, POLL_METRIC_UDP = 1,
       POLL_TAIL = 3 };

/* pfds: the signal fd, the command's pidfd, the -p pidfds, then each
 * CPU's ring owner, an event on faultline's own thread: it never hangs
 * up; last, the --control FIFO, the --metric-fifo FIFO and the
 * --metric-udp socket (-1 without them). */
static struct pollfd *poll_set(struct recorder *r, size_t *n)
{
	size_t cnt = 2 + POLL_TAIL + r->npidfds + (size_t)r->ev.ncpus, k = 0;
	struct pollfd *p = calloc(cnt, sizeof(*p));

	if (!p)
		return NULL;
	p[k++] = (struct pollfd){ .fd = r->sigfd, .events = POLLIN };
	p[k++] = (struct pollfd){ .fd = r->child_pidfd, .events = POLLIN };
	for (size_t i = 0; i < r->npidfds; i++)
		p[k++] = (struct pollfd){ .fd = r->pidfds[i], .events = POLLIN };
	for (int i = 0; i < r->ev.ncpus; i++)
		p[k++] = (struct pollfd){ .fd = r->ev.rings[i].meta ?
					  r->ev.rings[i].fd : -1, .events = POLLIN };
	p[k++] = (struct pollfd){ .fd = r->cfg.flight ? r->cfg.control_fd : -1,
				  .events = POLLIN };
	p[k++] = (struct pollfd){ .fd = r->cfg.flight ? r->cfg.metrics.fifo_fd :
				  -1, .events = POLLIN };
	p[k++] = (struct pollfd){ .fd = r->cfg.flight ? r->cfg.metrics.udp_fd :
				  -1, .events = POLLIN };
	*n = cnt;
	return p;
}

/* Until the next anchor is due, or --duration ends. */
static int poll_timeout_ms(const struct recorder *r, uint64_t start_mono,
			   uint64_t next_anchor)
{
	uint64_t now = monotonic_ns(), until = next_anchor;

	if (r->cfg.duration_ns && start_mono + r->cfg.duration_ns < until)
		until = start_mono + r->cfg.duration_ns;
	if (until <= now)
		return 0;
	return (int)((until - now + 999999) / 1000000);
}

/*
 * The kernel counts records it drops for a full ring and writes the count
 * as a PERF_RECORD_LOST only before the next record that fits.  When the
 * targets go quiet after a loss, no record follows and the count would
 * stay in the kernel.  Renaming faultline's own thread on each CPU makes
 * the ring owner (attr.comm) write one COMM record there, so any pending
 * LOST record goes first.  The COMM records carry the owner's id, which
 * the engine drops.
 */
static void recorder_flush_lost(struct recorder *r)
{
	char comm[16] = "";
	cpu_set_t saved, one;

	if (sched_getaffinity(0, sizeof(saved), &saved) < 0 ||
	    prctl(PR_GET_NAME, comm, 0, 0, 0) < 0)
		return;
	for (int i = 0; i < r->ev.ncpus; i++) {
		CPU_ZERO(&one);
		CPU_SET(r->ev.cpus[i], &one);
		if (sched_setaffinity(0, sizeof(one), &one) == 0)
			prctl(PR_SET_NAME, comm, 0, 0, 0);
	}
	sched_setaffinity(0, sizeof(saved), &saved);
}

/* Moves one ring's records into the spool; what finds no room is
 * dropped and said so (spool.h). */
static void move_ring(struct recorder *r, struct ring *ring, struct spool *sp)
{
	uint64_t want = ring_pending(ring);
	struct ring_moved m;
	size_t room = 0;
	void *dst;
	uint64_t bad = ring->framing_errors;

	if (!want)
		return;
	dst = spool_data_begin(sp, want, &room);
	ring_move(ring, dst, room, &m);
	if (m.bytes)
		spool_data_end(sp, ring->cpu, m.bytes);
	if (m.dropped_records)
		spool_drop(sp, ring->cpu, m.dropped_records, m.dropped_bytes,
			   monotonic_ns());
	r->bytes += m.bytes;
	r->framing_errors += ring->framing_errors - bad;
}

static void push_anchor(struct spool *sp)
{
	struct spool_entry e;

	memset(&e, 0, sizeof(e));
	e.kind = SPOOL_ANCHOR;
	clock_anchor_take(&e.u.anchor);
	spool_push(sp, &e);
}

static void push_kind(struct spool *sp, enum spool_kind kind, uint64_t watermark)
{
	struct spool_entry e;

	memset(&e, 0, sizeof(e));
	e.kind = kind;
	e.u.watermark = watermark;
	spool_push(sp, &e);
}

/* One pass over every ring.  The watermark is taken before the first
 * head is read (see RECORDER_ORDER_SLACK_NS). */
static void drain_round(struct recorder *r, struct spool *sp, int final)
{
	uint64_t watermark = final ? UINT64_MAX :
			     monotonic_ns() - RECORDER_ORDER_SLACK_NS;

	for (int i = 0; i < r->ev.ncpus; i++)
		if (r->ev.rings[i].meta)
			move_ring(r, &r->ev.rings[i], sp);
	push_kind(sp, SPOOL_ROUND, watermark);
}

static int drain_loop(struct recorder *r, struct spool *sp, const int *abort,
		      struct pollfd *pfds, size_t npfds)
{
	uint64_t start = monotonic_ns(), next_anchor = start;

	while (r->stop == STOP_NONE) {
		if (poll(pfds, npfds, poll_timeout_ms(r, start, next_anchor)) < 0 &&
		    errno != EINTR)
			return -errno;
		if (pfds[0].revents & POLLIN)
			check_signal(r, sp);
		if (pfds[npfds - POLL_CONTROL].revents & POLLIN)
			check_control(r, sp);
		if (pfds[npfds - POLL_METRIC_FIFO].revents & POLLIN)
			metric_feed_read_fifo(&r->metrics, push_metric, sp);
		if (pfds[npfds - POLL_METRIC_UDP].revents & POLLIN)
			metric_feed_read_udp(&r->metrics, push_metric, sp);
		if (pfds[1].revents & POLLIN)
			check_child(r);
		check_targets(r, pfds, 2);
		if (r->cfg.duration_ns && monotonic_ns() - start >= r->cfg.duration_ns)
			r->stop = r->stop == STOP_NONE ? STOP_DURATION : r->stop;
		if (abort && __atomic_load_n(abort, __ATOMIC_ACQUIRE))
			r->stop = STOP_ERROR;
		if (monotonic_ns() >= next_anchor) {
			push_anchor(sp);
			next_anchor = monotonic_ns() + CLOCK_ANCHOR_INTERVAL_NS;
		}
		drain_round(r, sp, 0);
	}
	return 0;
}

/* How long a command stopped by a signal or --duration has to exit
 * while recording goes on; one that takes longer is killed when the
 * targets are released (target_set_release). */
#define COMMAND_STOP_WAIT_MS 1000

/*
 * A signal or --duration ends the command at once, as perf's ends its
 * workload: SIGTERM now, not after the rings drain, so it does not run on
 * unrecorded, and its exit is recorded.  The rings are drained while it
 * goes.
 */
static void stop_command(struct recorder *r, struct spool *sp)
{
	struct target_set *t = r->cfg.targets;
	struct pollfd p = { .fd = r->child_pidfd, .events = POLLIN };

	if (t->child <= 0 || t->child_reaped ||
	    (r->stop != STOP_SIGNAL && r->stop != STOP_DURATION &&
	     r->stop != STOP_CONTROL))
		return;
	kill(t->child, SIGTERM);
	for (int waited = 0; waited < COMMAND_STOP_WAIT_MS && !t->child_reaped;
	     waited += 10) {
		if (poll(&p, 1, 10) > 0) {
			int status;

			if (waitpid(t->child, &status, WNOHANG) == t->child) {
				r->child_status = status;
				t->child_reaped = 1;
			}
		}
		drain_round(r, sp, 0);
	}
}

/* --ready-fd: whoever waits to start a workload until recording is on
 * (a harness, a test) learns it here, once, and sees the fd close. */
static void say_ready(struct recorder *r)
{
	ssize_t n;

	if (r->cfg.ready_fd < 0)
		return;
	n = write(r->cfg.ready_fd, "ready\n", 6);
	(void)n;	/* a reader that went away is no failure of ours */
	close(r->cfg.ready_fd);
	r->cfg.ready_fd = -1;
}

int drain_run(struct recorder *r, struct spool *sp, const int *abort,
	      struct errmsg *e)
{
	struct pollfd *pfds;
	size_t npfds;
	int err;

	pfds = poll_set(r, &npfds);
	if (!pfds)
		return -ENOMEM;
	metric_feed_init(&r->metrics, &r->cfg.metrics);
	err = enable_all(r, e);
	if (err == 0)
		say_ready(r);
	if (err == 0)
		err = drain_loop(r, sp, abort, pfds, npfds);
	if (err == 0)
		stop_command(r, sp);
	/* Drain to make room, have the kernel write its pending LOST counts,
	 * stop every target event, and read what is left: the last anchor
	 * comes after every record. */
	drain_round(r, sp, 0);
	recorder_flush_lost(r);
	disable_all(r);
	push_anchor(sp);
	drain_round(r, sp, 1);
	metric_feed_finish(&r->metrics);	/* read with SPOOL_END */
	push_kind(sp, SPOOL_END, 0);
	spool_wait_flushed(sp);
	free(pfds);
	return err;
}
