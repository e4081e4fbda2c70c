/*
 * A function's [start, end) in a program's .symtab (libelf), for tests
 * that check stacks by address before or without symbolization.
 */
#ifndef FL_TEST_ELF_SYMS_H
#define FL_TEST_ELF_SYMS_H

#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>

/* The symbol's link-time value and size; 0 when found, -1 if not. */
static int elf_symbol(const char *path, const char *name, uint64_t *value,
		      uint64_t *size)
{
	int fd = open(path, O_RDONLY), found = -1;
	Elf *elf;
	Elf_Scn *scn = NULL;

	if (fd < 0)
		return -1;
	elf_version(EV_CURRENT);
	elf = elf_begin(fd, ELF_C_READ, NULL);
	while (elf && found < 0 && (scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		Elf_Data *d;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_SYMTAB ||
		    !(d = elf_getdata(scn, NULL)))
			continue;
		for (size_t i = 0; sh.sh_entsize && i < sh.sh_size / sh.sh_entsize; i++) {
			GElf_Sym sym;
			const char *n;

			if (!gelf_getsym(d, (int)i, &sym))
				continue;
			n = elf_strptr(elf, sh.sh_link, sym.st_name);
			if (n && !strcmp(n, name) && GELF_ST_TYPE(sym.st_info) == STT_FUNC) {
				*value = sym.st_value;
				*size = sym.st_size;
				found = 0;
				break;
			}
		}
	}
	if (elf)
		elf_end(elf);
	close(fd);
	return found;
}

#endif
