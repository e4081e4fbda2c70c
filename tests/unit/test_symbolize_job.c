/*
 * symbolize_job: the naming of a symbolization job without a database
 * (decoder/symbolize_job.h): frames, mappings and sources built here,
 * kallsyms and perf maps given as text, the fixture library's real
 * mappings (symfix.h).  And the sources alone, as collector/
 * symbol_sources.h gathers them from this machine.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>
#include <cmocka.h>

#include "../../collector/symbol_sources.h"
#include "../../decoder/symbolize_job.h"
#include "symfix.h"

static const char *this_kernel(void)
{
	static struct utsname un;

	uname(&un);
	return un.release;
}

#define JIT_PID 4194399	/* above the largest pid_max: no process has it */

/* A kallsyms text no kernel has: the job needs no root to read it. */
static char fake_kallsyms[] =
	"ffffffff81000000 T fake_entry\n"
	"ffffffff81000100 t fake_next\n"
	"ffffffffc0001000 t fake_mod_fn\t[fakemod]\n"
	"ffffffffc0001080 t fake_mod_end\t[fakemod]\n";

static void add_input_frame(struct sym_input *in, int64_t frame_id, int64_t pid,
			    uint64_t addr, int kernel, int return_addr)
{
	struct sym_frame f = { frame_id, pid, addr, kernel, return_addr };

	assert_int_equal(sym_input_add_frame(in, &f), 0);
}

static struct sym_result job_result(const struct symbolize_job *j, size_t i)
{
	struct sym_result r;

	symbolize_job_result(j, i, &r);
	return r;
}

static void assert_line(const struct sym_func *fn, const char *mark)
{
	size_t len = fn->file ? strlen(fn->file) : 0;

	if (len < 9 || strcmp(fn->file + len - 9, "/symfix.c"))
		fail_msg("%s: file '%s', expected .../symfix.c", fn->function,
			 fn->file ? fn->file : "(none)");
	assert_int_equal(fn->line, marked_line(mark));
}

static void a_job_names_frames_from_its_inputs_alone_in_any_order(void **state)
{
	struct self_map maps[16];
	size_t n = self_maps("/libsymfix.so", maps, 16);
	char jit_text[] = "7f0000001000 100 jitted_fn\n", jit_dso[80];
	struct sym_perf_map jit = { .pid = JIT_PID, .text = jit_text,
				    .len = sizeof(jit_text) - 1 };
	struct sym_mapping anon = { 0x7f0000000000ull, 0x7f0000010000ull, 0,
				    "//anon", NULL, 1, 1, 0 };
	struct sym_sources src = { NULL, fake_kallsyms, sizeof(fake_kallsyms) - 1,
				   NULL, 0, &jit, 1 };
	struct symbolize_job j;
	struct sym_input in;
	struct sym_result r;
	struct errmsg e;
	int pid = getpid();

	(void)state;
	errmsg_init(&e);
	snprintf(jit.path, sizeof(jit.path), "/tmp/perf-%d.map", JIT_PID);
	sym_input_init(&in);
	symbolize_job_init(&j);
	for (size_t i = 0; i < n; i++) {
		struct sym_mapping m = { maps[i].start, maps[i].end, maps[i].pgoff,
					 maps[i].path, NULL, (maps[i].prot & 4) != 0,
					 1, (int64_t)i };

		assert_int_equal(sym_input_add_mapping(&in, pid, &m), 0);
	}
	assert_int_equal(sym_input_add_mapping(&in, JIT_PID, &anon), 0);
	/* Processes and kernel frames interleaved, not grouped. */
	add_input_frame(&in, 10, pid, (uint64_t)fix_plain(), 0, 1);
	add_input_frame(&in, 11, JIT_PID, 0x7f0000001010ull, 0, 1);
	add_input_frame(&in, 12, -1, 0xffffffff81000010ull, 1, 1);
	add_input_frame(&in, 13, pid, (uint64_t)fix_outer(), 0, 1);
	add_input_frame(&in, 14, -1, 0xffffffffc0001004ull, 1, 0);
	add_input_frame(&in, 15, pid, 0x10, 0, 0);
	add_input_frame(&in, 16, pid, (uint64_t)(uintptr_t)fix_capture, 0, 0);
	assert_int_equal(symbolize_job_run(&j, &in, &src, &e), 0);

	assert_int_equal(j.counts.frames, 7);
	assert_int_equal(j.counts.ok, 6);
	assert_int_equal(j.counts.no_mapping, 1);
	r = job_result(&j, 0);
	assert_int_equal(r.status, SYM_OK);
	assert_string_equal(r.dso, fixture("libsymfix.so"));
	assert_int_equal(r.nfuncs, 1);
	assert_string_equal(r.funcs[0].function, "fix_plain");
	assert_line(&r.funcs[0], "plain_call");
	r = job_result(&j, 3);
	assert_int_equal(r.nfuncs, 2);
	assert_string_equal(r.funcs[0].function, "fix_inner");
	assert_int_equal(r.funcs[0].inlined, 1);
	assert_line(&r.funcs[0], "inner_call");
	assert_string_equal(r.funcs[1].function, "fix_outer");
	assert_line(&r.funcs[1], "outer_call");
	r = job_result(&j, 6);
	assert_string_equal(r.funcs[0].function, "fix_capture");
	assert_int_equal(r.funcs[0].offset, 0);
	/* The JIT's map came as text: no file in /tmp was read. */
	r = job_result(&j, 1);
	snprintf(jit_dso, sizeof(jit_dso), "[jit] /tmp/perf-%d.map", JIT_PID);
	assert_string_equal(r.dso, jit_dso);
	assert_string_equal(r.funcs[0].function, "jitted_fn");
	assert_int_equal(r.funcs[0].offset, 0x10);
	r = job_result(&j, 2);
	assert_string_equal(r.dso, "[kernel.kallsyms]");
	assert_string_equal(r.funcs[0].function, "fake_entry");
	assert_int_equal(r.funcs[0].offset, 0x10);
	assert_int_equal(r.funcs[0].size, 0x100);
	r = job_result(&j, 4);
	assert_string_equal(r.dso, "[fakemod]");
	assert_string_equal(r.funcs[0].function, "fake_mod_fn");
	r = job_result(&j, 5);
	assert_int_equal(r.status, SYM_NO_MAPPING);
	assert_null(r.dso);
	assert_int_equal(r.nfuncs, 0);
	symbolize_job_release(&j);
	sym_input_release(&in);
}

static void a_job_without_kallsyms_or_vdso_leaves_those_frames_no_file(void **state)
{
	struct sym_mapping vdso = { 0x7ffff7fc1000ull, 0x7ffff7fc3000ull, 0,
				    "[vdso]", NULL, 1, 1, 0 };
	struct sym_sources src = { 0 };
	struct symbolize_job j;
	struct sym_input in;
	struct errmsg e;

	(void)state;
	errmsg_init(&e);
	sym_input_init(&in);
	symbolize_job_init(&j);
	assert_int_equal(sym_input_add_mapping(&in, 7, &vdso), 0);
	add_input_frame(&in, 1, -1, 0xffffffff81000010ull, 1, 0);
	add_input_frame(&in, 2, 7, 0x7ffff7fc1100ull, 0, 0);
	assert_int_equal(symbolize_job_run(&j, &in, &src, &e), 0);
	assert_int_equal(j.counts.no_file, 2);
	assert_string_equal(job_result(&j, 0).dso, "[kernel.kallsyms]");
	assert_string_equal(job_result(&j, 1).dso, "[vdso]");
	symbolize_job_release(&j);
	sym_input_release(&in);
}

static void sources_hold_kallsyms_and_the_vdso_only_for_the_session_s_kernel(void **state)
{
	const int64_t pids[] = { unused_pid(0), unused_pid(1) };
	/* Above every kernel symbol: the highest names it. */
	const uint64_t kernel_addrs[] = { UINT64_MAX };
	struct symbol_sources_want other = {
		.kernel = "0.0.0-not-this-one", .kernel_addrs = kernel_addrs,
		.nkernel_addrs = 1, .pids = pids, .npids = 2 };
	struct symbol_sources_want same_user = { .kernel = this_kernel() };
	struct symbol_sources_want same_kernel = {
		.kernel = this_kernel(), .kernel_addrs = kernel_addrs,
		.nkernel_addrs = 1 };
	struct symbol_sources s;
	struct errmsg e;
	char map[64];
	FILE *f;

	(void)state;
	errmsg_init(&e);
	snprintf(map, sizeof(map), "/tmp/perf-%d.map", unused_pid(1));
	f = fopen(map, "w");
	assert_non_null(f);
	fputs("1000 10 gathered\n", f);
	fclose(f);
	/* Another kernel: its frames cannot be named here; of two JITs,
	 * the one with a map has it read, the other is no error. */
	symbol_sources_init(&s);
	assert_int_equal(symbol_sources_gather(&s, &other, &e), 0);
	unlink(map);
	assert_int_equal(s.same_kernel, 0);
	assert_null(s.kallsyms);
	assert_null(s.vdso);
	assert_int_equal(s.nperf_maps, 1);
	assert_int_equal(s.perf_maps[0].pid, unused_pid(1));
	assert_string_equal(s.perf_maps[0].path, map);
	assert_string_equal(s.perf_maps[0].text, "1000 10 gathered\n");
	symbol_sources_release(&s);
	/* This kernel, user frames only: the vDSO, and kallsyms is not read. */
	symbol_sources_init(&s);
	assert_int_equal(symbol_sources_gather(&s, &same_user, &e), 0);
	assert_int_equal(s.same_kernel, 1);
	assert_non_null(s.vdso);
	assert_null(s.kallsyms);
	symbol_sources_release(&s);
	symbol_sources_init(&s);
	assert_int_equal(symbol_sources_gather(&s, &same_kernel, &e), 0);
	assert_non_null(s.kallsyms);
	/* Of kallsyms, the lines its frames need: here the highest code
	 * symbol's (and its aliases). */
	assert_true(s.kallsyms_len > 0);
	assert_true(s.kallsyms_len < 1024);
	symbol_sources_release(&s);
}

static int load_fixture(void **state)
{
	(void)state;
	return symfix_load();
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(a_job_names_frames_from_its_inputs_alone_in_any_order),
		cmocka_unit_test(a_job_without_kallsyms_or_vdso_leaves_those_frames_no_file),
		cmocka_unit_test(sources_hold_kallsyms_and_the_vdso_only_for_the_session_s_kernel),
	};

	return cmocka_run_group_tests(tests, load_fixture, NULL);
}
