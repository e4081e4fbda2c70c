#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "../common/array.h"
#include "clock_map.h"

void clock_map_init(struct clock_map *m)
{
	memset(m, 0, sizeof(*m));
}

void clock_map_release(struct clock_map *m)
{
	free(m->v);
	free(m->seg_off);
	clock_map_init(m);
}

int64_t clock_anchor_offset(const struct clock_anchor *a)
{
	return (int64_t)(a->realtime_ns - a->mono_ns);
}

/* Does a measure the offset of the segment begun by first, to within
 * what the two readings can tell apart? */
static int same_segment(const struct clock_anchor *first,
			const struct clock_anchor *a)
{
	int64_t moved = clock_anchor_offset(a) - clock_anchor_offset(first);
	uint64_t dist = (uint64_t)(moved < 0 ? -moved : moved);

	return dist <= first->uncertainty_ns + a->uncertainty_ns + CLOCK_STEP_MIN_NS;
}

int clock_map_add(struct clock_map *m, const struct clock_anchor *a,
		  struct clock_step *step)
{
	size_t i = m->n;

	if (i && a->mono_ns <= m->v[i - 1].mono_ns)
		return -EINVAL;
	if (ARRAY_RESERVE(m->v, m->cap, i + 1) < 0 ||
	    ARRAY_RESERVE(m->seg_off, m->seg_cap, i + 1) < 0)
		return -ENOMEM;
	m->v[i] = *a;
	m->n++;
	if (i && same_segment(&m->v[m->seg_first], a)) {
		m->seg_off[i] = m->seg_off[i - 1];
		return 0;
	}
	m->seg_off[i] = clock_anchor_offset(a);
	if (!i)
		return 0;
	step->from_mono_ns = m->v[i - 1].mono_ns;
	step->to_mono_ns = a->mono_ns;
	step->step_ns = m->seg_off[i] - m->seg_off[i - 1];
	m->seg_first = i;
	m->steps++;
	return 1;
}

/* The index of the latest anchor at or before t, or 0 before the first. */
static size_t anchor_at(struct clock_map *m, uint64_t t)
{
	size_t h = m->hint < m->n ? m->hint : 0, lo = 0, hi = m->n;

	/* Rows come in time order, mostly: the hint or the one after it. */
	if (m->v[h].mono_ns <= t && (h + 1 == m->n || m->v[h + 1].mono_ns > t))
		return h;
	if (h + 1 < m->n && m->v[h + 1].mono_ns <= t &&
	    (h + 2 == m->n || m->v[h + 2].mono_ns > t))
		return h + 1;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (m->v[mid].mono_ns <= t)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo ? lo - 1 : 0;
}

uint64_t clock_map_realtime(struct clock_map *m, uint64_t mono_ts)
{
	int64_t rt;

	m->hint = anchor_at(m, mono_ts);
	rt = (int64_t)mono_ts + m->seg_off[m->hint];
	return rt > 0 ? (uint64_t)rt : 0;
}
