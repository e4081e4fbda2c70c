#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "array.h"
#include "file.h"

int read_text_file(const char *path, char **buf, size_t *len,
		   struct errmsg *e)
{
	size_t cap = 0, n = 0;
	char *b = NULL;
	int fd = open(path, O_RDONLY | O_CLOEXEC), err = 0;

	if (fd < 0) {
		err = errno;
		if (err == ENOENT)
			return -ENOENT;
		return errmsg_set(e, err, "cannot read '%s': %s", path,
				  strerror(err));
	}
	for (;;) {
		ssize_t got;

		if (ARRAY_RESERVE(b, cap, n + 65536) < 0) {
			err = errmsg_set(e, ENOMEM, "out of memory reading '%s'", path);
			goto out;
		}
		got = read(fd, b + n, cap - n - 1);
		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0) {
			err = errmsg_set(e, errno, "cannot read '%s': %s", path,
					 strerror(errno));
			goto out;
		}
		if (got == 0)
			break;
		n += (size_t)got;
	}
	b[n] = '\0';
	*buf = b;
	*len = n;
	b = NULL;
out:
	free(b);
	close(fd);
	return err;
}
