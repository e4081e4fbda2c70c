/*
 * records: perf ring records encoded byte for byte as the kernel lays them
 * out (include/uapi/linux/perf_event.h), for tests that feed the decoder
 * and the ring reader.
 *
 * Every encoder writes into a caller's buffer of `cap` bytes and returns
 * the record's size, with the header's size set and the record padded with
 * zeros to 8 bytes.  Non-sample records end with the sample_id trailer
 * when the format has sample_id_all.  Writing past `cap` calls
 * REC_FAIL(msg): cmocka's fail_msg, which fails the test, unless the
 * includer defines REC_FAIL first (a tool built without cmocka).
 */
#ifndef FL_TEST_RECORDS_H
#define FL_TEST_RECORDS_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <linux/perf_event.h>

#ifndef REC_FAIL
#include <stdarg.h>
#include <setjmp.h>
#include <cmocka.h>
#define REC_FAIL(msg) fail_msg("%s", (msg))
#endif

#include "../../collector/fault_events.h"
#include "../../decoder/perf_record.h"

#define REC_MAX 65528	/* the largest header.size that is a multiple of 8 */

struct rec_writer {
	uint8_t *buf;
	size_t cap;
	size_t len;
};

static inline void rw_init(struct rec_writer *w, void *buf, size_t cap)
{
	w->buf = buf;
	w->cap = cap;
	w->len = 0;
}

static inline void rw_room(struct rec_writer *w, size_t n)
{
	if (n > w->cap - w->len)
		REC_FAIL("records: the record does not fit in the buffer");
}

static inline void rw_bytes(struct rec_writer *w, const void *p, size_t n)
{
	rw_room(w, n);
	if (n)
		memcpy(w->buf + w->len, p, n);
	w->len += n;
}

static inline void rw_zeros(struct rec_writer *w, size_t n)
{
	rw_room(w, n);
	memset(w->buf + w->len, 0, n);
	w->len += n;
}

static inline void rw_u64(struct rec_writer *w, uint64_t v)
{
	rw_bytes(w, &v, 8);
}

static inline void rw_u32(struct rec_writer *w, uint32_t v)
{
	rw_bytes(w, &v, 4);
}

static inline void rw_pad8(struct rec_writer *w)
{
	rw_zeros(w, (8 - (w->len & 7)) & 7);
}

/* The 8-byte header; its size is filled in by rw_end. */
static inline void rw_header(struct rec_writer *w, uint32_t type, uint16_t misc)
{
	uint16_t size = 0;

	rw_u32(w, type);
	rw_bytes(w, &misc, 2);
	rw_bytes(w, &size, 2);
}

static inline size_t rw_end(struct rec_writer *w)
{
	uint16_t size;

	rw_pad8(w);
	if (w->len > REC_MAX)
		REC_FAIL("records: the record is over REC_MAX bytes");
	size = (uint16_t)w->len;
	memcpy(w->buf + 6, &size, 2);
	return w->len;
}

/* A string with its NUL, padded with zeros to 8 bytes (comm, filename). */
static inline void rw_string(struct rec_writer *w, const char *s)
{
	rw_bytes(w, s, strlen(s) + 1);
	rw_pad8(w);
}

/* Distinct non-zero u64s, for fields the decoder skips. */
static inline void rw_filler(struct rec_writer *w, uint64_t n, uint64_t seed)
{
	for (uint64_t i = 0; i < n; i++)
		rw_u64(w, 0xf111000000000000ull | (seed << 16) | i);
}

/* ---- sample_id trailer ------------------------------------------------ */

static inline void put_sample_id(struct rec_writer *w, const struct sample_fmt *f,
				 const struct sample_id *sid)
{
	uint64_t t = f->sample_type;

	if (!f->sample_id_all)
		return;
	if (t & PERF_SAMPLE_TID) {
		rw_u32(w, sid->pid);
		rw_u32(w, sid->tid);
	}
	if (t & PERF_SAMPLE_TIME)
		rw_u64(w, sid->time);
	if (t & PERF_SAMPLE_ID)
		rw_u64(w, sid->id);
	if (t & PERF_SAMPLE_STREAM_ID)
		rw_u64(w, sid->stream_id);
	if (t & PERF_SAMPLE_CPU) {
		rw_u32(w, sid->cpu);
		rw_u32(w, 0);
	}
	if (t & PERF_SAMPLE_IDENTIFIER)
		rw_u64(w, sid->id);
}

/* ---- PERF_RECORD_SAMPLE ----------------------------------------------- */

/* What a sample carries that struct sample keeps no field for. */
struct sample_extra {
	uint64_t read_nr;	/* members of a PERF_FORMAT_GROUP read */
	uint64_t branch_nr;	/* lbr entries of PERF_SAMPLE_BRANCH_STACK */
	uint64_t regs_intr_abi;	/* PERF_SAMPLE_REGS_ABI_NONE: no registers */
	uint64_t aux_size;	/* bytes of PERF_SAMPLE_AUX data */
};

static inline struct sample_extra sample_extra_default(void)
{
	return (struct sample_extra){
		.read_nr = 2,
		.branch_nr = 2,
		.regs_intr_abi = PERF_SAMPLE_REGS_ABI_64,
		.aux_size = 16,
	};
}

/*
 * read_format: without GROUP  value, [enabled], [running], [id], [lost];
 *              with GROUP     nr, [enabled], [running],
 *                             nr x { value, [id], [lost] }
 */
static inline void put_read(struct rec_writer *w, uint64_t rf, uint64_t nr)
{
	uint64_t per_value = 1 + !!(rf & PERF_FORMAT_ID) + !!(rf & PERF_FORMAT_LOST);

	if (rf & PERF_FORMAT_GROUP)
		rw_u64(w, nr);
	else
		rw_filler(w, 1, 1);
	if (rf & PERF_FORMAT_TOTAL_TIME_ENABLED)
		rw_filler(w, 1, 2);
	if (rf & PERF_FORMAT_TOTAL_TIME_RUNNING)
		rw_filler(w, 1, 3);
	if (rf & PERF_FORMAT_GROUP)
		rw_filler(w, nr * per_value, 4);
	else
		rw_filler(w, per_value - 1, 5);
}

static inline void put_branch_stack(struct rec_writer *w,
				    const struct sample_fmt *f, uint64_t nr)
{
	rw_u64(w, nr);
	if (f->branch_sample_type & PERF_SAMPLE_BRANCH_HW_INDEX)
		rw_filler(w, 1, 6);
	rw_filler(w, nr * 3, 7);	/* { from, to, flags } each */
}

static inline void put_regs(struct rec_writer *w, uint64_t abi, uint64_t mask,
			    const void *regs)
{
	rw_u64(w, abi);
	if (abi != PERF_SAMPLE_REGS_ABI_NONE)
		rw_bytes(w, regs, 8 * (size_t)__builtin_popcountll(mask));
}

static inline void put_regs_intr(struct rec_writer *w, uint64_t abi,
				 uint64_t mask)
{
	rw_u64(w, abi);
	if (abi != PERF_SAMPLE_REGS_ABI_NONE)
		rw_filler(w, (uint64_t)__builtin_popcountll(mask), 8);
}

static inline void put_stack_user(struct rec_writer *w, const struct sample *s)
{
	rw_u64(w, s->stack_user_size);
	if (!s->stack_user_size)
		return;
	rw_bytes(w, s->stack_user, s->stack_user_size);
	rw_u64(w, s->stack_user_dyn_size);
}

static inline void put_aux(struct rec_writer *w, uint64_t size)
{
	rw_u64(w, size);
	for (uint64_t i = 0; i < size; i++) {
		uint8_t b = (uint8_t)(0xa0 + i);

		rw_bytes(w, &b, 1);
	}
}

/* IDENTIFIER, IP, TID, TIME, ADDR, ID, STREAM_ID, CPU, PERIOD. */
static inline void put_sample_head(struct rec_writer *w, uint64_t t,
				   const struct sample *s)
{
	if (t & PERF_SAMPLE_IDENTIFIER)
		rw_u64(w, s->sid.id);
	if (t & PERF_SAMPLE_IP)
		rw_u64(w, s->ip);
	if (t & PERF_SAMPLE_TID) {
		rw_u32(w, s->sid.pid);
		rw_u32(w, s->sid.tid);
	}
	if (t & PERF_SAMPLE_TIME)
		rw_u64(w, s->sid.time);
	if (t & PERF_SAMPLE_ADDR)
		rw_u64(w, s->addr);
	if (t & PERF_SAMPLE_ID)
		rw_u64(w, s->sid.id);
	if (t & PERF_SAMPLE_STREAM_ID)
		rw_u64(w, s->sid.stream_id);
	if (t & PERF_SAMPLE_CPU) {
		rw_u32(w, s->sid.cpu);
		rw_u32(w, 0);
	}
	if (t & PERF_SAMPLE_PERIOD)
		rw_u64(w, s->period);
}

/* READ, CALLCHAIN, RAW, BRANCH_STACK, REGS_USER, STACK_USER. */
static inline void put_sample_middle(struct rec_writer *w,
				     const struct sample_fmt *f,
				     const struct sample *s,
				     const struct sample_extra *x)
{
	uint64_t t = f->sample_type;

	if (t & PERF_SAMPLE_READ)
		put_read(w, f->read_format, x->read_nr);
	if (t & PERF_SAMPLE_CALLCHAIN) {
		rw_u64(w, s->callchain_nr);
		rw_bytes(w, s->callchain, 8 * (size_t)s->callchain_nr);
	}
	if (t & PERF_SAMPLE_RAW) {
		rw_u32(w, s->raw_size);
		rw_bytes(w, s->raw, s->raw_size);
	}
	if (t & PERF_SAMPLE_BRANCH_STACK)
		put_branch_stack(w, f, x->branch_nr);
	if (t & PERF_SAMPLE_REGS_USER)
		put_regs(w, s->regs_user_abi, f->regs_user_mask, s->regs_user);
	if (t & PERF_SAMPLE_STACK_USER)
		put_stack_user(w, s);
}

/* WEIGHT(_STRUCT), DATA_SRC, TRANSACTION, REGS_INTR, PHYS_ADDR, AUX,
 * CGROUP, DATA_PAGE_SIZE, CODE_PAGE_SIZE. */
static inline void put_sample_tail(struct rec_writer *w,
				   const struct sample_fmt *f,
				   const struct sample *s,
				   const struct sample_extra *x)
{
	uint64_t t = f->sample_type;

	if (t & (PERF_SAMPLE_WEIGHT | PERF_SAMPLE_WEIGHT_STRUCT))
		rw_u64(w, s->weight);
	if (t & PERF_SAMPLE_DATA_SRC)
		rw_u64(w, s->data_src);
	if (t & PERF_SAMPLE_TRANSACTION)
		rw_u64(w, s->transaction);
	if (t & PERF_SAMPLE_REGS_INTR)
		put_regs_intr(w, x->regs_intr_abi, f->regs_intr_mask);
	if (t & PERF_SAMPLE_PHYS_ADDR)
		rw_u64(w, s->phys_addr);
	if (t & PERF_SAMPLE_AUX)
		put_aux(w, x->aux_size);
	if (t & PERF_SAMPLE_CGROUP)
		rw_u64(w, s->cgroup);
	if (t & PERF_SAMPLE_DATA_PAGE_SIZE)
		rw_u64(w, s->data_page_size);
	if (t & PERF_SAMPLE_CODE_PAGE_SIZE)
		rw_u64(w, s->code_page_size);
}

/* Every field of *s that f->sample_type selects, in kernel order; x (NULL:
 * sample_extra_default()) says what goes in the fields s has no room for. */
static inline size_t enc_sample(void *buf, size_t cap, const struct sample_fmt *f,
				const struct sample *s,
				const struct sample_extra *x)
{
	struct sample_extra def = sample_extra_default();
	struct rec_writer w;

	if (!x)
		x = &def;
	rw_init(&w, buf, cap);
	rw_header(&w, PERF_RECORD_SAMPLE, PERF_RECORD_MISC_USER);
	put_sample_head(&w, f->sample_type, s);
	put_sample_middle(&w, f, s, x);
	put_sample_tail(&w, f, s, x);
	return rw_end(&w);
}

/* A sample of the fault events, in the format they are opened with. */
static inline size_t enc_fault_sample(void *buf, size_t cap, uint64_t id,
				      uint32_t pid, uint32_t tid, uint64_t time,
				      uint64_t addr, uint64_t ip, uint32_t cpu)
{
	struct sample_fmt f;
	struct sample s;

	fault_sample_fmt(&f);
	memset(&s, 0, sizeof(s));
	s.sid.id = id;
	s.sid.pid = pid;
	s.sid.tid = tid;
	s.sid.time = time;
	s.sid.cpu = cpu;
	s.addr = addr;
	s.ip = ip;
	return enc_sample(buf, cap, &f, &s, NULL);
}

/* ---- side-band records ------------------------------------------------- */

/* MMAP or MMAP2: u32 pid, tid; u64 start, len, pgoff; MMAP2's own fields;
 * the filename.  MMAP2 with m->build_id_size > 0 is the build-id form
 * (PERF_RECORD_MISC_MMAP_BUILD_ID), else maj/min/ino/ino_generation. */
static inline size_t enc_mmap_rec(void *buf, size_t cap,
				  const struct sample_fmt *f, uint32_t type,
				  const struct rec_mmap *m,
				  const struct sample_id *sid)
{
	struct rec_writer w;
	int v2 = type == PERF_RECORD_MMAP2;
	int bid = v2 && m->build_id_size > 0;

	rw_init(&w, buf, cap);
	rw_header(&w, type, PERF_RECORD_MISC_USER |
		  (bid ? PERF_RECORD_MISC_MMAP_BUILD_ID : 0));
	rw_u32(&w, m->pid);
	rw_u32(&w, m->tid);
	rw_u64(&w, m->start);
	rw_u64(&w, m->len);
	rw_u64(&w, m->pgoff);
	if (bid) {
		uint8_t size_res[4] = { m->build_id_size, 0, 0, 0 };

		rw_bytes(&w, size_res, 4);
		rw_bytes(&w, m->build_id, 20);
	} else if (v2) {
		rw_u32(&w, m->maj);
		rw_u32(&w, m->min);
		rw_u64(&w, m->ino);
		rw_u64(&w, m->ino_generation);
	}
	if (v2) {
		rw_u32(&w, m->prot);
		rw_u32(&w, m->flags);
	}
	rw_string(&w, m->filename);
	put_sample_id(&w, f, sid);
	return rw_end(&w);
}

static inline size_t enc_mmap(void *buf, size_t cap, const struct sample_fmt *f,
			      const struct rec_mmap *m,
			      const struct sample_id *sid)
{
	return enc_mmap_rec(buf, cap, f, PERF_RECORD_MMAP, m, sid);
}

static inline size_t enc_mmap2(void *buf, size_t cap, const struct sample_fmt *f,
			       const struct rec_mmap *m,
			       const struct sample_id *sid)
{
	return enc_mmap_rec(buf, cap, f, PERF_RECORD_MMAP2, m, sid);
}

/* COMM; c->exec sets PERF_RECORD_MISC_COMM_EXEC. */
static inline size_t enc_comm(void *buf, size_t cap, const struct sample_fmt *f,
			      const struct rec_comm *c,
			      const struct sample_id *sid)
{
	struct rec_writer w;

	rw_init(&w, buf, cap);
	rw_header(&w, PERF_RECORD_COMM,
		  PERF_RECORD_MISC_USER | (c->exec ? PERF_RECORD_MISC_COMM_EXEC : 0));
	rw_u32(&w, c->pid);
	rw_u32(&w, c->tid);
	rw_string(&w, c->comm);
	put_sample_id(&w, f, sid);
	return rw_end(&w);
}

/* FORK or EXIT: u32 pid, ppid, tid, ptid; u64 time. */
static inline size_t enc_task(void *buf, size_t cap, const struct sample_fmt *f,
			      uint32_t type, const struct rec_task *t,
			      const struct sample_id *sid)
{
	struct rec_writer w;

	rw_init(&w, buf, cap);
	rw_header(&w, type, 0);
	rw_u32(&w, t->pid);
	rw_u32(&w, t->ppid);
	rw_u32(&w, t->tid);
	rw_u32(&w, t->ptid);
	rw_u64(&w, t->time);
	put_sample_id(&w, f, sid);
	return rw_end(&w);
}

static inline size_t enc_fork(void *buf, size_t cap, const struct sample_fmt *f,
			      const struct rec_task *t, const struct sample_id *sid)
{
	return enc_task(buf, cap, f, PERF_RECORD_FORK, t, sid);
}

static inline size_t enc_exit(void *buf, size_t cap, const struct sample_fmt *f,
			      const struct rec_task *t, const struct sample_id *sid)
{
	return enc_task(buf, cap, f, PERF_RECORD_EXIT, t, sid);
}

static inline size_t enc_lost(void *buf, size_t cap, const struct sample_fmt *f,
			      uint64_t id, uint64_t lost,
			      const struct sample_id *sid)
{
	struct rec_writer w;

	rw_init(&w, buf, cap);
	rw_header(&w, PERF_RECORD_LOST, 0);
	rw_u64(&w, id);
	rw_u64(&w, lost);
	put_sample_id(&w, f, sid);
	return rw_end(&w);
}

static inline size_t enc_lost_samples(void *buf, size_t cap,
				      const struct sample_fmt *f, uint64_t lost,
				      const struct sample_id *sid)
{
	struct rec_writer w;

	rw_init(&w, buf, cap);
	rw_header(&w, PERF_RECORD_LOST_SAMPLES, 0);
	rw_u64(&w, lost);
	put_sample_id(&w, f, sid);
	return rw_end(&w);
}

/* THROTTLE or UNTHROTTLE: u64 time, id, stream_id. */
static inline size_t enc_throttle(void *buf, size_t cap,
				  const struct sample_fmt *f, uint32_t type,
				  const struct rec_throttle *t,
				  const struct sample_id *sid)
{
	struct rec_writer w;

	rw_init(&w, buf, cap);
	rw_header(&w, type, 0);
	rw_u64(&w, t->time);
	rw_u64(&w, t->id);
	rw_u64(&w, t->stream_id);
	put_sample_id(&w, f, sid);
	return rw_end(&w);
}

static inline uint16_t switch_misc(int out, int preempt)
{
	return (uint16_t)((out ? PERF_RECORD_MISC_SWITCH_OUT : 0) |
			  (preempt ? PERF_RECORD_MISC_SWITCH_OUT_PREEMPT : 0));
}

/* SWITCH: nothing but the trailer. */
static inline size_t enc_switch(void *buf, size_t cap, const struct sample_fmt *f,
				int out, int preempt, const struct sample_id *sid)
{
	struct rec_writer w;

	rw_init(&w, buf, cap);
	rw_header(&w, PERF_RECORD_SWITCH, switch_misc(out, preempt));
	put_sample_id(&w, f, sid);
	return rw_end(&w);
}

/* SWITCH_CPU_WIDE: u32 next_prev_pid, next_prev_tid. */
static inline size_t enc_switch_cpu_wide(void *buf, size_t cap,
					 const struct sample_fmt *f,
					 const struct rec_switch *sw,
					 const struct sample_id *sid)
{
	struct rec_writer w;

	rw_init(&w, buf, cap);
	rw_header(&w, PERF_RECORD_SWITCH_CPU_WIDE, switch_misc(sw->out, sw->preempt));
	rw_u32(&w, sw->next_prev_pid);
	rw_u32(&w, sw->next_prev_tid);
	put_sample_id(&w, f, sid);
	return rw_end(&w);
}

/* AUX: u64 aux_offset, aux_size, flags. */
static inline size_t enc_aux(void *buf, size_t cap, const struct sample_fmt *f,
			     const struct rec_aux *a, const struct sample_id *sid)
{
	struct rec_writer w;

	rw_init(&w, buf, cap);
	rw_header(&w, PERF_RECORD_AUX, 0);
	rw_u64(&w, a->aux_offset);
	rw_u64(&w, a->aux_size);
	rw_u64(&w, a->flags);
	put_sample_id(&w, f, sid);
	return rw_end(&w);
}

/* ITRACE_START: u32 pid, tid. */
static inline size_t enc_itrace_start(void *buf, size_t cap,
				      const struct sample_fmt *f,
				      const struct rec_itrace_start *it,
				      const struct sample_id *sid)
{
	struct rec_writer w;

	rw_init(&w, buf, cap);
	rw_header(&w, PERF_RECORD_ITRACE_START, 0);
	rw_u32(&w, it->pid);
	rw_u32(&w, it->tid);
	put_sample_id(&w, f, sid);
	return rw_end(&w);
}

#endif
