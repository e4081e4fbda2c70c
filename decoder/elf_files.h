/*
 * elf_files: the files (and the vDSO image) a session's frames fall in,
 * each opened once with libdwfl as one module at its own link-time
 * addresses (bias 0), shared by every process that mapped it, with its
 * PT_LOAD headers, build id, and function symbols sorted by address.
 * Separate debug files are found by libdwfl's standard search (build id
 * under each absolute directory of the debuginfo path, then
 * .gnu_debuglink next to the file, in .debug/ and under the absolute
 * directories).
 *
 * The page cache of every file read here, debug files too, is noted
 * before its first read and restored by elf_files_release, after
 * libdwfl has unmapped the files (page_cache.h): naming frames leaves
 * cold what it found cold.  libdwfl maps the files it reads, and a
 * mapped page cannot be dropped, so this is for symbolizing after a
 * recording (while recording, unwind_files.h reads the target's files).
 * A debug file is noted before libdwfl's search looks for it where it
 * is one of the places debug_paths.h lists; one found elsewhere is noted
 * when found, and the pages the search read of it stay cached.
 */
#ifndef FL_ELF_FILES_H
#define FL_ELF_FILES_H

#include <elfutils/libdw.h>
#include <elfutils/libdwfl.h>
#include <stddef.h>
#include <stdint.h>

#include "addr_syms.h"
#include "page_cache.h"

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

struct elf_files {
	Dwfl_Callbacks file_cb;	/* files opened by path */
	Dwfl_Callbacks vdso_cb;	/* the vDSO, from memory */
	char *debuginfo_path;	/* owned; file_cb points at it */
	void *vdso;		/* owned copy of the image, or NULL */
	size_t vdso_len;
	/* owned, and each entry owned: an entry stays where it is until
	 * elf_files_release, so its path and build id can be handed out
	 * for results that outlive the next lookup. */
	struct sym_file **files;
	size_t nfiles, files_cap;
	uint32_t *slots;	/* owned; path hash: file index + 1, 0 empty */
	size_t nslots;		/* a power of two, or 0 */
	struct page_cache cache;	/* owned: the files read, noted */
};

/* Sets up fs: debuginfo_path in libdwfl's format (NULL: the default,
 * ":.debug:/usr/lib/debug"), the vDSO image to use for [vdso] (copied;
 * NULL: none).  fs must not move afterwards (libdwfl keeps pointers
 * into it).  0 or -ENOMEM; release in either case. */
int elf_files_init(struct elf_files *fs, const char *debuginfo_path,
		   const void *vdso, size_t vdso_len);
/* Ends every file's Dwfl, then restores the page cache of what they
 * read. */
void elf_files_release(struct elf_files *fs);

/* The entry for path ("[vdso]" for the vDSO), opened on first use; its
 * ok field says whether it could be.  Borrowed: valid until
 * elf_files_release.  NULL only when out of memory. */
struct sym_file *elf_files_get(struct elf_files *fs, const char *path);

/* The link-time address of file offset off: 0, or -1 when no PT_LOAD
 * holds it. */
int sym_file_vaddr(const struct sym_file *f, uint64_t off, uint64_t *vaddr);

/* f->syms (and sub_off, dw), built on the first call.  0 or -ENOMEM. */
int sym_file_symbols(struct sym_file *f);

#endif
