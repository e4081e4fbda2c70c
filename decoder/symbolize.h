/*
 * symbolize: what a stack frame's address names: the file it was in, the
 * function (from ELF .symtab, else .dynsym), the source line and the
 * functions inlined there (DWARF, libdw), for user code in files, the
 * vDSO and JIT regions named in perf-PID.map, and for the kernel from
 * kallsyms.  No SQLite and no reading of text tables: symbolize_job.h
 * names a session's frames with it, from inputs its callers gathered.
 *
 * Each distinct file is opened once for all the processes that mapped it
 * (elf_files.h): a frame's address becomes a file offset through its
 * mapping, then an ELF address through the file's PT_LOAD headers.
 */
#ifndef FL_SYMBOLIZE_H
#define FL_SYMBOLIZE_H

#include <stddef.h>
#include <stdint.h>

#include "../common/errmsg.h"
#include "addr_space.h"
#include "addr_syms.h"

enum sym_status {
	SYM_OK,
	SYM_NO_MAPPING,		/* no mapping of the process held the address */
	SYM_NO_FILE,		/* the mapped file cannot be read here */
	SYM_BUILD_ID_MISMATCH,	/* the file is not the one that was mapped */
	SYM_NO_SYMBOL,		/* the file names nothing there */
	SYM_NOT_CODE,		/* the mapping that holds it is not executable */
};

/* "ok", "no-mapping", "no-file", "build-id-mismatch", "no-symbol",
 * "not-code": the frame.status values. */
const char *sym_status_name(enum sym_status st);

struct symbolizer_config {
	/* libdwfl's debuginfo_path ("dir:dir", see dwfl_standard_find_
	 * debuginfo); borrowed, must outlive the symbolizer.  NULL: the
	 * default (":.debug:/usr/lib/debug"). */
	const char *debuginfo_path;
	/* The vDSO image of the kernel that ran the recording, or NULL
	 * (then [vdso] frames are 'no-file').  Copied. */
	const void *vdso;
	size_t vdso_len;
	/* The recording kernel's code symbols, or NULL (kernel frames are
	 * then 'no-file').  Borrowed, must outlive the symbolizer. */
	const struct addr_syms *kallsyms;
};

/* One function at a frame: the innermost inlined one first, the
 * function that holds the code last. */
struct sym_func {
	const char *function;	/* borrowed: valid until symbolizer_free */
	const char *file;	/* borrowed; NULL when unknown */
	int line;		/* 0 when unknown */
	int has_offset;		/* offset and size are set (the last one) */
	uint64_t offset;	/* addr - function start */
	uint64_t size;		/* function size; 0 when unknown */
	int inlined;
};

/* What a frame names.  The strings are the symbolizer's (valid until
 * symbolizer_free) or the caller's (a mapping's path, jit_dso); only the
 * funcs array is scratch, overwritten by the next call. */
struct sym_result {
	enum sym_status status;
	const char *dso;	/* borrowed, see above; NULL: none */
	int has_dso_offset;
	uint64_t dso_offset;	/* file offset of addr */
	const char *build_id;	/* borrowed (symbolizer); hex; NULL: none */
	const struct sym_func *funcs;	/* borrowed: valid until the next call */
	size_t nfuncs;		/* 0 unless status is SYM_OK */
};

struct symbolizer;

/* A new symbolizer in *out; free with symbolizer_free.  0 or -errno. */
int symbolizer_new(const struct symbolizer_config *c, struct symbolizer **out,
		   struct errmsg *e);
void symbolizer_free(struct symbolizer *s);

/*
 * A user frame.  m: the mapping that held addr (addr_space_find), or
 * NULL.  return_addr: addr is a return address, look up addr - 1.
 * jit: the process's perf-PID.map (borrowed; NULL when it has none),
 * consulted for addresses in anonymous executable memory or in no
 * mapping;
 * jit_dso names it in the result (borrowed, must outlive the result).
 * Fills *r.  0, or -ENOMEM.
 */
int symbolize_user(struct symbolizer *s, const struct sym_mapping *m,
		   uint64_t addr, int return_addr, const struct addr_syms *jit,
		   const char *jit_dso, struct sym_result *r);

/* A kernel frame, from the config's kallsyms.  0, or -ENOMEM. */
int symbolize_kernel(struct symbolizer *s, uint64_t addr, int return_addr,
		     struct sym_result *r);

#endif
