#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../common/array.h"
#include "../common/clock.h"
#include "../common/file.h"
#include "cgroup_sampler.h"

/* Where the cpu controller is mounted, v1 first (this order is the one
 * paths inside a hierarchy are looked for in). */
static const struct {
	const char *root;
	int v2;
} mounts[] = {
	{ "/sys/fs/cgroup/cpu,cpuacct", 0 },
	{ "/sys/fs/cgroup/cpu", 0 },
	{ "/sys/fs/cgroup", 1 },
	{ "/sys/fs/cgroup/unified", 1 },
};

void cgroup_sampler_init(struct cgroup_sampler *s)
{
	memset(s, 0, sizeof(*s));
	s->fd_quota = s->fd_period = s->fd_stat = -1;
	sampler_thread_init(&s->thread);
}

static void close_files(struct cgroup_sampler *s)
{
	int *fds[] = { &s->fd_quota, &s->fd_period, &s->fd_stat };

	for (size_t i = 0; i < ARRAY_SIZE(fds); i++) {
		if (*fds[i] >= 0)
			close(*fds[i]);
		*fds[i] = -1;
	}
}

void cgroup_sampler_release(struct cgroup_sampler *s)
{
	sampler_thread_release(&s->thread);
	close_files(s);
	cgroup_sampler_init(s);
}

int cgroup_sampler_wanted(const struct cgroup_sampler *s)
{
	return s->fd_stat >= 0;
}

/* Is there a file called name in dir? */
static int has_file(const char *dir, const char *name)
{
	char p[PATH_MAX + 32];
	struct stat st;

	snprintf(p, sizeof(p), "%s/%s", dir, name);
	return stat(p, &st) == 0 && S_ISREG(st.st_mode);
}

/* dir's quota file says which version it is: 0 v1, 1 v2, -1 neither. */
static int version_of(const char *dir)
{
	if (has_file(dir, "cpu.cfs_quota_us"))
		return 0;
	if (has_file(dir, "cpu.max"))
		return 1;
	return -1;
}

/* Reads fd's text from offset 0 into s->buf; its length, or -errno. */
static ssize_t read_at0(struct cgroup_sampler *s, int fd)
{
	ssize_t n = pread(fd, s->buf, sizeof(s->buf), 0);

	if (n < 0)
		return -errno;
	return n == (ssize_t)sizeof(s->buf) ? -EFBIG : n;
}

/* One reading of the open files into r.  0, or -errno (a read failed),
 * or -EINVAL (a file of another shape). */
static int read_once(struct cgroup_sampler *s, struct cgroup_reading *r)
{
	ssize_t n = read_at0(s, s->fd_quota);
	int err;

	if (n < 0)
		return (int)n;
	err = s->v2 ? cgroup_parse_cpu_max(s->buf, (size_t)n, &r->quota_us,
					   &r->period_us) :
		      cgroup_parse_us(s->buf, (size_t)n, &r->quota_us);
	if (err == 0 && !s->v2) {
		n = read_at0(s, s->fd_period);
		err = n < 0 ? (int)n :
		      cgroup_parse_us(s->buf, (size_t)n, &r->period_us);
	}
	if (err == 0) {
		n = read_at0(s, s->fd_stat);
		err = n < 0 ? (int)n :
		      cgroup_parse_cpu_stat(s->buf, (size_t)n, s->v2, &r->stat);
	}
	return err;
}

/* Opens the files of dir, a cgroup of version v2, and reads them once. */
static int open_dir(struct cgroup_sampler *s, const char *dir, int v2,
		    struct errmsg *e)
{
	const char *names[3] = { v2 ? "cpu.max" : "cpu.cfs_quota_us",
				 v2 ? NULL : "cpu.cfs_period_us", "cpu.stat" };
	int *fds[3] = { &s->fd_quota, &s->fd_period, &s->fd_stat };
	struct cgroup_reading r;
	char p[PATH_MAX + 32];
	int err;

	if (strlen(dir) >= sizeof(s->dir))
		return errmsg_set(e, ENAMETOOLONG, "cgroup path '%s' is too long", dir);
	strcpy(s->dir, dir);
	s->v2 = v2;
	for (size_t i = 0; i < ARRAY_SIZE(names); i++) {
		if (!names[i])
			continue;
		snprintf(p, sizeof(p), "%s/%s", dir, names[i]);
		*fds[i] = open(p, O_RDONLY | O_CLOEXEC);
		if (*fds[i] < 0) {
			err = errmsg_set(e, errno, "cannot open '%s': %s", p,
					 strerror(errno));
			goto out;
		}
	}
	err = read_once(s, &r);
	if (err < 0)
		errmsg_set(e, -err, "cannot read the CPU quota of cgroup '%s': %s "
			   "(its cpu.stat lacks nr_throttled: the root cgroup, "
			   "or a kernel without CFS bandwidth control?)", dir,
			   strerror(-err));
out:
	if (err < 0) {
		close_files(s);
		s->dir[0] = '\0';
	}
	return err;
}

int cgroup_sampler_open(struct cgroup_sampler *s, const char *path,
			struct errmsg *e)
{
	char dir[PATH_MAX];
	int v;

	if (path[0] != '/')
		return errmsg_set(e, EINVAL, "--cgroup '%s' is not a path: give "
				  "the cgroup's directory, e.g. "
				  "/sys/fs/cgroup/cpu/app, or its path as "
				  "/proc/PID/cgroup shows it, e.g. /app", path);
	if ((v = version_of(path)) >= 0)
		return open_dir(s, path, v, e);
	for (size_t i = 0; i < ARRAY_SIZE(mounts); i++) {
		if ((size_t)snprintf(dir, sizeof(dir), "%s%s", mounts[i].root,
				     strcmp(path, "/") ? path : "") >= sizeof(dir))
			continue;
		if (version_of(dir) == mounts[i].v2)
			return open_dir(s, dir, mounts[i].v2, e);
	}
	return errmsg_set(e, ENOENT, "no cgroup with the cpu controller at '%s': "
			  "neither that directory nor one of that name under "
			  "/sys/fs/cgroup/cpu,cpuacct, /sys/fs/cgroup/cpu or "
			  "/sys/fs/cgroup has cpu.cfs_quota_us (v1) or cpu.max "
			  "(v2); 'cat /proc/PID/cgroup' shows a process's cgroup, "
			  "and for v2 the cpu controller must be enabled in its "
			  "parent's cgroup.subtree_control", path);
}

int cgroup_sampler_open_pid(struct cgroup_sampler *s, pid_t pid,
			    struct errmsg *e)
{
	char file[64], path[PATH_MAX], *text = NULL;
	size_t len;
	int v2, err;

	snprintf(file, sizeof(file), "/proc/%d/cgroup", (int)pid);
	err = read_text_file(file, &text, &len, e);
	if (err == -ENOENT)
		err = errmsg_set(e, ESRCH, "no process %d to read the cgroup of",
				 (int)pid);
	if (err < 0)
		return err;
	if (cgroup_parse_proc_cgroup(text, len, path, sizeof(path), &v2) < 0)
		err = errmsg_set(e, ENOENT, "'%s' names no cgroup with the cpu "
				 "controller: give --cgroup", file);
	free(text);
	if (err < 0)
		return err;
	if (!strcmp(path, "/"))
		return 1;
	return cgroup_sampler_open(s, path, e);
}

/* The sampler_fn: one reading, or none when the cgroup went away. */
static int sample(void *ctx, const struct sampler_tick *tick,
		  struct sampler_batch *out)
{
	struct cgroup_sampler *s = ctx;
	struct cgroup_reading r, *slot;

	memset(&r, 0, sizeof(r));
	r.mono_ns = tick->woke_mono_ns;
	if (read_once(s, &r) < 0) {
		s->failed++;
		return 0;
	}
	slot = sampler_batch_add(out);
	if (!slot)
		return -ENOMEM;
	*slot = r;
	return 0;
}

int cgroup_sampler_start(struct cgroup_sampler *s, uint64_t interval_ns,
			 struct errmsg *e)
{
	struct sampler_config cfg = {
		.name = "cgroup sampling",
		.interval_ns = interval_ns,
		.reading_size = sizeof(struct cgroup_reading),
		.queue_max = CGROUP_QUEUE_MAX,
		.sample = sample,
		.ctx = s,
	};

	return sampler_thread_start(&s->thread, &cfg, e);
}

int cgroup_sampler_take(struct cgroup_sampler *s,
			const struct cgroup_reading **v, size_t *n)
{
	const struct sampler_batch *b;
	int err = sampler_thread_take(&s->thread, &b);

	*v = b->v;
	*n = b->n;
	return err;
}

void cgroup_sampler_stop(struct cgroup_sampler *s)
{
	sampler_thread_stop(&s->thread);
}
