/*
 * perf_record: records encoded as the kernel writes them decode to the
 * same fields; malformed ones are refused without reading past them.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "../../decoder/event.h"
#include "records.h"

#define SID_BITS (PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_ID | \
		  PERF_SAMPLE_STREAM_ID | PERF_SAMPLE_CPU | PERF_SAMPLE_IDENTIFIER)
/* What pairing needs of a fault sample: whose event, thread, when, where. */
#define FAULT_NEEDS (PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_TID | \
		     PERF_SAMPLE_TIME | PERF_SAMPLE_ADDR | PERF_SAMPLE_IP)

/* Decodes a copy of rec held in a malloc'd block of exactly len bytes, so
 * that a read past the record is an AddressSanitizer error.  Returns the
 * copy, which holds what *r borrows: the caller frees it. */
static void *decode_exact(const struct sample_fmt *f, const void *rec,
			  size_t len, struct perf_rec *r, int *err)
{
	void *copy = malloc(len ? len : 1);

	assert_non_null(copy);
	memcpy(copy, rec, len);
	*err = perf_rec_decode(f, copy, len, r);
	return copy;
}

static int decode_status(const struct sample_fmt *f, const void *rec, size_t len)
{
	struct perf_rec r;
	int err;

	free(decode_exact(f, rec, len, &r, &err));
	return err;
}

static void set_size(void *rec, uint16_t size)
{
	memcpy((uint8_t *)rec + 6, &size, 2);
}

static void poke_u64(void *rec, size_t off, uint64_t v)
{
	memcpy((uint8_t *)rec + off, &v, 8);
}

static struct sample_fmt fault_fmt(void)
{
	struct sample_fmt f;

	fault_sample_fmt(&f);
	return f;
}

/* Side-band records here carry every field a trailer can hold. */
static struct sample_fmt trailer_fmt(void)
{
	return (struct sample_fmt){ .sample_type = SID_BITS | PERF_SAMPLE_IP,
				    .sample_id_all = 1 };
}

static struct sample_id some_sid(void)
{
	return (struct sample_id){ .pid = 700, .tid = 701, .time = 1700000000123456789ull,
				   .id = 42, .stream_id = 43, .cpu = 5 };
}

static void assert_sid_equal(const struct sample_id *want, const struct sample_id *got,
			     uint64_t present)
{
	assert_int_equal(got->present, present);
	assert_int_equal(got->pid, want->pid);
	assert_int_equal(got->tid, want->tid);
	assert_int_equal(got->time, want->time);
	assert_int_equal(got->id, want->id);
	assert_int_equal(got->stream_id, want->stream_id);
	assert_int_equal(got->cpu, want->cpu);
}

/* ---- a sample with every field ----------------------------------------- */

struct full_sample {
	struct sample s;
	uint64_t callchain[3];
	uint8_t raw[12];	/* with the u32 size: 16 bytes, as the kernel pads */
	uint64_t regs_user[3];
	uint8_t stack[16];
};

static void full_sample_init(struct full_sample *fs)
{
	struct sample *s = &fs->s;

	memset(fs, 0, sizeof(*fs));
	for (int i = 0; i < 3; i++) {
		fs->callchain[i] = 0xffffffff81000000ull + (uint64_t)i;
		fs->regs_user[i] = 0x5eed0000ull + (uint64_t)i;
	}
	for (int i = 0; i < 12; i++)
		fs->raw[i] = (uint8_t)(0x30 + i);
	for (int i = 0; i < 16; i++)
		fs->stack[i] = (uint8_t)(0x60 + i);
	s->sid = (struct sample_id){ .pid = 1234, .tid = 1235,
		.time = 1700000000000000001ull, .id = 77, .stream_id = 78, .cpu = 3 };
	s->ip = 0x401000;
	s->addr = 0x7f0000001000;
	s->period = 1;
	s->callchain_nr = 3;
	s->callchain = fs->callchain;
	s->raw_size = sizeof(fs->raw);
	s->raw = fs->raw;
	s->regs_user_abi = PERF_SAMPLE_REGS_ABI_64;
	s->regs_user = fs->regs_user;
	s->stack_user_size = sizeof(fs->stack);
	s->stack_user = fs->stack;
	s->stack_user_dyn_size = 12;
	s->weight = 250;
	s->data_src = 0x1a2b;
	s->transaction = 0x3c;
	s->phys_addr = 0x12345000;
	s->cgroup = 0x99;
	s->data_page_size = 4096;
	s->code_page_size = 2097152;
}

static struct sample_fmt full_fmt(uint64_t sample_type)
{
	return (struct sample_fmt){
		.sample_type = sample_type,
		.read_format = PERF_FORMAT_MAX - 1,	/* every read_format bit */
		.regs_user_mask = 0xb,			/* three registers */
		.regs_intr_mask = 0x30,			/* two registers */
		.branch_sample_type = PERF_SAMPLE_BRANCH_ANY |
				      PERF_SAMPLE_BRANCH_HW_INDEX,
		.sample_id_all = 1,
	};
}

/* Every sample_type bit the kernel header defines. */
static uint64_t every_bit(void)
{
	return (uint64_t)PERF_SAMPLE_MAX - 1;
}

/* ---- comparing a decoded sample with what was encoded ------------------ */

static int same_bytes(const void *want, const void *got, size_t n)
{
	if (!want || !got)
		return want == got;
	return memcmp(want, got, n) == 0;
}

static void expect_head(struct sample *e, const struct sample *s, uint64_t t)
{
	e->sid.present = t & SID_BITS;
	if (t & PERF_SAMPLE_TID) {
		e->sid.pid = s->sid.pid;
		e->sid.tid = s->sid.tid;
	}
	if (t & PERF_SAMPLE_TIME)
		e->sid.time = s->sid.time;
	if (t & (PERF_SAMPLE_ID | PERF_SAMPLE_IDENTIFIER))
		e->sid.id = s->sid.id;
	if (t & PERF_SAMPLE_STREAM_ID)
		e->sid.stream_id = s->sid.stream_id;
	if (t & PERF_SAMPLE_CPU)
		e->sid.cpu = s->sid.cpu;
	e->ip = (t & PERF_SAMPLE_IP) ? s->ip : 0;
	e->addr = (t & PERF_SAMPLE_ADDR) ? s->addr : 0;
	e->period = (t & PERF_SAMPLE_PERIOD) ? s->period : 0;
}

static void expect_arrays(struct sample *e, const struct sample *s, uint64_t t)
{
	if (t & PERF_SAMPLE_CALLCHAIN) {
		e->callchain_nr = s->callchain_nr;
		e->callchain = s->callchain;
	}
	if (t & PERF_SAMPLE_RAW) {
		e->raw_size = s->raw_size;
		e->raw = s->raw;
	}
	if (t & PERF_SAMPLE_REGS_USER) {
		e->regs_user_abi = s->regs_user_abi;
		e->regs_user = s->regs_user_abi ? s->regs_user : NULL;
	}
	if ((t & PERF_SAMPLE_STACK_USER) && s->stack_user_size) {
		e->stack_user_size = s->stack_user_size;
		e->stack_user = s->stack_user;
		e->stack_user_dyn_size = s->stack_user_dyn_size;
	}
}

static void expect_tail(struct sample *e, const struct sample *s, uint64_t t)
{
	if (t & (PERF_SAMPLE_WEIGHT | PERF_SAMPLE_WEIGHT_STRUCT))
		e->weight = s->weight;
	e->data_src = (t & PERF_SAMPLE_DATA_SRC) ? s->data_src : 0;
	e->transaction = (t & PERF_SAMPLE_TRANSACTION) ? s->transaction : 0;
	e->phys_addr = (t & PERF_SAMPLE_PHYS_ADDR) ? s->phys_addr : 0;
	e->cgroup = (t & PERF_SAMPLE_CGROUP) ? s->cgroup : 0;
	e->data_page_size = (t & PERF_SAMPLE_DATA_PAGE_SIZE) ? s->data_page_size : 0;
	e->code_page_size = (t & PERF_SAMPLE_CODE_PAGE_SIZE) ? s->code_page_size : 0;
}

/* What decoding s encoded with sample_type t must give. */
static struct sample expected_sample(const struct sample *s, uint64_t t)
{
	struct sample e;

	memset(&e, 0, sizeof(e));
	expect_head(&e, s, t);
	expect_arrays(&e, s, t);
	expect_tail(&e, s, t);
	return e;
}

static const char *sid_diff(const struct sample_id *w, const struct sample_id *g)
{
	if (w->present != g->present)
		return "sid.present";
	if (w->pid != g->pid || w->tid != g->tid)
		return "pid/tid";
	if (w->time != g->time)
		return "time";
	if (w->id != g->id)
		return "id";
	if (w->stream_id != g->stream_id)
		return "stream_id";
	return w->cpu != g->cpu ? "cpu" : NULL;
}

static const char *array_diff(const struct sample *w, const struct sample *g,
			      uint64_t regs_mask)
{
	if (w->callchain_nr != g->callchain_nr ||
	    !same_bytes(w->callchain, g->callchain, 8 * w->callchain_nr))
		return "callchain";
	if (w->raw_size != g->raw_size || !same_bytes(w->raw, g->raw, w->raw_size))
		return "raw";
	if (w->regs_user_abi != g->regs_user_abi ||
	    !same_bytes(w->regs_user, g->regs_user,
			8 * (size_t)__builtin_popcountll(regs_mask)))
		return "regs_user";
	if (w->stack_user_size != g->stack_user_size ||
	    w->stack_user_dyn_size != g->stack_user_dyn_size ||
	    !same_bytes(w->stack_user, g->stack_user, w->stack_user_size))
		return "stack_user";
	return NULL;
}

static const char *scalar_diff(const struct sample *w, const struct sample *g)
{
	if (w->ip != g->ip)
		return "ip";
	if (w->addr != g->addr)
		return "addr";
	if (w->period != g->period)
		return "period";
	if (w->weight != g->weight)
		return "weight";
	if (w->data_src != g->data_src)
		return "data_src";
	if (w->transaction != g->transaction)
		return "transaction";
	if (w->phys_addr != g->phys_addr)
		return "phys_addr";
	if (w->cgroup != g->cgroup)
		return "cgroup";
	if (w->data_page_size != g->data_page_size)
		return "data_page_size";
	return w->code_page_size != g->code_page_size ? "code_page_size" : NULL;
}

/* The first field where got differs from want, or NULL. */
static const char *sample_diff(const struct sample *want, const struct sample *got,
			       uint64_t regs_mask)
{
	const char *d = sid_diff(&want->sid, &got->sid);

	if (!d)
		d = scalar_diff(want, got);
	if (!d)
		d = array_diff(want, got, regs_mask);
	return d;
}

/* Encodes s with f, decodes it from an exact-size copy, compares. */
static void assert_round_trip(const struct sample_fmt *f, const struct sample *s,
			      const struct sample_extra *x)
{
	uint8_t buf[4096];
	size_t n = enc_sample(buf, sizeof(buf), f, s, x);
	struct sample want = expected_sample(s, f->sample_type);
	struct perf_rec r;
	const char *d;
	int err;
	void *copy = decode_exact(f, buf, n, &r, &err);

	if (err)
		fail_msg("sample_type %#llx: decode gave %d",
			 (unsigned long long)f->sample_type, err);
	d = sample_diff(&want, &r.u.sample, f->regs_user_mask);
	if (!d)
		d = sid_diff(&want.sid, &r.sid);
	free(copy);
	if (d)
		fail_msg("sample_type %#llx: %s differs after a round trip",
			 (unsigned long long)f->sample_type, d);
	assert_int_equal(r.type, PERF_RECORD_SAMPLE);
	assert_int_equal(r.size, n);
}

/* ---- samples ------------------------------------------------------------ */

static void a_fault_sample_decodes_to_its_fields(void **state)
{
	struct sample_fmt f = fault_fmt();
	uint8_t buf[256];
	size_t n = enc_fault_sample(buf, sizeof(buf), 42, 100, 101,
				    1700000000987654321ull, 0x7f1234567000ull,
				    0x4005d0, 3);
	struct perf_rec r;
	int err;
	void *copy = decode_exact(&f, buf, n, &r, &err);

	(void)state;
	assert_int_equal(err, 0);
	assert_int_equal(r.type, PERF_RECORD_SAMPLE);
	assert_int_equal(r.misc, PERF_RECORD_MISC_USER);
	assert_int_equal(r.size, n);
	assert_int_equal(r.u.sample.sid.id, 42);
	assert_int_equal(r.u.sample.sid.pid, 100);
	assert_int_equal(r.u.sample.sid.tid, 101);
	assert_int_equal(r.u.sample.sid.time, 1700000000987654321ull);
	assert_int_equal(r.u.sample.sid.cpu, f.sample_type & PERF_SAMPLE_CPU ? 3 : 0);
	assert_int_equal(r.u.sample.addr, 0x7f1234567000ull);
	assert_int_equal(r.u.sample.ip, 0x4005d0);
	assert_sid_equal(&r.u.sample.sid, &r.sid, f.sample_type & SID_BITS);
	free(copy);
}

static void the_fault_format_carries_what_pairing_needs(void **state)
{
	struct sample_fmt f = fault_fmt();

	(void)state;
	assert_int_equal(f.sample_type & FAULT_NEEDS, FAULT_NEEDS);
	assert_int_equal(f.sample_id_all, 1);
	assert_int_equal(f.sample_type & PERF_SAMPLE_READ, 0);
}

static void every_single_sample_field_survives_a_round_trip(void **state)
{
	struct full_sample fs;

	(void)state;
	full_sample_init(&fs);
	for (unsigned b = 0; (1ull << b) < PERF_SAMPLE_MAX; b++) {
		struct sample_fmt f = full_fmt(1ull << b);

		assert_round_trip(&f, &fs.s, NULL);
	}
}

static void all_sample_fields_together_survive_a_round_trip(void **state)
{
	struct full_sample fs;
	/* The kernel refuses WEIGHT with WEIGHT_STRUCT: one or the other. */
	struct sample_fmt f1 = full_fmt(every_bit() & ~(uint64_t)PERF_SAMPLE_WEIGHT_STRUCT);
	struct sample_fmt f2 = full_fmt(every_bit() & ~(uint64_t)PERF_SAMPLE_WEIGHT);
	struct sample_fmt f3 = full_fmt(every_bit());

	(void)state;
	full_sample_init(&fs);
	assert_round_trip(&f1, &fs.s, NULL);
	assert_round_trip(&f2, &fs.s, NULL);
	assert_round_trip(&f3, &fs.s, NULL);
}

static void a_sample_without_registers_or_stack_carries_only_their_headers(void **state)
{
	struct sample_extra x = { .read_nr = 0, .branch_nr = 0,
				  .regs_intr_abi = PERF_SAMPLE_REGS_ABI_NONE,
				  .aux_size = 0 };
	struct sample_fmt f = full_fmt(every_bit() & ~(uint64_t)PERF_SAMPLE_WEIGHT_STRUCT);
	struct full_sample fs;

	(void)state;
	full_sample_init(&fs);
	fs.s.regs_user_abi = PERF_SAMPLE_REGS_ABI_NONE;
	fs.s.stack_user_size = 0;
	fs.s.callchain_nr = 0;
	assert_round_trip(&f, &fs.s, &x);
	f.branch_sample_type = PERF_SAMPLE_BRANCH_ANY;	/* no hw_idx word */
	assert_round_trip(&f, &fs.s, &x);
}

static void a_new_sample_bit_in_the_kernel_header_fails_until_decoded(void **state)
{
	(void)state;
	if (PERF_SAMPLE_MAX != 1U << 25)
		fail_msg("<linux/perf_event.h> has PERF_SAMPLE_MAX %#x, the "
			 "decoder knows bits below 1U << 25: teach sample_decode "
			 "(decoder/perf_record.c) and enc_sample (tests/unit/"
			 "records.h) the new field, then raise this bound",
			 (unsigned)PERF_SAMPLE_MAX);
}

/* ---- the fixed fields, read in place ---------------------------------- */

/* The fields of a variable size, and READ with a group. */
#define VARIABLE (PERF_SAMPLE_CALLCHAIN | PERF_SAMPLE_RAW | \
		  PERF_SAMPLE_BRANCH_STACK | PERF_SAMPLE_REGS_USER | \
		  PERF_SAMPLE_STACK_USER | PERF_SAMPLE_REGS_INTR | PERF_SAMPLE_AUX)

/* A tracepoint's format: these fixed fields, then CALLCHAIN and RAW. */
#define TAIL_FORMAT (PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID | \
		     PERF_SAMPLE_TIME | PERF_SAMPLE_ADDR | PERF_SAMPLE_CPU | \
		     PERF_SAMPLE_CALLCHAIN | PERF_SAMPLE_RAW)

/* The tail read of a record of n bytes equals its full decode where the
 * format is a tracepoint's, and is refused for any other, and for a
 * record cut or padded by 8 bytes. */
static void assert_tail_matches_decode(const struct sample_layout *l,
				       uint64_t t, const void *rec, size_t n,
				       const struct sample *full)
{
	uint8_t longer[4096 + 8];
	struct sample s;

	if (!l->tail) {
		assert_int_equal(sample_decode_tail(l, rec, n, &s), -1);
		assert_false((t & PERF_SAMPLE_RAW) &&
			     !(t & ~(uint64_t)TAIL_FORMAT));
		return;
	}
	assert_int_equal(l->tail_type, t);
	assert_int_equal(sample_decode_tail(l, rec, n, &s), 0);
	if (memcmp(&s, full, sizeof(s)) != 0)
		fail_msg("sample_type %#llx: the tail read differs from the full "
			 "decode", (unsigned long long)l->tail_type);
	assert_int_equal(sample_decode_tail(l, rec, n - 8, &s), -1);
	/* 8 bytes more, the header's size saying so: the raw data ends
	 * before the record does */
	memcpy(longer, rec, n);
	memset(longer + n, 0, 8);
	longer[6] = (uint8_t)(n + 8);
	longer[7] = (uint8_t)((n + 8) >> 8);
	assert_int_equal(sample_decode_tail(l, longer, n + 8, &s), -1);
	/* another type of record */
	memcpy(longer, rec, n);
	longer[0] = PERF_RECORD_SWITCH;
	assert_int_equal(sample_decode_tail(l, longer, n, &s), -1);
}

/* f's layout against the full decode of a sample encoded with it: the
 * same fields where it has a fixed size, none where it has not. */
static void assert_layout_matches_decode(const struct sample_fmt *f,
					 const struct sample *s)
{
	uint8_t buf[4096];
	size_t n = enc_sample(buf, sizeof(buf), f, s, NULL);
	uint64_t t = f->sample_type;
	struct sample_layout l;
	struct sample_fixed x;
	struct perf_rec r;
	int err;
	void *copy = decode_exact(f, buf, n, &r, &err);

	sample_layout_of(f, &l);
	assert_int_equal(err, 0);
	assert_tail_matches_decode(&l, t, copy, n, &r.u.sample);
	if ((t & VARIABLE) ||
	    ((t & PERF_SAMPLE_READ) && (f->read_format & PERF_FORMAT_GROUP))) {
		assert_int_equal(l.size, 0);
		assert_int_equal(sample_read_fixed(&l, copy, n, &x), -1);
		free(copy);
		return;
	}
	if (l.size != n)
		fail_msg("sample_type %#llx read_format %#llx: layout size %zu, "
			 "record %zu", (unsigned long long)t,
			 (unsigned long long)f->read_format, l.size, n);
	assert_int_equal(sample_read_fixed(&l, copy, n, &x), 0);
	assert_int_equal(sample_read_fixed(&l, copy, n - 8, &x), -1);
	assert_int_equal(x.ip, r.u.sample.ip);
	assert_int_equal(x.addr, r.u.sample.addr);
	assert_int_equal(x.pid, r.u.sample.sid.pid);
	assert_int_equal(x.tid, r.u.sample.sid.tid);
	assert_int_equal(x.time, r.u.sample.sid.time);
	assert_int_equal(x.cpu, r.u.sample.sid.cpu);
	free(copy);
}

static void fixed_fields_read_in_place_equal_the_full_decode(void **state)
{
	/* every read_format bit but GROUP, then all of them */
	uint64_t rfs[] = { (PERF_FORMAT_MAX - 1) & ~(uint64_t)PERF_FORMAT_GROUP,
			   PERF_FORMAT_MAX - 1, 0 };
	struct full_sample fs;
	uint64_t seed = 0x9e3779b97f4a7c15ull;

	(void)state;
	full_sample_init(&fs);
	for (size_t k = 0; k < sizeof(rfs) / sizeof(rfs[0]); k++) {
		for (unsigned b = 0; (1ull << b) < PERF_SAMPLE_MAX; b++) {
			struct sample_fmt f = full_fmt(1ull << b);

			f.read_format = rfs[k];
			assert_layout_matches_decode(&f, &fs.s);
		}
		/* 2,000 formats of random fields (WEIGHT and WEIGHT_STRUCT
		 * may come together: sample_decode takes one u64 for both) */
		for (int i = 0; i < 2000; i++) {
			struct sample_fmt f;

			seed ^= seed << 13;
			seed ^= seed >> 7;
			seed ^= seed << 17;
			f = full_fmt(seed & every_bit() &
				     (i % 2 ? ~(uint64_t)VARIABLE : ~0ull));
			f.read_format = rfs[k];
			assert_layout_matches_decode(&f, &fs.s);
		}
	}
}

/* Every format of a tracepoint's fields, RAW always among them, read
 * by the tail read as by the full decode. */
static void tracepoint_samples_read_in_place_equal_the_full_decode(void **state)
{
	uint64_t head = TAIL_FORMAT & ~(uint64_t)(PERF_SAMPLE_CALLCHAIN |
						 PERF_SAMPLE_RAW);
	struct full_sample fs;

	(void)state;
	full_sample_init(&fs);
	for (uint64_t t = 0; t <= head; t++) {
		struct sample_fmt f;

		if (t & ~head)
			continue;
		f = full_fmt(t | PERF_SAMPLE_RAW);
		assert_layout_matches_decode(&f, &fs.s);
		f = full_fmt(t | PERF_SAMPLE_RAW | PERF_SAMPLE_CALLCHAIN);
		assert_layout_matches_decode(&f, &fs.s);
		fs.s.callchain_nr = 0;
		assert_layout_matches_decode(&f, &fs.s);
		full_sample_init(&fs);
	}
}

/* The recorder's fault events take the fast read: their format has no
 * field of variable size. */
static void the_fault_format_has_a_fixed_size(void **state)
{
	struct sample_fmt f = fault_fmt();
	struct sample_layout l;

	(void)state;
	sample_layout_of(&f, &l);
	assert_true(l.size > 0);
	assert_int_equal(l.present & (PERF_SAMPLE_IP | PERF_SAMPLE_TID |
				      PERF_SAMPLE_TIME | PERF_SAMPLE_ADDR),
			 PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |
			 PERF_SAMPLE_ADDR);
}

/* ---- PERF_SAMPLE_READ ---------------------------------------------------- */

/* TID, READ, CALLCHAIN, CODE_PAGE_SIZE: fields on both sides of READ. */
static void assert_read_skipped(uint64_t read_format, uint64_t nr)
{
	struct sample_fmt f = full_fmt(PERF_SAMPLE_TID | PERF_SAMPLE_READ |
				       PERF_SAMPLE_CALLCHAIN |
				       PERF_SAMPLE_CODE_PAGE_SIZE);
	struct sample_extra x = sample_extra_default();
	struct full_sample fs;

	full_sample_init(&fs);
	f.read_format = read_format;
	x.read_nr = nr;
	assert_round_trip(&f, &fs.s, &x);
}

static void a_read_value_without_a_group_is_skipped(void **state)
{
	(void)state;
	for (uint64_t rf = 0; rf < PERF_FORMAT_MAX; rf++)
		if (!(rf & PERF_FORMAT_GROUP))
			assert_read_skipped(rf, 1);
}

static void a_group_read_is_skipped_with_every_member(void **state)
{
	static const uint64_t nrs[] = { 0, 1, 3 };

	(void)state;
	for (uint64_t rf = 0; rf < PERF_FORMAT_MAX; rf++)
		for (size_t i = 0; rf & PERF_FORMAT_GROUP && i < 3; i++)
			assert_read_skipped(rf, nrs[i]);
}

/* ---- counts that would overflow ----------------------------------------- */

static void a_huge_callchain_count_is_rejected_not_overflowed(void **state)
{
	static const uint64_t nrs[] = { 4, 1ull << 61, (1ull << 61) + 1, UINT64_MAX };
	struct sample_fmt f = full_fmt(PERF_SAMPLE_IP | PERF_SAMPLE_CALLCHAIN |
				       PERF_SAMPLE_CODE_PAGE_SIZE);
	struct full_sample fs;
	uint8_t buf[256];
	size_t n;

	(void)state;
	full_sample_init(&fs);
	n = enc_sample(buf, sizeof(buf), &f, &fs.s, NULL);
	assert_int_equal(decode_status(&f, buf, n), 0);
	for (size_t i = 0; i < sizeof(nrs) / sizeof(nrs[0]); i++) {
		poke_u64(buf, 16, nrs[i]);	/* header, ip, then nr */
		assert_int_equal(decode_status(&f, buf, n), -EBADMSG);
	}
}

static void a_huge_group_count_is_rejected_not_overflowed(void **state)
{
	/* With ID and LOST a member is 24 bytes: 0x0aaa...ab * 24 wraps to 8,
	 * 0x5555...56 * 3 wraps to 2. */
	static const uint64_t nrs[] = { 3, 0x0aaaaaaaaaaaaaabull,
					0x5555555555555556ull, 1ull << 61,
					UINT64_MAX };
	struct sample_fmt f = full_fmt(PERF_SAMPLE_READ | PERF_SAMPLE_CODE_PAGE_SIZE);
	struct full_sample fs;
	uint8_t buf[256];
	size_t n;

	(void)state;
	f.read_format = PERF_FORMAT_GROUP | PERF_FORMAT_ID | PERF_FORMAT_LOST;
	full_sample_init(&fs);
	n = enc_sample(buf, sizeof(buf), &f, &fs.s, NULL);	/* nr 2 */
	assert_int_equal(decode_status(&f, buf, n), 0);
	for (size_t i = 0; i < sizeof(nrs) / sizeof(nrs[0]); i++) {
		poke_u64(buf, 8, nrs[i]);
		assert_int_equal(decode_status(&f, buf, n), -EBADMSG);
	}
}

/* Sets the u64 at off to each huge value: every one must be refused. */
static void assert_huge_u64_refused(const struct sample_fmt *f, uint8_t *buf,
				    size_t n, size_t off)
{
	static const uint64_t vs[] = { 1ull << 60, 1ull << 61, 0x0aaaaaaaaaaaaaabull,
				       UINT64_MAX - 7, UINT64_MAX };

	for (size_t i = 0; i < sizeof(vs) / sizeof(vs[0]); i++) {
		poke_u64(buf, off, vs[i]);
		assert_int_equal(decode_status(f, buf, n), -EBADMSG);
	}
}

static void huge_branch_stack_stack_and_aux_sizes_are_rejected(void **state)
{
	static const uint64_t bits[] = { PERF_SAMPLE_BRANCH_STACK,
					 PERF_SAMPLE_STACK_USER, PERF_SAMPLE_AUX };
	struct full_sample fs;
	uint8_t buf[512];

	(void)state;
	full_sample_init(&fs);
	for (size_t i = 0; i < 3; i++) {
		struct sample_fmt f = full_fmt(bits[i] | PERF_SAMPLE_CODE_PAGE_SIZE);
		size_t n = enc_sample(buf, sizeof(buf), &f, &fs.s, NULL);

		assert_int_equal(decode_status(&f, buf, n), 0);
		assert_huge_u64_refused(&f, buf, n, 8);
	}
}

static void a_huge_raw_size_or_stack_dyn_size_is_rejected(void **state)
{
	struct sample_fmt raw = full_fmt(PERF_SAMPLE_RAW | PERF_SAMPLE_CODE_PAGE_SIZE);
	struct sample_fmt stack = full_fmt(PERF_SAMPLE_STACK_USER);
	struct full_sample fs;
	uint8_t buf[256];
	uint32_t big = UINT32_MAX;
	size_t n;

	(void)state;
	full_sample_init(&fs);
	n = enc_sample(buf, sizeof(buf), &raw, &fs.s, NULL);
	memcpy(buf + 8, &big, 4);
	assert_int_equal(decode_status(&raw, buf, n), -EBADMSG);
	n = enc_sample(buf, sizeof(buf), &stack, &fs.s, NULL);
	poke_u64(buf, n - 8, 17);	/* dyn_size past the 16 bytes dumped */
	assert_int_equal(decode_status(&stack, buf, n), -EBADMSG);
	poke_u64(buf, n - 8, 16);
	assert_int_equal(decode_status(&stack, buf, n), 0);
}

/* ---- framing -------------------------------------------------------------- */

struct rec_case {
	const char *what;
	struct sample_fmt f;
	uint8_t buf[512];
	size_t len;
	size_t ok_from;	/* 0, or the shortest header.size that still decodes */
};

#define MAX_CASES 16

struct rec_cases {
	struct rec_case c[MAX_CASES];
	size_t n;
};

/* A new case of format f; its record goes in ->buf. */
static struct rec_case *new_case(struct rec_cases *cs, const char *what,
				 struct sample_fmt f)
{
	struct rec_case *k;

	assert_true(cs->n < MAX_CASES);
	k = &cs->c[cs->n++];
	*k = (struct rec_case){ .what = what, .f = f };
	return k;
}

/* A record whose string starts at str_off decodes once the header.size
 * covers the string's NUL and the trailer after it. */
static void set_ok_from(struct rec_case *k, size_t str_off, const char *s)
{
	k->ok_from = str_off + strlen(s) + 1 + sample_id_size(&k->f);
}

static void string_cases(struct rec_cases *cs)
{
	struct sample_fmt f = trailer_fmt();
	struct sample_id sid = some_sid();
	struct rec_mmap m = { .pid = 1, .tid = 2, .start = 0x400000, .len = 0x1000,
			      .maj = 8, .min = 1, .ino = 99, .filename = "/usr/bin/true" };
	struct rec_comm cm = { .pid = 1, .tid = 2, .comm = "worker-17" };
	struct rec_case *k;

	k = new_case(cs, "MMAP2", f);
	k->len = enc_mmap2(k->buf, sizeof(k->buf), &f, &m, &sid);
	set_ok_from(k, 72, m.filename);
	m.build_id_size = 20;
	k = new_case(cs, "MMAP2 with build id", f);
	k->len = enc_mmap2(k->buf, sizeof(k->buf), &f, &m, &sid);
	set_ok_from(k, 72, m.filename);
	k = new_case(cs, "COMM", f);
	k->len = enc_comm(k->buf, sizeof(k->buf), &f, &cm, &sid);
	set_ok_from(k, 16, cm.comm);
}

static void task_cases(struct rec_cases *cs)
{
	struct sample_fmt f = trailer_fmt();
	struct sample_id sid = some_sid();
	struct rec_task t = { .pid = 1, .ppid = 1, .tid = 3, .ptid = 2, .time = 9 };
	struct rec_throttle th = { .time = 5, .id = 6, .stream_id = 7 };
	struct rec_switch sw = { .out = 1, .next_prev_pid = 8, .next_prev_tid = 9 };
	struct rec_case *k;

	k = new_case(cs, "FORK", f);
	k->len = enc_fork(k->buf, sizeof(k->buf), &f, &t, &sid);
	k = new_case(cs, "EXIT", f);
	k->len = enc_exit(k->buf, sizeof(k->buf), &f, &t, &sid);
	k = new_case(cs, "THROTTLE", f);
	k->len = enc_throttle(k->buf, sizeof(k->buf), &f, PERF_RECORD_THROTTLE, &th, &sid);
	k = new_case(cs, "SWITCH", f);
	k->len = enc_switch(k->buf, sizeof(k->buf), &f, 1, 1, &sid);
	k = new_case(cs, "SWITCH_CPU_WIDE", f);
	k->len = enc_switch_cpu_wide(k->buf, sizeof(k->buf), &f, &sw, &sid);
}

static void counter_cases(struct rec_cases *cs)
{
	struct sample_fmt f = trailer_fmt();
	struct sample_id sid = some_sid();
	struct rec_case *k;

	k = new_case(cs, "LOST", f);
	k->len = enc_lost(k->buf, sizeof(k->buf), &f, 4, 5, &sid);
	k = new_case(cs, "LOST_SAMPLES", f);
	k->len = enc_lost_samples(k->buf, sizeof(k->buf), &f, 5, &sid);
}

static void sample_cases(struct rec_cases *cs)
{
	struct sample_fmt f = full_fmt(every_bit() & ~(uint64_t)PERF_SAMPLE_WEIGHT_STRUCT);
	struct full_sample fs;
	struct rec_case *k;

	k = new_case(cs, "fault SAMPLE", fault_fmt());
	k->len = enc_fault_sample(k->buf, sizeof(k->buf), 1, 2, 3, 4, 5, 6, 7);
	full_sample_init(&fs);
	k = new_case(cs, "SAMPLE with every field", f);
	k->len = enc_sample(k->buf, sizeof(k->buf), &f, &fs.s, NULL);
}

/* The prefix of c of len bytes, its header.size left or set to len. */
static int prefix_status(const struct rec_case *c, size_t len, int adjust)
{
	uint8_t tmp[512];

	memcpy(tmp, c->buf, len);
	if (adjust)
		set_size(tmp, (uint16_t)len);
	return decode_status(&c->f, tmp, len);
}

static void assert_prefixes_refused(const struct rec_case *c)
{
	for (size_t len = 0; len < c->len; len++) {
		int want = c->ok_from && len >= c->ok_from ? 0 : -EBADMSG;
		int got = prefix_status(c, len, 0);

		if (got != -EBADMSG)
			fail_msg("%s cut to %zu bytes, size %zu kept: %d",
				 c->what, len, c->len, got);
		if (len < 8)
			continue;
		got = prefix_status(c, len, 1);
		if (got != want)
			fail_msg("%s cut to %zu bytes, size adjusted: %d, want %d",
				 c->what, len, got, want);
	}
}

static void every_truncated_record_is_rejected_without_reading_past_it(void **state)
{
	struct rec_cases *cs = calloc(1, sizeof(*cs));

	(void)state;
	assert_non_null(cs);
	string_cases(cs);
	task_cases(cs);
	counter_cases(cs);
	sample_cases(cs);
	for (size_t i = 0; i < cs->n; i++) {
		assert_int_equal(decode_status(&cs->c[i].f, cs->c[i].buf, cs->c[i].len), 0);
		assert_prefixes_refused(&cs->c[i]);
	}
	free(cs);
}

static void a_header_size_beyond_the_bytes_at_hand_is_rejected(void **state)
{
	uint8_t buf[256];
	size_t n = enc_fault_sample(buf, sizeof(buf), 1, 2, 3, 4, 5, 6, 7);
	struct sample_fmt f = fault_fmt();

	(void)state;
	set_size(buf, (uint16_t)(n + 8));
	assert_int_equal(decode_status(&f, buf, n), -EBADMSG);
	set_size(buf, UINT16_MAX);
	assert_int_equal(decode_status(&f, buf, n), -EBADMSG);
}

static void a_header_size_below_the_header_is_rejected(void **state)
{
	struct sample_fmt f = fault_fmt();
	uint8_t buf[256];
	size_t n = enc_fault_sample(buf, sizeof(buf), 1, 2, 3, 4, 5, 6, 7);

	(void)state;
	for (uint16_t size = 0; size < 8; size++) {
		set_size(buf, size);
		assert_int_equal(decode_status(&f, buf, n), -EBADMSG);
	}
}

static void an_unknown_record_type_is_reported_with_its_type_and_size(void **state)
{
	struct sample_fmt f = fault_fmt();
	uint8_t buf[24] = { 0 };
	uint32_t type = 99;
	uint16_t misc = 0x4002, size = 24;
	struct perf_rec r;
	int err;

	(void)state;
	memcpy(buf, &type, 4);
	memcpy(buf + 4, &misc, 2);
	memcpy(buf + 6, &size, 2);
	free(decode_exact(&f, buf, sizeof(buf), &r, &err));
	assert_int_equal(err, -ENOMSG);
	assert_int_equal(r.type, 99);
	assert_int_equal(r.misc, 0x4002);
	assert_int_equal(r.size, 24);
	assert_string_equal(perf_rec_type_name(99), "UNKNOWN");
	assert_string_equal(perf_rec_type_name(UINT32_MAX), "UNKNOWN");
	assert_string_equal(perf_rec_type_name(PERF_RECORD_MMAP2), "MMAP2");
	assert_string_equal(perf_rec_type_name(PERF_RECORD_SAMPLE), "SAMPLE");
}

/* ---- side-band records ---------------------------------------------------- */

static struct rec_mmap libc_map(void)
{
	return (struct rec_mmap){ .pid = 300, .tid = 301, .start = 0x7f0000000000ull,
				  .len = 0x1c6000, .pgoff = 0x28000, .maj = 259,
				  .min = 2, .ino = 1311, .ino_generation = 7,
				  .prot = 5, .flags = 2,
				  .filename = "/usr/lib/x86_64-linux-gnu/libc.so.6" };
}

static void assert_map_equal(const struct rec_mmap *want, const struct rec_mmap *got)
{
	assert_int_equal(got->pid, want->pid);
	assert_int_equal(got->tid, want->tid);
	assert_int_equal(got->start, want->start);
	assert_int_equal(got->len, want->len);
	assert_int_equal(got->pgoff, want->pgoff);
	assert_int_equal(got->prot, want->prot);
	assert_int_equal(got->flags, want->flags);
	assert_string_equal(got->filename, want->filename);
}

static void an_mmap2_with_a_build_id_yields_its_bytes_and_size(void **state)
{
	struct sample_fmt f = trailer_fmt();
	struct sample_id sid = some_sid();
	struct rec_mmap m = libc_map();
	struct perf_rec r;
	uint8_t buf[512];
	size_t n;
	int err;
	void *copy;

	(void)state;
	for (int i = 0; i < 20; i++)
		m.build_id[i] = (uint8_t)(0xb0 + i);
	m.build_id_size = 16;
	n = enc_mmap2(buf, sizeof(buf), &f, &m, &sid);
	copy = decode_exact(&f, buf, n, &r, &err);
	assert_int_equal(err, 0);
	assert_int_equal(r.type, PERF_RECORD_MMAP2);
	assert_true(r.misc & PERF_RECORD_MISC_MMAP_BUILD_ID);
	assert_int_equal(r.u.mmap.build_id_size, 16);
	assert_memory_equal(r.u.mmap.build_id, m.build_id, 16);
	assert_int_equal(r.u.mmap.maj, 0);
	assert_int_equal(r.u.mmap.ino, 0);
	assert_map_equal(&m, &r.u.mmap);
	assert_sid_equal(&sid, &r.sid, SID_BITS);
	free(copy);
}

static void a_build_id_size_over_twenty_is_capped_at_twenty(void **state)
{
	struct sample_fmt f = trailer_fmt();
	struct sample_id sid = some_sid();
	struct rec_mmap m = libc_map();
	struct perf_rec r;
	uint8_t buf[512];
	size_t n;
	int err;
	void *copy;

	(void)state;
	memset(m.build_id, 0xee, 20);
	m.build_id_size = 20;
	n = enc_mmap2(buf, sizeof(buf), &f, &m, &sid);
	buf[40] = 0xff;		/* the build id's size byte */
	copy = decode_exact(&f, buf, n, &r, &err);
	assert_int_equal(err, 0);
	assert_int_equal(r.u.mmap.build_id_size, 20);
	assert_memory_equal(r.u.mmap.build_id, m.build_id, 20);
	free(copy);
}

static void an_mmap2_without_a_build_id_yields_device_and_inode(void **state)
{
	struct sample_fmt f = trailer_fmt();
	struct sample_id sid = some_sid();
	struct rec_mmap m = libc_map();
	struct perf_rec r;
	uint8_t buf[512];
	size_t n = enc_mmap2(buf, sizeof(buf), &f, &m, &sid);
	int err;
	void *copy = decode_exact(&f, buf, n, &r, &err);

	(void)state;
	assert_int_equal(err, 0);
	assert_false(r.misc & PERF_RECORD_MISC_MMAP_BUILD_ID);
	assert_int_equal(r.u.mmap.build_id_size, 0);
	assert_int_equal(r.u.mmap.maj, 259);
	assert_int_equal(r.u.mmap.min, 2);
	assert_int_equal(r.u.mmap.ino, 1311);
	assert_int_equal(r.u.mmap.ino_generation, 7);
	assert_map_equal(&m, &r.u.mmap);
	assert_sid_equal(&sid, &r.sid, SID_BITS);
	free(copy);
}

/* Overwrites every byte from the filename's NUL to the trailer. */
static void assert_unterminated_name_refused(const struct sample_fmt *f)
{
	struct sample_id sid = some_sid();
	struct rec_mmap m = libc_map();
	uint8_t buf[512];
	size_t n, name_end;

	m.filename = "/lib/x.so";
	n = enc_mmap2(buf, sizeof(buf), f, &m, &sid);
	name_end = n - sample_id_size(f);
	memset(buf + 72 + strlen(m.filename), 'x', name_end - 72 - strlen(m.filename));
	assert_int_equal(decode_status(f, buf, n), -EBADMSG);
}

static void a_filename_without_nul_inside_the_record_is_rejected(void **state)
{
	struct sample_fmt f = trailer_fmt();

	(void)state;
	assert_unterminated_name_refused(&f);	/* zeros in the trailer after it */
	f.sample_id_all = 0;
	assert_unterminated_name_refused(&f);	/* the name ends the record */
}

static void assert_comm(int exec)
{
	struct sample_fmt f = trailer_fmt();
	struct sample_id sid = some_sid();
	struct rec_comm c = { .pid = 500, .tid = 501, .comm = "kworker/u8:1", .exec = exec };
	struct perf_rec r;
	uint8_t buf[256];
	size_t n = enc_comm(buf, sizeof(buf), &f, &c, &sid);
	int err;
	void *copy = decode_exact(&f, buf, n, &r, &err);

	assert_int_equal(err, 0);
	assert_int_equal(r.type, PERF_RECORD_COMM);
	assert_int_equal(r.u.comm.exec, exec);
	assert_int_equal(r.u.comm.pid, 500);
	assert_int_equal(r.u.comm.tid, 501);
	assert_string_equal(r.u.comm.comm, "kworker/u8:1");
	assert_sid_equal(&sid, &r.sid, SID_BITS);
	free(copy);
}

static void a_comm_record_says_whether_it_came_from_exec(void **state)
{
	(void)state;
	assert_comm(1);
	assert_comm(0);
}

static void fork_and_exit_records_carry_both_ids_and_time(void **state)
{
	struct sample_fmt f = trailer_fmt();
	struct sample_id sid = some_sid();
	struct rec_task t = { .pid = 10, .ppid = 9, .tid = 11, .ptid = 10, .time = 123 };
	struct perf_rec r;
	uint8_t buf[256];
	size_t n;

	(void)state;
	n = enc_fork(buf, sizeof(buf), &f, &t, &sid);
	assert_int_equal(perf_rec_decode(&f, buf, n, &r), 0);
	assert_int_equal(r.type, PERF_RECORD_FORK);
	assert_int_equal(r.u.task.pid, 10);
	assert_int_equal(r.u.task.ppid, 9);
	assert_int_equal(r.u.task.tid, 11);
	assert_int_equal(r.u.task.ptid, 10);
	assert_int_equal(r.u.task.time, 123);
	assert_sid_equal(&sid, &r.sid, SID_BITS);
	f.sample_id_all = 0;
	n = enc_exit(buf, sizeof(buf), &f, &t, &sid);
	assert_int_equal(n, 32);
	assert_int_equal(perf_rec_decode(&f, buf, n, &r), 0);
	assert_int_equal(r.type, PERF_RECORD_EXIT);
	assert_int_equal(r.u.task.tid, 11);
	assert_int_equal(r.sid.present, 0);
	assert_int_equal(r.sid.tid, 0);
}

static void lost_and_lost_samples_records_carry_their_counts(void **state)
{
	struct sample_fmt f = trailer_fmt();
	struct sample_id sid = some_sid();
	struct perf_rec r;
	uint8_t buf[256];
	size_t n;

	(void)state;
	n = enc_lost(buf, sizeof(buf), &f, 77, 123456789012ull, &sid);
	assert_int_equal(decode_status(&f, buf, n), 0);
	assert_int_equal(perf_rec_decode(&f, buf, n, &r), 0);
	assert_int_equal(r.type, PERF_RECORD_LOST);
	assert_int_equal(r.u.lost.id, 77);
	assert_int_equal(r.u.lost.lost, 123456789012ull);
	assert_sid_equal(&sid, &r.sid, SID_BITS);
	n = enc_lost_samples(buf, sizeof(buf), &f, 99, &sid);
	assert_int_equal(decode_status(&f, buf, n), 0);
	assert_int_equal(perf_rec_decode(&f, buf, n, &r), 0);
	assert_int_equal(r.type, PERF_RECORD_LOST_SAMPLES);
	assert_int_equal(r.u.lost.id, 0);
	assert_int_equal(r.u.lost.lost, 99);
	assert_sid_equal(&sid, &r.sid, SID_BITS);
}

static void a_throttle_record_carries_time_id_and_stream(void **state)
{
	struct sample_fmt f = trailer_fmt();
	struct sample_id sid = some_sid();
	struct rec_throttle t = { .time = 1000, .id = 42, .stream_id = 43 };
	struct perf_rec r;
	uint8_t buf[256];
	size_t n = enc_throttle(buf, sizeof(buf), &f, PERF_RECORD_UNTHROTTLE, &t, &sid);

	(void)state;
	assert_int_equal(decode_status(&f, buf, n), 0);
	assert_int_equal(perf_rec_decode(&f, buf, n, &r), 0);
	assert_int_equal(r.type, PERF_RECORD_UNTHROTTLE);
	assert_int_equal(r.u.throttle.time, 1000);
	assert_int_equal(r.u.throttle.id, 42);
	assert_int_equal(r.u.throttle.stream_id, 43);
	assert_sid_equal(&sid, &r.sid, SID_BITS);
}

static void assert_switch(int out, int preempt)
{
	struct sample_fmt f = trailer_fmt();
	struct sample_id sid = some_sid();
	struct perf_rec r;
	uint8_t buf[256];
	size_t n = enc_switch(buf, sizeof(buf), &f, out, preempt, &sid);

	assert_int_equal(n, 8 + sample_id_size(&f));
	assert_int_equal(decode_status(&f, buf, n), 0);
	assert_int_equal(perf_rec_decode(&f, buf, n, &r), 0);
	assert_int_equal(r.type, PERF_RECORD_SWITCH);
	assert_int_equal(r.u.sw.out, out);
	assert_int_equal(r.u.sw.preempt, preempt);
	assert_sid_equal(&sid, &r.sid, SID_BITS);
}

static void switch_records_say_whether_out_and_preempted(void **state)
{
	(void)state;
	assert_switch(0, 0);
	assert_switch(1, 0);
	assert_switch(1, 1);
}

static void a_cpu_wide_switch_names_the_other_task(void **state)
{
	struct sample_fmt f = trailer_fmt();
	struct sample_id sid = some_sid();
	struct rec_switch sw = { .out = 1, .preempt = 1, .next_prev_pid = 600,
				 .next_prev_tid = 601 };
	struct perf_rec r;
	uint8_t buf[256];
	size_t n = enc_switch_cpu_wide(buf, sizeof(buf), &f, &sw, &sid);

	(void)state;
	assert_int_equal(decode_status(&f, buf, n), 0);
	assert_int_equal(perf_rec_decode(&f, buf, n, &r), 0);
	assert_int_equal(r.type, PERF_RECORD_SWITCH_CPU_WIDE);
	assert_int_equal(r.u.sw.out, 1);
	assert_int_equal(r.u.sw.preempt, 1);
	assert_int_equal(r.u.sw.next_prev_pid, 600);
	assert_int_equal(r.u.sw.next_prev_tid, 601);
	assert_sid_equal(&sid, &r.sid, SID_BITS);
}

/* A switch record (r of n bytes in buf) read in place is its full
 * decode's event; cut or padded by 8 bytes, or of another type, it is
 * left to the full decode. */
static void assert_switch_in_place(const struct sample_fmt *f, uint8_t *buf,
				   size_t n)
{
	struct perf_rec r;
	struct ev fast, full;

	assert_int_equal(perf_rec_decode(f, buf, n, &r), 0);
	assert_int_equal(ev_from_rec(ROLE_NONE, &r, &full), 1);
	assert_int_equal(ev_from_switch_rec(f, buf, n, &fast), 1);
	if (memcmp(&fast, &full, sizeof(fast)) != 0)
		fail_msg("%s: read in place differs from the full decode",
			 perf_rec_type_name(r.type));
	assert_int_equal(ev_from_switch_rec(f, buf, n - 8, &fast), 0);
	memset(buf + n, 0, 8);
	buf[6] = (uint8_t)(n + 8);
	assert_int_equal(ev_from_switch_rec(f, buf, n + 8, &fast), 0);
	buf[6] = (uint8_t)n;
	buf[0] = PERF_RECORD_EXIT;
	assert_int_equal(ev_from_switch_rec(f, buf, n, &fast), 0);
}

static void switch_records_read_in_place_equal_the_full_decode(void **state)
{
	struct sample_fmt f = trailer_fmt();
	struct sample_id sid = some_sid();
	uint8_t buf[256];

	(void)state;
	for (int k = 0; k < 3; k++) {
		struct rec_switch sw = { .out = k > 0, .preempt = k > 1,
					 .next_prev_pid = 600,
					 .next_prev_tid = 601 };

		assert_switch_in_place(&f, buf, enc_switch(buf, sizeof(buf) - 8,
				       &f, sw.out, sw.preempt, &sid));
		assert_switch_in_place(&f, buf, enc_switch_cpu_wide(buf,
				       sizeof(buf) - 8, &f, &sw, &sid));
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(a_fault_sample_decodes_to_its_fields),
		cmocka_unit_test(the_fault_format_carries_what_pairing_needs),
		cmocka_unit_test(every_single_sample_field_survives_a_round_trip),
		cmocka_unit_test(all_sample_fields_together_survive_a_round_trip),
		cmocka_unit_test(a_sample_without_registers_or_stack_carries_only_their_headers),
		cmocka_unit_test(a_new_sample_bit_in_the_kernel_header_fails_until_decoded),
		cmocka_unit_test(fixed_fields_read_in_place_equal_the_full_decode),
		cmocka_unit_test(tracepoint_samples_read_in_place_equal_the_full_decode),
		cmocka_unit_test(the_fault_format_has_a_fixed_size),
		cmocka_unit_test(a_read_value_without_a_group_is_skipped),
		cmocka_unit_test(a_group_read_is_skipped_with_every_member),
		cmocka_unit_test(a_huge_callchain_count_is_rejected_not_overflowed),
		cmocka_unit_test(a_huge_group_count_is_rejected_not_overflowed),
		cmocka_unit_test(huge_branch_stack_stack_and_aux_sizes_are_rejected),
		cmocka_unit_test(a_huge_raw_size_or_stack_dyn_size_is_rejected),
		cmocka_unit_test(every_truncated_record_is_rejected_without_reading_past_it),
		cmocka_unit_test(a_header_size_beyond_the_bytes_at_hand_is_rejected),
		cmocka_unit_test(a_header_size_below_the_header_is_rejected),
		cmocka_unit_test(an_unknown_record_type_is_reported_with_its_type_and_size),
		cmocka_unit_test(an_mmap2_with_a_build_id_yields_its_bytes_and_size),
		cmocka_unit_test(a_build_id_size_over_twenty_is_capped_at_twenty),
		cmocka_unit_test(an_mmap2_without_a_build_id_yields_device_and_inode),
		cmocka_unit_test(a_filename_without_nul_inside_the_record_is_rejected),
		cmocka_unit_test(a_comm_record_says_whether_it_came_from_exec),
		cmocka_unit_test(fork_and_exit_records_carry_both_ids_and_time),
		cmocka_unit_test(lost_and_lost_samples_records_carry_their_counts),
		cmocka_unit_test(a_throttle_record_carries_time_id_and_stream),
		cmocka_unit_test(switch_records_say_whether_out_and_preempted),
		cmocka_unit_test(a_cpu_wide_switch_names_the_other_task),
		cmocka_unit_test(switch_records_read_in_place_equal_the_full_decode),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
