/*
 * pt_names: what the addresses of a session's decoded Intel PT flow
 * name: the function, and the source file and line when DWARF says,
 * through the symbolizer (decoder/symbolize.h) over one process's
 * mapping rows and the session's vDSO image (pt_vdso).  Lookups are
 * cached by address: a trace's flow names the same few functions over
 * and over.
 */
#ifndef FL_PT_NAMES_H
#define FL_PT_NAMES_H

#include <stddef.h>
#include <stdint.h>
#include <sqlite3.h>

#include "../common/errmsg.h"
#include "../decoder/addr_space.h"
#include "../decoder/symbolize.h"

struct pt_name {
	uint64_t addr;		/* 0: an empty slot */
	char *function;		/* owned; NULL: nothing named there */
	char *file;		/* owned; NULL: no line information */
	int line;
	char *dso;		/* owned: the file's base name, or NULL */
};

struct pt_names {
	struct symbolizer *sym;		/* owned */
	void *vdso;			/* owned copy, or NULL */
	size_t vdso_len;
	int64_t pid;			/* the process of the mappings */
	struct addr_space space;	/* owned (and the strings in strs) */
	char **strs;			/* owned: the mapping rows' strings */
	size_t nstrs, capstrs;
	struct pt_name *slots;		/* owned; a power of two of them */
	size_t nslots, used;
};

/* The session's vDSO and a symbolizer (debuginfo_path: libdwfl's, NULL
 * for the default).  0 or -errno with e. */
int pt_names_open(struct pt_names *n, sqlite3 *db, const char *path,
		  int64_t session_id, const char *debuginfo_path,
		  struct errmsg *e);

/* Switches to pid's mappings (read from the mapping table; the cache
 * starts over).  0 or -errno with e. */
int pt_names_process(struct pt_names *n, sqlite3 *db, const char *path,
		     int64_t session_id, int64_t pid, struct errmsg *e);

/* What addr names in the current process (return_addr: addr is a return
 * address, look up the call before it), borrowed until pt_names_close;
 * NULL only when out of memory. */
const struct pt_name *pt_names_lookup(struct pt_names *n, uint64_t addr,
				      int return_addr);

void pt_names_close(struct pt_names *n);

#endif
