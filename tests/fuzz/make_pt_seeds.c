/*
 * make_pt_seeds: writes fuzz_pt's seed corpus, inputs in its layout
 * (fuzz_pt.h) whose trace is real Intel PT made by libipt's encoder
 * (tests/unit/pt_stream.h) over the code fuzz_pt serves, and whose
 * records are the unit tests' encoders (tests/unit/records.h).
 *
 *   cc -std=gnu11 -Wall -Wextra -D_GNU_SOURCE \
 *      $(pkg-config --cflags libtraceevent) \
 *      -o make_pt_seeds tests/fuzz/make_pt_seeds.c -lipt
 *   ./make_pt_seeds tests/fuzz/corpus/fuzz_pt
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static _Noreturn void die(const char *msg)
{
	fprintf(stderr, "make_pt_seeds: %s\n", msg);
	abort();
}

#define REC_FAIL(msg) die(msg)

#include "../unit/pt_stream.h"
#include "../unit/records.h"
#include "fuzz_pt.h"

#define V FUZZ_PT_VDSO
#define LEAF (V + 0x0)
#define MIDDLE (V + 0x5)
#define TOP (V + 0x13)
#define VIA (V + 0x32)

static const char *out_dir;

struct seed {
	uint8_t b[1 << 16];
	size_t n;
};

static void put(struct seed *s, const void *p, size_t n)
{
	if (s->n + n > sizeof(s->b))
		die("seed too large");
	memcpy(s->b + s->n, p, n);
	s->n += n;
}

static void begin(struct seed *s, uint8_t flags)
{
	s->n = 0;
	put(s, &flags, 1);
	put(s, "\0\0", 2);
}

/* The records part's length into bytes 1-2, once it is written. */
static void end_records(struct seed *s)
{
	uint16_t n = (uint16_t)(s->n - 3);

	memcpy(s->b + 1, &n, 2);
}

static void write_seed(const struct seed *s, const char *name)
{
	char path[512];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", out_dir, name);
	f = fopen(path, "wb");
	if (!f || fwrite(s->b, 1, s->n, f) != s->n || fclose(f))
		die(path);
}

/* pt_top(7) with the packets the decoder tests use. */
static void top_flow(struct pt_stream *ps, int retcomp)
{
	ps_pad(ps);
	ps_psb(ps, 1000, 0);
	ps_pge(ps, TOP);
	ps_mtc(ps, 1);
	ps_tsc(ps, 2000);
	if (retcomp) {
		ps_tnt(ps, 0x7, 4);
	} else {
		ps_tnt(ps, 0, 1);
		ps_tip(ps, MIDDLE + 10);
		ps_tsc(ps, 3000);
		ps_tip(ps, TOP + 6);
		ps_cbr(ps, 40);
		ps_tip(ps, TOP + 18);
	}
	ps_pgd(ps, 0);
}

static void trace_seed(const char *name, uint8_t flags,
		       void (*build)(struct pt_stream *))
{
	struct pt_stream ps;
	struct seed s;

	if (ps_init(&ps, 8192) < 0)
		die("encoder");
	build(&ps);
	if (ps.failed)
		die("stream");
	begin(&s, flags);
	end_records(&s);
	put(&s, ps.buf, ps_len(&ps));
	write_seed(&s, name);
	ps_release(&ps);
}

static void b_top(struct pt_stream *ps) { top_flow(ps, 0); }
static void b_retcomp(struct pt_stream *ps) { top_flow(ps, 1); }

static void b_ovf(struct pt_stream *ps)
{
	ps_psb(ps, 1000, 0);
	ps_pge(ps, TOP);
	ps_tnt(ps, 0, 1);
	ps_tip(ps, MIDDLE + 10);
	ps_ovf(ps);
	ps_tsc(ps, 7000);
	ps_fup(ps, TOP + 6);
	ps_tip(ps, TOP + 18);
	ps_pgd(ps, 0);
}

static void b_fault(struct pt_stream *ps)
{
	ps_psb(ps, 1000, 0);
	ps_pge(ps, TOP);
	ps_tnt(ps, 0, 1);
	ps_fup(ps, LEAF);
	ps_pgd(ps, 0);
}

static void b_nosync(struct pt_stream *ps)
{
	for (int i = 0; i < 200; i++)
		ps_tnt(ps, 0x15, 5);
}

static void b_via(struct pt_stream *ps)
{
	ps_psb(ps, 1000, 0);
	ps_pge(ps, VIA);
	ps_tip(ps, 0x7ffff7fc1100ull);
	ps_pgd(ps, 0);
	ps_psb(ps, 2000, 0);
	ps_pge(ps, LEAF);
	ps_pgd(ps, 0);
}

static void records_seed(void)
{
	static const struct sample_fmt fmt = {
		.sample_type = FUZZ_PT_SAMPLE_TYPE, .sample_id_all = 1,
	};
	struct sample_id sid = { .pid = 4000, .tid = 4001, .time = 2000000,
				 .id = 7 };
	struct rec_aux aux = { 4096, 512, PERF_AUX_FLAG_TRUNCATED |
			       PERF_AUX_FLAG_PARTIAL | PERF_AUX_FLAG_COLLISION };
	struct rec_itrace_start it = { 4000, 4001 };
	struct pt_stream ps;
	struct rec_writer w;
	static uint8_t rec[1 << 15];
	struct seed s;
	size_t n;

	begin(&s, 0x7);
	n = enc_aux(rec, sizeof(rec), &fmt, &aux, &sid);
	put(&s, rec, n);
	n = enc_itrace_start(rec, sizeof(rec), &fmt, &it, &sid);
	put(&s, rec, n);
	n = enc_switch(rec, sizeof(rec), &fmt, 1, 0, &sid);
	put(&s, rec, n);
	n = enc_lost(rec, sizeof(rec), &fmt, 7, 3, &sid);
	put(&s, rec, n);
	/* A fault sample carrying the trace of a fault in pt_leaf. */
	if (ps_init(&ps, 4096) < 0)
		die("encoder");
	b_fault(&ps);
	rw_init(&w, rec, sizeof(rec));
	rw_header(&w, PERF_RECORD_SAMPLE, PERF_RECORD_MISC_USER);
	rw_u64(&w, 7);
	rw_u64(&w, LEAF);
	rw_u32(&w, 4000);
	rw_u32(&w, 4001);
	rw_u64(&w, 4000000);
	rw_u64(&w, 0x7f0000001000ull);
	rw_u64(&w, (ps_len(&ps) + 7) & ~7ull);
	rw_bytes(&w, ps.buf, ps_len(&ps));
	rw_zeros(&w, ((ps_len(&ps) + 7) & ~7ull) - ps_len(&ps));
	put(&s, rec, rw_end(&w));
	end_records(&s);
	ps_release(&ps);
	/* Then a trace of its own. */
	if (ps_init(&ps, 4096) < 0)
		die("encoder");
	b_top(&ps);
	put(&s, ps.buf, ps_len(&ps));
	write_seed(&s, "records_and_sample");
	ps_release(&ps);
}

int main(int argc, char **argv)
{
	if (argc != 2)
		die("usage: make_pt_seeds DIR");
	out_dir = argv[1];
	trace_seed("top_flow", 0x3, b_top);
	trace_seed("top_flow_twice", 0x7, b_top);
	trace_seed("compressed_returns", 0x3, b_retcomp);
	trace_seed("overflow", 0x3, b_ovf);
	trace_seed("fault_in_leaf", 0x3, b_fault);
	trace_seed("no_psb", 0x3, b_nosync);
	trace_seed("nomap", 0x1, b_via);
	trace_seed("no_clock_no_image", 0x0, b_top);
	records_seed();
	return 0;
}
