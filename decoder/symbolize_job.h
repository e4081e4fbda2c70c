/*
 * symbolize_job: names every frame of a symbolization job, a pure
 * function of its inputs (symbolize.h names one address):
 *
 *     frames + mappings (sym_input, from the database)
 *   + sources (sym_sources: kallsyms text, vDSO image, perf-PID.map
 *     texts, debug directories, gathered from the machine beforehand)
 *   -> one result per frame (dso, offset, build id, status, functions
 *      with their inline chain and lines) and the counts per status.
 *
 * The job reads no text file and asks the system nothing: the tables
 * arrive as text and are parsed here (kallsyms.h, perf_map.h).  It does
 * read ELF and debug files, through libdwfl, as symbolize.h does: that is
 * the decoder's job.  So whoever writes the results down can do it after
 * the job is over, with no file read inside the write transaction.
 *
 * User frames are named per process: its recorded mapping that held the
 * address (addr_space.h), the mapped file; in anonymous executable
 * memory or in no mapping at all, the process's perf map.  Kernel frames
 * are named from kallsyms; without one (another kernel, or none
 * readable) they are 'no-file'.
 */
#ifndef FL_SYMBOLIZE_JOB_H
#define FL_SYMBOLIZE_JOB_H

#include <stddef.h>
#include <stdint.h>

#include "../common/errmsg.h"
#include "addr_space.h"
#include "addr_syms.h"
#include "symbolize.h"

/* One frame to name, as the frame table holds it. */
struct sym_frame {
	int64_t frame_id;	/* carried through, for the writer */
	int64_t pid;		/* the process; unused for kernel frames */
	uint64_t addr;
	int kernel;		/* a kernel address, named from kallsyms */
	int return_addr;	/* addr is a return address: the call is addr - 1 */
};

/* One process's recorded mappings. */
struct sym_proc {
	int64_t pid;
	struct addr_space space;	/* its mappings' strings owned by the input */
};

/*
 * The frames of a job and the mappings of their processes.  Frames may
 * come in any order; grouped by process and by address (as the frame
 * table's index gives them) is fastest: a file's pages and the caches
 * stay warm.
 */
struct sym_input {
	struct sym_frame *frames;	/* owned */
	size_t nframes, frames_cap;
	struct sym_proc *procs;		/* owned; by pid, ascending, distinct */
	size_t nprocs, procs_cap;
};

void sym_input_init(struct sym_input *in);
/* Frees the arrays and the mappings' strings. */
void sym_input_release(struct sym_input *in);

/* Appends a frame (copied).  0 or -ENOMEM. */
int sym_input_add_frame(struct sym_input *in, const struct sym_frame *f);

/* Adds a mapping of process pid: m is copied, and so are its path and
 * build id (the input owns the copies).  Fastest in ascending pid order.
 * 0 or -ENOMEM. */
int sym_input_add_mapping(struct sym_input *in, int64_t pid,
			  const struct sym_mapping *m);

/* The addresses the kernel frames are named by (a return address's
 * call, addr - 1), in frame order, in *addrs (owned by the caller,
 * free(); NULL when there are none) and *n: what kallsyms must name.
 * 0 or -ENOMEM. */
int sym_input_kernel_addrs(const struct sym_input *in, uint64_t **addrs,
			   size_t *n);

/* The distinct processes of the user frames, ascending, in *pids (owned
 * by the caller, free(); NULL when there are none) and *n: whose perf
 * maps the job may need.  0 or -ENOMEM. */
int sym_input_user_pids(const struct sym_input *in, int64_t **pids, size_t *n);

/* A JIT's /tmp/perf-PID.map, as found on the machine. */
struct sym_perf_map {
	int64_t pid;
	char path[48];		/* "/tmp/perf-PID.map" */
	/* The file's text, NUL-terminated; NULL when the process has none
	 * (or it cannot be read).  Owned by whoever filled the array
	 * (symbol_sources_release for collector/symbol_sources.h's). */
	char *text;
	size_t len;
};

/* What the machine tells about names outside the mapped files.  All
 * borrowed: they must outlive the job (its results point into them). */
struct sym_sources {
	/* libdwfl's debuginfo_path ("dir:dir"); NULL: the default */
	const char *debuginfo_path;
	/* /proc/kallsyms of the kernel that ran the recording; NULL: none
	 * (kernel frames are then 'no-file') */
	const char *kallsyms;
	size_t kallsyms_len;
	/* that kernel's vDSO image; NULL: none ([vdso] frames 'no-file') */
	const void *vdso;
	size_t vdso_len;
	/* by pid, ascending; a process not here has no perf map */
	const struct sym_perf_map *perf_maps;
	size_t nperf_maps;
};

struct symbolize_counts {
	uint64_t frames, ok, no_mapping, no_file, build_id_mismatch, no_symbol;
	/* Files another user may have planted that were not read as not
	 * trusted (common/outside_file.h; filled by the caller that read
	 * them, not by the job), and the first of them with its reason:
	 * "/tmp/perf-7.map (a FIFO, not a regular file)". */
	uint64_t skipped;
	char skipped_first[128];
};

/* A frame's result; sym_result without the scratch pointer. */
struct sym_named {
	enum sym_status status;
	int has_dso_offset;
	const char *dso;	/* borrowed: see symbolize_job_result */
	uint64_t dso_offset;
	const char *build_id;	/* borrowed; NULL: none */
	size_t func, nfuncs;	/* its functions: job->funcs[func..func+nfuncs) */
};

/* A process as the job names it: its mappings and its parsed perf map. */
struct sym_job_proc {
	int64_t pid;
	struct addr_space *space;	/* borrowed from the input; NULL: no mappings */
	struct addr_syms jit;		/* owned; parsed perf map */
	int has_jit;			/* the process has a perf map */
	char jit_dso[64];		/* "[jit] /tmp/perf-PID.map" */
};

struct symbolize_job {
	struct sym_named *named;	/* owned; one per input frame, same order */
	size_t nnamed, named_cap;
	struct sym_func *funcs;		/* owned; every frame's functions */
	size_t nfuncs, funcs_cap;
	struct symbolize_counts counts;
	/* private */
	struct symbolizer *sym;		/* owned */
	struct addr_syms kallsyms;	/* owned; parsed from the sources' text */
	struct sym_job_proc *procs;	/* owned; by pid, ascending */
	size_t nprocs;
};

void symbolize_job_init(struct symbolize_job *j);
void symbolize_job_release(struct symbolize_job *j);

/*
 * Names every frame of in (its address spaces get sorted, hence not
 * const) with src into j (initialised, not yet run): j->named[i] is
 * in->frames[i]'s result, j->counts the counts per status.  Results
 * borrow from j, from in's mappings and from src: all three must outlive
 * their use.  0, or -ENOMEM with e set.
 */
int symbolize_job_run(struct symbolize_job *j, struct sym_input *in,
		      const struct sym_sources *src, struct errmsg *e);

/* Frame i's result as a sym_result, its funcs pointing into j: valid
 * until symbolize_job_release. */
void symbolize_job_result(const struct symbolize_job *j, size_t i,
			  struct sym_result *r);

#endif
