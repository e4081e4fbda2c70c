#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <link.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <unistd.h>

#include "symbol_sources.h"

int read_text_file(const char *path, char **buf, size_t *len,
		   struct errmsg *e)
{
	size_t cap = 1 << 16, n = 0;
	char *b = NULL, *nb;
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

		if (!b || n + 1 >= cap) {
			cap = b ? 2 * cap : cap;
			if (!(nb = realloc(b, cap))) {
				err = errmsg_set(e, ENOMEM, "out of memory reading '%s'",
						 path);
				goto out;
			}
			b = nb;
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

int vdso_image(const void **image, size_t *len)
{
	const ElfW(Ehdr) *eh = (const void *)getauxval(AT_SYSINFO_EHDR);
	const ElfW(Phdr) *ph;
	size_t end;

	if (!eh)
		return -ENOENT;
	/* The section headers come last in the image the kernel maps; the
	 * loadable segments are a bound too, should they not. */
	end = eh->e_shoff + (size_t)eh->e_shnum * eh->e_shentsize;
	ph = (const void *)((const char *)eh + eh->e_phoff);
	for (int i = 0; i < eh->e_phnum; i++)
		if (ph[i].p_type == PT_LOAD && ph[i].p_offset + ph[i].p_filesz > end)
			end = ph[i].p_offset + ph[i].p_filesz;
	*image = eh;
	*len = end;
	return 0;
}
