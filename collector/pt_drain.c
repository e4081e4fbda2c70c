/*
 * pt_drain: a drain round of the PT buffers.  Each buffer's data ring
 * holds, in perf time:
 *
 *   PERF_RECORD_AUX        trace written to the AUX area (aux_offset,
 *                          aux_size, flags) by the event its trailer
 *                          names: full mode copies that range out;
 *                          stall mode keeps the offset as a mark (in
 *                          overwrite mode it is the head offset where the
 *                          event stopped); its loss flags become gaps
 *   PERF_RECORD_SWITCH(_CPU_WIDE)  a thread leaving or entering a CPU:
 *                          stall mode's off-CPU spans
 *   PERF_RECORD_ITRACE_START, LOST  who traced; records the kernel dropped
 *   PERF_RECORD_SAMPLE     fault mode only: a carrier's major-fault
 *                          completion with the last --pt-size bytes of
 *                          trace; the trace is stored, the sample goes on
 *                          to the engine's sink on CLOCK_MONOTONIC
 */
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/signalfd.h>
#include <unistd.h>

#include "../common/array.h"
#include "../common/clock.h"
#include "../decoder/pt_sideband.h"
#include "../decoder/sample_owner.h"
#include "../decoder/pt_trace.h"
#include "procfs.h"
#include "pt_record.h"
#include "recorder.h"

struct round {
	struct pt_recording *pr;
	const struct recorder *r;
	const struct pt_sink *sink;
	struct pt_buffer *b;
	struct errmsg *e;
	uint64_t release;	/* full mode: aux_tail after this ring */
};

/* The format of a PT ring's records: a carrier's samples (the fault
 * format, with the stack when --stacks gives its samples one, and AUX);
 * the trailer every record shares. */
static struct sample_fmt ring_fmt(const struct recorder *r, uint16_t stacked)
{
	struct sample_fmt f = stacked ? r->ev.stack_fmt : r->ev.fmt;

	f.sample_type |= PERF_SAMPLE_AUX;
	return f;
}

static int to_mono(const struct pt_recording *pr, uint64_t perf_ns,
		   uint64_t *mono)
{
	return pt_clock_perf_to_mono(&pr->clock, perf_ns, mono) == 0;
}

static int store_trace(struct round *d, const struct pt_trace *t)
{
	const struct pt_rows *rows = d->pr->rows;

	if (!rows)
		return 0;
	d->pr->st.traces++;
	d->pr->st.bytes += t->len;
	return rows->trace(rows->ctx, t, d->e);
}

static int store_gap(struct round *d, int64_t tid, const struct pt_gap *g)
{
	const struct pt_rows *rows = d->pr->rows;

	if (!rows)
		return 0;
	return rows->gap(rows->ctx, tid, d->b ? d->b->cpu : -1, g, d->e);
}

/* Offset of the TIME field in a record of fmt f: in a sample after
 * IDENTIFIER, IP, TID; in the trailer of others after TID. */
static size_t time_offset(const struct sample_fmt *f, const struct perf_rec *r)
{
	uint64_t t = f->sample_type;

	if (r->type == PERF_RECORD_SAMPLE)
		return 8 + 8 * (!!(t & PERF_SAMPLE_IDENTIFIER) + !!(t & PERF_SAMPLE_IP) +
				!!(t & PERF_SAMPLE_TID));
	return r->size - sample_id_size(f) + 8 * !!(t & PERF_SAMPLE_TID);
}

/* Hands rec (len bytes, of which the first keep go on) to the sink with
 * its time on CLOCK_MONOTONIC. */
static int forward(struct round *d, const struct sample_fmt *f,
		   const struct perf_rec *r, const void *rec, size_t keep)
{
	struct pt_recording *pr = d->pr;
	size_t at = time_offset(f, r);
	uint64_t mono;
	uint16_t size = (uint16_t)keep;

	if (!(f->sample_type & PERF_SAMPLE_TIME) || at + 8 > keep ||
	    keep > pr->scratch_cap || !to_mono(pr, r->sid.time, &mono))
		return 0;	/* no clock yet: counted below as lost */
	memcpy(pr->scratch, rec, keep);
	memcpy(pr->scratch + 6, &size, 2);
	memcpy(pr->scratch + at, &mono, 8);
	return d->sink->record(d->sink->ctx, d->b->cpu, pr->scratch, keep);
}

/* A carrier's sample: its trace stored, the sample without it sent on. */
static int on_sample(struct round *d, const void *rec, size_t len)
{
	uint64_t mono = 0;
	uint16_t stacked = 0;
	struct sample_owner o;
	struct sample_fmt f = ring_fmt(d->r, 0);
	struct perf_rec r;
	struct pt_trace t;
	int err;

	/* The READ id sits before the stack and AUX fields: any format of
	 * the ring finds it. */
	sample_owner_of(&d->pr->carriers, &f, rec, len, &o);
	if (o.role == ROLE_NONE)
		return 0;
	idmap_lookup(&d->r->ev.ids, o.id, &stacked);
	f = ring_fmt(d->r, stacked);
	if (perf_rec_decode(&f, rec, len, &r) < 0)
		return 0;	/* the pipeline would count it; it never sees it */
	memset(&t, 0, sizeof(t));
	t.pid = r.sid.pid;
	t.tid = r.sid.tid;
	t.cpu = d->b->cpu;
	t.trigger = PT_TRIG_FAULT;
	to_mono(d->pr, r.sid.time, &mono);
	t.trigger_mono_ns = mono;
	t.bytes = r.u.sample.aux;
	t.len = (size_t)r.u.sample.aux_size;
	err = store_trace(d, &t);
	if (err == 0)
		err = forward(d, &f, &r, rec, r.u.sample.aux ?
			      (size_t)((const uint8_t *)r.u.sample.aux - 8 -
				       (const uint8_t *)rec) : len);
	return err;
}

/* ---- stall mode ------------------------------------------------------ */

static struct pt_out *out_slot(struct pt_recording *pr, uint32_t tid)
{
	size_t i;

	if (!pr->outs) {
		pr->capouts = 4096;
		pr->outs = calloc(pr->capouts, sizeof(*pr->outs));
		if (!pr->outs)
			return NULL;
	}
	/* Fixed size, overwritten on collision: a thread whose slot was
	 * taken loses one span, not the recording. */
	i = (tid * 0x9E3779B1u) & (pr->capouts - 1);
	if (pr->outs[i].tid != tid)
		memset(&pr->outs[i], 0, sizeof(pr->outs[i]));
	pr->outs[i].tid = tid;
	return &pr->outs[i];
}

/* Bytes the kernel wrote into b's overwrite area since it stood at
 * offset mark: each later mark's distance from the one before, then the
 * head's, modulo the area (a run that wrote more than the area between
 * two stops is counted short).  UINT64_MAX when the mark is no longer
 * among the kept ones: too much has happened since to trust it. */
static uint64_t written_since(const struct pt_buffer *b, uint64_t mark,
			      uint64_t head)
{
	uint64_t mask = b->aux.size - 1, sum = 0, prev = mark;
	size_t kept = b->nmarks < PT_MARKS ? b->nmarks : PT_MARKS;
	size_t first = b->nmarks - kept, i = b->nmarks;

	while (i > first && b->marks[(i - 1) % PT_MARKS].offset != mark)
		i--;
	if (i == first)
		return UINT64_MAX;
	for (; i < b->nmarks; i++) {
		uint64_t off = b->marks[i % PT_MARKS].offset;

		sum += (off - prev) & mask;
		prev = off;
	}
	return sum + ((head - prev) & mask);
}

/*
 * Stops every PT event writing into b, copies --pt-size bytes of it that
 * end at `end` (the stall's mark; the head when has_end is 0, or when
 * the mark was overwritten since), starts them again, and stores the
 * trace and the pause it made as a gap.
 */
static int snapshot(struct round *d, struct pt_buffer *b, struct pt_trace *t,
		    int has_end, uint64_t end)
{
	struct pt_recording *pr = d->pr;
	uint64_t t0 = monotonic_ns(), head, want = pr->set.size;
	struct pt_gap g;
	int err, overwritten = 0;

	if (ARRAY_RESERVE(pr->tbuf, pr->tcap, want) < 0)
		return -ENOMEM;
	for (size_t i = 0; i < b->nfds; i++)
		ioctl(b->fds[i], PERF_EVENT_IOC_DISABLE, 0);
	head = pt_aux_head(&b->aux);
	if (has_end && (written_since(b, end, head) > b->aux.size - want))
		overwritten = 1;
	t->len = pt_aux_snapshot(&b->aux, has_end && !overwritten ? end : head,
				 (size_t)want, pr->tbuf);
	for (size_t i = 0; i < b->nfds; i++)
		ioctl(b->fds[i], PERF_EVENT_IOC_ENABLE, 0);
	t->bytes = pr->tbuf;
	t->cpu = b->cpu;
	pr->st.snapshots++;
	d->b = b;
	err = store_trace(d, t);
	pt_snapshot_gap(t0, monotonic_ns() - t0, &g);
	if (err == 0)
		err = store_gap(d, t->tid, &g);
	if (err == 0 && overwritten) {
		pr->st.overwritten++;
		memset(&g, 0, sizeof(g));
		g.reason = PT_GAP_OVERWRITTEN;
		g.mono_ns = t->trigger_mono_ns;
		g.has_time = 1;
		snprintf(g.message, sizeof(g.message), "the trace that led into "
			 "this stall was overwritten before it could be copied; "
			 "the snapshot holds what ran since; a larger --pt-size "
			 "keeps more");
		err = store_gap(d, t->tid, &g);
	}
	return err;
}

/* Off-CPU spans: a thread's switch-out is remembered, its switch-in
 * measures the span. */
static int on_switch(struct round *d, const struct perf_rec *r)
{
	struct pt_recording *pr = d->pr;
	struct pt_out *o = out_slot(pr, r->sid.tid);
	uint64_t out_mono, in_mono, out_perf;
	int out_buf, here = (int)(d->b - pr->bufs);
	struct pt_trace t;
	char comm[16];

	if (!o)
		return -ENOMEM;
	d->b->last_pid = r->sid.pid;
	d->b->last_tid = r->sid.tid;
	if (r->u.sw.out) {
		o->pid = r->sid.pid;
		o->perf_ns = r->sid.time;
		o->buffer = here;
		o->has_mark = 0;
		return 0;
	}
	/* In: the span since the out, and where the thread runs now (for a
	 * slow fault that never leaves the CPU, pt_record_stall). */
	out_perf = o->perf_ns;
	out_buf = o->buffer;
	o->perf_ns = 0;
	o->buffer = here;
	o->pid = r->sid.pid;
	if (!out_perf || !to_mono(pr, out_perf, &out_mono) ||
	    !to_mono(pr, r->sid.time, &in_mono) || in_mono < out_mono ||
	    in_mono - out_mono < pr->set.trigger_ns || out_buf < 0)
		return 0;
	/* Every thread's spans with -a: only SIGUSR2 and slow faults then. */
	if (!d->r->cfg.targets->ncomms && target_system_wide(d->r->cfg.targets))
		return 0;
	if (proc_read_comm((pid_t)o->pid, (pid_t)o->tid, comm) < 0)
		comm[0] = '\0';
	if (!target_wanted(d->r->cfg.targets, (pid_t)o->pid, (pid_t)o->tid, comm))
		return 0;
	memset(&t, 0, sizeof(t));
	t.pid = o->pid;
	t.tid = o->tid;
	t.trigger = PT_TRIG_OFF_CPU;
	t.trigger_mono_ns = out_mono;
	t.trigger_dur_ns = in_mono - out_mono;
	return snapshot(d, &pr->bufs[out_buf], &t, o->has_mark, o->mark);
}

static void add_mark(struct pt_buffer *b, const struct perf_rec *r)
{
	struct pt_mark *m = &b->marks[b->nmarks++ % PT_MARKS];

	m->perf_ns = r->sid.time;
	m->offset = r->u.aux.aux_offset;
	m->tid = r->sid.tid;
}

/* ---- AUX records ----------------------------------------------------- */

static int full_trace(struct round *d, const struct perf_rec *r, uint64_t mono,
		      int has_time)
{
	struct pt_recording *pr = d->pr;
	uint64_t off = r->u.aux.aux_offset, size = r->u.aux.aux_size;
	struct pt_trace t;
	struct pt_gap g;

	if (!size)
		return 0;
	if (ARRAY_RESERVE(pr->tbuf, pr->tcap, size) < 0)
		return -ENOMEM;
	if (off + size > d->release)
		d->release = off + size;
	if (pt_aux_take(&d->b->aux, off, size, pr->tbuf) < 0) {
		memset(&g, 0, sizeof(g));
		g.reason = PT_GAP_LOST;
		g.mono_ns = mono;
		g.has_time = has_time;
		g.offset = off;
		snprintf(g.message, sizeof(g.message), "%llu bytes of trace at AUX "
			 "offset %llu were no longer in the area when read",
			 (unsigned long long)size, (unsigned long long)off);
		return store_gap(d, r->sid.tid, &g);
	}
	memset(&t, 0, sizeof(t));
	t.pid = r->sid.pid;
	t.tid = r->sid.tid;
	t.cpu = d->b->cpu;
	t.trigger = PT_TRIG_FULL;
	t.trigger_mono_ns = mono;
	t.bytes = pr->tbuf;
	t.len = (size_t)size;
	return store_trace(d, &t);
}

static int on_aux(struct round *d, const struct perf_rec *r)
{
	struct pt_gap gaps[PT_AUX_GAPS_MAX];
	uint64_t mono = 0;
	int has_time = to_mono(d->pr, r->sid.time, &mono), err = 0;
	size_t n = pt_aux_gaps(&r->u.aux, mono, has_time, gaps);

	for (size_t i = 0; i < n && err == 0; i++) {
		d->pr->st.aux_gaps++;
		err = store_gap(d, r->sid.tid, &gaps[i]);
	}
	if (err == 0 && d->pr->set.mode == PT_MODE_FULL)
		err = full_trace(d, r, mono, has_time);
	if (err == 0 && d->pr->set.mode == PT_MODE_STALL) {
		struct pt_out *o = out_slot(d->pr, r->sid.tid);

		add_mark(d->b, r);
		/* The stop right after a switch-out ends the thread's run. */
		if (o && o->perf_ns && !o->has_mark) {
			o->mark = r->u.aux.aux_offset;
			o->has_mark = 1;
		}
	}
	return err;
}

/* ---- the ring -------------------------------------------------------- */

static int on_record(void *ctx, const void *rec, size_t len)
{
	struct round *d = ctx;
	const struct perf_event_header *h = rec;
	struct sample_fmt f = ring_fmt(d->r, 0);
	struct perf_rec r;

	if (h->type == PERF_RECORD_SAMPLE)
		return on_sample(d, rec, len);
	if (perf_rec_decode(&f, rec, len, &r) < 0)
		return 0;
	switch (r.type) {
	case PERF_RECORD_AUX:
		return on_aux(d, &r);
	case PERF_RECORD_SWITCH:
	case PERF_RECORD_SWITCH_CPU_WIDE:
		return d->pr->set.mode == PT_MODE_STALL ? on_switch(d, &r) : 0;
	case PERF_RECORD_ITRACE_START:
		d->b->last_pid = r.u.itrace.pid;
		d->b->last_tid = r.u.itrace.tid;
		return 0;
	case PERF_RECORD_LOST:
	case PERF_RECORD_LOST_SAMPLES:
		d->pr->st.lost += r.u.lost.lost;
		return forward(d, &f, &r, rec, len);
	}
	return 0;
}

/* SIGUSR2: a snapshot of every buffer, as it stands. */
static int on_signal(struct round *d)
{
	struct signalfd_siginfo si;
	struct pt_trace t;
	int err = 0;

	if (d->pr->sigfd < 0 ||
	    read(d->pr->sigfd, &si, sizeof(si)) != (ssize_t)sizeof(si))
		return 0;
	for (size_t i = 0; i < d->pr->nbufs && err == 0; i++) {
		struct pt_buffer *b = &d->pr->bufs[i];

		memset(&t, 0, sizeof(t));
		t.pid = b->last_pid;
		t.tid = b->last_tid;
		t.trigger = PT_TRIG_SIGNAL;
		t.trigger_mono_ns = monotonic_ns();
		err = snapshot(d, b, &t, 0, 0);
	}
	return err;
}

/* An anchor for pt_store's ts at most this often: the pipeline takes
 * its own at each round, and a trace's ts must match the ts of the fault
 * it was taken at to the microsecond (pt_store_link_faults). */

int pt_record_round(struct pt_recording *pr, const struct recorder *r,
		    const struct pt_sink *sink, struct errmsg *e)
{
	struct round d = { pr, r, sink, NULL, e, 0 };
	int err = pt_record_pair_due(pr, e);

	for (size_t i = 0; i < pr->nbufs && err == 0; i++) {
		long n;

		d.b = &pr->bufs[i];
		d.release = 0;
		n = ring_drain(&d.b->ring, on_record, &d);
		if (n < 0)
			err = (int)n;
		if (d.release)
			pt_aux_release(&d.b->aux, d.release);
	}
	d.b = NULL;
	if (err == 0)
		err = on_signal(&d);
	return err;
}

int pt_record_stall(struct pt_recording *pr, uint32_t pid, uint32_t tid,
		    uint64_t start_mono_ns, uint64_t dur_ns, struct errmsg *e)
{
	struct round d = { pr, NULL, NULL, NULL, e, 0 };
	struct pt_out *o = out_slot(pr, tid);
	struct pt_trace t;
	int idx = o ? o->buffer : -1;

	if (pr->set.mode != PT_MODE_STALL || dur_ns < pr->set.trigger_ns ||
	    idx < 0 || (size_t)idx >= pr->nbufs)
		return 0;
	memset(&t, 0, sizeof(t));
	t.pid = pid;
	t.tid = tid;
	t.trigger = PT_TRIG_SLOW_FAULT;
	t.trigger_mono_ns = start_mono_ns;
	t.trigger_dur_ns = dur_ns;
	return snapshot(&d, &pr->bufs[idx], &t, 0, 0);
}
