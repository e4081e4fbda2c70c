/*
 * unwind: libdwfl's frame API over a sample.  What perf's
 * tools/perf/util/unwind-libdw.c does, in faultline's terms: each file
 * mapping is reported with dwfl_report_elf at start - pgoff (the load
 * bias of an ELF whose segments sit at their file offsets, as linkers
 * lay them out), the thread's first registers come from the sample, and
 * memory reads are served from the stack copy only.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <elfutils/libdwfl.h>

#include "../common/array.h"
#include "unwind.h"

struct unwind_map {
	uint64_t start, end, pgoff;
	char *path;		/* owned */
};

struct unwind_space {
	uint32_t pid;
	struct unwind_map *maps;	/* owned */
	size_t n, cap;
	Dwfl *dwfl;		/* owned; NULL until used or after a new map */
	int attached;		/* dwfl_attach_state succeeded */
	/* The unwind in progress (borrowed for its duration). */
	const struct unwind_sample *cur;
	uint64_t sp;
	int read_beyond;	/* a read fell past the end of the copy */
};

void unwinder_init(struct unwinder *u)
{
	memset(u, 0, sizeof(*u));
	unwind_files_init(&u->files);
}

static void space_drop_dwfl(struct unwind_space *sp)
{
	if (sp->dwfl)
		dwfl_end(sp->dwfl);
	sp->dwfl = NULL;
	sp->attached = 0;
}

static void space_free(struct unwind_space *sp)
{
	space_drop_dwfl(sp);
	for (size_t i = 0; i < sp->n; i++)
		free(sp->maps[i].path);
	free(sp->maps);
	free(sp);
}

void unwinder_release(struct unwinder *u)
{
	for (size_t i = 0; i < u->n; i++)
		space_free(u->spaces[i]);
	free(u->spaces);
	/* After the spaces: their Dwfls hold references to the files. */
	unwind_files_release(&u->files);
	unwinder_init(u);
}

static struct unwind_space *space_find(struct unwinder *u, uint32_t pid)
{
	for (size_t i = 0; i < u->n; i++)
		if (u->spaces[i]->pid == pid)
			return u->spaces[i];
	return NULL;
}

int unwinder_knows(const struct unwinder *u, uint32_t pid)
{
	for (size_t i = 0; i < u->n; i++)
		if (u->spaces[i]->pid == pid)
			return 1;
	return 0;
}

static struct unwind_space *space_get(struct unwinder *u, uint32_t pid)
{
	struct unwind_space *sp = space_find(u, pid);

	if (sp)
		return sp;
	if (ARRAY_RESERVE(u->spaces, u->cap, u->n + 1) < 0)
		return NULL;
	sp = calloc(1, sizeof(*sp));
	if (!sp)
		return NULL;
	sp->pid = pid;
	u->spaces[u->n++] = sp;
	return sp;
}

/* A mapping over [start, end) replaces whatever was there. */
static void space_unmap(struct unwind_space *sp, uint64_t start, uint64_t end)
{
	size_t k = 0;

	for (size_t i = 0; i < sp->n; i++) {
		if (sp->maps[i].start < end && start < sp->maps[i].end) {
			free(sp->maps[i].path);
			continue;
		}
		sp->maps[k++] = sp->maps[i];
	}
	sp->n = k;
}

int unwinder_map(struct unwinder *u, uint32_t pid, uint64_t start,
		 uint64_t len, uint64_t pgoff, uint32_t prot, const char *path)
{
	struct unwind_space *sp;
	struct unwind_map *m;

	if (!(prot & PROT_EXEC) || !path || path[0] != '/' || !len)
		return 0;
	sp = space_get(u, pid);
	if (!sp)
		return -ENOMEM;
	space_unmap(sp, start, start + len);
	if (ARRAY_RESERVE(sp->maps, sp->cap, sp->n + 1) < 0)
		return -ENOMEM;
	m = &sp->maps[sp->n];
	m->path = strdup(path);
	if (!m->path)
		return -ENOMEM;
	m->start = start;
	m->end = start + len;
	m->pgoff = pgoff;
	sp->n++;
	space_drop_dwfl(sp);
	return 0;
}

void unwinder_forget(struct unwinder *u, uint32_t pid)
{
	struct unwind_space *sp = space_find(u, pid);

	if (sp) {
		space_unmap(sp, 0, UINT64_MAX);
		space_drop_dwfl(sp);
	}
}

/* Register perf_idx (perf_regs.h order) of the sample, 0 if not sampled. */
static uint64_t sample_reg(const struct unwind_sample *s, unsigned perf_idx)
{
	uint64_t v = 0;
	unsigned pos;

	if (!s->regs || !(s->regs_mask & (1ull << perf_idx)))
		return 0;
	pos = (unsigned)__builtin_popcountll(s->regs_mask & ((1ull << perf_idx) - 1));
	memcpy(&v, (const uint8_t *)s->regs + pos * 8, 8);
	return v;
}

enum { PERF_BP = 6, PERF_SP = 7, PERF_IP = 8, PERF_R8 = 16 };

static pid_t next_thread(Dwfl *dwfl, void *arg, void **thread_argp)
{
	struct unwind_space *sp = arg;

	(void)dwfl;
	if (*thread_argp)
		return 0;	/* the one thread has been handed out */
	*thread_argp = sp;
	return (pid_t)sp->cur->tid;
}

static bool get_thread(Dwfl *dwfl, pid_t tid, void *arg, void **thread_argp)
{
	struct unwind_space *sp = arg;

	(void)dwfl;
	*thread_argp = sp;
	return (uint32_t)tid == sp->cur->tid;
}

/* Only the stack copy is memory: [sp, sp + dyn_size). */
static bool memory_read(Dwfl *dwfl, Dwarf_Addr addr, Dwarf_Word *result,
			void *arg)
{
	struct unwind_space *sp = arg;
	const struct unwind_sample *s = sp->cur;

	(void)dwfl;
	if (addr >= sp->sp && addr - sp->sp <= s->dyn_size &&
	    s->dyn_size - (addr - sp->sp) >= sizeof(*result)) {
		memcpy(result, (const uint8_t *)s->stack + (addr - sp->sp),
		       sizeof(*result));
		return true;
	}
	/* Above the copy, within what a stack could still be: the copy was
	 * too small (the kernel copies at most the requested size). */
	if (addr >= sp->sp && addr - sp->sp < (64ull << 20))
		sp->read_beyond = 1;
	return false;
}

/* DWARF x86-64 numbering: 0 rax 1 rdx 2 rcx 3 rbx 4 rsi 5 rdi 6 rbp
 * 7 rsp 8-15 r8-r15, 16 rip; perf's order is AX BX CX DX SI DI BP SP. */
static bool set_initial_registers(Dwfl_Thread *thread, void *arg)
{
	static const unsigned perf_of_dwarf[8] = { 0, 3, 2, 1, 4, 5, 6, 7 };
	struct unwind_space *sp = arg;
	Dwarf_Word regs[17];

	for (unsigned i = 0; i < 8; i++)
		regs[i] = sample_reg(sp->cur, perf_of_dwarf[i]);
	for (unsigned i = 0; i < 8; i++)
		regs[8 + i] = sample_reg(sp->cur, PERF_R8 + i);
	regs[16] = sample_reg(sp->cur, PERF_IP);
	if (!dwfl_thread_state_registers(thread, 0, 17, regs))
		return false;
	dwfl_thread_state_register_pc(thread, regs[16]);
	return true;
}

static const Dwfl_Thread_Callbacks thread_callbacks = {
	.next_thread = next_thread,
	.get_thread = get_thread,
	.memory_read = memory_read,
	.set_initial_registers = set_initial_registers,
};

/* No separate debug file is read while recording (unwind_files.h): the
 * files' own CFI unwinds.  Debian's debug files carry no .debug_frame
 * anyway (GCC writes .eh_frame into the file itself). */
static int no_debuginfo(Dwfl_Module *mod, void **userdata, const char *modname,
			Dwarf_Addr base, const char *file_name,
			const char *debuglink_file, GElf_Word debuglink_crc,
			char **debuginfo_file_name)
{
	(void)mod, (void)userdata, (void)modname, (void)base, (void)file_name;
	(void)debuglink_file, (void)debuglink_crc;
	*debuginfo_file_name = NULL;
	return -1;
}

static const Dwfl_Callbacks dwfl_callbacks = {
	.find_elf = unwind_file_find_elf,
	.find_debuginfo = no_debuginfo,
};

/* A file mapped twice executable is reported once, at its lowest bias. */
static int reported_before(const struct unwind_space *sp, size_t i)
{
	for (size_t k = 0; k < i; k++)
		if (!strcmp(sp->maps[k].path, sp->maps[i].path))
			return 1;
	return 0;
}

static int space_build(struct unwinder *u, struct unwind_space *sp)
{
	int reported = 0;

	sp->dwfl = dwfl_begin(&dwfl_callbacks);
	if (!sp->dwfl)
		return -ENOMEM;
	dwfl_report_begin(sp->dwfl);
	for (size_t i = 0; i < sp->n; i++) {
		const struct unwind_map *m = &sp->maps[i];
		struct unwind_file *f;

		if (reported_before(sp, i))
			continue;
		f = unwind_files_get(&u->files, m->path);
		if (!f) {
			dwfl_report_end(sp->dwfl, NULL, NULL);
			space_drop_dwfl(sp);
			return -ENOMEM;
		}
		/* A file that cannot be read leaves its frames unnamed. */
		reported += unwind_file_report(f, sp->dwfl, m->path,
					       m->start - m->pgoff) != NULL;
	}
	dwfl_report_end(sp->dwfl, NULL, NULL);
	sp->attached = reported &&
		       dwfl_attach_state(sp->dwfl, NULL, (pid_t)sp->pid,
					 &thread_callbacks, sp);
	return 0;
}

struct frames_ctx {
	struct stack_frame_in *out;
	size_t *n, max;
	int full;
};

static int on_frame(Dwfl_Frame *state, void *arg)
{
	struct frames_ctx *c = arg;
	Dwarf_Addr pc;
	bool activation;

	if (!dwfl_frame_pc(state, &pc, &activation))
		return DWARF_CB_ABORT;
	if (*c->n >= c->max) {
		c->full = 1;
		return DWARF_CB_ABORT;
	}
	c->out[*c->n].addr = pc;
	c->out[*c->n].kernel = 0;
	c->out[*c->n].return_addr = !activation;
	(*c->n)++;
	return DWARF_CB_OK;
}

/* The sampled instruction alone, when there is nothing to unwind with. */
static void ip_only(const struct unwind_sample *s, struct stack_frame_in *out,
		    size_t *n, size_t max)
{
	if (*n < max && sample_reg(s, PERF_IP)) {
		out[*n].addr = sample_reg(s, PERF_IP);
		out[*n].kernel = 0;
		out[*n].return_addr = 0;
		(*n)++;
	}
}

int unwinder_unwind(struct unwinder *u, const struct unwind_sample *s,
		    struct stack_frame_in *out, size_t *n, size_t max,
		    char *why, size_t whylen)
{
	struct unwind_space *sp = space_find(u, s->pid);
	struct frames_ctx c = { out, n, max, 0 };
	size_t before = *n;
	int rc;

	why[0] = '\0';
	if (!s->regs) {
		snprintf(why, whylen, "no user registers (kernel thread)");
		return 0;
	}
	if (sp && !sp->dwfl && space_build(u, sp) < 0)
		return -ENOMEM;
	if (!sp || !sp->attached) {
		ip_only(s, out, n, max);
		snprintf(why, whylen, "no executable file mapped");
		return 0;
	}
	sp->cur = s;
	sp->sp = sample_reg(s, PERF_SP);
	sp->read_beyond = 0;
	rc = dwfl_getthread_frames(sp->dwfl, (pid_t)s->tid, on_frame, &c);
	if (*n == before)
		ip_only(s, out, n, max);
	if (c.full)
		snprintf(why, whylen, "more than %zu frames", max);
	else if (sp->read_beyond)	/* libdwfl may call that the end: it is not */
		snprintf(why, whylen, "stack copy too small (%llu bytes)",
			 (unsigned long long)s->stack_size);
	else if (rc != 0)
		snprintf(why, whylen, "%s", dwfl_errmsg(-1));
	sp->cur = NULL;
	return 0;
}
