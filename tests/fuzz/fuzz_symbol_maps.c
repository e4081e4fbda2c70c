/*
 * fuzz_symbol_maps: the two text tables symbolization reads, kallsyms
 * (decoder/kallsyms.h) and perf-PID.map (decoder/perf_map.h), parsed from
 * arbitrary bytes, then every range found again by its own start and a
 * few addresses from the input looked up, with the table's invariants
 * checked.  Then a symbolization job (decoder/symbolize_job.h) names
 * those addresses from the same text: as kernel frames, or as frames of
 * a JIT whose anonymous mapping covers every address, with the job's
 * results and counts checked against each other.
 *
 * Input layout: byte 0 bit 0 picks the parser (0 kallsyms, 1 perf map);
 * the rest is the text.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../../decoder/kallsyms.h"
#include "../../decoder/perf_map.h"
#include "../../decoder/symbolize_job.h"

#define JIT_PID 4242
#define MAX_FRAMES 64

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_table(const struct addr_syms *t, const uint8_t *data,
			size_t size)
{
	for (size_t i = 0; i < t->n; i++) {
		const struct addr_sym *s = &t->v[i];

		if (i && t->v[i - 1].start > s->start)
			abort();	/* not sorted */
		if (s->size > t->max_size || !s->name ||
		    (s->size && !addr_syms_find(t, s->start)))
			abort();
	}
	/* Addresses from the input: whatever holds one must hold it. */
	for (size_t off = 0; off + 8 <= size; off += 8) {
		uint64_t addr;
		const struct addr_sym *s;

		memcpy(&addr, data + off, 8);
		s = addr_syms_find(t, addr);
		if (s && (addr < s->start || addr - s->start >= s->size))
			abort();
	}
}

/* Every result is one of the counted ones; only a frame in no mapping
 * (UINT64_MAX, past the JIT's) has no dso; a named frame has one
 * function, whose range holds the address looked up (a return address's
 * call, one byte before it, so its offset may equal the size). */
static void check_job(const struct symbolize_job *j, const struct sym_input *in)
{
	const struct symbolize_counts *c = &j->counts;
	uint64_t ok = 0;

	if (c->frames != in->nframes || j->nnamed != in->nframes ||
	    c->ok + c->no_mapping + c->no_file + c->build_id_mismatch +
	    c->no_symbol != c->frames)
		abort();
	for (size_t i = 0; i < in->nframes; i++) {
		struct sym_result r;

		symbolize_job_result(j, i, &r);
		if (!r.dso != (r.status == SYM_NO_MAPPING) ||
		    (r.status == SYM_OK) != (r.nfuncs == 1))
			abort();
		if (r.nfuncs && (!r.funcs[0].function || !r.funcs[0].has_offset ||
				 (r.funcs[0].size && r.funcs[0].offset - in->frames[i].return_addr >=
				  r.funcs[0].size)))
			abort();
		ok += r.status == SYM_OK;
	}
	if (ok != c->ok)
		abort();
}

/* The input's addresses named as kernel frames from text (kallsyms) or
 * as a JIT's frames from its perf map. */
static void run_job(int jit, const char *text, size_t len, const uint8_t *data,
		    size_t size)
{
	struct sym_mapping anon = { 0, UINT64_MAX, 0, "//anon", NULL, 1, 1, 0 };
	struct sym_perf_map map = { .pid = JIT_PID, .path = "/tmp/perf-4242.map",
				    .text = (char *)text, .len = len };
	struct sym_sources src = { 0 };
	struct symbolize_job j;
	struct sym_input in;
	struct errmsg e;

	sym_input_init(&in);
	symbolize_job_init(&j);
	errmsg_init(&e);
	if (jit) {
		src.perf_maps = &map;
		src.nperf_maps = 1;
	} else {
		src.kallsyms = text;
		src.kallsyms_len = len;
	}
	if (jit && sym_input_add_mapping(&in, JIT_PID, &anon) < 0)
		abort();
	for (size_t off = 0; off + 8 <= size && in.nframes < MAX_FRAMES; off += 8) {
		struct sym_frame f = { (int64_t)in.nframes, jit ? JIT_PID : -1, 0,
				       !jit, (int)(data[off] >> 7) };

		memcpy(&f.addr, data + off, 8);
		if (sym_input_add_frame(&in, &f) < 0)
			abort();
	}
	if (symbolize_job_run(&j, &in, &src, &e) == 0)
		check_job(&j, &in);
	symbolize_job_release(&j);
	sym_input_release(&in);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct addr_syms t;
	int hidden = 0, err;

	if (size < 1)
		return 0;
	addr_syms_init(&t);
	if (data[0] & 1)
		err = perf_map_parse(&t, (const char *)data + 1, size - 1);
	else
		err = kallsyms_parse(&t, (const char *)data + 1, size - 1, &hidden);
	if (err == 0)
		check_table(&t, data, size);
	if (hidden && t.n && addr_syms_find(&t, 0))
		abort();	/* hidden addresses name nothing */
	addr_syms_release(&t);
	run_job(data[0] & 1, (const char *)data + 1, size - 1, data, size);
	return 0;
}
