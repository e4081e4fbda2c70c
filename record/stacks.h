/*
 * stacks: the record engine's stacks (record --stacks).  A sample that
 * carries a stack (a major-fault completion, a switch-out sample) gets a
 * stack_id: kernel frames from its callchain, user frames from the
 * callchain (fp) or unwound from its copy of the user stack (dwarf),
 * deduplicated in a stack_table.  A stack's rows, and its frames', are
 * written the first time a stored row refers to it.
 *
 * Unwinding happens here, in the engine's thread, as samples are read,
 * never in the faulting thread.
 */
#ifndef FL_RECORD_STACKS_H
#define FL_RECORD_STACKS_H

#include <stdint.h>

#include "../collector/stack_events.h"
#include "../common/errmsg.h"
#include "../decoder/perf_record.h"
#include "../decoder/stack_table.h"
#include "../decoder/timeline.h"
#include "../decoder/unwind.h"
#include "../schema/loader.h"

struct record_stacks {
	struct stack_config cfg;	/* --stacks, --stack-size, --stacks-on */
	const struct sample_fmt *fmt;	/* borrowed: the stacked events' format */
	struct stack_table tab;		/* owned: stacks deduplicated */
	struct unwinder unwinder;	/* owned: --stacks=dwarf */
	uint64_t sampled;		/* samples that carried a stack */
	uint64_t truncated;		/* of those, ended before the outermost frame */
	size_t kernel_stacks;		/* distinct wake-up stacks among tab's */
};

void record_stacks_init(struct record_stacks *s, const struct stack_config *cfg,
			const struct sample_fmt *fmt);
void record_stacks_release(struct record_stacks *s);

/* Is a stack being recorded at all (--stacks fp or dwarf)? */
int record_stacks_on(const struct record_stacks *s);
/* Does dwarf unwinding need mappings and execs seen in time order? */
int record_stacks_dwarf(const struct record_stacks *s);

/* The stack a sample carries, deduplicated, into *stack_id.  0, or
 * -ENOMEM with e. */
int record_stacks_sample(struct record_stacks *s, const struct sample *smp,
			 uint32_t *stack_id, struct errmsg *e);

/* The kernel frames of smp's callchain (sched_waking's: what issued a
 * wake-up), whatever --stacks says; *stack_id 0 when it has none.  0 or
 * -ENOMEM with e. */
int record_stacks_kernel_chain(struct record_stacks *s, const struct sample *smp,
			       uint32_t *stack_id, struct errmsg *e);

/* A mapping (MMAP2 or from /proc) the dwarf unwinder must know; an exec
 * that replaces a process's mappings.  0 or -ENOMEM. */
int record_stacks_mapping(struct record_stacks *s, const struct rec_mmap *m);
void record_stacks_exec(struct record_stacks *s, uint32_t pid);

/* Does --stacks-on keep the stack of the switch out that began iv?  By
 * default only when the thread blocked (or waited, when sched_switch
 * could not tell blocked from sleeping). */
int record_stacks_switch_kept(const struct record_stacks *s,
			      const struct state_interval *iv);

/* Writes stack_id's rows, and its frames' not written yet, unless they
 * were written before (0 is no stack).  0 or -errno with e. */
int record_stacks_store(struct record_stacks *s, struct loader *l,
			uint32_t stack_id, struct errmsg *e);

#endif
