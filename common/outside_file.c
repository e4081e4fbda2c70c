#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "outside_file.h"

static const char *kind_of(mode_t m)
{
	if (S_ISFIFO(m))
		return "a FIFO, not a regular file";
	if (S_ISCHR(m))
		return "a character device, not a regular file";
	if (S_ISBLK(m))
		return "a block device, not a regular file";
	if (S_ISSOCK(m))
		return "a socket, not a regular file";
	if (S_ISDIR(m))
		return "a directory, not a regular file";
	return "not a regular file";
}

int outside_file_open(const char *path, const struct outside_rule *r,
		      struct stat *st, const char **why)
{
	int flags = O_RDONLY | O_NONBLOCK | O_CLOEXEC | (r->follow ? 0 : O_NOFOLLOW);
	int fd = open(path, flags), err;

	if (fd < 0) {
		err = errno;
		if (err == ENOENT)
			return *why = "not there", -ENOENT;
		/* O_NOFOLLOW's answer for a link in the last component. */
		if (err == ELOOP && !r->follow)
			return *why = "a symbolic link", -EPERM;
		return *why = strerror(err), -err;
	}
	err = 0;
	if (fstat(fd, st) < 0) {
		err = -errno;
		*why = strerror(errno);
	} else if (!S_ISREG(st->st_mode)) {
		err = -EPERM;
		*why = kind_of(st->st_mode);
	} else if (r->owner != OUTSIDE_ANY_OWNER && st->st_uid != 0 &&
		   st->st_uid != r->owner) {
		err = -EPERM;
		*why = "owned by another user";
	} else if (r->max_size && (uint64_t)st->st_size > r->max_size) {
		err = -EPERM;
		*why = "larger than faultline reads";
	} else if (fcntl(fd, F_SETFL, O_RDONLY) < 0) {
		err = -errno;
		*why = strerror(errno);
	}
	if (err < 0) {
		close(fd);
		return err;
	}
	return fd;
}

int outside_file_read(const char *path, const struct outside_rule *r,
		      char **buf, size_t *len, const char **why)
{
	struct stat st;
	int fd = outside_file_open(path, r, &st, why), err = 0;
	size_t cap, n = 0;
	char *b;

	if (fd < 0)
		return fd;
	/* One byte more than the bound tells a file that grew past it. */
	cap = (size_t)st.st_size + 65536;
	if (r->max_size && cap > r->max_size + 1)
		cap = (size_t)r->max_size + 1;
	b = malloc(cap + 1);
	if (!b) {
		close(fd);
		return *why = "out of memory", -ENOMEM;
	}
	for (;;) {
		ssize_t got;

		if (n == cap) {
			char *nb;

			if (r->max_size && n > r->max_size) {
				err = -EFBIG;
				*why = "larger than faultline reads";
				break;
			}
			cap = cap * 2;
			if (r->max_size && cap > r->max_size + 1)
				cap = (size_t)r->max_size + 1;
			nb = realloc(b, cap + 1);
			if (!nb) {
				err = -ENOMEM;
				*why = "out of memory";
				break;
			}
			b = nb;
		}
		got = read(fd, b + n, cap - n);
		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0) {
			err = -errno;
			*why = strerror(errno);
			break;
		}
		if (got == 0)
			break;
		n += (size_t)got;
	}
	close(fd);
	if (err == 0 && r->max_size && n > r->max_size) {
		err = -EFBIG;
		*why = "larger than faultline reads";
	}
	if (err < 0) {
		free(b);
		return err;
	}
	b[n] = '\0';
	*buf = b;
	*len = n;
	return 0;
}
