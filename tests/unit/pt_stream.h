/*
 * pt_stream: Intel PT trace built packet by packet with libipt's own
 * encoder (pt_alloc_encoder / pt_enc_next, the encoder libipt's pttc test
 * tool builds its test streams with), for the tests, the fuzz seeds and
 * the decode benchmark.  The bytes are real PT: what a CPU would write
 * for the flow the caller describes.
 *
 * IPs are given in full; the stream compresses them as the CPU would:
 * the first IP after a PSB as a sign-extended 48-bit payload, later ones
 * as updates of the last IP's low 16, 32 or 48 bits.  An encoder error
 * (the buffer is full) sets `failed`; later calls do nothing.
 */
#ifndef FL_TEST_PT_STREAM_H
#define FL_TEST_PT_STREAM_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <intel-pt.h>

struct pt_stream {
	uint8_t *buf;		/* owned, cap bytes */
	size_t cap;
	struct pt_encoder *enc;	/* owned */
	uint64_t last_ip;
	int have_last_ip;
	int failed;
};

static inline int ps_init(struct pt_stream *s, size_t cap)
{
	struct pt_config c;

	memset(s, 0, sizeof(*s));
	s->buf = calloc(1, cap);
	if (!s->buf)
		return -1;
	s->cap = cap;
	pt_config_init(&c);
	c.begin = s->buf;
	c.end = s->buf + cap;
	s->enc = pt_alloc_encoder(&c);
	return s->enc ? 0 : -1;
}

static inline void ps_release(struct pt_stream *s)
{
	if (s->enc)
		pt_free_encoder(s->enc);
	free(s->buf);
	memset(s, 0, sizeof(*s));
}

/* Bytes written so far. */
static inline size_t ps_len(const struct pt_stream *s)
{
	uint64_t off = 0;

	pt_enc_get_offset(s->enc, &off);
	return (size_t)off;
}

static inline void ps_put(struct pt_stream *s, struct pt_packet *p)
{
	if (!s->failed && pt_enc_next(s->enc, p) < 0)
		s->failed = 1;
}

static inline void ps_simple(struct pt_stream *s, enum pt_packet_type type)
{
	struct pt_packet p;

	memset(&p, 0, sizeof(p));
	p.type = type;
	ps_put(s, &p);
}

/* The shortest compression of ip against the last IP. */
static inline void ps_ip_packet(struct pt_stream *s, enum pt_packet_type type,
				uint64_t ip)
{
	struct pt_packet p;

	memset(&p, 0, sizeof(p));
	p.type = type;
	p.payload.ip.ip = ip;
	if (!s->have_last_ip)
		p.payload.ip.ipc = pt_ipc_sext_48;
	else if ((ip >> 16) == (s->last_ip >> 16))
		p.payload.ip.ipc = pt_ipc_update_16;
	else if ((ip >> 32) == (s->last_ip >> 32))
		p.payload.ip.ipc = pt_ipc_update_32;
	else
		p.payload.ip.ipc = pt_ipc_sext_48;
	if (p.payload.ip.ipc == pt_ipc_update_16)
		p.payload.ip.ip = ip & 0xffff;
	else if (p.payload.ip.ipc == pt_ipc_update_32)
		p.payload.ip.ip = ip & 0xffffffff;
	else
		p.payload.ip.ip = ip & 0xffffffffffffull;
	s->last_ip = ip;
	s->have_last_ip = 1;
	ps_put(s, &p);
}

static inline void ps_tsc(struct pt_stream *s, uint64_t tsc)
{
	struct pt_packet p;

	memset(&p, 0, sizeof(p));
	p.type = ppt_tsc;
	p.payload.tsc.tsc = tsc;
	ps_put(s, &p);
}

static inline void ps_cbr(struct pt_stream *s, uint8_t ratio)
{
	struct pt_packet p;

	memset(&p, 0, sizeof(p));
	p.type = ppt_cbr;
	p.payload.cbr.ratio = ratio;
	ps_put(s, &p);
}

static inline void ps_mtc(struct pt_stream *s, uint8_t ctc)
{
	struct pt_packet p;

	memset(&p, 0, sizeof(p));
	p.type = ppt_mtc;
	p.payload.mtc.ctc = ctc;
	ps_put(s, &p);
}

static inline void ps_mode_exec64(struct pt_stream *s)
{
	struct pt_packet p;

	memset(&p, 0, sizeof(p));
	p.type = ppt_mode;
	p.payload.mode.leaf = pt_mol_exec;
	p.payload.mode.bits.exec = pt_set_exec_mode(ptem_64bit);
	ps_put(s, &p);
}

/*
 * PSB+: PSB, TSC, CBR, MODE.exec, then FUP(ip) when tracing is on at
 * this point (ip != 0: the next instruction to run), PSBEND.  The last
 * IP starts over at a PSB.
 */
static inline void ps_psb(struct pt_stream *s, uint64_t tsc, uint64_t ip)
{
	ps_simple(s, ppt_psb);
	s->have_last_ip = 0;
	ps_tsc(s, tsc);
	ps_cbr(s, 36);
	ps_mode_exec64(s);
	if (ip)
		ps_ip_packet(s, ppt_fup, ip);
	ps_simple(s, ppt_psbend);
}

/* Tracing starts at ip (TIP.PGE), MODE.exec before it as the CPU sends. */
static inline void ps_pge(struct pt_stream *s, uint64_t ip)
{
	ps_mode_exec64(s);
	ps_ip_packet(s, ppt_tip_pge, ip);
}

/* Tracing stops (TIP.PGD); ip 0: suppressed (it stops at the next
 * branch), else the address it stopped at (an async stop: interrupt,
 * fault, switch-out). */
static inline void ps_pgd(struct pt_stream *s, uint64_t ip)
{
	struct pt_packet p;

	if (ip) {
		ps_ip_packet(s, ppt_tip_pgd, ip);
		return;
	}
	memset(&p, 0, sizeof(p));
	p.type = ppt_tip_pgd;
	p.payload.ip.ipc = pt_ipc_suppressed;
	ps_put(s, &p);
}

/* An async event at ip (FUP), e.g. before a TIP.PGD of a fault. */
static inline void ps_fup(struct pt_stream *s, uint64_t ip)
{
	ps_ip_packet(s, ppt_fup, ip);
}

/* An indirect branch (or uncompressed return) to ip. */
static inline void ps_tip(struct pt_stream *s, uint64_t ip)
{
	ps_ip_packet(s, ppt_tip, ip);
}

/* n (1..6) conditional branches, the first in the highest bit of bits:
 * 1 taken. */
static inline void ps_tnt(struct pt_stream *s, uint64_t bits, unsigned n)
{
	struct pt_packet p;

	memset(&p, 0, sizeof(p));
	p.type = ppt_tnt_8;
	p.payload.tnt.bit_size = (uint8_t)n;
	p.payload.tnt.payload = bits;
	ps_put(s, &p);
}

static inline void ps_ovf(struct pt_stream *s)
{
	ps_simple(s, ppt_ovf);
	s->have_last_ip = 0;
}

static inline void ps_pad(struct pt_stream *s)
{
	ps_simple(s, ppt_pad);
}

#endif
