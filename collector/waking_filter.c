#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "../common/array.h"
#include "event_close.h"
#include "procfs.h"
#include "event_set.h"
#include "targets.h"
#include "tracepoints.h"
#include "waking_filter.h"

static int tid_in(const pid_t *v, size_t n, pid_t tid)
{
	for (size_t i = 0; i < n; i++)
		if (v[i] == tid)
			return 1;
	return 0;
}

static int tid_add(pid_t **v, size_t *n, size_t *cap, pid_t tid)
{
	if (tid <= 0 || tid_in(*v, *n, tid))
		return 0;
	if (ARRAY_RESERVE(*v, *cap, *n + 1) < 0)
		return -ENOMEM;
	(*v)[(*n)++] = tid;
	return 0;
}

/* Appends fmt's text with (int)tid to buf, of length *len.  -E2BIG when
 * it would not fit in WAKING_FILTER_MAX. */
static int filter_add(char *buf, size_t *len, const char *fmt, pid_t tid)
{
	int w = snprintf(buf + *len, WAKING_FILTER_MAX - *len, fmt, (int)tid);

	if (w < 0 || (size_t)w >= WAKING_FILTER_MAX - *len)
		return -E2BIG;
	*len += (size_t)w;
	return 0;
}

/* "pid==1||pid==2||pid>9": a wake-up of threads a and b (sched_waking's
 * pid is the woken one's) and, with above (non-zero), of any thread born
 * later until pids wrap.  -E2BIG when it would not fit in
 * WAKING_FILTER_MAX. */
static int filter_build(char *buf, const pid_t *a, size_t na, const pid_t *b,
			size_t nb, pid_t above)
{
	size_t len = 0;
	int err = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < na + nb && err == 0; i++)
		err = filter_add(buf, &len, i ? "||pid==%d" : "pid==%d",
				 i < na ? a[i] : b[i - na]);
	if (err == 0 && above)
		err = filter_add(buf, &len, na + nb ? "||pid>%d" : "pid>%d", above);
	return err;
}

/* One event per CPU with filter (NULL: none), enabled when recording is
 * on; its fds join wf->fds.  Called with the lock held, or before any
 * other thread runs. */
static int set_open(struct waking_filter *wf, const char *filter,
		    struct errmsg *e)
{
	struct event_set *set = wf->set;
	size_t first = wf->nfds;
	int err = 0;

	if (ARRAY_RESERVE(wf->fds, wf->capfds, wf->nfds + (size_t)set->ncpus) < 0)
		return -ENOMEM;
	for (int c = 0; c < set->ncpus && err == 0; c++) {
		int fd = tracepoint_open_cpu(set, wf->ev, c, ROLE_TP_SCHED_WAKING,
					     0, filter, e);

		if (fd < 0) {
			err = fd;
			break;
		}
		wf->fds[wf->nfds++] = fd;
		if (wf->started && !wf->stopped &&
		    ioctl(fd, PERF_EVENT_IOC_ENABLE, 0) < 0)
			err = errmsg_set(e, errno, "cannot enable sched_waking: %s",
					 strerror(errno));
	}
	if (err < 0) {
		while (wf->nfds > first)
			close(wf->fds[--wf->nfds]);
		return err;
	}
	wf->sets++;
	return 0;
}

/* Closes the sets before fds[keep_from]: a newer set covers them. */
static void sets_close_before(struct waking_filter *wf, size_t keep_from)
{
	size_t n = wf->nfds - keep_from;

	for (size_t i = 0; i < keep_from; i++)
		close(wf->fds[i]);
	memmove(wf->fds, wf->fds + keep_from, n * sizeof(*wf->fds));
	wf->nfds = n;
	wf->sets = 1;
}

/* The threads of the targets that exist now (known ones stay). */
static int targets_now(struct waking_filter *wf, const struct target_set *t)
{
	int err = 0;

	for (size_t i = 0; i < t->npids && err == 0; i++) {
		pid_t *tids = NULL;
		size_t n = 0;

		if (proc_list_tids(t->pids[i], &tids, &n) < 0)
			continue;	/* gone: the recorder says so */
		for (size_t k = 0; k < n && err == 0; k++)
			err = tid_add(&wf->tids, &wf->ntids, &wf->captids, tids[k]);
		free(tids);
	}
	for (size_t i = 0; i < t->ntids && err == 0; i++)
		err = tid_add(&wf->tids, &wf->ntids, &wf->captids, t->tids[i]);
	if (err == 0 && t->child > 0) {
		pid_t *tids = NULL;
		size_t n = 0;

		/* Its threads by now (at the start, the child alone). */
		if (proc_list_tids(t->child, &tids, &n) == 0)
			for (size_t k = 0; k < n && err == 0; k++)
				err = tid_add(&wf->tids, &wf->ntids,
					      &wf->captids, tids[k]);
		free(tids);
		if (err == 0)
			err = tid_add(&wf->tids, &wf->ntids, &wf->captids,
				      t->child);
	}
	return err;
}

/* The pid handed out last (ns_last_pid), or the largest target thread if
 * that is larger (pids wrapped since it was born) or unreadable.  A
 * target thread born after the threads were listed is at most this: its
 * FORK record adds it. */
static pid_t last_pid_now(const struct waking_filter *wf)
{
	pid_t last = proc_last_pid();

	for (size_t i = 0; i < wf->ntids; i++)
		if (wf->tids[i] > last)
			last = wf->tids[i];
	return last > 0 ? last : 0;
}

int waking_filter_open(struct waking_filter *wf, struct event_set *set,
		       const struct target_set *targets, struct tep_event *ev,
		       struct errmsg *e)
{
	char filter[WAKING_FILTER_MAX];
	int err;

	memset(wf, 0, sizeof(*wf));
	pthread_mutex_init(&wf->lock, NULL);
	wf->set = set;
	wf->targets = targets;
	wf->ev = ev;
	err = targets_now(wf, targets);
	if (err < 0)
		return err;
	/* New threads of -p processes and of the command are targets: any
	 * pid handed out from now on may be one, until pids wrap. */
	if (targets->npids || targets->child)
		wf->above = last_pid_now(wf);
	if (filter_build(filter, wf->tids, wf->ntids, NULL, 0, wf->above) < 0)
		wf->unfiltered = 1;
	return set_open(wf, wf->unfiltered ? NULL : filter, e);
}

void waking_filter_release(struct waking_filter *wf)
{
	if (!wf->set)
		return;
	for (size_t i = 0; i < wf->nfds; i++)
		close(wf->fds[i]);
	free(wf->fds);
	free(wf->tids);
	free(wf->pending);
	pthread_mutex_destroy(&wf->lock);
	memset(wf, 0, sizeof(*wf));
}

void waking_filter_close_into(struct waking_filter *wf, struct event_close *c)
{
	if (!wf->set)
		return;
	pthread_mutex_lock(&wf->lock);
	for (size_t i = 0; i < wf->nfds; i++)
		event_close_add(c, wf->fds[i]);
	wf->nfds = 0;
	wf->sets = 0;
	pthread_mutex_unlock(&wf->lock);
}

int waking_filter_start(struct waking_filter *wf, struct errmsg *e)
{
	int err = 0;

	if (!wf->set)
		return 0;
	pthread_mutex_lock(&wf->lock);
	wf->started = 1;
	for (size_t i = 0; i < wf->nfds && err == 0; i++)
		if (ioctl(wf->fds[i], PERF_EVENT_IOC_ENABLE, 0) < 0)
			err = errmsg_set(e, errno, "cannot enable sched_waking: %s",
					 strerror(errno));
	pthread_mutex_unlock(&wf->lock);
	return err;
}

void waking_filter_stop(struct waking_filter *wf)
{
	if (!wf->set)
		return;
	pthread_mutex_lock(&wf->lock);
	wf->stopped = 1;
	for (size_t i = 0; i < wf->nfds; i++)
		ioctl(wf->fds[i], PERF_EVENT_IOC_DISABLE, 0);
	pthread_mutex_unlock(&wf->lock);
}

int waking_filter_note(struct waking_filter *wf, pid_t tid)
{
	if (!wf->set || wf->unfiltered || tid_in(wf->tids, wf->ntids, tid))
		return 0;
	/* Above: a set names it already; known, for the next rebase. */
	if (wf->above && tid > wf->above)
		return tid_add(&wf->tids, &wf->ntids, &wf->captids, tid);
	return tid_add(&wf->pending, &wf->npending, &wf->cappending, tid);
}

/* Forgets the known threads that exited, so that a process that starts
 * and ends threads for days keeps its filter short: they would fill
 * WAKING_FILTER_MAX after some 330, and rebasing would stop.  A pid the
 * kernel handed to another thread since stays named: its wake-ups are
 * recorded and the decoder drops them. */
static void tids_forget_exited(struct waking_filter *wf)
{
	size_t kept = 0;

	for (size_t i = 0; i < wf->ntids; i++)
		if (kill(wf->tids[i], 0) == 0 || errno != ESRCH)
			wf->tids[kept++] = wf->tids[i];
	wf->ntids = kept;
}

/* A set naming only the pending threads while there is room for one;
 * else one set naming every thread (or none, unfiltered) that replaces
 * the others, opened before they close so no wake-up falls between (one
 * seen twice does no harm: the second finds the thread awake). */
static int extend_locked(struct waking_filter *wf, struct errmsg *e)
{
	char filter[WAKING_FILTER_MAX];
	size_t old = wf->nfds;
	int err;

	if (wf->sets < WAKING_SETS_MAX &&
	    filter_build(filter, wf->pending, wf->npending, NULL, 0, 0) == 0)
		return set_open(wf, filter, e);
	tids_forget_exited(wf);
	if (filter_build(filter, wf->tids, wf->ntids, wf->pending,
			 wf->npending, wf->above) < 0)
		wf->unfiltered = 1;
	err = set_open(wf, wf->unfiltered ? NULL : filter, e);
	if (err == 0)
		sets_close_before(wf, old);
	return err;
}

int waking_filter_extend(struct waking_filter *wf, struct errmsg *e)
{
	int err = 0, open = 0;

	if (!wf->set || !wf->npending)
		return 0;
	pthread_mutex_lock(&wf->lock);
	if (!wf->stopped && !wf->unfiltered) {
		err = extend_locked(wf, e);
		open = 1;
	}
	pthread_mutex_unlock(&wf->lock);
	if (err < 0)
		return err;
	wf->extensions += (uint64_t)open;
	for (size_t i = 0; i < wf->npending && err == 0; i++)
		err = tid_add(&wf->tids, &wf->ntids, &wf->captids, wf->pending[i]);
	wf->npending = 0;
	return err;
}

/* The set that replaces the others for waking_filter_rebase: every
 * target thread known and listed now, and every pid above last. */
static int rebase_locked(struct waking_filter *wf, pid_t last, struct errmsg *e)
{
	char filter[WAKING_FILTER_MAX];
	size_t old = wf->nfds;
	int err;

	for (size_t i = 0; i < wf->ntids; i++)
		if (wf->tids[i] > last)
			last = wf->tids[i];
	if (last <= wf->above ||
	    filter_build(filter, wf->tids, wf->ntids, wf->pending,
			 wf->npending, last) < 0)
		return 0;	/* too many to name: the sets stay */
	err = set_open(wf, filter, e);
	if (err < 0)
		return err;
	sets_close_before(wf, old);
	wf->above = last;
	wf->extensions++;
	wf->rebases++;
	return 0;
}

int waking_filter_rebase(struct waking_filter *wf, uint64_t now_ns,
			 struct errmsg *e)
{
	pid_t last;
	int err = 0;

	if (!wf->set || !wf->above || wf->unfiltered || !wf->passed_above ||
	    now_ns < wf->next_rebase_ns)
		return 0;
	/* What was read so far is handled here, or cannot be (pids wrapped;
	 * too many threads to name): only later wake-ups call again. */
	wf->passed_above = 0;
	wf->next_rebase_ns = now_ns + WAKING_REBASE_NS;
	/* Read before the listing: a target thread born after it is above
	 * it, one born before is listed (or its FORK record names it). */
	last = proc_last_pid();
	if (last <= wf->above)
		return 0;	/* none born since, or pids wrapped */
	tids_forget_exited(wf);
	if (targets_now(wf, wf->targets) < 0)
		return errmsg_set(e, ENOMEM, "out of memory");
	pthread_mutex_lock(&wf->lock);
	if (!wf->stopped)
		err = rebase_locked(wf, last, e);
	pthread_mutex_unlock(&wf->lock);
	return err;
}
