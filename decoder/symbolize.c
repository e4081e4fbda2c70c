#include <dwarf.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwfl.h>
#include <errno.h>
#include <gelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "symbolize.h"

#define DSO_KERNEL "[kernel.kallsyms]"
#define DSO_VDSO "[vdso]"

/* One PT_LOAD: where file bytes land at link-time addresses. */
struct sym_load {
	uint64_t offset, filesz, vaddr;
};

/* A file (or the vDSO image) opened once for every process mapping it. */
struct sym_file {
	char *path;		/* owned; the key */
	int ok;			/* opened: dwfl and mod are set */
	Dwfl *dwfl;		/* owned */
	Dwfl_Module *mod;	/* borrowed from dwfl */
	char build_id[2 * 64 + 1];	/* hex; "" when the file has none */
	struct sym_load *loads;	/* owned */
	size_t nloads;
	/* The module's function symbols by address, built on first use:
	 * libdwfl's own lookup (dwfl_module_addrinfo) scans every symbol
	 * each time, which a session's 100k frames cannot afford
	 * (bench/schema/symbolize_rate.c).  Names borrowed from libdwfl. */
	struct addr_syms syms;
	int syms_built;
	/* Per symbol (same index): the DWARF offset of the subprogram that
	 * holds it, so a frame in a known function walks only that
	 * function's DIEs, not the whole CU as dwarf_getscopes does.
	 * SUB_UNKNOWN: not looked up yet; SUB_NONE: no DWARF for it. */
	Dwarf_Off *sub_off;	/* owned; syms.n entries */
	Dwarf *dw;		/* borrowed from the module; NULL: none */
	Dwarf_Addr dwbias;
};

#define SUB_UNKNOWN ((Dwarf_Off)0)
#define SUB_NONE ((Dwarf_Off)-1)

struct symbolizer {
	Dwfl_Callbacks file_cb;	/* files opened by path */
	Dwfl_Callbacks vdso_cb;	/* the vDSO, from memory */
	char *debuginfo_path;	/* owned; file_cb points at it */
	const struct addr_syms *kallsyms;	/* borrowed */
	void *vdso;		/* owned copy of the image, or NULL */
	size_t vdso_len;
	struct sym_file *files;	/* owned */
	size_t nfiles, files_cap;
	uint32_t *slots;	/* owned; path hash: file index + 1, 0 empty */
	size_t nslots;		/* a power of two, or 0 */
	struct sym_func *funcs;	/* owned scratch for the last result */
	size_t funcs_cap;
	Dwarf_Die *chain;	/* owned scratch: scopes at a pc */
	size_t chain_cap;
	char dso_buf[80];	/* "[module]" of the last kernel result */
};

const char *sym_status_name(enum sym_status st)
{
	switch (st) {
	case SYM_OK: return "ok";
	case SYM_NO_MAPPING: return "no-mapping";
	case SYM_NO_FILE: return "no-file";
	case SYM_BUILD_ID_MISMATCH: return "build-id-mismatch";
	case SYM_NO_SYMBOL: return "no-symbol";
	}
	return "no-symbol";
}

/* libdwfl asks the vDSO module's userdata (the symbolizer) for its ELF. */
static int vdso_find_elf(Dwfl_Module *mod, void **userdata, const char *name,
			 Dwarf_Addr base, char **file_name, Elf **elfp)
{
	struct symbolizer *s = *userdata;

	(void)mod, (void)name, (void)base;
	*file_name = NULL;
	*elfp = elf_memory(s->vdso, s->vdso_len);
	return -1;
}

int symbolizer_new(const struct symbolizer_config *c, struct symbolizer **out,
		   struct errmsg *e)
{
	struct symbolizer *s = calloc(1, sizeof(*s));

	if (!s)
		return errmsg_set(e, ENOMEM, "out of memory");
	elf_version(EV_CURRENT);
	s->debuginfo_path = strdup(c->debuginfo_path ? c->debuginfo_path
				   : ":.debug:/usr/lib/debug");
	if (!s->debuginfo_path)
		goto nomem;
	s->file_cb.find_elf = dwfl_build_id_find_elf;
	s->file_cb.find_debuginfo = dwfl_standard_find_debuginfo;
	s->file_cb.section_address = dwfl_offline_section_address;
	s->file_cb.debuginfo_path = &s->debuginfo_path;
	s->vdso_cb = s->file_cb;
	s->vdso_cb.find_elf = vdso_find_elf;
	s->kallsyms = c->kallsyms;
	if (c->vdso && c->vdso_len) {
		s->vdso = malloc(c->vdso_len);
		if (!s->vdso)
			goto nomem;
		memcpy(s->vdso, c->vdso, c->vdso_len);
		s->vdso_len = c->vdso_len;
	}
	*out = s;
	return 0;
nomem:
	symbolizer_free(s);
	return errmsg_set(e, ENOMEM, "out of memory");
}

void symbolizer_free(struct symbolizer *s)
{
	if (!s)
		return;
	for (size_t i = 0; i < s->nfiles; i++) {
		dwfl_end(s->files[i].dwfl);
		free(s->files[i].path);
		free(s->files[i].loads);
		addr_syms_release(&s->files[i].syms);
		free(s->files[i].sub_off);
	}
	free(s->files);
	free(s->slots);
	free(s->funcs);
	free(s->chain);
	free(s->vdso);
	free(s->debuginfo_path);
	free(s);
}

/* ---- files ----------------------------------------------------------- */

/* Makes room for element n of the array *(T **)arr of *cap elements of
 * size bytes, doubling it.  0 or -ENOMEM (the array is kept). */
static int grow(void *arr, size_t *cap, size_t n, size_t size)
{
	void **v = arr, *nv;
	size_t ncap = *cap ? 2 * *cap : 16;

	if (n < *cap)
		return 0;
	nv = realloc(*v, ncap * size);
	if (!nv)
		return -ENOMEM;
	*v = nv;
	*cap = ncap;
	return 0;
}

static uint64_t hash_str(const char *p)
{
	uint64_t h = 0xcbf29ce484222325ull;	/* FNV-1a */

	for (; *p; p++)
		h = (h ^ (unsigned char)*p) * 0x100000001b3ull;
	return h;
}

static int grow_slots(struct symbolizer *s)
{
	size_t n = s->nslots ? 2 * s->nslots : 64;
	uint32_t *slots = calloc(n, sizeof(*slots));

	if (!slots)
		return -ENOMEM;
	for (size_t i = 0; i < s->nfiles; i++) {
		size_t j = hash_str(s->files[i].path) & (n - 1);

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
static int vdso_range(const struct symbolizer *s, GElf_Addr *lo, GElf_Addr *hi)
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

/* Opens f at its link-time addresses (bias 0).  -ENOMEM, or 0 with f->ok
 * telling whether the file could be used. */
static int open_file(struct symbolizer *s, struct sym_file *f)
{
	const char *base = strrchr(f->path, '/');
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
		f->mod = dwfl_report_elf(f->dwfl, base ? base + 1 : f->path,
					 f->path, -1, 0, true);
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

/* The entry for path, opened on first use.  NULL only when out of memory. */
static struct sym_file *file_get(struct symbolizer *s, const char *path)
{
	struct sym_file *f;
	size_t j;

	if (s->nslots) {
		for (j = hash_str(path) & (s->nslots - 1); s->slots[j];
		     j = (j + 1) & (s->nslots - 1))
			if (!strcmp(s->files[s->slots[j] - 1].path, path))
				return &s->files[s->slots[j] - 1];
	}
	if (grow(&s->files, &s->files_cap, s->nfiles, sizeof(*s->files)) < 0 ||
	    (2 * (s->nfiles + 1) > s->nslots && grow_slots(s) < 0))
		return NULL;
	f = &s->files[s->nfiles];
	memset(f, 0, sizeof(*f));
	f->path = strdup(path);
	if (!f->path)
		return NULL;
	if (open_file(s, f) < 0) {
		dwfl_end(f->dwfl);
		free(f->loads);
		free(f->path);
		return NULL;
	}
	for (j = hash_str(path) & (s->nslots - 1); s->slots[j];
	     j = (j + 1) & (s->nslots - 1))
		;
	s->slots[j] = (uint32_t)s->nfiles + 1;
	s->nfiles++;
	return f;
}

/* The link-time address of file offset off; -1 when no PT_LOAD has it. */
static int offset_to_vaddr(const struct sym_file *f, uint64_t off,
			   uint64_t *vaddr)
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

/* ---- names ----------------------------------------------------------- */

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
static int build_syms(struct sym_file *f)
{
	int n = dwfl_module_getsymtab(f->mod), err = 0;

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

static struct sym_func *push_func(struct symbolizer *s, size_t n)
{
	if (grow(&s->funcs, &s->funcs_cap, n, sizeof(*s->funcs)) < 0)
		return NULL;
	memset(&s->funcs[n], 0, sizeof(s->funcs[n]));
	return &s->funcs[n];
}

static const char *die_name(Dwarf_Die *die)
{
	Dwarf_Attribute mem, *a;
	const char *name;

	/* The C++/Rust linkage name would be mangled: the plain name reads
	 * better next to the ELF symbol of the containing function. */
	a = dwarf_attr_integrate(die, DW_AT_name, &mem);
	name = a ? dwarf_formstring(a) : NULL;
	return name ? name : "??";
}

/* Where an inlined subroutine was called from: its DW_AT_call_file and
 * DW_AT_call_line, resolved through the CU's file table. */
static void call_site(Dwarf_Die *inl, Dwarf_Die *cu, const char **file,
		      int *line)
{
	Dwarf_Attribute mem;
	Dwarf_Word idx, ln;
	Dwarf_Files *files;
	size_t nfiles;

	*file = NULL;
	*line = 0;
	if (dwarf_formudata(dwarf_attr(inl, DW_AT_call_line, &mem), &ln) == 0)
		*line = (int)ln;
	if (dwarf_formudata(dwarf_attr(inl, DW_AT_call_file, &mem), &idx) == 0 &&
	    dwarf_getsrcfiles(cu, &files, &nfiles) == 0 && idx < nfiles)
		*file = dwarf_filesrc(files, idx, NULL, NULL);
}

static int push_scope(struct symbolizer *s, size_t n, const Dwarf_Die *die)
{
	if (grow(&s->chain, &s->chain_cap, n, sizeof(*s->chain)) < 0)
		return -ENOMEM;
	s->chain[n] = *die;
	return 0;
}

/* The concrete subprogram among parent's children (and inside the
 * namespaces and classes there) that holds dwpc: 0, or -1 when none. */
static int subprogram_in(Dwarf_Die *parent, Dwarf_Addr dwpc, Dwarf_Die *sub)
{
	Dwarf_Die child;

	if (dwarf_child(parent, &child) != 0)
		return -1;
	do {
		switch (dwarf_tag(&child)) {
		case DW_TAG_subprogram:
			if (dwarf_haspc(&child, dwpc) > 0) {
				*sub = child;
				return 0;
			}
			break;
		case DW_TAG_namespace:
		case DW_TAG_class_type:
		case DW_TAG_structure_type:
		case DW_TAG_union_type:
		case DW_TAG_module:
			if (subprogram_in(&child, dwpc, sub) == 0)
				return 0;
			break;
		}
	} while (dwarf_siblingof(&child, &child) == 0);
	return -1;
}

/* The function (concrete DW_TAG_subprogram) holding module address pc.
 * Not dwarf_getscopes: inside inlined code it leads to the inlined
 * function's abstract origin, not to the function it was inlined into. */
static int find_subprogram(struct sym_file *f, Dwarf_Addr pc, Dwarf_Die *sub)
{
	Dwarf_Addr bias;
	Dwarf_Die *cu = dwfl_module_addrdie(f->mod, pc, &bias);

	return cu ? subprogram_in(cu, pc - bias, sub) : -1;
}

/*
 * s->chain[0..*depth): the subprogram holding pc (module address) and the
 * inlined subroutines within it that hold pc, outermost first.  sym, the
 * ELF symbol at pc (or NULL), caches the subprogram.  0 or -ENOMEM.
 */
static int scope_chain(struct symbolizer *s, struct sym_file *f,
		       const struct addr_sym *sym, Dwarf_Addr pc, size_t *depth)
{
	Dwarf_Off *cached = sym ? &f->sub_off[sym - f->syms.v] : NULL;
	Dwarf_Die cur, child;
	Dwarf_Addr dwpc = pc - f->dwbias;
	int err;

	*depth = 0;
	if (!f->dw || (cached && *cached == SUB_NONE))
		return 0;
	if (cached && *cached != SUB_UNKNOWN) {
		if (!dwarf_offdie(f->dw, *cached, &cur))
			return 0;
	} else {
		if (find_subprogram(f, pc, &cur) < 0) {
			if (cached)
				*cached = SUB_NONE;
			return 0;
		}
		/* Only a DIE of the module's own Dwarf can be found again by
		 * its offset (not one of a dwz or split file). */
		if (cached && dwarf_cu_getdwarf(cur.cu) == f->dw)
			*cached = dwarf_dieoffset(&cur);
	}
	if ((err = push_scope(s, (*depth)++, &cur)) < 0)
		return err;
	/* Down through the blocks and inlined calls that hold pc. */
	while (dwarf_child(&cur, &child) == 0) {
		int tag, found = 0;

		do {
			tag = dwarf_tag(&child);
			found = (tag == DW_TAG_inlined_subroutine ||
				 tag == DW_TAG_lexical_block ||
				 tag == DW_TAG_try_block || tag == DW_TAG_catch_block) &&
				dwarf_haspc(&child, dwpc) > 0;
		} while (!found && dwarf_siblingof(&child, &child) == 0);
		if (!found)
			break;
		cur = child;
		if (tag == DW_TAG_inlined_subroutine &&
		    (err = push_scope(s, (*depth)++, &cur)) < 0)
			return err;
	}
	return 0;
}

/*
 * The functions at pc (link-time address) in f: the inlined ones from
 * DWARF, innermost first, then the containing function (named from the
 * ELF symbol table when it has one).  adj = addr - pc, so that offsets
 * are of the frame's own address.  Sets *n; 0 or -ENOMEM.
 */
static int names_at(struct symbolizer *s, struct sym_file *f, uint64_t pc,
		    uint64_t adj, size_t *n)
{
	const struct addr_sym *sym;
	const char *file = NULL;
	Dwfl_Line *src;
	Dwarf_Die cu;
	size_t depth;
	int line = 0, err;
	struct sym_func *fn;

	*n = 0;
	if (!f->syms_built && (err = build_syms(f)) < 0)
		return err;
	sym = addr_syms_find(&f->syms, pc);
	src = dwfl_module_getsrc(f->mod, pc);
	if (src)
		file = dwfl_lineinfo(src, NULL, &line, NULL, NULL, NULL);
	if ((err = scope_chain(s, f, sym, pc, &depth)) < 0)
		return err;
	if (depth)
		dwarf_diecu(&s->chain[0], &cu, NULL, NULL);
	/* Innermost first: each inlined call's site is the line of the
	 * level around it. */
	for (size_t i = depth; i-- > 0;) {
		Dwarf_Die *d = &s->chain[i];

		if (!(fn = push_func(s, *n)))
			return -ENOMEM;
		fn->function = die_name(d);
		fn->file = file;
		fn->line = line;
		(*n)++;
		if (i > 0) {
			fn->inlined = 1;
			call_site(d, &cu, &file, &line);
			continue;
		}
		Dwarf_Addr lo, hi;

		if (dwarf_lowpc(d, &lo) == 0 && dwarf_highpc(d, &hi) == 0 && hi >= lo) {
			fn->has_offset = 1;
			fn->offset = pc - f->dwbias - lo + adj;
			fn->size = hi - lo;
		}
	}
	if (!sym)
		return 0;
	if (*n == 0) {
		if (!(fn = push_func(s, (*n)++)))
			return -ENOMEM;
		fn->file = file;
		fn->line = line;
	}
	fn = &s->funcs[*n - 1];
	fn->function = sym->name;
	fn->has_offset = 1;
	fn->offset = pc - sym->start + adj;
	fn->size = sym->guessed ? 0 : sym->size;
	return 0;
}

/* ---- frames ---------------------------------------------------------- */

static void result_init(struct sym_result *r, enum sym_status st,
			const char *dso)
{
	memset(r, 0, sizeof(*r));
	r->status = st;
	r->dso = dso;
}

/* Anonymous memory (a JIT's code lives there), or a pseudo-file. */
static int is_anon(const char *path)
{
	return path[0] != '/' || !strncmp(path, "//anon", 6) ||
	       !strncmp(path, "/memfd:", 7) || !strncmp(path, "/dev/zero", 9);
}

/* r names addr by hit, a range of a text table (kallsyms, perf map). */
static int name_from_table(struct symbolizer *s, const struct addr_sym *hit,
			   uint64_t addr, struct sym_result *r)
{
	struct sym_func *fn = push_func(s, 0);

	if (!fn)
		return -ENOMEM;
	fn->function = hit->name;
	fn->has_offset = 1;
	fn->offset = addr - hit->start;
	fn->size = hit->size;
	r->status = SYM_OK;
	r->funcs = s->funcs;
	r->nfuncs = 1;
	return 0;
}

/* 1 with r filled when the JIT map names addr, 0 when it does not (or
 * there is none), -ENOMEM. */
static int from_jit(const struct addr_syms *jit, const char *jit_dso,
		    uint64_t addr, int return_addr, struct symbolizer *s,
		    struct sym_result *r)
{
	const struct addr_sym *hit = jit ? addr_syms_find(jit, addr - (uint64_t)return_addr)
				     : NULL;
	if (!hit)
		return 0;
	result_init(r, SYM_NO_SYMBOL, jit_dso);
	return name_from_table(s, hit, addr, r) < 0 ? -ENOMEM : 1;
}

static int from_file(struct symbolizer *s, const struct sym_mapping *m,
		     uint64_t addr, int return_addr, struct sym_result *r)
{
	struct sym_file *f = file_get(s, m->path);
	uint64_t off = addr - m->start + m->pgoff, vaddr;
	size_t n;
	int err;

	if (!f)
		return -ENOMEM;
	result_init(r, SYM_NO_FILE, f->path);
	r->has_dso_offset = 1;
	r->dso_offset = off;
	if (!f->ok)
		return 0;
	r->build_id = f->build_id[0] ? f->build_id : NULL;
	if (m->build_id && m->build_id[0] && strcasecmp(m->build_id, f->build_id)) {
		r->status = SYM_BUILD_ID_MISMATCH;
		return 0;
	}
	r->status = SYM_NO_SYMBOL;
	if (offset_to_vaddr(f, off, &vaddr) < 0)
		return 0;
	err = names_at(s, f, vaddr - (uint64_t)return_addr, (uint64_t)return_addr, &n);
	if (err < 0)
		return err;
	if (n) {
		r->status = SYM_OK;
		r->funcs = s->funcs;
		r->nfuncs = n;
	}
	return 0;
}

int symbolize_user(struct symbolizer *s, const struct sym_mapping *m,
		   uint64_t addr, int return_addr, const struct addr_syms *jit,
		   const char *jit_dso, struct sym_result *r)
{
	int found;

	if (!m || (strcmp(m->path, DSO_VDSO) && is_anon(m->path))) {
		/* Code cannot run from a mapping without PROT_EXEC. */
		found = !m || m->exec ? from_jit(jit, jit_dso, addr, return_addr, s, r)
				      : 0;
		if (found)
			return found < 0 ? found : 0;
		if (!m) {
			result_init(r, SYM_NO_MAPPING, NULL);
			return 0;
		}
		result_init(r, SYM_NO_SYMBOL, m->path[0] ? m->path : "//anon");
		return 0;
	}
	return from_file(s, m, addr, return_addr, r);
}

int symbolize_kernel(struct symbolizer *s, uint64_t addr, int return_addr,
		     struct sym_result *r)
{
	const struct addr_sym *hit;

	if (!s->kallsyms) {
		result_init(r, SYM_NO_FILE, DSO_KERNEL);
		return 0;
	}
	hit = addr_syms_find(s->kallsyms, addr - (uint64_t)return_addr);
	result_init(r, SYM_NO_SYMBOL, DSO_KERNEL);
	if (!hit)
		return 0;
	if (hit->module) {
		snprintf(s->dso_buf, sizeof(s->dso_buf), "[%s]", hit->module);
		r->dso = s->dso_buf;
	}
	return name_from_table(s, hit, addr, r);
}
