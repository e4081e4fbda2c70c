/*
 * pt_aux and the records around it: trace comes out of the AUX area in
 * order whatever the wrap (full mode by aux_head / aux_tail, snapshots of
 * an overwrite area before and after it first wraps), a fault sample
 * carries its trace where the decoder finds it, and an AUX record's loss
 * flags become gaps.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <cmocka.h>

#include "../../collector/pt_aux.h"
#include "../../decoder/pt_flow.h"
#include "../../decoder/pt_sideband.h"
#include "pt_stream.h"
#include "records.h"

static void ring_bytes_that_wrap_come_out_oldest_first(void **state)
{
	uint8_t ring[16], out[16];

	(void)state;
	for (int i = 0; i < 16; i++)
		ring[i] = (uint8_t)i;
	/* 8 bytes ending at 20 (offset 4): 12..15 then 0..3. */
	assert_int_equal(pt_ring_copy_back(ring, 16, 20, 100, 8, out), 8);
	assert_memory_equal(out, ((uint8_t[]){ 12, 13, 14, 15, 0, 1, 2, 3 }), 8);
	/* Only 3 exist: the 3 before the end. */
	assert_int_equal(pt_ring_copy_back(ring, 16, 20, 3, 8, out), 3);
	assert_memory_equal(out, ((uint8_t[]){ 1, 2, 3 }), 3);
	/* Never more than the ring. */
	assert_int_equal(pt_ring_copy_back(ring, 16, 16, 100, 64, out), 16);
	assert_int_equal(out[0], 0);
	assert_int_equal(out[15], 15);
}

/* The kernel's writes: byte i of the stream lands at i mod size. */
static void kernel_writes(uint8_t *area, size_t size, uint64_t from, uint64_t to)
{
	for (uint64_t i = from; i < to; i++)
		area[i % size] = (uint8_t)(i * 7 + 1);
}

static void full_mode_takes_an_aux_records_range_across_the_wrap(void **state)
{
	struct perf_event_mmap_page *meta = calloc(1, 4096);
	uint8_t area[64], out[64];
	struct pt_aux a;

	(void)state;
	pt_aux_attach(&a, meta, area, sizeof(area), 0);
	kernel_writes(area, sizeof(area), 36, 100);
	meta->aux_tail = 60;
	meta->aux_head = 100;
	/* PERF_RECORD_AUX { aux_offset 60, aux_size 40 }: 60..63, then 0..35. */
	assert_int_equal(pt_aux_take(&a, 60, 40, out), 0);
	for (int i = 0; i < 40; i++)
		assert_int_equal(out[i], (uint8_t)((60 + i) * 7 + 1));
	pt_aux_release(&a, 100);
	assert_int_equal(meta->aux_tail, 100);
	/* Released bytes, and bytes not yet written, are not trace. */
	assert_int_equal(pt_aux_take(&a, 60, 40, out), -ERANGE);
	meta->aux_head = 120;
	assert_int_equal(pt_aux_take(&a, 110, 20, out), -ERANGE);
	/* aux_tail only moves forward. */
	pt_aux_release(&a, 90);
	assert_int_equal(meta->aux_tail, 100);
	free(meta);
}

static void a_snapshot_before_the_first_wrap_holds_what_was_written(void **state)
{
	struct perf_event_mmap_page *meta = calloc(1, 4096);
	uint8_t *area = calloc(1, 8192), out[4096];
	struct pt_aux a;

	(void)state;
	pt_aux_attach(&a, meta, area, 8192, 1);
	kernel_writes(area, 8192, 0, 1000);
	assert_int_equal(pt_aux_snapshot(&a, 1000, 4096, out), 1000);
	assert_int_equal(a.wrapped, 0);
	assert_int_equal(out[0], 1);
	assert_int_equal(out[999], (uint8_t)(999 * 7 + 1));
	free(area);
	free(meta);
}

static void a_snapshot_after_the_wrap_takes_the_tail_then_the_start(void **state)
{
	struct perf_event_mmap_page *meta = calloc(1, 4096);
	uint8_t *area = calloc(1, 8192), out[4096];
	struct pt_aux a;

	(void)state;
	pt_aux_attach(&a, meta, area, 8192, 1);
	/* A whole pass, then 3000 bytes of the next: the head offset is 3000. */
	kernel_writes(area, 8192, 0, 8192 + 3000);
	assert_int_equal(pt_aux_snapshot(&a, 3000, 4096, out), 4096);
	assert_int_equal(a.wrapped, 1);
	for (int i = 0; i < 4096; i++)
		assert_int_equal(out[i], (uint8_t)((8192 + 3000 - 4096 + i) * 7 + 1));
	free(area);
	free(meta);
}

static void a_snapshot_smaller_than_the_psb_period_is_a_no_sync_gap(void **state)
{
	struct pt_stream s;
	struct pt_space space;
	struct pt_image_section_cache *isc = pt_iscache_alloc(NULL);
	struct pt_flow_config cfg = { NULL };
	struct pt_flow_out out;
	size_t len;

	(void)state;
	assert_int_equal(ps_init(&s, 8192), 0);
	ps_psb(&s, 1000, 0);
	ps_pge(&s, 0x401000);
	for (int i = 0; i < 4000; i++)
		ps_tnt(&s, 0x15, 5);
	assert_false(s.failed);
	len = ps_len(&s);
	assert_true(len > 2048);
	/* The last 2 KiB: well after the only PSB. */
	assert_int_equal(pt_space_init(&space, isc, NULL, 0), 0);
	pt_flow_out_init(&out);
	assert_int_equal(pt_flow_decode(&cfg, &space, s.buf + len - 2048, 2048, &out), 0);
	assert_int_equal(out.nrows, 0);
	assert_int_equal(out.ngaps, 1);
	assert_int_equal(out.gaps[0].reason, PT_GAP_NO_SYNC);
	assert_non_null(strstr(out.gaps[0].message, "no PSB packet in these 2048 bytes"));
	assert_int_equal(out.st.bytes_unsynced, 2048);
	pt_flow_out_release(&out);
	pt_space_release(&space);
	pt_iscache_free(isc);
	ps_release(&s);
}

/* A major-fault completion as fault mode's carrier writes it: the fault
 * format, then PERF_SAMPLE_AUX { u64 size; data[size] }. */
static size_t enc_carrier(void *buf, size_t cap, const uint8_t *aux, size_t n)
{
	struct rec_writer w;

	rw_init(&w, buf, cap);
	rw_header(&w, PERF_RECORD_SAMPLE, PERF_RECORD_MISC_USER);
	rw_u64(&w, 77);			/* IDENTIFIER */
	rw_u64(&w, 0x401234);		/* IP */
	rw_u32(&w, 4000);		/* pid */
	rw_u32(&w, 4001);		/* tid */
	rw_u64(&w, 5555555);		/* TIME, perf clock */
	rw_u64(&w, 0x7f0000001000);	/* ADDR */
	rw_u64(&w, n);
	rw_bytes(&w, aux, n);
	return rw_end(&w);
}

static void a_fault_sample_carries_its_trace_at_its_end(void **state)
{
	uint8_t rec[512], aux[64];
	struct sample_fmt f;
	struct perf_rec r;
	size_t len;

	(void)state;
	for (size_t i = 0; i < sizeof(aux); i++)
		aux[i] = (uint8_t)(0x40 + i);
	len = enc_carrier(rec, sizeof(rec), aux, sizeof(aux));
	fault_sample_fmt(&f);
	f.sample_type |= PERF_SAMPLE_AUX;
	assert_int_equal(perf_rec_decode(&f, rec, len, &r), 0);
	assert_int_equal(r.u.sample.aux_size, sizeof(aux));
	assert_memory_equal(r.u.sample.aux, aux, sizeof(aux));
	assert_ptr_equal(r.u.sample.aux, rec + len - sizeof(aux));
	assert_int_equal(r.u.sample.ip, 0x401234);
	assert_int_equal(r.u.sample.addr, 0x7f0000001000);
	assert_int_equal(r.sid.tid, 4001);
	assert_int_equal(r.sid.time, 5555555);
	/* The fault pipeline's own format, without AUX, reads the same fault. */
	fault_sample_fmt(&f);
	assert_int_equal(perf_rec_decode(&f, rec, len, &r), 0);
	assert_int_equal(r.u.sample.addr, 0x7f0000001000);
	assert_null(r.u.sample.aux);
	/* A size running past the record is malformed, not read. */
	f.sample_type |= PERF_SAMPLE_AUX;
	assert_int_equal(perf_rec_decode(&f, rec, len - 8, &r), -EBADMSG);
}

static void an_aux_records_loss_flags_become_gaps(void **state)
{
	struct rec_aux aux = { 4096, 512, PERF_AUX_FLAG_TRUNCATED |
			       PERF_AUX_FLAG_PARTIAL | PERF_AUX_FLAG_COLLISION |
			       PERF_AUX_FLAG_OVERWRITE };
	struct pt_gap g[PT_AUX_GAPS_MAX];

	(void)state;
	assert_int_equal(pt_aux_gaps(&aux, 123, 1, g), 3);
	assert_int_equal(g[0].reason, PT_GAP_TRUNCATED);
	assert_int_equal(g[0].mono_ns, 123);
	assert_int_equal(g[0].offset, 4096);
	assert_non_null(strstr(g[0].message, "the Intel PT area was full"));
	assert_int_equal(g[1].reason, PT_GAP_PARTIAL);
	assert_int_equal(g[2].reason, PT_GAP_COLLISION);
	aux.flags = PERF_AUX_FLAG_OVERWRITE;	/* the mode, not a loss */
	assert_int_equal(pt_aux_gaps(&aux, 123, 1, g), 0);
	assert_string_equal(pt_gap_reason_name(PT_GAP_TRUNCATED), "truncated");
}

static void a_refused_mapping_is_explained_with_the_limit(void **state)
{
	struct errmsg e;

	(void)state;
	errmsg_init(&e);
	assert_int_equal(pt_aux_explain(EPERM, 1 << 20, "CPU 3", &e), -EPERM);
	assert_non_null(strstr(e.text, "cannot map the 1024 KiB Intel PT area of "
			       "CPU 3: over the locked-memory limit "
			       "(perf_event_mlock_kb="));
	assert_non_null(strstr(e.text, "use a smaller --pt-size"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(ring_bytes_that_wrap_come_out_oldest_first),
		cmocka_unit_test(full_mode_takes_an_aux_records_range_across_the_wrap),
		cmocka_unit_test(a_snapshot_before_the_first_wrap_holds_what_was_written),
		cmocka_unit_test(a_snapshot_after_the_wrap_takes_the_tail_then_the_start),
		cmocka_unit_test(a_snapshot_smaller_than_the_psb_period_is_a_no_sync_gap),
		cmocka_unit_test(a_fault_sample_carries_its_trace_at_its_end),
		cmocka_unit_test(an_aux_records_loss_flags_become_gaps),
		cmocka_unit_test(a_refused_mapping_is_explained_with_the_limit),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
