/*
 * fuzz_fault_stream: synthetic fault, COMM, FORK and EXIT events, in a
 * jittered time order, through order_queue and fault_stream, with every
 * stored fault and every counter checked against what was fed in.
 *
 * Input layout:
 *   byte 0    bits 0-2 flush after every 1-8 events, bits 3-7 watermark
 *             slack in steps
 *   byte 1    bits 0-1 min_dur_ns (0, 1 step, 16 steps, never),
 *             bits 2-3 the time step in ns (1, 7, 1000, 2^32)
 *   then 3 bytes per event:
 *     b0  bits 0-2 kind (enum ev_kind; 6, 7 are entry, minor again),
 *         bits 3-5 tid (tids[]), bits 6-7 cpu
 *     b1  signed time delta in steps: time may go backwards
 *     b2  bits 0-1 address (addrs[]), bits 2-4 parent (FORK, EXIT) or
 *         name (COMM), bit 5 exec (COMM), bit 6 flush after this event
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../../decoder/event.h"
#include "../../decoder/fault_stream.h"
#include "../../decoder/order.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define SETTING_BYTES 2
#define EVENT_BYTES 3
#define NTIDS 8

/* Small sets, so that events collide on the same thread and address.
 * 0 is what a record without PERF_SAMPLE_TID yields, and UINT32_MAX (-1)
 * what the kernel writes for a task whose pid is gone. */
static const uint32_t tids[NTIDS] = {
	100, 101, 102, 200, 201, 1, 0, UINT32_MAX,
};
static const uint32_t pids[NTIDS] = {
	100, 100, 100, 200, 200, 1, 0, UINT32_MAX,
};
static const uint64_t addrs[4] = { 0x1000, 0x2000, 0x7ffff000, 0 };
static const char *const comms[8] = {
	"", "a", "worker", "bash", "fifteen-chars-x", "sixteen-chars-xx",
	"kworker/0:1", "a",
};

/* The latest entry delivered for a tid: the one a completion pairs with. */
struct last_entry {
	int seen;
	uint64_t ts, addr;
	uint32_t cpu;
};

struct model {
	struct order_queue q;
	struct fault_stream fs;
	uint64_t step, slack, min_dur;
	unsigned flush_every;
	uint64_t ts, max_ts;		/* of the events pushed */
	uint64_t flushed_to, late;	/* what order_queue should count */
	uint64_t pushed, delivered, fault_evs;
	unsigned tids_seen;		/* bit per tids[] index */
	const struct ev *cur;		/* being delivered, NULL in finish */
	int in_flush;
	uint64_t prev_ts;		/* previous delivery of this flush */
	struct last_entry last[NTIDS];
	uint64_t stores, stores_no_dur;
};

static void check(int ok)
{
	if (!ok)
		abort();
}

static int tid_index(uint32_t tid)
{
	for (int i = 0; i < NTIDS; i++)
		if (tids[i] == tid)
			return i;
	abort();
}

static int is_completion(const struct ev *e)
{
	return e && (e->kind == EV_FAULT_MINOR || e->kind == EV_FAULT_MAJOR);
}

/* A fault with a duration: the delivered completion closing the tid's
 * latest entry, at the same address, no earlier than it. */
static void check_paired(const struct model *m, const struct fault *f)
{
	const struct ev *e = m->cur;
	const struct last_entry *le = &m->last[tid_index(f->tid)];

	check(is_completion(e));
	check(f->kind ==
	      (e->kind == EV_FAULT_MAJOR ? FAULT_MAJOR : FAULT_MINOR));
	check(f->mono_ts <= e->mono_ts && f->dur_ns == e->mono_ts - f->mono_ts);
	check(f->dur_ns >= m->min_dur);
	check(f->addr == e->u.fault.addr && f->exit_cpu == e->cpu);
	check(le->seen && le->ts == f->mono_ts && le->addr == f->addr &&
	      le->cpu == f->cpu);
}

/* A fault without one: a lone completion, or an entry left unfinished. */
static void check_unpaired(const struct model *m, const struct fault *f)
{
	const struct ev *e = m->cur;
	const struct last_entry *le = &m->last[tid_index(f->tid)];

	if (f->kind == FAULT_UNFINISHED) {
		check(f->exit_cpu == UINT32_MAX);
		check(le->seen && le->ts == f->mono_ts && le->addr == f->addr &&
		      le->cpu == f->cpu);
		return;
	}
	check(is_completion(e));
	check(f->mono_ts == e->mono_ts && f->cpu == e->cpu && f->exit_cpu == e->cpu);
	check(f->addr == e->u.fault.addr);
}

static int on_store(void *ctx, const struct fault *f)
{
	struct model *m = ctx;

	m->stores++;
	/* Faults are stored while their own thread's event is handled, or
	 * (unfinished ones only) by fault_stream_finish. */
	check(m->cur ? f->tid == m->cur->tid : f->kind == FAULT_UNFINISHED);
	if (f->dur_ns == FAULT_NO_DUR) {
		m->stores_no_dur++;
		check_unpaired(m, f);
	} else {
		check_paired(m, f);
	}
	return 0;
}

static int on_spell_end(void *ctx, const struct thread *t)
{
	(void)ctx;
	check(t->wanted && t->first_mono_ts <= t->last_mono_ts);
	check(memchr(t->comm, '\0', COMM_LEN) != NULL);
	return 0;
}

/* An ev_fn around fault_stream_event that sees each event go by. */
static int deliver(void *ctx, const struct ev *e)
{
	struct model *m = ctx;
	int err;

	check(!m->in_flush || e->mono_ts >= m->prev_ts);
	m->in_flush = 1;
	m->prev_ts = e->mono_ts;
	m->delivered++;
	if (e->kind <= EV_FAULT_MAJOR)
		m->fault_evs++;
	m->cur = e;
	err = fault_stream_event(&m->fs, e);
	m->cur = NULL;
	if (e->kind == EV_FAULT_ENTRY)
		m->last[tid_index(e->tid)] = (struct last_entry){
			1, e->mono_ts, e->u.fault.addr, e->cpu };
	return err;
}

/* Hands out what is due; what stays queued must be above the watermark. */
static void flush(struct model *m, uint64_t watermark)
{
	m->in_flush = 0;
	check(order_queue_flush(&m->q, watermark, deliver, m) >= 0);
	for (size_t i = m->q.head; i < m->q.n; i++)
		check(m->q.slab[m->q.q[i]].mono_ts > watermark);
	if (watermark != UINT64_MAX && watermark > m->flushed_to)
		m->flushed_to = watermark;
}

static void model_init(struct model *m, const uint8_t *s)
{
	static const uint64_t steps[4] = { 1, 7, 1000, (uint64_t)1 << 32 };
	uint64_t step = steps[(s[1] >> 2) & 3];
	uint64_t min_durs[4] = { 0, step, 16 * step, UINT64_MAX };
	struct fault_stream_ops ops = {
		.ctx = m,
		.store_fault = on_store,
		.spell_end = on_spell_end,
	};

	memset(m, 0, sizeof(*m));
	m->step = step;
	m->slack = (uint64_t)(s[0] >> 3) * step;
	m->min_dur = min_durs[s[1] & 3];
	m->flush_every = (s[0] & 7) + 1;
	m->ts = 64 * step;	/* a few steps back reach 0 */
	order_queue_init(&m->q);
	fault_stream_init(&m->fs, &ops, m->min_dur);
}

/* Moves the clock by a signed number of steps, stopping at 0. */
static uint64_t next_ts(struct model *m, int8_t delta)
{
	uint64_t d = (uint64_t)(delta < 0 ? -delta : delta) * m->step;

	if (delta >= 0)
		m->ts += d;
	else
		m->ts = m->ts > d ? m->ts - d : 0;
	return m->ts;
}

static void fill_comm(struct ev *e, const char *name, int exec)
{
	size_t n = strlen(name);

	/* A 16-character name fills comm with no NUL: the stream must cope. */
	memcpy(e->u.comm.comm, name, n < COMM_LEN ? n : COMM_LEN);
	e->u.comm.exec = exec;
}

static void ev_from_bytes(struct model *m, const uint8_t *b, struct ev *e)
{
	unsigned kind = b[0] & 7, t = (b[0] >> 3) & 7, aux = (b[2] >> 2) & 7;

	memset(e, 0, sizeof(*e));
	e->kind = (uint8_t)(kind < 6 ? kind : kind - 6);
	e->tid = tids[t];
	e->pid = pids[t];
	e->cpu = b[0] >> 6;
	e->mono_ts = next_ts(m, (int8_t)b[1]);
	if (e->kind <= EV_FAULT_MAJOR) {
		e->u.fault.addr = addrs[b[2] & 3];
		e->u.fault.ip = 0x400000 + (b[2] & 3);
	} else if (e->kind == EV_COMM) {
		fill_comm(e, comms[aux], !!(b[2] & 0x20));
	} else {
		e->u.task.ptid = tids[aux];
		e->u.task.ppid = pids[aux];
	}
}

static void push(struct model *m, const struct ev *e)
{
	if (m->flushed_to && e->mono_ts <= m->flushed_to)
		m->late++;
	if (e->mono_ts > m->max_ts)
		m->max_ts = e->mono_ts;
	m->tids_seen |= 1u << tid_index(e->tid);
	m->pushed++;
	check(order_queue_push(&m->q, e) == 0);
}

/* Every fault with a duration went into its thread's histogram. */
static uint64_t hist_total(const struct thread_table *tt)
{
	uint64_t n = 0;

	for (size_t i = 0; i < tt->n; i++)
		n += tt->by_order[i]->hist[FAULT_MINOR].total +
		     tt->by_order[i]->hist[FAULT_MAJOR].total;
	return n;
}

/* Once finished, every event was handed out once and every fault is
 * accounted for exactly once. */
static void check_end(const struct model *m)
{
	const struct fault_stats *st = &m->fs.st;

	check(m->delivered == m->pushed && order_queue_count(&m->q) == 0);
	check(m->q.late == m->late);
	check(m->stores == st->stored);
	check(m->stores_no_dur == st->unfinished + st->unpaired_exits);
	check(st->stored + st->below_threshold ==
	      st->paired + st->unfinished + st->unpaired_exits);
	check(st->minor + st->major == st->paired + st->unpaired_exits);
	check(st->entries + st->minor + st->major == m->fault_evs);
	check(st->other_threads == 0);	/* no wanted(): all are targets */
	check(hist_total(&m->fs.threads) == st->paired);
	/* fault_stream_finish leaves no entry pending: each one completed
	 * or became an unfinished fault. */
	check(st->entries == st->paired + st->unfinished);
	/* One struct thread per tid: threads are never removed. */
	check(m->fs.threads.n <= (size_t)__builtin_popcount(m->tids_seen));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct model m;
	size_t n = 0;

	if (size < SETTING_BYTES)
		return 0;
	model_init(&m, data);
	for (size_t at = SETTING_BYTES; at + EVENT_BYTES <= size;
	     at += EVENT_BYTES) {
		struct ev e;

		ev_from_bytes(&m, data + at, &e);
		push(&m, &e);
		if (++n % m.flush_every == 0 || (data[at + 2] & 0x40))
			flush(&m, m.max_ts > m.slack ? m.max_ts - m.slack : 0);
	}
	flush(&m, UINT64_MAX);
	check(fault_stream_finish(&m.fs, UINT64_MAX) == 0);
	check_end(&m);
	fault_stream_release(&m.fs);
	order_queue_release(&m.q);
	return 0;
}
