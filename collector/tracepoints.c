#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>
#include <tracefs.h>

#include "../common/edit_distance.h"
#include "perf_open.h"
#include "event_set.h"
#include "tracepoints.h"

int tracepoints_init(struct tep_handle **tep, struct errmsg *e)
{
	/* libtracefs mounts tracefs itself when it is not mounted and the
	 * caller may mount (root); NULL means neither worked. */
	const char *dir = tracefs_tracing_dir();

	if (!dir)
		return errmsg_set(e, ENOENT, "tracefs is not mounted and faultline "
				  "could not mount it; as root run 'mount -t tracefs "
				  "nodev /sys/kernel/tracing'");
	*tep = tep_alloc();
	if (!*tep)
		return -ENOMEM;
	tep_set_long_size(*tep, (int)sizeof(long));
	tep_set_page_size(*tep, (int)sysconf(_SC_PAGESIZE));
	return 0;
}

/* The tracepoint closest to system:name that tracefs lists, as
 * "SYS:NAME" into buf; "" when none is close.  A known system is
 * searched for the name, else the systems for the system. */
static void closest_tracepoint(const char *system, const char *name,
			       char *buf, size_t n)
{
	const char *dir = tracefs_tracing_dir();
	char **systems = tracefs_event_systems(dir), **events = NULL;
	const char *near = NULL, *sys = system;
	size_t k = 0;

	buf[0] = '\0';
	if (!systems)
		return;
	while (systems[k])
		k++;
	for (size_t i = 0; i < k && !events; i++)
		if (!strcmp(systems[i], system))
			events = tracefs_system_events(dir, system);
	if (events) {
		size_t m = 0;

		while (events[m])
			m++;
		near = edit_closest(name, (const char *const *)events, m);
	} else if ((sys = edit_closest(system, (const char *const *)systems, k))) {
		events = tracefs_system_events(dir, sys);
		for (size_t i = 0; events && events[i] && !near; i++)
			if (!strcmp(events[i], name))
				near = events[i];
		if (!near && events) {
			size_t m = 0;

			while (events[m])
				m++;
			near = edit_closest(name, (const char *const *)events, m);
		}
	}
	if (near)
		snprintf(buf, n, "%s:%s", sys, near);
	tracefs_list_free(events);
	tracefs_list_free(systems);
}

struct tep_event *tracepoint_load(struct tep_handle *tep, const char *system,
				  const char *name, struct errmsg *e)
{
	struct tep_event *ev = tep_find_event_by_name(tep, system, name);
	char *fmt;
	int size = 0;

	if (ev)
		return ev;
	fmt = tracefs_event_file_read(NULL, system, name, "format", &size);
	if (!fmt) {
		char near[256];

		closest_tracepoint(system, name, near, sizeof(near));
		if (near[0])
			errmsg_set(e, ENOENT, "unknown tracepoint '%s:%s'; did you "
				   "mean '%s'?", system, name, near);
		else
			errmsg_set(e, ENOENT, "unknown tracepoint '%s:%s' (or its "
				   "format is not readable: run as root); the "
				   "kernel's are listed under %s/events", system,
				   name, tracefs_tracing_dir());
		return NULL;
	}
	if (tep_parse_format(tep, &ev, fmt, (unsigned long)size, system) != 0) {
		errmsg_set(e, EINVAL, "cannot parse the format of '%s:%s'",
			   system, name);
		ev = NULL;
	}
	free(fmt);
	return ev;
}

/*
 * The kernel answers a bad filter given to perf with EINVAL alone, but
 * says why when the same filter is written to the event's tracefs filter
 * file.  Only done when that file holds no filter of its own ("none"),
 * which is put back afterwards.
 */
static void filter_reason(const struct tep_event *ev, const char *filter,
			  char *why, size_t n)
{
	char path[512], cur[1024];
	ssize_t len;
	int fd;

	why[0] = '\0';
	snprintf(path, sizeof(path), "%s/events/%s/%s/filter",
		 tracefs_tracing_dir(), ev->system, ev->name);
	fd = open(path, O_RDWR);
	if (fd < 0)
		return;
	len = read(fd, cur, sizeof(cur) - 1);
	if (len < 4 || strncmp(cur, "none", 4)) {
		close(fd);
		return;
	}
	if (write(fd, filter, strlen(filter)) < 0 && lseek(fd, 0, SEEK_SET) == 0) {
		len = read(fd, cur, sizeof(cur) - 1);
		cur[len > 0 ? len : 0] = '\0';
		/* "...\n^\nparse_error: Field not found\n": keep the last line. */
		while (len > 0 && (cur[len - 1] == '\n' || cur[len - 1] == ' '))
			cur[--len] = '\0';
		const char *last = strrchr(cur, '\n');

		snprintf(why, n, "%.200s", last ? last + 1 : cur);
	}
	/* Clears the file again; ftrace alone reads it, perf never does. */
	len = write(fd, "0", 1);
	(void)len;
	close(fd);
}

static int apply_filter(int fd, const struct tep_event *ev, const char *filter,
			struct errmsg *e)
{
	char why[256];

	if (!filter || ioctl(fd, PERF_EVENT_IOC_SET_FILTER, filter) == 0)
		return 0;
	filter_reason(ev, filter, why, sizeof(why));
	return errmsg_set(e, EINVAL, "invalid filter '%s' for '%s:%s': %s; see "
			  "the event's fields in %s/events/%s/%s/format", filter,
			  ev->system, ev->name, why[0] ? why : "the kernel rejected it",
			  tracefs_tracing_dir(), ev->system, ev->name);
}

void tracepoint_attr(struct perf_event_attr *a, const struct tep_event *ev,
		     size_t ring_bytes)
{
	perf_attr_sampling(a, PERF_TYPE_TRACEPOINT, (uint64_t)ev->id,
			   TP_SAMPLE_TYPE, ring_bytes);
}

int tracepoint_open_cpu(struct event_set *set, struct tep_event *ev, int idx,
			enum ev_role role, uint16_t arg, const char *filter,
			struct errmsg *e)
{
	struct perf_event_attr a;
	char name[256];
	uint64_t id;
	int fd, err = 0;

	snprintf(name, sizeof(name), "%s:%s", ev->system, ev->name);
	tracepoint_attr(&a, ev, set->ring_bytes);
	if (role == ROLE_TP_SCHED_WAKING && !set->waking_without_stacks) {
		a.sample_type = WAKING_SAMPLE_TYPE;
		a.exclude_callchain_user = 1;
		a.sample_max_stack = WAKING_MAX_STACK;
	}
	fd = perf_open(&a, -1, set->cpus[idx]);
	if (fd < 0)
		return perf_open_explain(-fd, &a, name, -1, set->cpus[idx], e);
	if (ioctl(fd, PERF_EVENT_IOC_ID, &id) < 0)
		err = errmsg_set(e, errno, "cannot read the id of '%s': %s",
				 name, strerror(errno));
	if (err == 0)
		err = idmap_put_arg(&set->ids, id, role, arg);
	if (err == 0)
		err = apply_filter(fd, ev, filter, e);
	/* One ring per CPU for every event: the ring owner's. */
	if (err == 0)
		err = event_set_share_ring(set, idx, fd, e);
	if (err < 0) {
		close(fd);
		return err;
	}
	return fd;
}

int tracepoint_open(struct event_set *set, struct tep_event *ev,
		    enum ev_role role, uint16_t arg, const char *filter,
		    struct errmsg *e)
{
	for (int c = 0; c < set->ncpus; c++) {
		int fd = tracepoint_open_cpu(set, ev, c, role, arg, filter, e);

		if (fd < 0)
			return fd;
		if (event_set_keep_fd(set, fd) < 0)
			return -ENOMEM;
	}
	return 0;
}
