#include <elfutils/libdwelf.h>
#include <errno.h>
#include <gelf.h>
#include <libelf.h>
#include <unistd.h>

#include "../common/outside_file.h"
#include "build_id.h"

/* Any regular file at the path, links followed, as the target mapped
 * it; never a FIFO or a device (outside_file.h). */
static const struct outside_rule mapped_file = { OUTSIDE_ANY_OWNER, 1, 0 };

static int read_id(int fd, char *hex, size_t n)
{
	static const char digits[] = "0123456789abcdef";
	const unsigned char *id;
	const void *bits;
	Elf *elf;
	ssize_t len;
	int err = 0;

	elf_version(EV_CURRENT);
	elf = elf_begin(fd, ELF_C_READ, NULL);
	if (!elf || elf_kind(elf) != ELF_K_ELF) {
		elf_end(elf);
		return -EINVAL;
	}
	len = dwelf_elf_gnu_build_id(elf, &bits);
	if (len <= 0)
		err = -ENODATA;
	else if ((size_t)len * 2 + 1 > n)
		err = -ENOSPC;
	id = bits;
	for (ssize_t i = 0; err == 0 && i < len; i++) {
		hex[2 * i] = digits[id[i] >> 4];
		hex[2 * i + 1] = digits[id[i] & 15];
		hex[2 * i + 2] = '\0';
	}
	elf_end(elf);
	return err;
}

int elf_build_id_path(const char *path, struct page_cache *pc, char *hex,
		      size_t n)
{
	struct stat st;
	const char *why;
	int fd = outside_file_open(path, &mapped_file, &st, &why), err;

	if (fd < 0)
		return fd;
	page_cache_note(pc, fd);
	err = read_id(fd, hex, n);
	close(fd);
	page_cache_restore(pc);
	return err;
}
