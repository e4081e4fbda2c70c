/*
 * symbol_sources: what this machine can tell about the names of code
 * outside files, gathered before a symbolization job names anything (and
 * so before its results are written: nothing here is read while the
 * write transaction is open): the running kernel's release and its
 * /proc/kallsyms, this process's vDSO image (the same for every process
 * under one kernel), the /tmp/perf-PID.map files JITs write, and the
 * debug directories, checked and made absolute.  The parsing is in
 * decoder/ (kallsyms.h, perf_map.h, symbolize_job.h).
 *
 * Usage:
 *
 *	symbol_sources_init(&s);
 *	symbol_sources_debug_dirs(&s, dirs, ndirs, e);	(first: a bad one is
 *							 an option error)
 *	symbol_sources_gather(&s, &want, e);
 *	symbol_sources_view(&s, &view);			(for symbolize_job_run)
 *	symbol_sources_release(&s);			(after the job's last use)
 */
#ifndef FL_SYMBOL_SOURCES_H
#define FL_SYMBOL_SOURCES_H

#include <stddef.h>
#include <stdint.h>

#include "../common/errmsg.h"
#include "../decoder/symbolize_job.h"

/* What a job needs gathered. */
struct symbol_sources_want {
	const char *kernel;	/* borrowed: the release the session was
				 * recorded on; NULL when not known */
	const uint64_t *kernel_addrs;	/* borrowed: what its kernel frames
					 * are named by (sym_input_kernel_addrs) */
	size_t nkernel_addrs;
	const int64_t *pids;	/* borrowed: the processes of its user frames,
				 * ascending, distinct (sym_input_user_pids) */
	size_t npids;
};

/* A file at a path another user may plant that was not read
 * (outside_file.h): a perf map that is not a regular file of its
 * process's owner or root, or too large. */
struct symbol_skipped {
	char path[48];
	const char *why;	/* static text: "a FIFO, not a regular file" */
};

/* How many skipped files symbol_sources names (it counts them all). */
#define SYMBOL_SKIPPED_NAMED 4

struct symbol_sources {
	char release[65];	/* the running kernel's (uname -r); "" unknown */
	int same_kernel;	/* the session was recorded on the running kernel */
	char *debuginfo_path;	/* owned; libdwfl's format */
	char *kallsyms;		/* owned; NUL-terminated: the lines of
				 * /proc/kallsyms gathered; NULL: none */
	size_t kallsyms_len;
	const void *vdso;	/* borrowed: this process's image; NULL: none */
	size_t vdso_len;
	struct sym_perf_map *perf_maps;	/* owned, their texts too; by pid */
	size_t nperf_maps, perf_maps_cap;
	struct symbol_skipped skipped[SYMBOL_SKIPPED_NAMED];	/* the first ones */
	size_t nskipped;	/* all of them */
};

void symbol_sources_init(struct symbol_sources *s);
void symbol_sources_release(struct symbol_sources *s);

/*
 * libdwfl's debuginfo path in s: dirs (made absolute: libdwfl looks for
 * .build-id/ only under absolute ones) searched first, then the usual
 * places.  0, -ENOTDIR with e for one that is not a directory (or has a
 * ':' in its path, libdwfl's separator), -ENOMEM.
 */
int symbol_sources_debug_dirs(struct symbol_sources *s,
			      const char *const *dirs, size_t n,
			      struct errmsg *e);

/*
 * The rest of what w needs: the running kernel's release; when it is the
 * session's, this process's vDSO image and, if w has kernel frames, the
 * lines of /proc/kallsyms that name them (decoder/kallsyms.h's pick;
 * absent: none); each pid's /tmp/perf-PID.map (absent or
 * unreadable: none; untrusted, as perf decides: none, counted and named
 * in s->skipped).  0, or -errno with e for a file that is there and
 * cannot be read, or -ENOMEM.
 */
int symbol_sources_gather(struct symbol_sources *s,
			  const struct symbol_sources_want *w, struct errmsg *e);

/* What the decoder reads, borrowed from s: valid until
 * symbol_sources_release. */
void symbol_sources_view(const struct symbol_sources *s, struct sym_sources *v);

/*
 * This process's vDSO image: *image borrowed (valid for the process's
 * life), *len its size from the ELF headers.  -ENOENT when there is
 * none (no AT_SYSINFO_EHDR).
 */
int vdso_image(const void **image, size_t *len);

#endif
