/*
 * Stacks without a kernel: the unwinder replays a sample recorded from
 * stack_workload_nofp's own major fault (tests/unit/fixtures/, made by
 * `make unwind-fixture`) against that program's ELF in build/, and the
 * callchain parser, the stack table and the held records are driven with
 * hand-built input.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <cmocka.h>
#include <elfutils/libdwelf.h>
#include <linux/perf_event.h>

#include "../../decoder/callchain.h"
#include "../../decoder/held_records.h"
#include "../../decoder/stack_table.h"
#include "../../decoder/unwind.h"
#include "../integration/elf_syms.h"

#define FIXTURE "tests/unit/fixtures/unwind_nofp.txt"

struct fixture {
	uint64_t regs_mask;
	uint64_t regs[24];
	uint8_t *stack;		/* malloc'd */
	uint64_t stack_size, dyn_size;
	uint64_t map_start[4], map_len[4], map_pgoff[4];
	int nmaps;
	char build_id[41];
};

/* The program's absolute path, as a mapping names it. */
static const char *program(void)
{
	static char path[512], abs[PATH_MAX];
	const char *build = getenv("BUILD");

	snprintf(path, sizeof(path), "%s/tests/stack_workload_nofp",
		 build ? build : "build/release");
	return realpath(path, abs) ? abs : path;
}

static void load_fixture(struct fixture *fx)
{
	static char line[1 << 16];
	FILE *f = fopen(FIXTURE, "r");

	memset(fx, 0, sizeof(*fx));
	assert_non_null(f);
	while (fgets(line, sizeof(line), f)) {
		char *p = strchr(line, '=');

		assert_non_null(p);
		*p++ = '\0';
		if (!strcmp(line, "regs_mask")) {
			fx->regs_mask = strtoull(p, NULL, 16);
		} else if (!strcmp(line, "regs")) {
			for (int i = 0; i < __builtin_popcountll(fx->regs_mask); i++)
				fx->regs[i] = strtoull(p, &p, 16);
		} else if (!strcmp(line, "stack_size")) {
			fx->stack_size = strtoull(p, NULL, 10);
		} else if (!strcmp(line, "dyn_size")) {
			fx->dyn_size = strtoull(p, NULL, 10);
		} else if (!strcmp(line, "stack")) {
			fx->stack = calloc(1, fx->stack_size);
			assert_non_null(fx->stack);
			for (uint64_t i = 0; i < fx->dyn_size; i++)
				sscanf(p + 2 * i, "%2hhx", &fx->stack[i]);
		} else if (!strcmp(line, "map") && fx->nmaps < 4) {
			sscanf(p, "%lx %lx %lx", &fx->map_start[fx->nmaps],
			       &fx->map_len[fx->nmaps], &fx->map_pgoff[fx->nmaps]);
			fx->nmaps++;
		} else if (!strcmp(line, "build_id")) {
			sscanf(p, "%40s", fx->build_id);
		}
	}
	fclose(f);
	assert_non_null(fx->stack);
	assert_true(fx->nmaps > 0);
}

/* The fixture's addresses are only this program's if it is the very
 * binary the sample was recorded from. */
static void assert_same_build(const struct fixture *fx)
{
	char hex[41] = "";
	const uint8_t *id = NULL;
	int fd = open(program(), O_RDONLY);
	Elf *elf;
	ssize_t n;

	assert_true(fd >= 0);
	elf_version(EV_CURRENT);
	elf = elf_begin(fd, ELF_C_READ, NULL);
	n = elf ? dwelf_elf_gnu_build_id(elf, (const void **)&id) : -1;
	for (ssize_t i = 0; i < n && i < 20; i++)
		sprintf(hex + 2 * i, "%02x", id[i]);
	elf_end(elf);
	close(fd);
	if (strcmp(hex, fx->build_id))
		fail_msg("%s has build id %s, the fixture was recorded from %s: "
			 "regenerate it with 'make unwind-fixture'", program(), hex,
			 fx->build_id);
}

/* The fixture's sample, as process pid's. */
static void fixture_sample(const struct fixture *fx, uint32_t pid,
			   struct unwind_sample *s)
{
	memset(s, 0, sizeof(*s));
	s->pid = s->tid = pid;
	s->regs_mask = fx->regs_mask;
	s->regs = fx->regs;
	s->stack = fx->stack;
	s->stack_size = s->dyn_size = fx->dyn_size;
}

static void replay(struct fixture *fx, uint64_t dyn_size,
		   struct stack_frame_in *fr, size_t *n, char *why, size_t whylen)
{
	struct unwinder u;
	struct unwind_sample s;

	fixture_sample(fx, 4242, &s);
	s.stack_size = s.dyn_size = dyn_size;
	unwinder_init(&u);
	for (int i = 0; i < fx->nmaps; i++)
		assert_int_equal(unwinder_map(&u, 4242, fx->map_start[i],
					      fx->map_len[i], fx->map_pgoff[i],
					      PROT_READ | PROT_EXEC, program()), 0);
	*n = 0;
	assert_int_equal(unwinder_unwind(&u, &s, fr, n, STACK_MAX_FRAMES, why,
					 whylen), 0);
	unwinder_release(&u);
}

/* Is frame k's instruction (a return address less 1) inside fn? */
static int frame_in(const struct fixture *fx, const struct stack_frame_in *f,
		    const char *fn)
{
	uint64_t value = 0, size = 0;
	uint64_t bias = fx->map_start[0] - fx->map_pgoff[0];
	uint64_t at = f->addr - f->return_addr;

	assert_int_equal(elf_symbol(program(), fn, &value, &size), 0);
	return at >= bias + value && at < bias + value + size;
}

static void a_recorded_sample_unwinds_to_c_b_a_main_without_frame_pointers(void **state)
{
	static const char *const chain[] = { "chain_c", "chain_b", "chain_a", "main" };
	struct stack_frame_in fr[STACK_MAX_FRAMES];
	struct fixture fx;
	char why[128];
	size_t n;

	(void)state;
	load_fixture(&fx);
	assert_same_build(&fx);
	replay(&fx, fx.dyn_size, fr, &n, why, sizeof(why));
	/* main's caller is in libc, which the replay does not map: one frame
	 * more, and the unwind stops there with libdwfl's reason. */
	assert_int_equal(n, 5);
	for (int k = 0; k < 4; k++)
		if (!frame_in(&fx, &fr[k], chain[k]))
			fail_msg("frame %d at %llx is not in %s", k,
				 (unsigned long long)fr[k].addr, chain[k]);
	assert_int_equal(fr[0].return_addr, 0);
	for (size_t k = 1; k < n; k++)
		assert_int_equal(fr[k].return_addr, 1);
	assert_true(why[0] != '\0');
	assert_null(strstr(why, "stack copy"));
	free(fx.stack);
}

static void a_truncated_stack_copy_stops_early_and_says_so(void **state)
{
	struct stack_frame_in fr[STACK_MAX_FRAMES];
	struct fixture fx;
	char why[128];
	size_t n;

	(void)state;
	load_fixture(&fx);
	assert_same_build(&fx);
	/* chain_c's return address is at its sp; chain_b's lies beyond 8
	 * bytes of copy. */
	replay(&fx, 8, fr, &n, why, sizeof(why));
	assert_int_equal(n, 2);
	assert_true(frame_in(&fx, &fr[0], "chain_c"));
	assert_true(frame_in(&fx, &fr[1], "chain_b"));
	assert_string_equal(why, "stack copy too small (8 bytes)");
	replay(&fx, 0, fr, &n, why, sizeof(why));
	assert_int_equal(n, 1);
	assert_true(frame_in(&fx, &fr[0], "chain_c"));
	assert_string_equal(why, "stack copy too small (0 bytes)");
	free(fx.stack);
}

static void a_process_with_no_file_mapped_keeps_only_the_sampled_instruction(void **state)
{
	struct stack_frame_in fr[4];
	struct fixture fx;
	struct unwinder u;
	struct unwind_sample s;
	char why[128];
	size_t n = 0;

	(void)state;
	load_fixture(&fx);
	fixture_sample(&fx, 7, &s);
	unwinder_init(&u);
	/* Anonymous and data mappings are no code to unwind. */
	assert_int_equal(unwinder_map(&u, 7, 0x1000, 0x1000, 0, PROT_READ, "/bin/true"), 0);
	assert_int_equal(unwinder_map(&u, 7, 0x2000, 0x1000, 0, PROT_EXEC, "[anon]"), 0);
	assert_int_equal(unwinder_unwind(&u, &s, fr, &n, 4, why, sizeof(why)), 0);
	assert_int_equal(n, 1);
	assert_int_equal(fr[0].addr, fx.regs[8]);	/* IP */
	assert_string_equal(why, "no executable file mapped");
	unwinder_release(&u);
	free(fx.stack);
}

static void an_exec_forgets_the_old_mappings(void **state)
{
	struct stack_frame_in fr[STACK_MAX_FRAMES];
	struct fixture fx;
	struct unwinder u;
	struct unwind_sample s;
	char why[128];
	size_t n = 0;

	(void)state;
	load_fixture(&fx);
	fixture_sample(&fx, 9, &s);
	unwinder_init(&u);
	assert_int_equal(unwinder_map(&u, 9, fx.map_start[0], fx.map_len[0],
				      fx.map_pgoff[0], PROT_EXEC, program()), 0);
	assert_true(unwinder_knows(&u, 9));
	unwinder_forget(&u, 9);
	assert_int_equal(unwinder_unwind(&u, &s, fr, &n, STACK_MAX_FRAMES, why,
					 sizeof(why)), 0);
	assert_int_equal(n, 1);
	unwinder_release(&u);
	free(fx.stack);
}

static void callchain_markers_are_dropped_and_each_part_starts_exact(void **state)
{
	const uint64_t ips[] = {
		(uint64_t)PERF_CONTEXT_KERNEL, 0xffffffff81000010, 0xffffffff81000020,
		(uint64_t)PERF_CONTEXT_USER, 0x401000, 0x402000, 0x403000,
	};
	struct stack_frame_in fr[8];
	uint64_t cut;
	size_t n = 0;

	(void)state;
	assert_int_equal(callchain_frames(ips, 7, 1, fr, &n, 8, &cut), 5);
	assert_int_equal(cut, 0);
	assert_int_equal(fr[0].addr, 0xffffffff81000010);
	assert_true(fr[0].kernel && !fr[0].return_addr);
	assert_true(fr[1].kernel && fr[1].return_addr);
	assert_int_equal(fr[2].addr, 0x401000);
	assert_true(!fr[2].kernel && !fr[2].return_addr);
	assert_true(!fr[4].kernel && fr[4].return_addr);
	/* Without the user part (dwarf unwinds it), and bounded by max. */
	n = 0;
	assert_int_equal(callchain_frames(ips, 7, 0, fr, &n, 8, &cut), 2);
	n = 0;
	assert_int_equal(callchain_frames(ips, 7, 1, fr, &n, 3, &cut), 3);
	/* Unaligned input is read bytewise. */
	{
		uint8_t buf[8 * 7 + 1];

		memcpy(buf + 1, ips, sizeof(ips));
		n = 0;
		assert_int_equal(callchain_frames(buf + 1, 7, 1, fr, &n, 8, &cut), 5);
		assert_int_equal(fr[4].addr, 0x403000);
	}
}

/* A frame-pointer walk through data: "/jvm/jav" read as a return
 * address, then whatever followed it.  The user part ends before it, and
 * the address is handed back for the stack's reason. */
static void callchain_cuts_the_user_part_at_an_address_no_process_maps(void **state)
{
	const uint64_t ips[] = {
		(uint64_t)PERF_CONTEXT_KERNEL, 0xffffffff81000010,
		(uint64_t)PERF_CONTEXT_USER, 0x401000, 0x402000,
		0x76616a2f6d766a2f, 0x403000, 0x404000,
	};
	const uint64_t low[] = {
		(uint64_t)PERF_CONTEXT_USER, 0, 0x402000, 0x10, 0x403000,
	};
	struct stack_frame_in fr[8];
	uint64_t cut;
	size_t n = 0;

	(void)state;
	assert_int_equal(callchain_frames(ips, 8, 1, fr, &n, 8, &cut), 3);
	assert_int_equal(cut, 0x76616a2f6d766a2f);
	assert_int_equal(fr[2].addr, 0x402000);
	/* The interrupted instruction is kept even at 0 (a call through a
	 * NULL pointer); a return address in page zero is not one. */
	n = 0;
	assert_int_equal(callchain_frames(low, 5, 1, fr, &n, 8, &cut), 2);
	assert_int_equal(fr[0].addr, 0);
	assert_int_equal(cut, 0x10);
	/* Kernel addresses are kernel frames, never cut. */
	n = 0;
	assert_int_equal(callchain_frames(ips, 8, 0, fr, &n, 8, &cut), 1);
	assert_int_equal(cut, 0);
}

static void the_same_frames_make_the_same_stack_once(void **state)
{
	struct stack_frame_in a[3] = {
		{ 0xffffffff81000010, 1, 0 }, { 0x401000, 0, 0 }, { 0x402000, 0, 1 },
	};
	struct stack_table t;
	uint32_t s1, s2, s3, s4, s5;

	(void)state;
	stack_table_init(&t);
	assert_int_equal(stack_table_intern(&t, 10, STACK_DWARF, NULL, a, 3, &s1), 0);
	assert_int_equal(stack_table_intern(&t, 10, STACK_DWARF, NULL, a, 3, &s2), 0);
	assert_int_equal(s1, s2);
	assert_int_equal(t.nstacks, 1);
	assert_int_equal(t.nframes, 3);
	/* Another reason to end, method, pid or length: another stack. */
	assert_int_equal(stack_table_intern(&t, 10, STACK_DWARF, "stack copy too small (8 bytes)",
					    a, 3, &s3), 0);
	assert_int_equal(stack_table_intern(&t, 10, STACK_FP, NULL, a, 3, &s4), 0);
	assert_int_equal(stack_table_intern(&t, 11, STACK_DWARF, NULL, a, 2, &s5), 0);
	assert_true(s3 != s1 && s4 != s1 && s4 != s3 && s5 != s1);
	assert_string_equal(stack_table_stack(&t, s3)->truncated,
			    "stack copy too small (8 bytes)");
	/* The kernel frame is one frame for every process; user frames
	 * are per process. */
	assert_int_equal(t.nframes, 3 + 1);
	assert_int_equal(stack_table_frame(&t, stack_table_stack(&t, s5)->frames[0])->pid, -1);
	assert_int_equal(stack_table_frame(&t, stack_table_stack(&t, s5)->frames[1])->pid, 11);
	assert_null(stack_table_stack(&t, 0));
	assert_null(stack_table_stack(&t, 99));
	stack_table_release(&t);
}

/* Stacks found again by their raw frames (the cache in front of the
 * table) are the stacks the frames make: a frame that differs only in
 * being a return address, or in its address space, is another stack,
 * however often each is seen. */
static void a_stack_seen_again_is_the_stack_its_frames_make(void **state)
{
	struct stack_frame_in a[2] = { { 0x401000, 0, 0 }, { 0x402000, 0, 1 } };
	struct stack_frame_in ret[2] = { { 0x401000, 0, 1 }, { 0x402000, 0, 1 } };
	struct stack_frame_in kern[2] = { { 0x401000, 1, 0 }, { 0x402000, 0, 1 } };
	struct stack_table t;
	uint32_t first[3], id;

	(void)state;
	stack_table_init(&t);
	for (int round = 0; round < 3; round++) {
		const struct stack_frame_in *f[3] = { a, ret, kern };

		for (int k = 0; k < 3; k++) {
			assert_int_equal(stack_table_intern(&t, 10, STACK_FP, NULL,
							    f[k], 2, &id), 0);
			if (round == 0)
				first[k] = id;
			assert_int_equal(id, first[k]);
		}
	}
	assert_int_equal(t.nstacks, 3);
	assert_true(first[0] != first[1] && first[1] != first[2] &&
		    first[0] != first[2]);
	assert_int_equal(stack_table_frame(&t, stack_table_stack(&t, first[2])->frames[0])->pid, -1);
	stack_table_release(&t);
}

static void many_stacks_keep_their_ids_as_the_table_grows(void **state)
{
	struct stack_table t;
	struct stack_frame_in f[2];
	uint32_t id;

	(void)state;
	stack_table_init(&t);
	for (uint64_t i = 0; i < 5000; i++) {
		f[0] = (struct stack_frame_in){ 0x400000 + i, 0, 0 };
		f[1] = (struct stack_frame_in){ 0x500000, 0, 1 };
		assert_int_equal(stack_table_intern(&t, 1, STACK_FP, NULL, f, 2, &id), 0);
		assert_int_equal(id, i + 1);
	}
	for (uint64_t i = 0; i < 5000; i += 7) {
		f[0] = (struct stack_frame_in){ 0x400000 + i, 0, 0 };
		f[1] = (struct stack_frame_in){ 0x500000, 0, 1 };
		assert_int_equal(stack_table_intern(&t, 1, STACK_FP, NULL, f, 2, &id), 0);
		assert_int_equal(id, i + 1);
	}
	assert_int_equal(t.nframes, 5001);
	stack_table_release(&t);
}

struct replayed {
	char order[16];
	int n;
};

static int note_replayed(void *ctx, int cpu, const void *bytes, size_t len)
{
	struct replayed *r = ctx;

	assert_int_equal(len, 1);
	assert_int_equal(cpu, ((const char *)bytes)[0] - 'a');
	r->order[r->n++] = ((const char *)bytes)[0];
	return r->n == 5 ? -EIO : 0;
}

static void held_records_come_back_by_time_then_arrival(void **state)
{
	struct held_records h;
	struct replayed r = { "", 0 };

	(void)state;
	held_records_init(&h);
	/* A later CPU's ring read first: its records are older. */
	assert_int_equal(held_records_push(&h, 30, 0, "a", 1), 0);
	assert_int_equal(held_records_push(&h, 10, 1, "b", 1), 0);
	assert_int_equal(held_records_push(&h, 30, 2, "c", 1), 0);
	assert_int_equal(held_records_push(&h, 20, 3, "d", 1), 0);
	assert_int_equal(held_records_replay(&h, note_replayed, &r), 0);
	assert_string_equal(r.order, "bdac");
	assert_int_equal(h.n, 0);
	/* The first error stops the replay, and what is left is dropped. */
	assert_int_equal(held_records_push(&h, 5, 4, "e", 1), 0);
	assert_int_equal(held_records_push(&h, 6, 5, "f", 1), 0);
	assert_int_equal(held_records_replay(&h, note_replayed, &r), -EIO);
	assert_string_equal(r.order, "bdace");
	assert_int_equal(h.n, 0);
	held_records_release(&h);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(a_recorded_sample_unwinds_to_c_b_a_main_without_frame_pointers),
		cmocka_unit_test(a_truncated_stack_copy_stops_early_and_says_so),
		cmocka_unit_test(a_process_with_no_file_mapped_keeps_only_the_sampled_instruction),
		cmocka_unit_test(an_exec_forgets_the_old_mappings),
		cmocka_unit_test(callchain_markers_are_dropped_and_each_part_starts_exact),
		cmocka_unit_test(callchain_cuts_the_user_part_at_an_address_no_process_maps),
		cmocka_unit_test(the_same_frames_make_the_same_stack_once),
		cmocka_unit_test(a_stack_seen_again_is_the_stack_its_frames_make),
		cmocka_unit_test(many_stacks_keep_their_ids_as_the_table_grows),
		cmocka_unit_test(held_records_come_back_by_time_then_arrival),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
