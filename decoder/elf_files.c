#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../common/array.h"
#include "../common/outside_file.h"
#include "debug_paths.h"
#include "elf_files.h"

/* libdwfl asks the vDSO module's userdata (the elf_files) for its ELF. */
static int vdso_find_elf(Dwfl_Module *mod, void **userdata, const char *name,
			 Dwarf_Addr base, char **file_name, Elf **elfp)
{
	struct elf_files *s = *userdata;

	(void)mod, (void)name, (void)base;
	*file_name = NULL;
	*elfp = elf_memory(s->vdso, s->vdso_len);
	return -1;
}

/* A candidate debug file (debug_paths_each): noted if it is there.  One
 * that is there and neither a regular file nor a directory (a FIFO the
 * directory's owner put there) stops the walk with 1: libdwfl's search
 * would block opening it.  (stat of a FIFO does not block.) */
static int note_candidate(void *ctx, const char *path)
{
	struct elf_files *s = ctx;
	int err = page_cache_note_path(&s->cache, path);
	struct stat st;

	if (err == -EPERM && stat(path, &st) == 0 && !S_ISDIR(st.st_mode))
		return 1;
	return err == -ENOMEM ? -ENOMEM : 0;
}

/* libdwfl's standard search for a module's debug file, with every file
 * it may read noted first.  The module's userdata is the elf_files. */
static int find_debuginfo(Dwfl_Module *mod, void **userdata,
			  const char *modname, Dwarf_Addr base,
			  const char *file_name, const char *debuglink_file,
			  GElf_Word debuglink_crc, char **debuginfo_file_name)
{
	struct elf_files *s = *userdata;
	const unsigned char *id = NULL;
	GElf_Addr id_vaddr;
	int len = dwfl_module_build_id(mod, &id, &id_vaddr), fd;

	/* Out of memory noting: the search goes on, and what it reads of
	 * a file not noted stays cached. */
	if (s && debug_paths_each(s->debuginfo_path, len > 0 ? id : NULL,
				  len > 0 ? (size_t)len : 0, file_name,
				  debuglink_file, note_candidate, s) == 1)
		return -1;	/* no debug file: the module's own symbols */
	fd = dwfl_standard_find_debuginfo(mod, userdata, modname, base,
					  file_name, debuglink_file,
					  debuglink_crc, debuginfo_file_name);
	if (s && fd >= 0)
		page_cache_note(&s->cache, fd);	/* a file none listed */
	return fd;
}

int elf_files_init(struct elf_files *fs, const char *debuginfo_path,
		   const void *vdso, size_t vdso_len)
{
	memset(fs, 0, sizeof(*fs));
	elf_version(EV_CURRENT);
	page_cache_init(&fs->cache);
	fs->debuginfo_path = strdup(debuginfo_path ? debuginfo_path
				    : ":.debug:/usr/lib/debug");
	if (!fs->debuginfo_path)
		return -ENOMEM;
	fs->file_cb.find_elf = dwfl_build_id_find_elf;
	fs->file_cb.find_debuginfo = find_debuginfo;
	fs->file_cb.section_address = dwfl_offline_section_address;
	fs->file_cb.debuginfo_path = &fs->debuginfo_path;
	fs->vdso_cb = fs->file_cb;
	fs->vdso_cb.find_elf = vdso_find_elf;
	if (vdso && vdso_len) {
		fs->vdso = malloc(vdso_len);
		if (!fs->vdso)
			return -ENOMEM;
		memcpy(fs->vdso, vdso, vdso_len);
		fs->vdso_len = vdso_len;
	}
	return 0;
}

void elf_files_release(struct elf_files *fs)
{
	for (size_t i = 0; i < fs->nfiles; i++) {
		struct sym_file *f = fs->files[i];

		dwfl_end(f->dwfl);
		free(f->path);
		free(f->loads);
		addr_syms_release(&f->syms);
		free(f->sub_off);
		free(f);
	}
	free(fs->files);
	free(fs->slots);
	free(fs->vdso);
	free(fs->debuginfo_path);
	/* After every dwfl_end: a page libdwfl still mapped would stay. */
	page_cache_release(&fs->cache);
	memset(fs, 0, sizeof(*fs));
}

static uint64_t hash_str(const char *p)
{
	uint64_t h = 0xcbf29ce484222325ull;	/* FNV-1a */

	for (; *p; p++)
		h = (h ^ (unsigned char)*p) * 0x100000001b3ull;
	return h;
}

static int grow_slots(struct elf_files *s)
{
	size_t n = s->nslots ? 2 * s->nslots : 64;
	uint32_t *slots = calloc(n, sizeof(*slots));

	if (!slots)
		return -ENOMEM;
	for (size_t i = 0; i < s->nfiles; i++) {
		size_t j = hash_str(s->files[i]->path) & (n - 1);

		while (slots[j])
			j = (j + 1) & (n - 1);
		slots[j] = (uint32_t)i + 1;
	}
	free(s->slots);
	s->slots = slots;
	s->nslots = n;
	return 0;
}

/* The PT_LOAD headers and the build id of an opened module. */
static int read_headers(struct sym_file *f)
{
	const unsigned char *bits;
	GElf_Addr bias, id_vaddr;
	Elf *elf = dwfl_module_getelf(f->mod, &bias);
	size_t phnum;
	int len;

	if (!elf || elf_getphdrnum(elf, &phnum) != 0)
		return -1;
	f->loads = calloc(phnum ? phnum : 1, sizeof(*f->loads));
	if (!f->loads)
		return -ENOMEM;
	for (size_t i = 0; i < phnum; i++) {
		GElf_Phdr mem, *ph = gelf_getphdr(elf, (int)i, &mem);

		if (ph && ph->p_type == PT_LOAD)
			f->loads[f->nloads++] = (struct sym_load){
				ph->p_offset, ph->p_filesz, ph->p_vaddr };
	}
	len = dwfl_module_build_id(f->mod, &bits, &id_vaddr);
	for (int i = 0; i < len && i < 64; i++) {
		static const char hexdig[] = "0123456789abcdef";

		f->build_id[2 * i] = hexdig[bits[i] >> 4];
		f->build_id[2 * i + 1] = hexdig[bits[i] & 15];
	}
	return 0;
}

/* The vDSO image's address range, as libdwfl computes a module's. */
static int vdso_range(const struct elf_files *s, GElf_Addr *lo, GElf_Addr *hi)
{
	Elf *elf = elf_memory(s->vdso, s->vdso_len);
	size_t phnum;
	int found = 0;

	if (!elf)
		return -1;
	if (elf_getphdrnum(elf, &phnum) == 0)
		for (size_t i = 0; i < phnum; i++) {
			GElf_Phdr mem, *ph = gelf_getphdr(elf, (int)i, &mem);

			if (!ph || ph->p_type != PT_LOAD)
				continue;
			if (!found)
				*lo = ph->p_vaddr & -(ph->p_align ? ph->p_align : 1);
			*hi = ph->p_vaddr + ph->p_memsz;
			found = 1;
		}
	elf_end(elf);
	return found ? 0 : -1;
}

/* f's file reported to its Dwfl, its page cache noted first.  The path
 * is the kernel's (d_path: no links in it); whoever owns the directory
 * may have put anything there since, so it is opened as an outside file:
 * a link, a FIFO or a device is no file of the mapping (no-file). */
static Dwfl_Module *report_file(struct elf_files *s, struct sym_file *f)
{
	static const struct outside_rule rule = { OUTSIDE_ANY_OWNER, 0, 0 };
	const char *base = strrchr(f->path, '/'), *why;
	struct stat st;
	int fd = outside_file_open(f->path, &rule, &st, &why);
	Dwfl_Module *mod;
	void **ud;

	if (fd < 0)
		return NULL;
	if (page_cache_note(&s->cache, fd) == -ENOMEM) {
		close(fd);
		return NULL;
	}
	/* libdwfl owns fd once the module is there, and not before. */
	mod = dwfl_report_elf(f->dwfl, base ? base + 1 : f->path, f->path, fd,
			      0, true);
	if (!mod) {
		close(fd);
		return NULL;
	}
	dwfl_module_info(mod, &ud, NULL, NULL, NULL, NULL, NULL, NULL);
	*ud = s;	/* for find_debuginfo */
	return mod;
}

/* Opens f at its link-time addresses (bias 0).  -ENOMEM, or 0 with f->ok
 * telling whether the file could be used. */
static int open_file(struct elf_files *s, struct sym_file *f)
{
	int err;

	if (!strcmp(f->path, DSO_VDSO)) {
		GElf_Addr lo, hi;
		void **ud;

		if (!s->vdso || vdso_range(s, &lo, &hi) < 0)
			return 0;
		f->dwfl = dwfl_begin(&s->vdso_cb);
		if (!f->dwfl)
			return -ENOMEM;
		dwfl_report_begin(f->dwfl);
		f->mod = dwfl_report_module(f->dwfl, DSO_VDSO, lo, hi);
		if (f->mod) {
			dwfl_module_info(f->mod, &ud, NULL, NULL, NULL, NULL,
					 NULL, NULL);
			*ud = s;
		}
	} else {
		f->dwfl = dwfl_begin(&s->file_cb);
		if (!f->dwfl)
			return -ENOMEM;
		dwfl_report_begin(f->dwfl);
		f->mod = report_file(s, f);
	}
	dwfl_report_end(f->dwfl, NULL, NULL);
	if (!f->mod)
		return 0;
	err = read_headers(f);
	if (err == -ENOMEM)
		return err;
	f->ok = err == 0;
	return 0;
}

struct sym_file *elf_files_get(struct elf_files *s, const char *path)
{
	struct sym_file *f;
	size_t j;

	if (s->nslots) {
		for (j = hash_str(path) & (s->nslots - 1); s->slots[j];
		     j = (j + 1) & (s->nslots - 1))
			if (!strcmp(s->files[s->slots[j] - 1]->path, path))
				return s->files[s->slots[j] - 1];
	}
	if (ARRAY_RESERVE(s->files, s->files_cap, s->nfiles + 1) < 0 ||
	    (2 * (s->nfiles + 1) > s->nslots && grow_slots(s) < 0))
		return NULL;
	f = calloc(1, sizeof(*f));
	if (!f)
		return NULL;
	f->path = strdup(path);
	if (!f->path || open_file(s, f) < 0) {
		dwfl_end(f->dwfl);
		free(f->loads);
		free(f->path);
		free(f);
		return NULL;
	}
	for (j = hash_str(path) & (s->nslots - 1); s->slots[j];
	     j = (j + 1) & (s->nslots - 1))
		;
	s->slots[j] = (uint32_t)s->nfiles + 1;
	s->files[s->nfiles++] = f;
	return f;
}

int sym_file_vaddr(const struct sym_file *f, uint64_t off, uint64_t *vaddr)
{
	for (size_t i = 0; i < f->nloads; i++) {
		const struct sym_load *l = &f->loads[i];

		if (off >= l->offset && off - l->offset < l->filesz) {
			*vaddr = off - l->offset + l->vaddr;
			return 0;
		}
	}
	/* The page-aligned mapping may start before the segment's first
	 * byte; code is never there, but a wild address can be. */
	for (size_t i = 0; i < f->nloads; i++) {
		const struct sym_load *l = &f->loads[i];
		uint64_t pad = l->offset & 4095;

		if (off + pad >= l->offset && off + pad - l->offset < l->filesz + pad) {
			*vaddr = off - l->offset + l->vaddr;
			return 0;
		}
	}
	return -1;
}

/* No function is near this long: a sizeless symbol (assembly) reaches to
 * the next symbol, but not across a larger gap. */
#define SIZELESS_MAX (64u << 10)

static int is_code_symbol(const GElf_Sym *sym, GElf_Word shndx)
{
	int type = GELF_ST_TYPE(sym->st_info);

	return shndx != SHN_UNDEF && sym->st_value != 0 &&
	       (type == STT_FUNC || type == STT_GNU_IFUNC ||
		(type == STT_NOTYPE && GELF_ST_BIND(sym->st_info) != STB_LOCAL));
}

/* How much a name is wanted among symbols at one address: a global
 * (2) over a local or weak one (1) over a versioned alias such as
 * "__libc_start_main@GLIBC_2.2.5" (0). */
static int symbol_rank(const GElf_Sym *sym, const char *name)
{
	if (strchr(name, '@'))
		return 0;
	return GELF_ST_BIND(sym->st_info) == STB_GLOBAL ? 2 : 1;
}

/*
 * f->syms from the module's symbol table (.symtab of the file or its
 * debug file, else .dynsym: libdwfl chooses).  Where symbols share an
 * address the best ranked wins: it is added last, and the latest start
 * wins in addr_syms_find.
 */
int sym_file_symbols(struct sym_file *f)
{
	int n = dwfl_module_getsymtab(f->mod), err = 0;

	if (f->syms_built)
		return 0;
	f->syms_built = 1;
	for (int rank = 0; rank < 3 && err == 0; rank++)
		for (int i = 1; i < n && err == 0; i++) {
			GElf_Sym sym;
			GElf_Addr addr;
			GElf_Word shndx;
			const char *name = dwfl_module_getsym_info(f->mod, i, &sym,
						&addr, &shndx, NULL, NULL);

			if (!name || !*name || !is_code_symbol(&sym, shndx) ||
			    symbol_rank(&sym, name) != rank)
				continue;
			err = addr_syms_add(&f->syms, addr, sym.st_size, name, NULL);
		}
	if (err < 0)
		return err;
	addr_syms_sort(&f->syms);
	for (size_t i = 0; i < f->syms.n; i++) {
		struct addr_sym *a = &f->syms.v[i];
		size_t j = i + 1;

		if (a->size)
			continue;
		while (j < f->syms.n && f->syms.v[j].start == a->start)
			j++;
		if (j < f->syms.n && f->syms.v[j].start - a->start <= SIZELESS_MAX) {
			a->size = f->syms.v[j].start - a->start;
			a->guessed = 1;
		}
	}
	addr_syms_sort(&f->syms);
	f->sub_off = calloc(f->syms.n ? f->syms.n : 1, sizeof(*f->sub_off));
	if (!f->sub_off)
		return -ENOMEM;
	f->dw = dwfl_module_getdwarf(f->mod, &f->dwbias);
	return 0;
}

