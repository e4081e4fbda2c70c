#include <string.h>

#include "../decoder/unwind.h"
#include "stack_events.h"

void stack_attr_apply(struct perf_event_attr *a, const struct stack_config *c)
{
	if (c->mode == STACKS_NONE)
		return;
	a->sample_type |= PERF_SAMPLE_CALLCHAIN;
	a->exclude_callchain_kernel = c->no_kernel ? 1 : 0;
	if (c->mode == STACKS_DWARF) {
		a->sample_type |= PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER;
		a->sample_regs_user = UNWIND_REGS_MASK;
		a->sample_stack_user = c->stack_size;
		/* The user part comes from the stack copy. */
		a->exclude_callchain_user = 1;
	}
}

void stack_sample_fmt(struct sample_fmt *f, const struct sample_fmt *base,
		      const struct stack_config *c)
{
	struct perf_event_attr a;

	memset(&a, 0, sizeof(a));
	stack_attr_apply(&a, c);
	*f = *base;
	f->sample_type |= a.sample_type;
	f->regs_user_mask = a.sample_regs_user;
}

int stack_config_switches(const struct stack_config *c)
{
	return c->mode != STACKS_NONE &&
	       (c->on & (STACKS_ON_BLOCKED | STACKS_ON_SWITCHES));
}
