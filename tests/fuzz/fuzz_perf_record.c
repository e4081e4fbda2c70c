/*
 * fuzz_perf_record: arbitrary bytes as a ring's worth of perf records,
 * decoded under an arbitrary sample format, then sent down the path the
 * recorder uses (ev_from_rec -> order_queue -> fault_stream).
 *
 * Input layout:
 *   byte 0-2  sample_type, PERF_SAMPLE_IP (bit 0) .. CODE_PAGE_SIZE (bit 23)
 *   byte 3    read_format (PERF_FORMAT_* bits 0-4)
 *   byte 4    regs_user_mask: its value mod 65 is the number of low bits set
 *   byte 5    regs_intr_mask: the same
 *   byte 6    bit 0 branch_sample_type HW_INDEX, bit 1 sample_id_all,
 *             bit 2 PERF_SAMPLE_WEIGHT_STRUCT,
 *             bit 3 ignore bytes 0-5 and bit 1: the format faultline opens
 *             its events with (fault_sample_fmt())
 *   byte 7    bits 0-2 flush after every 1-8 records, bits 3-5 watermark
 *             slack (16^n ns), bits 6-7 the stream's min_dur_ns
 *   then      records framed by header.size, as ring_drain() hands them out
 *
 * Each record is decoded twice: in place with len = every byte left (as
 * the decoder is called) and from an exact-size copy, where ASan sees any
 * read past header.size.  Both must agree, and every borrowed pointer must
 * lie inside the record.  A fault sample or switch record read in place
 * (ev_from_fault_sample, ev_from_switch_rec) must be the event of its
 * full decode.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../../decoder/event.h"
#include "../../decoder/fault_stream.h"
#include "../../decoder/idmap.h"
#include "../../decoder/order.h"
#include "../../decoder/perf_record.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define FMT_BYTES 8
#define HDR_BYTES sizeof(struct perf_event_header)

/* collector/fault_events.c's FAULT_SAMPLE_TYPE: that file pulls in the
 * collector, which the fuzz build does not link. */
#define FAULT_SAMPLE_TYPE (PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | \
			   PERF_SAMPLE_TID | PERF_SAMPLE_TIME | \
			   PERF_SAMPLE_ADDR)
#define SAMPLE_BITS ((uint64_t)PERF_SAMPLE_CODE_PAGE_SIZE * 2 - 1)
#define READ_BITS ((uint64_t)PERF_FORMAT_LOST * 2 - 1)

struct run {
	struct sample_fmt fmt;
	struct sample_layout layout;	/* fmt's */
	struct idmap ids;
	struct order_queue q;
	struct fault_stream fs;
	uint64_t max_ts;		/* latest record time seen */
	uint64_t slack;			/* watermark = max_ts - slack */
	unsigned flush_every, since_flush;
	uint32_t ring_cpu;		/* stamped on every event */
	uint64_t stores, spells;	/* sink calls */
};

/* A borrowed byte range of a decoded record. */
struct span {
	const void *p;
	uint64_t n;
};

static volatile uint8_t sink_byte;

static uint64_t low_bits(uint8_t b)
{
	unsigned n = b % 65;

	return n == 64 ? UINT64_MAX : ((uint64_t)1 << n) - 1;
}

static void fmt_from_bytes(const uint8_t *h, struct sample_fmt *f)
{
	memset(f, 0, sizeof(*f));
	if (h[6] & 8) {
		f->sample_type = FAULT_SAMPLE_TYPE;
		f->sample_id_all = 1;
		return;
	}
	f->sample_type = ((uint64_t)h[0] | (uint64_t)h[1] << 8 |
			  (uint64_t)h[2] << 16) & SAMPLE_BITS;
	if (h[6] & 4)
		f->sample_type |= PERF_SAMPLE_WEIGHT_STRUCT;
	f->read_format = h[3] & READ_BITS;
	f->regs_user_mask = low_bits(h[4]);
	f->regs_intr_mask = low_bits(h[5]);
	f->branch_sample_type = (h[6] & 1) ? PERF_SAMPLE_BRANCH_HW_INDEX : 0;
	f->sample_id_all = !!(h[6] & 2);
}

/* Per-CPU ids as faultline opens them: three events (one per role) on
 * each of two CPUs, and one large id as the kernel may hand out. */
static void ids_fill(struct idmap *ids)
{
	static const enum ev_role roles[] = {
		ROLE_FAULT_ENTRY, ROLE_FAULT_MINOR, ROLE_FAULT_MAJOR,
	};

	idmap_init(ids);
	for (uint64_t id = 1; id <= 6; id++)
		if (idmap_put(ids, id, roles[(id - 1) % 3]) < 0)
			abort();
	if (idmap_put(ids, UINT64_C(0x8000000000000001), ROLE_FAULT_ENTRY) < 0)
		abort();
}

static int on_store(void *ctx, const struct fault *f)
{
	struct run *run = ctx;

	run->stores++;
	/* Only a completion can carry a duration. */
	if (f->dur_ns != FAULT_NO_DUR && f->kind == FAULT_UNFINISHED)
		abort();
	return 0;
}

static int on_spell_end(void *ctx, const struct thread *t)
{
	struct run *run = ctx;

	run->spells++;
	if (!memchr(t->comm, '\0', COMM_LEN))
		abort();
	return 0;
}

static void run_init(struct run *run, const uint8_t *h)
{
	static const uint64_t min_durs[] = { 0, 1, 1000, 1000000 };
	struct fault_stream_ops ops = {
		.ctx = run,
		.store_fault = on_store,
		.spell_end = on_spell_end,
	};

	memset(run, 0, sizeof(*run));
	fmt_from_bytes(h, &run->fmt);
	sample_layout_of(&run->fmt, &run->layout);
	ids_fill(&run->ids);
	order_queue_init(&run->q);
	fault_stream_init(&run->fs, &ops, min_durs[h[7] >> 6]);
	run->flush_every = (h[7] & 7) + 1;
	run->slack = (uint64_t)1 << (4 * ((h[7] >> 3) & 7));
}

/* The sample's variable-length fields; other records have none. */
static size_t spans_of(const struct sample_fmt *f, const struct perf_rec *r,
		       struct span out[4])
{
	const struct sample *s = &r->u.sample;
	uint64_t regs = (uint64_t)__builtin_popcountll(f->regs_user_mask) * 8;

	if (r->type != PERF_RECORD_SAMPLE)
		return 0;
	out[0] = (struct span){ s->callchain, s->callchain_nr * 8 };
	out[1] = (struct span){ s->raw, s->raw_size };
	out[2] = (struct span){ s->regs_user, s->regs_user ? regs : 0 };
	out[3] = (struct span){ s->stack_user, s->stack_user_size };
	return 4;
}

static const char *string_of(const struct perf_rec *r)
{
	switch (r->type) {
	case PERF_RECORD_MMAP:
	case PERF_RECORD_MMAP2:
		return r->u.mmap.filename;
	case PERF_RECORD_COMM:
		return r->u.comm.comm;
	}
	return NULL;
}

/* Offset of p inside the record's body, or -1 when it points elsewhere. */
static int64_t body_offset(const void *p, const uint8_t *rec, size_t size)
{
	uintptr_t a = (uintptr_t)p, lo = (uintptr_t)rec;

	if (!p || a < lo + HDR_BYTES || a > lo + size)
		return -1;
	return (int64_t)(a - lo);
}

/* Every borrowed range and string must lie inside [rec, rec + size):
 * checked without reading past it, so this holds for the in-place
 * decode, where bytes after the record are readable. */
static void check_inside(const struct sample_fmt *f, const struct perf_rec *r,
			 const uint8_t *rec, size_t size)
{
	struct span sp[4];
	size_t n = spans_of(f, r, sp);
	const char *s = string_of(r);

	for (size_t i = 0; i < n; i++) {
		int64_t off;

		if (!sp[i].n)
			continue;
		off = body_offset(sp[i].p, rec, size);
		if (off < 0 || sp[i].n > size - (uint64_t)off)
			abort();
	}
	if (s) {
		int64_t off = body_offset(s, rec, size);

		if (off < 0 || !memchr(s, '\0', size - (size_t)off))
			abort();
	}
}

/* Reads every borrowed byte, for ASan to vet against the exact-size copy. */
static void touch(const struct sample_fmt *f, const struct perf_rec *r)
{
	struct span sp[4];
	size_t n = spans_of(f, r, sp);
	const char *s = string_of(r);
	uint8_t acc = 0;

	for (size_t i = 0; i < n; i++)
		for (uint64_t j = 0; j < sp[i].n; j++)
			acc ^= ((const volatile uint8_t *)sp[i].p)[j];
	if (s)
		acc ^= (uint8_t)strlen(s);
	acc ^= (uint8_t)strlen(perf_rec_type_name(r->type));
	sink_byte = acc;
}

static int same_sid(const struct sample_id *a, const struct sample_id *b)
{
	return a->present == b->present && a->pid == b->pid &&
	       a->tid == b->tid && a->time == b->time && a->id == b->id &&
	       a->stream_id == b->stream_id && a->cpu == b->cpu;
}

/* The in-place decode r of rec must equal a decode of its own bytes only. */
static void check_copy(const struct sample_fmt *f, int err,
		       const struct perf_rec *r, const uint8_t *rec,
		       size_t size)
{
	uint8_t *copy = malloc(size);
	struct perf_rec r2;
	struct span a[4], b[4];
	size_t n;

	if (!copy)
		abort();
	memcpy(copy, rec, size);
	if (perf_rec_decode(f, copy, size, &r2) != err)
		abort();
	if (!err) {
		touch(f, &r2);
		if (r2.type != r->type || r2.size != r->size ||
		    !same_sid(&r2.sid, &r->sid))
			abort();
		n = spans_of(f, r, a);
		spans_of(f, &r2, b);
		for (size_t i = 0; i < n; i++)
			if (a[i].n != b[i].n || (a[i].n &&
			    body_offset(a[i].p, rec, size) !=
			    body_offset(b[i].p, copy, size)))
				abort();
	}
	free(copy);
}

static void flush(struct run *run, uint64_t watermark)
{
	/* fault_stream_event fails only on ENOMEM: nothing to check then. */
	order_queue_flush(&run->q, watermark, fault_stream_event, &run->fs);
}

/* A decoded record into the ordered stream, flushing every few records
 * up to the latest time seen less the slack, as the recorder's rounds do. */
static void feed(struct run *run, const struct perf_rec *r)
{
	struct ev e;

	if ((r->sid.present & PERF_SAMPLE_TIME) && r->sid.time > run->max_ts)
		run->max_ts = r->sid.time;
	if (ev_from_rec(idmap_get(&run->ids, r->sid.id), r, &e)) {
		/* The recorder stamps events with their ring's CPU (samples
		 * do not carry it); here the ring changes at every flush. */
		e.cpu = run->ring_cpu;
		order_queue_push(&run->q, &e);
	}
	if (++run->since_flush < run->flush_every)
		return;
	run->since_flush = 0;
	run->ring_cpu = (run->ring_cpu + 1) % 4;
	flush(run, run->max_ts > run->slack ? run->max_ts - run->slack : 0);
}

/* What is read in place is the full decode's event, or nothing. */
static void check_in_place(struct run *run, int err, const struct perf_rec *r,
			   const uint8_t *p, size_t size)
{
	enum ev_role role = err ? ROLE_NONE : idmap_get(&run->ids, r->sid.id);
	struct ev fast, full;
	struct sample tail;
	int took;

	if (sample_decode_tail(&run->layout, p, size, &tail) == 0 &&
	    (err || r->type != PERF_RECORD_SAMPLE ||
	     memcmp(&tail, &r->u.sample, sizeof(tail)) != 0))
		abort();

	took = ev_from_fault_sample(role, &run->layout, p, size, &fast) ||
	       ev_from_switch_rec(&run->fmt, p, size, &fast);
	if (!took)
		return;
	if (err || !ev_from_rec(role, r, &full) ||
	    memcmp(&fast, &full, sizeof(fast)) != 0)
		abort();
}

/* Walks the records; returns when the framing says nothing more is there. */
static void walk(struct run *run, const uint8_t *p, size_t left)
{
	while (left >= HDR_BYTES) {
		struct perf_rec r;
		uint16_t size;
		int err = perf_rec_decode(&run->fmt, p, left, &r);

		memcpy(&size, p + 6, sizeof(size));
		if (size < HDR_BYTES || size > left) {
			if (!err)	/* a bad frame can never decode */
				abort();
			return;
		}
		check_copy(&run->fmt, err, &r, p, size);
		check_in_place(run, err, &r, p, size);
		if (!err) {
			check_inside(&run->fmt, &r, p, size);
			feed(run, &r);
		}
		p += size;
		left -= size;
	}
}

/* The stream's counters must account for every fault it was handed. */
static void check_stats(const struct run *run)
{
	const struct fault_stats *st = &run->fs.st;

	if (run->stores != st->stored)
		abort();
	if (st->stored + st->below_threshold !=
	    st->paired + st->unfinished + st->unpaired_exits)
		abort();
	if (st->minor + st->major != st->paired + st->unpaired_exits)
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const struct sample_fmt none;
	struct run run;
	struct perf_rec r;

	if (size < FMT_BYTES) {
		/* Too short for a header: must be refused, not read. */
		if (perf_rec_decode(&none, data, size, &r) != -EBADMSG)
			abort();
		return 0;
	}
	run_init(&run, data);
	walk(&run, data + FMT_BYTES, size - FMT_BYTES);
	flush(&run, UINT64_MAX);
	fault_stream_finish(&run.fs, UINT64_MAX);
	check_stats(&run);
	fault_stream_release(&run.fs);
	order_queue_release(&run.q);
	idmap_release(&run.ids);
	return 0;
}
