/*
 * fuzz_pt: arbitrary bytes as what a PT ring and its AUX area hand the
 * decoder: perf records (AUX records and their flags, fault samples
 * carrying trace in PERF_SAMPLE_AUX, the sideband around them) and raw
 * Intel PT trace, decoded over an image of known code.  Layout: fuzz_pt.h.
 *
 * What must hold, whatever the bytes: nothing is read outside the input
 * (the samples' trace is decoded from an exact-size copy, where ASan sees
 * an over-read), no row has a negative depth, every gap has a known
 * reason and a message, the stats count every byte handed in, and a
 * second decode of the same bytes gives the same rows (libipt's block
 * cache is warm by then).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../../decoder/perf_record.h"
#include "../../decoder/pt_flow.h"
#include "../../decoder/pt_sideband.h"
#include "fuzz_pt.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

struct run {
	struct pt_image_section_cache *isc;
	struct pt_space space;
	struct pt_clock clock;
	struct pt_flow_config cfg;
	struct pt_flow_out out;
};

static void check_out(const struct pt_flow_out *o)
{
	for (size_t i = 0; i < o->nrows; i++)
		if (o->rows[i].depth < 0 || o->rows[i].kind > PT_ROW_DISABLE)
			abort();
	for (size_t i = 0; i < o->ngaps; i++)
		if (o->gaps[i].reason > PT_GAP_LOST || !o->gaps[i].message[0] ||
		    !memchr(o->gaps[i].message, '\0', sizeof(o->gaps[i].message)))
			abort();
}

/* Decodes bytes (copied to exact size) `times` times; the rows must be
 * the same each time. */
static void decode(struct run *r, const uint8_t *bytes, size_t len, int times)
{
	uint8_t *copy = malloc(len ? len : 1);
	struct pt_flow_out first;
	uint64_t before;

	if (!copy)
		abort();
	memcpy(copy, bytes, len);
	pt_flow_out_init(&first);
	for (int t = 0; t < times; t++) {
		pt_flow_out_reset(&r->out);
		before = r->out.st.bytes;
		if (pt_flow_decode(&r->cfg, &r->space, copy, len, &r->out) < 0)
			break;	/* out of memory: nothing to check */
		if (r->out.st.bytes != before + len || r->out.st.bytes_unsynced >
		    r->out.st.bytes)
			abort();
		check_out(&r->out);
		if (t == 0) {
			first.rows = malloc(r->out.nrows * sizeof(*first.rows) + 1);
			if (!first.rows)
				abort();
			if (r->out.nrows)
				memcpy(first.rows, r->out.rows,
				       r->out.nrows * sizeof(*first.rows));
			first.nrows = r->out.nrows;
		} else if (first.nrows != r->out.nrows || (first.nrows &&
			   memcmp(first.rows, r->out.rows,
				  first.nrows * sizeof(*first.rows)))) {
			abort();
		}
	}
	free(first.rows);
	free(copy);
}

/* The records part: each record decoded as a PT ring's. */
static void records(struct run *r, const uint8_t *p, size_t left)
{
	static const struct sample_fmt fmt = {
		.sample_type = FUZZ_PT_SAMPLE_TYPE, .sample_id_all = 1,
	};
	struct pt_gap gaps[PT_AUX_GAPS_MAX];

	while (left >= sizeof(struct perf_event_header)) {
		struct perf_rec rec;
		uint16_t n;

		memcpy(&n, p + 6, 2);
		if (n < sizeof(struct perf_event_header) || n > left)
			return;
		if (perf_rec_decode(&fmt, p, n, &rec) == 0) {
			uint64_t mono = 0;
			int has = pt_clock_perf_to_mono(&r->clock, rec.sid.time, &mono) == 0;

			if (rec.type == PERF_RECORD_AUX &&
			    pt_aux_gaps(&rec.u.aux, mono, has, gaps) > PT_AUX_GAPS_MAX)
				abort();
			if (rec.type == PERF_RECORD_SAMPLE && rec.u.sample.aux_size) {
				const uint8_t *a = rec.u.sample.aux;

				if (a < p + 8 || a + rec.u.sample.aux_size > p + n)
					abort();
				decode(r, a, (size_t)rec.u.sample.aux_size, 1);
			}
		}
		p += n;
		left -= n;
	}
}

static int run_init(struct run *r, uint8_t flags)
{
	static const struct pt_tsc_conv conv = { .time_zero = 500, .time_mult = 3,
						 .time_shift = 1 };
	struct pt_calib_pair a = { 0, 1000000000ull, 10 };
	struct pt_calib_pair b = { 1000000000ull, 2000000100ull, 10 };
	struct pt_map vdso = { FUZZ_PT_VDSO, 0x1000, 0, "[vdso]", 1 };

	memset(r, 0, sizeof(*r));
	r->isc = pt_iscache_alloc(NULL);
	if (!r->isc || pt_space_init(&r->space, r->isc,
				     (flags & 2) ? FUZZ_PT_CODE : NULL,
				     sizeof(FUZZ_PT_CODE)) < 0)
		return -1;
	pt_space_add(&r->space, &vdso);
	pt_clock_init(&r->clock, &conv);
	if (flags & 1) {
		pt_clock_add(&r->clock, &a);
		pt_clock_add(&r->clock, &b);
		r->cfg.clock = &r->clock;
	}
	pt_flow_out_init(&r->out);
	return 0;
}

static void run_release(struct run *r)
{
	pt_flow_out_release(&r->out);
	pt_space_release(&r->space);
	pt_clock_release(&r->clock);
	if (r->isc)
		pt_iscache_free(r->isc);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct run r;
	uint16_t n;

	if (size < 3)
		return 0;
	memcpy(&n, data + 1, 2);
	if ((size_t)n > size - 3)
		n = (uint16_t)(size - 3);
	if (run_init(&r, data[0]) == 0) {
		records(&r, data + 3, n);
		decode(&r, data + 3 + n, size - 3 - n, 1 + ((data[0] >> 2) & 3));
	}
	run_release(&r);
	return 0;
}
