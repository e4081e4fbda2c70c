#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "../collector/procfs.h"
#include "../decoder/callchain.h"
#include "stacks.h"

void record_stacks_init(struct record_stacks *s, const struct stack_config *cfg,
			const struct sample_fmt *fmt)
{
	memset(s, 0, sizeof(*s));
	s->cfg = *cfg;
	s->fmt = fmt;
	stack_table_init(&s->tab);
	unwinder_init(&s->unwinder);
}

void record_stacks_release(struct record_stacks *s)
{
	stack_table_release(&s->tab);
	unwinder_release(&s->unwinder);
}

int record_stacks_on(const struct record_stacks *s)
{
	return s->cfg.mode != STACKS_NONE;
}

int record_stacks_dwarf(const struct record_stacks *s)
{
	return s->cfg.mode == STACKS_DWARF;
}

int record_stacks_mapping(struct record_stacks *s, const struct rec_mmap *m)
{
	if (!record_stacks_dwarf(s))
		return 0;
	return unwinder_map(&s->unwinder, m->pid, m->start, m->len, m->pgoff,
			    m->prot, m->filename);
}

void record_stacks_exec(struct record_stacks *s, uint32_t pid)
{
	unwinder_forget(&s->unwinder, pid);
}

static int add_proc_mapping(void *ctx, const struct rec_mmap *m)
{
	return record_stacks_mapping(ctx, m);
}

/* The user frames of a dwarf sample.  A process the unwinder has no
 * mapping of (a child forked after recording began inherits its parent's
 * mappings without MMAP2 records) is read from /proc while it lives. */
static int unwind_user(struct record_stacks *s, const struct sample *smp,
		       struct stack_frame_in *fr, size_t *n, char *why,
		       size_t whylen)
{
	struct unwind_sample us = {
		smp->sid.pid, smp->sid.tid, s->fmt->regs_user_mask,
		smp->regs_user, smp->stack_user, smp->stack_user_size,
		smp->stack_user_dyn_size,
	};
	int err = 0;

	if (!unwinder_knows(&s->unwinder, smp->sid.pid))
		err = proc_maps_each((pid_t)smp->sid.pid, add_proc_mapping, s);
	if (err == -ENOMEM)
		return err;
	return unwinder_unwind(&s->unwinder, &us, fr, n, STACK_MAX_FRAMES,
			       why, whylen);
}

int record_stacks_sample(struct record_stacks *s, const struct sample *smp,
			 uint32_t *stack_id, struct errmsg *e)
{
	struct stack_frame_in fr[STACK_MAX_FRAMES];
	char why[128] = "";
	uint64_t cut_at;
	size_t n = 0;
	int dwarf = record_stacks_dwarf(s), err = 0;

	callchain_frames(smp->callchain, smp->callchain_nr, !dwarf, fr, &n,
			 STACK_MAX_FRAMES, &cut_at);
	if (!dwarf && cut_at)
		snprintf(why, sizeof(why), "return address 0x%llx is in no "
			 "process's reach: the frame-pointer walk left the stack",
			 (unsigned long long)cut_at);
	if (dwarf)
		err = unwind_user(s, smp, fr, &n, why, sizeof(why));
	if (err < 0)
		return errmsg_set(e, -err, "out of memory unwinding stacks");
	s->sampled++;
	s->truncated += why[0] != '\0';
	err = stack_table_intern(&s->tab, smp->sid.pid,
				 dwarf ? STACK_DWARF : STACK_FP,
				 why[0] ? why : NULL, fr, n, stack_id);
	if (err < 0)
		return errmsg_set(e, -err, "out of memory keeping stacks");
	return 0;
}

int record_stacks_kernel_chain(struct record_stacks *s, const struct sample *smp,
			       uint32_t *stack_id, struct errmsg *e)
{
	struct stack_frame_in fr[STACK_MAX_FRAMES];
	size_t n = 0, before = s->tab.nstacks;
	uint64_t cut_at;	/* user frames are left out: never cut */

	*stack_id = 0;
	callchain_frames(smp->callchain, smp->callchain_nr, 0, fr, &n,
			 STACK_MAX_FRAMES, &cut_at);
	if (!n)
		return 0;
	if (stack_table_intern(&s->tab, smp->sid.pid, STACK_KERNEL, NULL, fr, n,
			       stack_id) < 0)
		return errmsg_set(e, ENOMEM, "out of memory keeping stacks");
	s->kernel_stacks += s->tab.nstacks - before;
	return 0;
}

int record_stacks_switch_kept(const struct record_stacks *s,
			      const struct state_interval *iv)
{
	if (s->cfg.on & STACKS_ON_SWITCHES)
		return 1;
	return (s->cfg.on & STACKS_ON_BLOCKED) &&
	       (iv->state == TS_BLOCKED || iv->state == TS_WAITING);
}

int record_stacks_store(struct record_stacks *s, struct loader *l,
			uint32_t stack_id, struct errmsg *e)
{
	struct st_stack *st = stack_table_stack(&s->tab, stack_id);
	int err = 0;

	if (!st || st->written)
		return 0;
	for (uint32_t d = 0; d < st->depth && err == 0; d++) {
		struct st_frame *f = stack_table_frame(&s->tab, st->frames[d]);

		if (!f->written)
			err = loader_frame(l, st->frames[d], f, e);
		f->written = 1;
	}
	if (err == 0)
		err = loader_stack(l, stack_id, st, e);
	st->written = 1;
	return err;
}
