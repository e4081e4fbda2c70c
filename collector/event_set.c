#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>
#include <linux/perf_event.h>
#include <event-parse.h>

#include "../common/array.h"
#include "event_set.h"

void event_set_init(struct event_set *ev)
{
	memset(ev, 0, sizeof(*ev));
	idmap_init(&ev->ids);
}

int event_set_keep_fd(struct event_set *ev, int fd)
{
	if (ARRAY_RESERVE(ev->fds, ev->capfds, ev->nfds + 1) < 0) {
		close(fd);
		return -ENOMEM;
	}
	ev->fds[ev->nfds++] = fd;
	return 0;
}

int event_set_map_ring(struct event_set *ev, struct ring *ring, int idx, int fd,
		       struct errmsg *e)
{
	int err = ring_map(ring, fd, ev->cpus[idx], ev->ring_bytes);

	if ((err == -EPERM || err == -ENOMEM) && geteuid() != 0)
		return errmsg_set(e, -err, "cannot map a %zu KiB ring on CPU %d: "
				  "over the locked-memory limit "
				  "(/proc/sys/kernel/perf_event_mlock_kb and ulimit -l); "
				  "use a smaller --buffer-size or run as root",
				  ev->ring_bytes >> 10, ev->cpus[idx]);
	if (err == -EPERM || err == -ENOMEM)
		return errmsg_set(e, -err, "cannot map a %zu KiB ring on CPU %d: "
				  "the kernel could not allocate it; use a smaller "
				  "--buffer-size", ev->ring_bytes >> 10, ev->cpus[idx]);
	if (err < 0)
		return errmsg_set(e, -err, "cannot map the ring on CPU %d: %s",
				  ev->cpus[idx], strerror(-err));
	return 0;
}

int event_set_share_ring(struct event_set *ev, int idx, int fd, struct errmsg *e)
{
	if (ioctl(fd, PERF_EVENT_IOC_SET_OUTPUT, ev->rings[idx].fd) < 0)
		return errmsg_set(e, errno, "cannot share the ring on CPU %d: %s",
				  ev->cpus[idx], strerror(errno));
	return 0;
}

void event_set_release(struct event_set *ev)
{
	for (size_t i = 0; i < ev->nfds; i++)
		close(ev->fds[i]);
	for (int i = 0; ev->rings && i < ev->ncpus; i++)
		ring_unmap(&ev->rings[i]);
	free(ev->rings);
	free(ev->fds);
	free(ev->cpus);
	free(ev->user_events);
	free(ev->lat_events);
	free(ev->sys_filter);
	if (ev->tep)
		tep_free(ev->tep);
	idmap_release(&ev->ids);
	event_set_init(ev);
}
