/*
 * unwind: a user stack copy (PERF_SAMPLE_STACK_USER) and the registers
 * at the sample (PERF_SAMPLE_REGS_USER, x86-64) to return addresses, with
 * libdwfl's frame API and the CFI (.eh_frame, .debug_frame) of the files
 * the process had mapped.
 *
 * The unwinder keeps, per process, the executable file mappings it has
 * been told of (MMAP2 records, /proc/PID/maps at start) and a Dwfl built
 * from them on first use, rebuilt after the process maps something new.
 * Unwinding reads only the sample's bytes and the mapped files' headers
 * and call frame information, each file read once for all processes and
 * its page cache left as it was (unwind_files.h): the process may be
 * gone, and a recorded sample replays the same way (this is how
 * tests/unit/test_unwind.c drives it without a kernel).
 */
#ifndef FL_UNWIND_H
#define FL_UNWIND_H

#include <stddef.h>
#include <stdint.h>

#include "stack_table.h"
#include "unwind_files.h"

/* The sample registers perf asks for when unwinding with DWARF on
 * x86-64: every general register (arch/x86/include/uapi/asm/perf_regs.h
 * order AX BX CX DX SI DI BP SP IP FLAGS CS SS DS ES FS GS R8..R15),
 * without the segment registers DS ES FS GS. */
#define UNWIND_REGS_MASK (((1ull << 24) - 1) & ~(0xfull << 12))

/* The most frames a stack keeps, kernel and user together: the kernel's
 * default perf_event_max_stack. */
#define STACK_MAX_FRAMES 127

struct unwind_sample {
	uint32_t pid, tid;
	uint64_t regs_mask;	/* attr.sample_regs_user */
	const void *regs;	/* borrowed: weight(regs_mask) u64s, maybe unaligned */
	const void *stack;	/* borrowed: the stack copy from the sample's sp */
	uint64_t stack_size;	/* bytes copied */
	uint64_t dyn_size;	/* of those, bytes that held stack */
};

struct unwind_space;

struct unwinder {
	struct unwind_space **spaces;	/* owned: one per process */
	size_t n, cap;
	struct unwind_files files;	/* owned: what the spaces' Dwfls read */
};

void unwinder_init(struct unwinder *u);
void unwinder_release(struct unwinder *u);

/* Process pid maps path at [start, start+len) from file offset pgoff
 * with prot (PROT_*): kept when it is executable code from a file.
 * path is copied.  0 or -ENOMEM. */
int unwinder_map(struct unwinder *u, uint32_t pid, uint64_t start,
		 uint64_t len, uint64_t pgoff, uint32_t prot, const char *path);

/* Has the unwinder been told of any mapping of pid? */
int unwinder_knows(const struct unwinder *u, uint32_t pid);

/* Process pid exec'd: its old mappings are gone. */
void unwinder_forget(struct unwinder *u, uint32_t pid);

/*
 * Unwinds s, appending user frames (innermost first: the sampled
 * instruction, then return addresses) to out[*n..max).  why (whylen
 * bytes) is set to "" when the unwind reached the outermost frame, else
 * to why it stopped (e.g. "stack copy too small (8192 bytes)").  0, or
 * -ENOMEM.
 */
int unwinder_unwind(struct unwinder *u, const struct unwind_sample *s,
		    struct stack_frame_in *out, size_t *n, size_t max,
		    char *why, size_t whylen);

#endif
