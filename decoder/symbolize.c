#include <dwarf.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwfl.h>
#include <errno.h>
#include <gelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../common/array.h"
#include "elf_files.h"
#include "symbolize.h"

#define DSO_KERNEL "[kernel.kallsyms]"

struct symbolizer {
	struct elf_files files;
	const struct addr_syms *kallsyms;	/* borrowed */
	struct sym_func *funcs;	/* owned scratch for the last result */
	size_t funcs_cap;
	Dwarf_Die *chain;	/* owned scratch: scopes at a pc */
	size_t chain_cap;
	/* "[module]" for each kernel module a result named, owned, each
	 * string kept until symbolizer_free (results point at them). */
	char **module_dsos;
	size_t nmodule_dsos, module_dsos_cap;
};

const char *sym_status_name(enum sym_status st)
{
	switch (st) {
	case SYM_OK: return "ok";
	case SYM_NO_MAPPING: return "no-mapping";
	case SYM_NO_FILE: return "no-file";
	case SYM_BUILD_ID_MISMATCH: return "build-id-mismatch";
	case SYM_NO_SYMBOL: return "no-symbol";
	case SYM_NOT_CODE: return "not-code";
	}
	return "no-symbol";
}

int symbolizer_new(const struct symbolizer_config *c, struct symbolizer **out,
		   struct errmsg *e)
{
	struct symbolizer *s = calloc(1, sizeof(*s));

	if (!s)
		return errmsg_set(e, ENOMEM, "out of memory");
	if (elf_files_init(&s->files, c->debuginfo_path, c->vdso, c->vdso_len) < 0) {
		symbolizer_free(s);
		return errmsg_set(e, ENOMEM, "out of memory");
	}
	s->kallsyms = c->kallsyms;
	*out = s;
	return 0;
}

void symbolizer_free(struct symbolizer *s)
{
	if (!s)
		return;
	elf_files_release(&s->files);
	free(s->funcs);
	free(s->chain);
	for (size_t i = 0; i < s->nmodule_dsos; i++)
		free(s->module_dsos[i]);
	free(s->module_dsos);
	free(s);
}

/* ---- names ----------------------------------------------------------- */

static struct sym_func *push_func(struct symbolizer *s, size_t n)
{
	if (ARRAY_RESERVE(s->funcs, s->funcs_cap, n + 1) < 0)
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
	if (ARRAY_RESERVE(s->chain, s->chain_cap, n + 1) < 0)
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
	if ((err = sym_file_symbols(f)) < 0)
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
	struct sym_file *f = elf_files_get(&s->files, m->path);
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
	if (sym_file_vaddr(f, off, &vaddr) < 0)
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

	/* Code cannot run from a mapping without PROT_EXEC: a "return
	 * address" there is a frame-pointer walk gone off the stack. */
	if (m && !m->exec) {
		result_init(r, SYM_NOT_CODE, m->path[0] ? m->path : "//anon");
		return 0;
	}
	if (!m || (strcmp(m->path, DSO_VDSO) && is_anon(m->path))) {
		found = from_jit(jit, jit_dso, addr, return_addr, s, r);
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

/* "[module]", kept for the symbolizer's life: a session's kernel frames
 * fall in a few dozen modules at most, so a list does. */
static const char *module_dso(struct symbolizer *s, const char *module)
{
	size_t len = strlen(module);
	char *dso;

	for (size_t i = s->nmodule_dsos; i-- > 0;) {
		dso = s->module_dsos[i];
		if (!strncmp(dso + 1, module, len) && dso[len + 1] == ']' &&
		    !dso[len + 2])
			return dso;
	}
	if (ARRAY_RESERVE(s->module_dsos, s->module_dsos_cap, s->nmodule_dsos + 1) < 0 ||
	    !(dso = malloc(len + 3)))
		return NULL;
	snprintf(dso, len + 3, "[%s]", module);
	s->module_dsos[s->nmodule_dsos++] = dso;
	return dso;
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
	if (hit->module && !(r->dso = module_dso(s, hit->module)))
		return -ENOMEM;
	return name_from_table(s, hit, addr, r);
}
