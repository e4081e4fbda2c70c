#include <errno.h>
#include <gelf.h>
#include <libelf.h>
#include <stdio.h>
#include <string.h>

#include "plt_bind.h"

/* A PLT stub's jmp may follow endbr64 (4 bytes) and a bnd prefix. */
#define STUB_SCAN 12

/* The file offset of vaddr in a PT_LOAD segment's file bytes, or -1. */
static int64_t vaddr_to_off(Elf *elf, uint64_t vaddr)
{
	size_t n;
	GElf_Phdr ph;

	if (elf_getphdrnum(elf, &n) != 0)
		return -1;
	for (size_t i = 0; i < n; i++)
		if (gelf_getphdr(elf, (int)i, &ph) && ph.p_type == PT_LOAD &&
		    vaddr >= ph.p_vaddr && vaddr - ph.p_vaddr < ph.p_filesz)
			return (int64_t)(vaddr - ph.p_vaddr + ph.p_offset);
	return -1;
}

/* The vaddr of file offset off, or 0 when no PT_LOAD holds it. */
static uint64_t off_to_vaddr(Elf *elf, uint64_t off)
{
	size_t n;
	GElf_Phdr ph;

	if (elf_getphdrnum(elf, &n) != 0)
		return 0;
	for (size_t i = 0; i < n; i++)
		if (gelf_getphdr(elf, (int)i, &ph) && ph.p_type == PT_LOAD &&
		    off >= ph.p_offset && off - ph.p_offset < ph.p_filesz)
			return off - ph.p_offset + ph.p_vaddr;
	return 0;
}

static int32_t le32(const unsigned char *p)
{
	return (int32_t)((uint32_t)p[0] | (uint32_t)p[1] << 8 |
			 (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24);
}

/* The GOT slot the stub at vaddr stub jumps through, or 0. */
static uint64_t stub_slot(Elf *elf, const unsigned char *img, size_t len,
			  uint64_t stub)
{
	int64_t off = vaddr_to_off(elf, stub);

	if (off < 0 || (uint64_t)off + STUB_SCAN + 6 > len)
		return 0;
	for (int i = 0; i <= STUB_SCAN; i++)
		if (img[off + i] == 0xff && img[off + i + 1] == 0x25)
			return stub + (uint64_t)i + 6 +
			       (uint64_t)(int64_t)le32(img + off + i + 2);
	return 0;
}

/* The GOT slot the call ending at file offset ret goes through, or 0. */
static uint64_t call_slot(Elf *elf, const unsigned char *img, size_t len,
			  uint64_t ret)
{
	uint64_t ret_vaddr = off_to_vaddr(elf, ret);

	if (!ret_vaddr || ret < 6 || ret > len)
		return 0;
	if (img[ret - 5] == 0xe8)
		return stub_slot(elf, img, len,
				 ret_vaddr + (uint64_t)(int64_t)le32(img + ret - 4));
	if (img[ret - 6] == 0xff && img[ret - 5] == 0x15)
		return ret_vaddr + (uint64_t)(int64_t)le32(img + ret - 4);
	return 0;
}

/* The name of the symbol a relocation of section scn at slot names. */
static int reloc_name(Elf *elf, Elf_Scn *scn, const GElf_Shdr *sh,
		      uint64_t slot, char *name, size_t n)
{
	Elf_Data *d = elf_getdata(scn, NULL);
	Elf_Scn *symscn = elf_getscn(elf, sh->sh_link);
	GElf_Shdr symsh;
	size_t count;

	if (!d || !symscn || !gelf_getshdr(symscn, &symsh) || !sh->sh_entsize)
		return -ENOENT;
	count = sh->sh_size / sh->sh_entsize;
	for (size_t i = 0; i < count; i++) {
		GElf_Rela r;
		GElf_Rel rel;
		GElf_Sym sym;
		uint64_t off, info;
		const char *s;

		if (sh->sh_type == SHT_RELA) {
			if (!gelf_getrela(d, (int)i, &r))
				break;
			off = r.r_offset;
			info = r.r_info;
		} else {
			if (!gelf_getrel(d, (int)i, &rel))
				break;
			off = rel.r_offset;
			info = rel.r_info;
		}
		if (off != slot || !GELF_R_SYM(info))
			continue;
		if (!gelf_getsym(elf_getdata(symscn, NULL), (int)GELF_R_SYM(info), &sym))
			return -ENOENT;
		s = elf_strptr(elf, symsh.sh_link, sym.st_name);
		if (!s || !*s)
			return -ENOENT;
		snprintf(name, n, "%s", s);
		return 0;
	}
	return -ENOENT;
}

int plt_bind_name(const void *image, size_t len, uint64_t ret_offset,
		  char *name, size_t n)
{
	Elf *elf;
	Elf_Scn *scn = NULL;
	GElf_Ehdr eh;
	GElf_Shdr sh;
	uint64_t slot;
	int err = -ENOENT;

	if (elf_version(EV_CURRENT) == EV_NONE)
		return -EINVAL;
	elf = elf_memory((char *)image, len);
	if (!elf || elf_kind(elf) != ELF_K_ELF || !gelf_getehdr(elf, &eh) ||
	    eh.e_machine != EM_X86_64) {
		elf_end(elf);
		return -EINVAL;
	}
	slot = call_slot(elf, image, len, ret_offset);
	while (slot && err == -ENOENT && (scn = elf_nextscn(elf, scn)))
		if (gelf_getshdr(scn, &sh) &&
		    (sh.sh_type == SHT_RELA || sh.sh_type == SHT_REL))
			err = reloc_name(elf, scn, &sh, slot, name, n);
	elf_end(elf);
	return err;
}
