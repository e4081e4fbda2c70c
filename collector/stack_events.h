/*
 * stack_events: which events carry a stack, and the sample bits that
 * make them carry it (record --stacks, --stack-size, --stacks-on).
 *
 *   fp     PERF_SAMPLE_CALLCHAIN: the kernel walks frame pointers
 *   dwarf  PERF_SAMPLE_REGS_USER + PERF_SAMPLE_STACK_USER: a copy of the
 *          top of the user stack, unwound later with CFI (decoder/unwind),
 *          plus PERF_SAMPLE_CALLCHAIN without its user part for the
 *          kernel frames
 */
#ifndef FL_STACK_EVENTS_H
#define FL_STACK_EVENTS_H

#include <stdint.h>
#include <linux/perf_event.h>

#include "../decoder/perf_record.h"

enum stack_mode {
	STACKS_NONE,
	STACKS_FP,
	STACKS_DWARF,
};

/* --stacks-on: which events carry a stack. */
#define STACKS_ON_MAJOR		1u	/* completions of major faults */
#define STACKS_ON_BLOCKED	2u	/* switch-outs of a thread that blocks */
#define STACKS_ON_FAULTS	4u	/* completions of every fault */
#define STACKS_ON_SWITCHES	8u	/* every switch-out */

/* perf's --call-graph dwarf default; the kernel's limit is 65528 (a u16
 * record size less the header and other fields), in multiples of 8. */
#define STACK_SIZE_DEFAULT 8192
#define STACK_SIZE_MAX 65528

struct stack_config {
	enum stack_mode mode;
	uint32_t stack_size;	/* dwarf: bytes of user stack per sample */
	unsigned on;		/* STACKS_ON_* */
	int no_kernel;		/* leave kernel frames out (the kernel refused them) */
};

/* Adds the stack bits of c to an event's attr. */
void stack_attr_apply(struct perf_event_attr *a, const struct stack_config *c);

/* The format of the samples of events given stack_attr_apply, from the
 * format of the others. */
void stack_sample_fmt(struct sample_fmt *f, const struct sample_fmt *base,
		      const struct stack_config *c);

/* Do the switch-outs need their own sampled event (context-switches)? */
int stack_config_switches(const struct stack_config *c);

#endif
