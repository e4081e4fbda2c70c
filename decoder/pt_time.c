#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "../common/array.h"
#include "pt_time.h"

/*
 * include/uapi/linux/perf_event.h, struct perf_event_mmap_page:
 *
 *	if (cap_user_time_short)
 *		cyc = time_cycles + ((cyc - time_cycles) & time_mask);
 *	quot = cyc >> time_shift;
 *	rem  = cyc & (((u64)1 << time_shift) - 1);
 *	timestamp = time_zero + quot * time_mult +
 *		    ((rem * time_mult) >> time_shift);
 *
 * Split so that no product overflows 64 bits: rem < 2^shift and the
 * kernel keeps mult * 2^shift within 64 bits.  The sums wrap as the
 * kernel's do (u64 arithmetic).
 */
uint64_t pt_tsc_to_perf_ns(const struct pt_tsc_conv *c, uint64_t tsc)
{
	uint64_t quot, rem;

	if (c->cap_short)
		tsc = c->time_cycles + ((tsc - c->time_cycles) & c->time_mask);
	if (c->time_shift >= 64)
		return c->time_zero;	/* a nonsense page; never a shift UB */
	quot = tsc >> c->time_shift;
	rem = tsc & ((UINT64_C(1) << c->time_shift) - 1);
	return c->time_zero + quot * c->time_mult +
	       ((rem * c->time_mult) >> c->time_shift);
}

struct pt_calib_pair pt_calib_bracket(uint64_t mono_before, uint64_t perf_ns,
				      uint64_t mono_after)
{
	struct pt_calib_pair p;
	uint64_t half = (mono_after - mono_before) / 2;

	p.perf_ns = perf_ns;
	p.mono_ns = mono_before + half;
	/* An odd width leaves the true time up to half + 1 away. */
	p.uncertainty_ns = half + ((mono_after - mono_before) & 1);
	return p;
}

void pt_clock_init(struct pt_clock *c, const struct pt_tsc_conv *tsc)
{
	memset(c, 0, sizeof(*c));
	if (tsc)
		c->tsc = *tsc;
}

void pt_clock_release(struct pt_clock *c)
{
	free(c->pairs);
	pt_clock_init(c, NULL);
}

int pt_clock_add(struct pt_clock *c, const struct pt_calib_pair *p)
{
	size_t i = c->n;

	while (i > 0 && c->pairs[i - 1].perf_ns > p->perf_ns)
		i--;
	/* Both clocks only move forward: a pair whose order disagrees with a
	 * neighbour's has a wrong reading in it. */
	if (i > 0 && (c->pairs[i - 1].mono_ns > p->mono_ns ||
		      c->pairs[i - 1].perf_ns == p->perf_ns))
		return -EINVAL;
	if (i < c->n && c->pairs[i].mono_ns < p->mono_ns)
		return -EINVAL;
	if (ARRAY_RESERVE(c->pairs, c->cap, c->n + 1) < 0)
		return -ENOMEM;
	memmove(c->pairs + i + 1, c->pairs + i, (c->n - i) * sizeof(*p));
	c->pairs[i] = *p;
	c->n++;
	return 0;
}

/* base + offset with offset signed, refusing a result below 0. */
static int add_signed(uint64_t base, int64_t offset, uint64_t *out)
{
	if (offset < 0 && (uint64_t)-(offset + 1) + 1 > base)
		return -ERANGE;
	*out = base + (uint64_t)offset;
	return 0;
}

int pt_clock_perf_to_mono(const struct pt_clock *c, uint64_t perf_ns,
			  uint64_t *mono_ns)
{
	const struct pt_calib_pair *a, *b;
	size_t lo = 0, hi;
	unsigned __int128 span;

	if (!c->n)
		return -ENOENT;
	a = &c->pairs[0];
	if (perf_ns <= a->perf_ns || c->n == 1)
		return add_signed(a->mono_ns, (int64_t)(perf_ns - a->perf_ns), mono_ns);
	b = &c->pairs[c->n - 1];
	if (perf_ns >= b->perf_ns)
		return add_signed(b->mono_ns, (int64_t)(perf_ns - b->perf_ns), mono_ns);
	/* pairs[lo].perf_ns < perf_ns < pairs[hi].perf_ns */
	hi = c->n - 1;
	while (hi - lo > 1) {
		size_t mid = lo + (hi - lo) / 2;

		if (c->pairs[mid].perf_ns <= perf_ns)
			lo = mid;
		else
			hi = mid;
	}
	a = &c->pairs[lo];
	b = &c->pairs[hi];
	/* a->mono + (perf - a->perf) * (b->mono - a->mono) / (b->perf - a->perf),
	 * in 128 bits: both spans may be hours of ns.  pt_clock_add keeps
	 * b->mono >= a->mono. */
	span = (unsigned __int128)(perf_ns - a->perf_ns) * (b->mono_ns - a->mono_ns);
	*mono_ns = a->mono_ns + (uint64_t)(span / (b->perf_ns - a->perf_ns));
	return 0;
}

int pt_clock_tsc_to_mono(const struct pt_clock *c, uint64_t tsc,
			 uint64_t *mono_ns)
{
	return pt_clock_perf_to_mono(c, pt_tsc_to_perf_ns(&c->tsc, tsc), mono_ns);
}
