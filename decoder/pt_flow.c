#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../common/array.h"
#include "pt_flow.h"

const char *pt_row_kind_name(enum pt_row_kind k)
{
	static const char *const names[] = {
		[PT_ROW_CALL] = "call", [PT_ROW_RETURN] = "return",
		[PT_ROW_JUMP] = "jump", [PT_ROW_ENABLE] = "enable",
		[PT_ROW_DISABLE] = "disable",
	};

	return (unsigned)k < sizeof(names) / sizeof(names[0]) ? names[k] : "?";
}

const char *pt_gap_reason_name(enum pt_gap_reason r)
{
	static const char *const names[] = {
		[PT_GAP_OVERFLOW] = "overflow", [PT_GAP_TRUNCATED] = "truncated",
		[PT_GAP_PARTIAL] = "partial", [PT_GAP_COLLISION] = "collision",
		[PT_GAP_SNAPSHOT] = "snapshot", [PT_GAP_OVERWRITTEN] = "overwritten",
		[PT_GAP_NO_SYNC] = "no-sync", [PT_GAP_NOMAP] = "nomap",
		[PT_GAP_DECODE] = "decode", [PT_GAP_LOST] = "lost",
	};

	return (unsigned)r < sizeof(names) / sizeof(names[0]) ? names[r] : "?";
}

void pt_flow_out_init(struct pt_flow_out *o)
{
	memset(o, 0, sizeof(*o));
}

void pt_flow_out_reset(struct pt_flow_out *o)
{
	o->nrows = 0;
	o->ngaps = 0;
}

void pt_flow_out_release(struct pt_flow_out *o)
{
	free(o->rows);
	free(o->gaps);
	pt_flow_out_init(o);
}

/* One decode's state. */
struct flow {
	const struct pt_flow_config *cfg;
	struct pt_space *space;
	struct pt_block_decoder *dec;
	struct pt_flow_out *out;
	size_t first_row;	/* this decode's rows start here */
	int32_t depth;
	/* A call, return or jump whose target is the next block's start. */
	int pending;
	struct pt_row next;
	/* The last TSC converted, and its result: blocks share timestamps. */
	uint64_t last_tsc, last_mono;
	int last_ok;
	int oom;		/* an append failed: stop, -ENOMEM */
	int err;		/* flush failed: stop with it */
	int32_t min;		/* the shallowest depth so far */
};

/* The decoder's current time, on CLOCK_MONOTONIC. */
static void stamp(struct flow *f, uint64_t *mono, uint8_t *has)
{
	uint32_t lost_mtc, lost_cyc;
	uint64_t t;

	*has = 0;
	if (pt_blk_time(f->dec, &t, &lost_mtc, &lost_cyc) < 0 || !f->cfg->clock)
		return;
	if (t != f->last_tsc || !f->last_ok) {
		f->last_tsc = t;
		f->last_ok = pt_clock_tsc_to_mono(f->cfg->clock, t, &f->last_mono) == 0;
	}
	if (f->last_ok) {
		*mono = f->last_mono;
		*has = 1;
	}
}

/* Hands the rows so far on, when out asks for it and they are many. */
static int maybe_flush(struct flow *f)
{
	struct pt_flow_out *o = f->out;
	int err;

	if (!o->flush || !o->flush_rows || o->nrows < o->flush_rows)
		return 0;
	o->st.rows += o->nrows - f->first_row;
	o->st.gaps += o->ngaps;
	err = o->flush(o->flush_ctx, o);
	o->nrows = o->ngaps = 0;
	f->first_row = 0;
	o->flushed = 1;
	if (err < 0)
		f->err = err;
	return err;
}

static int push_row(struct flow *f, const struct pt_row *r)
{
	struct pt_flow_out *o = f->out;

	if (ARRAY_RESERVE(o->rows, o->caprows, o->nrows + 1) < 0) {
		f->oom = 1;
		return -ENOMEM;
	}
	o->rows[o->nrows++] = *r;
	if (r->depth < f->min)
		f->min = r->depth;
	return maybe_flush(f);
}

/* A row now, of kind, with depth the depth after it. */
static int add_row(struct flow *f, enum pt_row_kind kind, uint64_t from,
		   uint64_t to)
{
	struct pt_row r;

	memset(&r, 0, sizeof(r));
	stamp(f, &r.mono_ns, &r.has_time);
	r.kind = (uint8_t)kind;
	r.from = from;
	r.to = to;
	r.depth = f->depth;
	return push_row(f, &r);
}

/* The pending branch lands at `to` (0: unknown: tracing stopped first). */
static int land(struct flow *f, uint64_t to)
{
	if (!f->pending)
		return 0;
	f->pending = 0;
	f->next.to = to;
	return push_row(f, &f->next);
}

static int add_gap(struct flow *f, enum pt_gap_reason reason, uint64_t ip,
		   const char *fmt, ...) __attribute__((format(printf, 4, 5)));

static int add_gap(struct flow *f, enum pt_gap_reason reason, uint64_t ip,
		   const char *fmt, ...)
{
	struct pt_flow_out *o = f->out;
	struct pt_gap *g;
	uint8_t has = 0;
	va_list ap;

	if (ARRAY_RESERVE(o->gaps, o->capgaps, o->ngaps + 1) < 0) {
		f->oom = 1;
		return -ENOMEM;
	}
	g = &o->gaps[o->ngaps++];
	memset(g, 0, sizeof(*g));
	stamp(f, &g->mono_ns, &has);
	g->has_time = has;
	g->reason = (uint8_t)reason;
	g->ip = ip;
	pt_blk_get_offset(f->dec, &g->offset);
	va_start(ap, fmt);
	vsnprintf(g->message, sizeof(g->message), fmt, ap);
	va_end(ap);
	return 0;
}

/* A block's last instruction: enter or leave a function, or jump. */
static int end_block(struct flow *f, const struct pt_block *b)
{
	enum pt_row_kind kind;

	switch (b->iclass) {
	case ptic_call:
		kind = PT_ROW_CALL;
		f->depth++;
		break;
	case ptic_return:
		kind = PT_ROW_RETURN;
		f->depth--;
		break;
	/* ptic_error, an indirect jump, is left out: libipt 2.0 ends a
	 * block there only once its block cache knows the code, so such a
	 * row would come and go between two decodes of the same trace.  The
	 * function a jump reaches shows in the rows after it. */
	case ptic_far_call:
	case ptic_far_return:
	case ptic_far_jump:
		kind = PT_ROW_JUMP;
		break;
	default:
		return 0;
	}
	memset(&f->next, 0, sizeof(f->next));
	stamp(f, &f->next.mono_ns, &f->next.has_time);
	f->next.kind = (uint8_t)kind;
	f->next.from = b->end_ip;
	f->next.depth = f->depth;
	f->pending = 1;
	return 0;
}

static int on_event(struct flow *f, const struct pt_event *ev)
{
	int err = 0;

	switch (ev->type) {
	case ptev_enabled:
		err = land(f, ev->variant.enabled.ip);
		if (err == 0)
			err = add_row(f, PT_ROW_ENABLE, 0, ev->variant.enabled.ip);
		break;
	/* Tracing stopped before a block ran: a branch pending lands where
	 * it stopped (nothing ran in between). */
	case ptev_disabled:
		err = land(f, ev->ip_suppressed ? 0 : ev->variant.disabled.ip);
		if (err == 0)
			err = add_row(f, PT_ROW_DISABLE, ev->ip_suppressed ? 0 :
				      ev->variant.disabled.ip, 0);
		break;
	case ptev_async_disabled:
		err = land(f, ev->variant.async_disabled.at);
		if (err == 0)
			err = add_row(f, PT_ROW_DISABLE, ev->variant.async_disabled.at, 0);
		break;
	case ptev_overflow:
		err = land(f, 0);
		if (err == 0)
			err = add_gap(f, PT_GAP_OVERFLOW, ev->ip_suppressed ? 0 :
				      ev->variant.overflow.ip, "the CPU dropped trace "
				      "(OVF packet): its internal buffer overflowed; "
				      "the flow resumes at the next address");
		break;
	default:
		break;
	}
	return err;
}

/* Handles the pending events; returns libipt's status (f->oom says
 * whether an append failed). */
static int drain_events(struct flow *f, int status)
{
	while (status >= 0 && (status & pts_event_pending) && !f->oom && !f->err) {
		struct pt_event ev;

		status = pt_blk_event(f->dec, &ev, sizeof(ev));
		if (status >= 0)
			on_event(f, &ev);
	}
	return status;
}

/* A decode error after block b: a gap, with what the image says. */
static int decode_gap(struct flow *f, int status, const struct pt_block *b)
{
	enum pt_error_code code = pt_errcode(status);
	uint64_t ip = b->ninsn ? b->end_ip : b->ip;
	const struct pt_missing *m;

	if (land(f, 0) < 0)
		return -ENOMEM;
	if (code != pte_nomap)
		return add_gap(f, PT_GAP_DECODE, ip, "libipt: %s", pt_errstr(code));
	m = pt_space_missing(f->space, ip);
	if (m)
		return add_gap(f, PT_GAP_NOMAP, ip, "no code at 0x%llx: '%s' could "
			       "not be read (libipt: %s)", (unsigned long long)ip,
			       m->path, pt_errstr((enum pt_error_code)m->err));
	return add_gap(f, PT_GAP_NOMAP, ip, "no code at 0x%llx: no file mapping "
		       "holds it (anonymous memory such as a JIT's, or a mapping "
		       "not seen)", (unsigned long long)ip);
}

/* Blocks from one synchronization point until an error or the end
 * of the trace; an error becomes a gap.  0 or -ENOMEM. */
static int decode_segment(struct flow *f, int status)
{
	struct pt_block b;

	memset(&b, 0, sizeof(b));
	for (;;) {
		status = drain_events(f, status);
		if (f->oom || f->err)
			return f->oom ? -ENOMEM : f->err;
		if (status < 0) {
			memset(&b, 0, sizeof(b));
			break;
		}
		status = pt_blk_next(f->dec, &b, sizeof(b));
		if (b.ninsn) {
			f->out->st.blocks++;
			f->out->st.insns += b.ninsn;
			land(f, b.ip);
			end_block(f, &b);
		}
		if (status < 0)
			break;
	}
	if (f->oom || f->err)
		return f->oom ? -ENOMEM : f->err;
	if (status == -pte_eos)
		land(f, 0);
	else
		decode_gap(f, status, &b);
	return f->oom ? -ENOMEM : f->err;
}

/* Depths from the shallowest point of this decode, unless rows were
 * handed on already (then min_depth says what to add back). */
static void normalize(struct flow *f)
{
	struct pt_flow_out *o = f->out;

	o->min_depth = f->min;
	if (o->flushed)
		return;
	for (size_t i = f->first_row; i < o->nrows; i++)
		o->rows[i].depth -= f->min;
}

static void config_for(const struct pt_flow_config *cfg, const uint8_t *buf,
		       size_t len, struct pt_config *c)
{
	pt_config_init(c);
	c->begin = (uint8_t *)buf;	/* libipt reads it only */
	c->end = (uint8_t *)buf + len;
	c->cpu = cfg->cpu;
	if (cfg->cpu.vendor != pcv_unknown)
		pt_cpu_errata(&c->errata, &cfg->cpu);
	c->cpuid_0x15_eax = cfg->cpuid_0x15_eax;
	c->cpuid_0x15_ebx = cfg->cpuid_0x15_ebx;
	c->mtc_freq = cfg->mtc_freq;
	c->nom_freq = cfg->nom_freq;
	c->flags.variant.block.end_on_call = 1;
}

int pt_flow_decode(const struct pt_flow_config *cfg, struct pt_space *space,
		   const uint8_t *buf, size_t len, struct pt_flow_out *out)
{
	struct flow f;
	size_t gaps_before = out->ngaps;
	struct pt_config c;
	uint64_t sync_off;
	int status, err = 0, synced = 0;

	memset(&f, 0, sizeof(f));
	f.cfg = cfg;
	f.space = space;
	f.out = out;
	f.first_row = out->nrows;
	out->flushed = 0;
	out->min_depth = 0;
	out->st.bytes += len;
	if (!len)
		return 0;
	config_for(cfg, buf, len, &c);
	f.dec = pt_blk_alloc_decoder(&c);
	if (!f.dec)
		return -ENOMEM;
	pt_blk_set_image(f.dec, space->image);
	while (err == 0) {
		status = pt_blk_sync_forward(f.dec);
		if (status < 0)
			break;
		if (!synced && pt_blk_get_sync_offset(f.dec, &sync_off) == 0)
			out->st.bytes_unsynced += sync_off;
		synced = 1;
		err = decode_segment(&f, status);
	}
	if (err == 0 && !synced)
		err = add_gap(&f, PT_GAP_NO_SYNC, 0, "no PSB packet in these %zu "
			      "bytes of trace: decoding starts only at one; a "
			      "snapshot smaller than the PSB period (--pt-config "
			      "psb_period) holds none", len);
	if (err == 0 && !synced)
		out->st.bytes_unsynced += len;
	normalize(&f);
	out->st.rows += out->nrows - f.first_row;
	out->st.gaps += out->ngaps - (out->flushed ? 0 : gaps_before);
	pt_blk_free_decoder(f.dec);
	return err;
}
