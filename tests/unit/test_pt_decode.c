/*
 * pt_flow: Intel PT bytes made by libipt's own encoder (PSB, PSBEND, TSC,
 * MTC, CBR, MODE.exec, FUP, TIP, TIP.PGE, TIP.PGD, TNT, OVF, PAD) over
 * code this build compiled into a real ELF file (libptcode.so, from
 * tests/fixtures/pt/ptcode.S) and mapped through MMAP2 records decode
 * into exactly the calls and returns that code made, each on the
 * CLOCK_MONOTONIC time its TSC says; what cannot be followed is a gap.
 *
 * Times: the clock's page turns TSC t into perf time t + 500 and the one
 * calibration pair puts perf 0 at monotonic 1 s, so a row at TSC t is at
 * 1000000500 + t ns.  A row's time is that of the last timing packet
 * before the packet that resolved its branch.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include "../../decoder/pt_flow.h"
#include "../../decoder/pt_sideband.h"
#include "pt_stream.h"
/* records.h's writer cannot tell gcc that its failure path never returns
 * (cmocka's fail_msg jumps out), and gcc 12, inlining it into
 * pt_fixture.h's MMAP2 records, warns about the copy after that path. */
#pragma GCC diagnostic ignored "-Warray-bounds"
#pragma GCC diagnostic ignored "-Wstringop-overflow"
#include "records.h"
#include "pt_fixture.h"

#define MONO(tsc) (1000000500ull + (tsc))
#define NO_TIME UINT64_MAX

struct fx {
	struct pt_image_section_cache *isc;
	struct pt_space space;
	struct pt_clock clock;
	struct pt_flow_config cfg;
	struct pt_flow_out out;
	struct pt_stream s;
	uint64_t top, middle, leaf, tail, via, loop;
};

static int setup(void **state)
{
	static const struct pt_tsc_conv conv = { .time_zero = 500, .time_mult = 1,
						 .time_shift = 0 };
	struct pt_calib_pair pair = { 0, 1000000000ull, 0 };
	struct fx *f = calloc(1, sizeof(*f));

	f->isc = pt_iscache_alloc(NULL);
	if (!f->isc || pt_space_init(&f->space, f->isc, NULL, 0) < 0 ||
	    ptfix_map_lib(&f->space) < 0 || ps_init(&f->s, 1 << 16) < 0)
		return -1;
	pt_clock_init(&f->clock, &conv);
	pt_clock_add(&f->clock, &pair);
	f->cfg.clock = &f->clock;
	pt_flow_out_init(&f->out);
	f->top = ptfix_addr("pt_top");
	f->middle = ptfix_addr("pt_middle");
	f->leaf = ptfix_addr("pt_leaf");
	f->tail = ptfix_addr("pt_tail");
	f->via = ptfix_addr("pt_via");
	f->loop = ptfix_addr("pt_loop");
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fx *f = *state;

	ps_release(&f->s);
	pt_flow_out_release(&f->out);
	pt_space_release(&f->space);
	pt_clock_release(&f->clock);
	pt_iscache_free(f->isc);
	free(f);
	return 0;
}

struct want {
	enum pt_row_kind kind;
	int depth;
	uint64_t from, to;
	uint64_t mono;		/* NO_TIME: has_time must be 0 */
};

static void decode(struct fx *f)
{
	assert_false(f->s.failed);
	assert_int_equal(pt_flow_decode(&f->cfg, &f->space, f->s.buf,
					ps_len(&f->s), &f->out), 0);
}

/* Every row and gap, for a failure's message. */
static void dump(const struct fx *f)
{
	for (size_t i = 0; i < f->out.nrows; i++) {
		const struct pt_row *r = &f->out.rows[i];

		print_message("  row %zu: %s depth %d 0x%llx -> 0x%llx at %llu (%d)\n",
			      i, pt_row_kind_name(r->kind), r->depth,
			      (unsigned long long)r->from, (unsigned long long)r->to,
			      (unsigned long long)r->mono_ns, r->has_time);
	}
	for (size_t i = 0; i < f->out.ngaps; i++)
		print_message("  gap %zu: %s at 0x%llx: %s\n", i,
			      pt_gap_reason_name(f->out.gaps[i].reason),
			      (unsigned long long)f->out.gaps[i].ip,
			      f->out.gaps[i].message);
}

static void assert_rows(const struct fx *f, const struct want *w, size_t n)
{
	if (f->out.nrows != n)
		dump(f);
	for (size_t i = 0; i < n && i < f->out.nrows; i++) {
		const struct pt_row *r = &f->out.rows[i];

		if (r->kind != w[i].kind || r->depth != w[i].depth ||
		    r->from != w[i].from || r->to != w[i].to ||
		    (w[i].mono == NO_TIME ? r->has_time :
		     !r->has_time || r->mono_ns != w[i].mono)) {
			dump(f);
			fail_msg("row %zu: got %s depth %d 0x%llx -> 0x%llx at %llu "
				 "(%d), want %s depth %d 0x%llx -> 0x%llx at %llu",
				 i, pt_row_kind_name(r->kind), r->depth,
				 (unsigned long long)r->from, (unsigned long long)r->to,
				 (unsigned long long)r->mono_ns, r->has_time,
				 pt_row_kind_name(w[i].kind), w[i].depth,
				 (unsigned long long)w[i].from,
				 (unsigned long long)w[i].to,
				 (unsigned long long)w[i].mono);
		}
	}
	assert_int_equal(f->out.nrows, n);
}

/* pt_top(7): pt_middle takes the x > 5 way and calls pt_leaf; then pt_top
 * calls pt_leaf itself.  Offsets are ptcode.S's instructions. */
static void the_calls_and_returns_are_exactly_the_ones_the_code_made(void **state)
{
	struct fx *f = *state;
	struct pt_stream *s = &f->s;
	uint64_t top = f->top, mid = f->middle, leaf = f->leaf;
	const struct want w[] = {
		{ PT_ROW_ENABLE, 1, 0, top, MONO(1000) },
		{ PT_ROW_CALL, 2, top + 1, mid, MONO(1000) },
		{ PT_ROW_CALL, 3, mid + 5, leaf, MONO(2000) },
		{ PT_ROW_RETURN, 2, leaf + 4, mid + 10, MONO(2000) },
		{ PT_ROW_RETURN, 1, mid + 10, top + 6, MONO(3000) },
		{ PT_ROW_CALL, 2, top + 13, leaf, MONO(3000) },
		{ PT_ROW_RETURN, 1, leaf + 4, top + 18, MONO(4000) },
		{ PT_ROW_RETURN, 0, top + 21, 0, MONO(4000) },
		{ PT_ROW_DISABLE, 0, 0, 0, MONO(4000) },
	};

	ps_pad(s);
	ps_psb(s, 1000, 0);		/* PSB, TSC, CBR, MODE.exec, PSBEND */
	ps_pge(s, top);
	ps_mtc(s, 1);			/* no TMA: not a time of its own */
	ps_tsc(s, 2000);
	ps_tnt(s, 0, 1);		/* jle not taken: x > 5 */
	ps_tip(s, mid + 10);		/* pt_leaf returns (noretcomp) */
	ps_pad(s);
	ps_tsc(s, 3000);
	ps_tip(s, top + 6);		/* pt_middle returns */
	ps_cbr(s, 40);
	ps_tsc(s, 4000);
	ps_tip(s, top + 18);		/* pt_leaf returns */
	ps_pgd(s, 0);			/* pt_top returns out of the traced code */
	decode(f);
	assert_rows(f, w, sizeof(w) / sizeof(w[0]));
	assert_int_equal(f->out.ngaps, 0);
	assert_true(f->out.st.blocks >= 6);
}

/* The same flow with compressed returns: each return is a taken TNT bit,
 * its target the call's return address, which libipt keeps. */
static void compressed_returns_decode_from_the_calls_before_them(void **state)
{
	struct fx *f = *state;
	struct pt_stream *s = &f->s;
	uint64_t top = f->top, mid = f->middle, leaf = f->leaf;
	const struct want w[] = {
		{ PT_ROW_ENABLE, 1, 0, top, MONO(1000) },
		{ PT_ROW_CALL, 2, top + 1, mid, MONO(1000) },
		{ PT_ROW_CALL, 3, mid + 5, leaf, MONO(5000) },
		{ PT_ROW_RETURN, 2, leaf + 4, mid + 10, MONO(5000) },
		{ PT_ROW_RETURN, 1, mid + 10, top + 6, MONO(5000) },
		{ PT_ROW_CALL, 2, top + 13, leaf, MONO(5000) },
		{ PT_ROW_RETURN, 1, leaf + 4, top + 18, MONO(5000) },
		{ PT_ROW_RETURN, 0, top + 21, 0, MONO(5000) },
		{ PT_ROW_DISABLE, 0, 0, 0, MONO(5000) },
	};

	ps_psb(s, 1000, 0);
	ps_pge(s, top);
	ps_tsc(s, 5000);
	/* jle not taken, leaf's ret, middle's ret, leaf's ret: 0 1 1 1 */
	ps_tnt(s, 0x7, 4);
	ps_pgd(s, 0);
	decode(f);
	assert_rows(f, w, sizeof(w) / sizeof(w[0]));
}

/* An OVF: the CPU lost trace.  The gap is there, and the flow resumes at
 * the FUP's address.  libipt reads ahead to the event, so the return just
 * before it carries the time read after it. */
static void an_overflow_is_a_gap_and_the_flow_resumes_after_it(void **state)
{
	struct fx *f = *state;
	struct pt_stream *s = &f->s;
	uint64_t top = f->top, mid = f->middle, leaf = f->leaf;
	const struct want w[] = {
		{ PT_ROW_ENABLE, 0, 0, top, MONO(1000) },
		{ PT_ROW_CALL, 1, top + 1, mid, MONO(1000) },
		{ PT_ROW_CALL, 2, mid + 5, leaf, MONO(1000) },
		{ PT_ROW_RETURN, 1, leaf + 4, 0, MONO(7000) },
		/* After the gap: pt_top goes on at +6; pt_middle's return was
		 * lost, so the depth stays one deeper. */
		{ PT_ROW_CALL, 2, top + 13, leaf, MONO(7000) },
		{ PT_ROW_RETURN, 1, leaf + 4, top + 18, MONO(7000) },
		{ PT_ROW_RETURN, 0, top + 21, 0, MONO(7000) },
		{ PT_ROW_DISABLE, 0, 0, 0, MONO(7000) },
	};

	ps_psb(s, 1000, 0);
	ps_pge(s, top);
	ps_tnt(s, 0, 1);
	ps_tip(s, mid + 10);		/* pt_leaf returns */
	ps_ovf(s);			/* lost: pt_middle's return */
	ps_tsc(s, 7000);
	ps_fup(s, top + 6);		/* tracing resumes here */
	ps_tip(s, top + 18);
	ps_pgd(s, 0);
	decode(f);
	assert_rows(f, w, sizeof(w) / sizeof(w[0]));
	assert_int_equal(f->out.ngaps, 1);
	assert_int_equal(f->out.gaps[0].reason, PT_GAP_OVERFLOW);
	assert_int_equal(f->out.gaps[0].ip, top + 6);
	assert_int_equal(f->out.gaps[0].mono_ns, MONO(7000));
	assert_non_null(strstr(f->out.gaps[0].message, "OVF"));
}

/* The bytes of a function in the fake vDSO: mov $42, %eax; ret. */
static const uint8_t fake_vdso[0x200] = {
	[0x100] = 0xb8, 0x2a, 0x00, 0x00, 0x00, 0xc3,
};
#define VDSO 0x7ffff7fc1000ull

static void map_fake_vdso(struct fx *f)
{
	f->space.vdso = fake_vdso;
	f->space.vdso_len = sizeof(fake_vdso);
	assert_int_equal(ptfix_map(&f->space, "[vdso]", VDSO, 0x2000, 0,
				   PROT_READ | PROT_EXEC), 0);
}

/* pt_jump jumps through a register into another file's code (a PLT
 * stub's shape): no row of its own; the return from the function it
 * reached names it.  Decoding the trace again (libipt's block cache warm
 * now) gives the same rows. */
static void an_indirect_jump_shows_in_the_return_of_what_it_reached(void **state)
{
	struct fx *f = *state;
	struct pt_stream *s = &f->s;
	uint64_t jump = ptfix_addr("pt_jump"), other = 0x7f5500000000ull;
	uint64_t off, vaddr, size, leaf2 = other + (f->leaf - PTFIX_BASE);
	const struct want w[] = {
		{ PT_ROW_ENABLE, 1, 0, jump, MONO(1000) },
		/* pt_leaf returns to pt_jump's caller, before the trace: the
		 * shallowest point. */
		{ PT_ROW_RETURN, 0, leaf2 + 4, 0, MONO(1000) },
		{ PT_ROW_DISABLE, 0, 0, 0, MONO(1000) },
	};

	/* The library again, elsewhere: another section. */
	assert_int_equal(ptfix_text(&off, &vaddr, &size), 0);
	assert_int_equal(ptfix_map(&f->space, ptfix_path(), other + vaddr, 4096,
				   off, PROT_READ | PROT_EXEC), 0);
	ps_psb(s, 1000, 0);
	ps_pge(s, jump);
	ps_tip(s, leaf2);
	ps_pgd(s, 0);
	for (int round = 0; round < 3; round++) {
		pt_flow_out_reset(&f->out);
		decode(f);
		assert_rows(f, w, sizeof(w) / sizeof(w[0]));
	}
}

/* Inside one file too. */
static void a_tail_jump_within_a_file_shows_in_the_return_it_reaches(void **state)
{
	struct fx *f = *state;
	struct pt_stream *s = &f->s;
	const struct want w[] = {
		{ PT_ROW_ENABLE, 1, 0, f->tail, MONO(1000) },
		{ PT_ROW_RETURN, 0, f->leaf + 4, 0, MONO(1000) },
		{ PT_ROW_DISABLE, 0, 0, 0, MONO(1000) },
	};

	ps_psb(s, 1000, 0);
	ps_pge(s, f->tail);
	ps_tip(s, f->leaf);
	ps_pgd(s, 0);
	for (int round = 0; round < 3; round++) {
		pt_flow_out_reset(&f->out);
		decode(f);
		assert_rows(f, w, sizeof(w) / sizeof(w[0]));
	}
}

/* The vDSO is no file: its bytes (read from the target when recording)
 * serve the image, so a call into it decodes. */
static void a_call_into_the_vdso_decodes_from_its_bytes(void **state)
{
	struct fx *f = *state;
	struct pt_stream *s = &f->s;
	const struct want w[] = {
		{ PT_ROW_ENABLE, 1, 0, f->via, MONO(1000) },
		{ PT_ROW_CALL, 2, f->via + 6, VDSO + 0x100, MONO(1000) },
		{ PT_ROW_RETURN, 1, VDSO + 0x105, f->via + 8, MONO(1000) },
		{ PT_ROW_RETURN, 0, f->via + 8, 0, MONO(1000) },
		{ PT_ROW_DISABLE, 0, 0, 0, MONO(1000) },
	};

	map_fake_vdso(f);
	ps_psb(s, 1000, 0);
	ps_pge(s, f->via);
	ps_tip(s, VDSO + 0x100);	/* call *%rax */
	ps_tip(s, f->via + 8);		/* the vDSO function returns */
	ps_pgd(s, 0);
	decode(f);
	assert_rows(f, w, sizeof(w) / sizeof(w[0]));
	assert_int_equal(f->out.ngaps, 0);
}

/* A new stream in f->s, and the rows of the last decode gone. */
static void restart(struct fx *f)
{
	ps_release(&f->s);
	assert_int_equal(ps_init(&f->s, 1 << 16), 0);
	pt_flow_out_reset(&f->out);
}

/* Without the vDSO's bytes the same call stops there, with a gap; so
 * does code in a file that cannot be read, which the gap names. */
static void code_the_image_lacks_is_a_nomap_gap_that_says_why(void **state)
{
	struct fx *f = *state;
	uint64_t gone = 0x7e0000001000ull;

	ps_psb(&f->s, 1000, 0);
	ps_pge(&f->s, f->via);
	ps_tip(&f->s, VDSO + 0x100);
	ps_pgd(&f->s, 0);
	decode(f);
	assert_int_equal(f->out.ngaps, 1);
	assert_int_equal(f->out.gaps[0].reason, PT_GAP_NOMAP);
	assert_int_equal(f->out.gaps[0].ip, VDSO + 0x100);
	assert_non_null(strstr(f->out.gaps[0].message, "no file mapping holds it"));

	restart(f);
	assert_int_equal(ptfix_map(&f->space, "/no/such/libgone.so", gone, 0x1000,
				   0, PROT_READ | PROT_EXEC), 0);
	ps_psb(&f->s, 2000, 0);
	ps_pge(&f->s, gone);
	ps_pgd(&f->s, 0);
	decode(f);
	assert_int_equal(f->out.ngaps, 1);
	assert_int_equal(f->out.gaps[0].reason, PT_GAP_NOMAP);
	assert_non_null(strstr(f->out.gaps[0].message,
			       "'/no/such/libgone.so' could not be read"));
	assert_int_equal(f->out.gaps[0].mono_ns, MONO(2000));
}

/* Bytes before the first PSB (a snapshot starts mid-packet) are counted,
 * not decoded; a PSB+ while tracing (FUP: where the flow is) resyncs. */
static void decoding_starts_at_the_first_psb_and_runs_across_the_next(void **state)
{
	struct fx *f = *state;
	struct pt_stream *s = &f->s;
	const int turns = 300;

	ps_tnt(s, 0x2a, 6);		/* the tail of an earlier PSB's trace */
	ps_tnt(s, 0x15, 5);
	ps_psb(s, 1000, 0);
	ps_pge(s, f->loop);
	for (int i = 0; i < turns; i++) {
		ps_tip(s, f->loop + 11);	/* pt_leaf returns */
		ps_tnt(s, i + 1 < turns, 1);	/* jnz */
		if (i == turns / 2) {		/* a PSB+, tracing on */
			ps_psb(s, 9000, f->loop + 4);
		}
	}
	ps_pgd(s, 0);
	decode(f);
	if (f->out.ngaps)
		dump(f);
	assert_int_equal(f->out.st.bytes_unsynced, 2);
	assert_int_equal(f->out.ngaps, 0);
	/* enable, a call and a return per turn, pt_loop's return, disable. */
	assert_int_equal(f->out.nrows, 1 + 2 * turns + 2);
	assert_int_equal(f->out.rows[1].kind, PT_ROW_CALL);
	assert_int_equal(f->out.rows[1].mono_ns, MONO(1000));
	assert_int_equal(f->out.rows[2 * turns].kind, PT_ROW_RETURN);
	assert_int_equal(f->out.rows[2 * turns].mono_ns, MONO(9000));
}

/* AUX records arrive beside the trace; a TRUNCATED one is a gap as much
 * as an OVF is, on the same clock. */
static void a_truncated_aux_record_is_a_gap_on_the_same_clock(void **state)
{
	struct fx *f = *state;
	struct sample_fmt fmt = { .sample_type = PERF_SAMPLE_TID | PERF_SAMPLE_TIME |
				  PERF_SAMPLE_IDENTIFIER, .sample_id_all = 1 };
	struct rec_aux aux = { 8192, 4096, PERF_AUX_FLAG_TRUNCATED };
	struct sample_id sid = { .pid = 4000, .tid = 4001, .time = 7500, .id = 3 };
	struct pt_gap g[PT_AUX_GAPS_MAX];
	uint8_t *rec = malloc(REC_MAX);
	size_t n = enc_aux(rec, REC_MAX, &fmt, &aux, &sid);
	struct perf_rec r;
	uint64_t mono;

	assert_int_equal(perf_rec_decode(&fmt, rec, n, &r), 0);
	assert_int_equal(r.type, PERF_RECORD_AUX);
	assert_int_equal(pt_clock_perf_to_mono(&f->clock, r.sid.time, &mono), 0);
	assert_int_equal(pt_aux_gaps(&r.u.aux, mono, 1, g), 1);
	assert_int_equal(g[0].reason, PT_GAP_TRUNCATED);
	assert_int_equal(g[0].mono_ns, 1000007500ull);
	assert_int_equal(g[0].offset, 8192);
	free(rec);
}

/* Rows handed on in batches (pt_flow_out.flush), their depths shifted
 * by min_depth afterwards, are the rows of one decode in one piece. */
struct batches {
	struct pt_row rows[64];
	size_t n, calls;
};

static int take_batch(void *ctx, struct pt_flow_out *o)
{
	struct batches *b = ctx;

	for (size_t i = 0; i < o->nrows && b->n < 64; i++)
		b->rows[b->n++] = o->rows[i];
	b->calls++;
	return 0;
}

static void a_long_trace_is_handed_on_in_batches_with_the_same_rows(void **state)
{
	struct fx *f = *state;
	struct batches b = { .n = 0 };
	struct pt_flow_out whole;

	ps_psb(&f->s, 1000, 0);
	ps_pge(&f->s, f->tail);
	ps_tip(&f->s, f->leaf);
	ps_pgd(&f->s, 0);
	ps_psb(&f->s, 2000, 0);
	ps_pge(&f->s, f->top);
	ps_tnt(&f->s, 0x7, 4);
	ps_pgd(&f->s, 0);
	decode(f);
	whole = f->out;
	assert_int_equal(whole.flushed, 0);
	f->out.rows = NULL;
	f->out.gaps = NULL;
	pt_flow_out_init(&f->out);
	f->out.flush = take_batch;
	f->out.flush_ctx = &b;
	f->out.flush_rows = 2;
	decode(f);
	assert_int_equal(f->out.flushed, 1);
	assert_true(b.calls >= 2);
	take_batch(&b, &f->out);	/* what was left at the end */
	assert_int_equal(b.n, whole.nrows);
	for (size_t i = 0; i < b.n; i++) {
		b.rows[i].depth -= f->out.min_depth;
		assert_memory_equal(&b.rows[i], &whole.rows[i], sizeof(b.rows[i]));
	}
	assert_int_equal(f->out.st.rows, whole.st.rows);
	pt_flow_out_release(&whole);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(the_calls_and_returns_are_exactly_the_ones_the_code_made, setup, teardown),
		cmocka_unit_test_setup_teardown(compressed_returns_decode_from_the_calls_before_them, setup, teardown),
		cmocka_unit_test_setup_teardown(an_overflow_is_a_gap_and_the_flow_resumes_after_it, setup, teardown),
		cmocka_unit_test_setup_teardown(an_indirect_jump_shows_in_the_return_of_what_it_reached, setup, teardown),
		cmocka_unit_test_setup_teardown(a_tail_jump_within_a_file_shows_in_the_return_it_reaches, setup, teardown),
		cmocka_unit_test_setup_teardown(a_call_into_the_vdso_decodes_from_its_bytes, setup, teardown),
		cmocka_unit_test_setup_teardown(code_the_image_lacks_is_a_nomap_gap_that_says_why, setup, teardown),
		cmocka_unit_test_setup_teardown(decoding_starts_at_the_first_psb_and_runs_across_the_next, setup, teardown),
		cmocka_unit_test_setup_teardown(a_truncated_aux_record_is_a_gap_on_the_same_clock, setup, teardown),
		cmocka_unit_test_setup_teardown(a_long_trace_is_handed_on_in_batches_with_the_same_rows, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
