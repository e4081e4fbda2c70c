#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "proc_ident.h"

/* Up to n-1 bytes of path, NUL-terminated; the length or -errno. */
static ssize_t read_small(const char *path, char *buf, size_t n)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t got;

	if (fd < 0)
		return -errno;
	got = read(fd, buf, n - 1);
	if (got < 0)
		got = -errno;
	close(fd);
	if (got >= 0)
		buf[got] = '\0';
	return got;
}

int proc_start_ticks(pid_t pid, uint64_t *ticks)
{
	char path[64], buf[1024], *p;
	ssize_t got;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	got = read_small(path, buf, sizeof(buf));
	if (got == -ENOENT)
		return -ESRCH;
	if (got < 0)
		return (int)got;
	/* "PID (COMM) STATE PPID ...": the name may hold spaces and
	 * parentheses, so the fields are counted from the last ')'.
	 * starttime is field 22; after ')' comes field 3. */
	p = strrchr(buf, ')');
	if (!p)
		return -EINVAL;
	p++;
	for (int field = 3; field <= 22; field++) {
		while (*p == ' ')
			p++;
		if (field == 22) {
			char *end;

			errno = 0;
			*ticks = strtoull(p, &end, 10);
			return end == p || errno ? -EINVAL : 0;
		}
		p = strchr(p, ' ');
		if (!p)
			return -EINVAL;
	}
	return -EINVAL;
}

int proc_boot_id(char out[40])
{
	ssize_t got = read_small("/proc/sys/kernel/random/boot_id", out, 40);

	if (got < 0) {
		out[0] = '\0';
		return (int)got;
	}
	out[strcspn(out, "\n")] = '\0';
	return 0;
}

int proc_ident_self(struct proc_ident *id)
{
	int err;

	memset(id, 0, sizeof(*id));
	id->pid = getpid();
	err = proc_start_ticks(id->pid, &id->start_ticks);
	if (err < 0)
		id->start_ticks = 0;
	return proc_boot_id(id->boot_id) < 0 ? -ENOENT : err;
}

int proc_ident_alive(const struct proc_ident *id)
{
	char boot[40];
	uint64_t ticks;
	int err;

	if (id->pid <= 0)
		return 0;
	if (id->boot_id[0] && proc_boot_id(boot) == 0 && strcmp(boot, id->boot_id))
		return 0;	/* another boot, or another machine */
	err = proc_start_ticks(id->pid, &ticks);
	if (err == -ESRCH)
		return 0;
	if (err < 0)	/* no /proc here: the pid alone */
		return kill(id->pid, 0) == 0 || errno == EPERM ? -1 : 0;
	if (!id->start_ticks || !id->boot_id[0])
		return -1;
	return ticks == id->start_ticks;
}
