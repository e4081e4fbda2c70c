#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "command_fifo.h"

/* Why what an O_PATH descriptor names may not be read as the FIFO. */
static const char *refusal(const struct stat *st)
{
	if (!S_ISFIFO(st->st_mode))
		return "it is no FIFO";
	if (st->st_uid != 0 && st->st_uid != geteuid())
		return "it belongs to another user, who could let anyone write to it";
	return NULL;
}

int command_fifo_open(const char *path, const char **why)
{
	char proc[64];
	struct stat st;
	int at, fd, err;

	if (mkfifo(path, 0600) < 0 && errno != EEXIST)
		return err = errno, *why = strerror(err), -err;
	at = open(path, O_PATH | O_NOFOLLOW | O_CLOEXEC);
	if (at < 0)
		return err = errno, *why = strerror(err), -err;
	if (fstat(at, &st) < 0) {
		err = errno;
		close(at);
		return *why = strerror(err), -err;
	}
	/* O_PATH with O_NOFOLLOW opens the link itself. */
	*why = S_ISLNK(st.st_mode) ? "it is a symbolic link" : refusal(&st);
	if (*why) {
		close(at);
		return -EPERM;
	}
	/* The inode just checked, opened through the descriptor: a path
	 * changed since is not looked at again. */
	snprintf(proc, sizeof(proc), "/proc/self/fd/%d", at);
	fd = open(proc, O_RDWR | O_NONBLOCK | O_CLOEXEC);
	err = errno;
	close(at);
	if (fd < 0)
		return *why = strerror(err), -err;
	return fd;
}
