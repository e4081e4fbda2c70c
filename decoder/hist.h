/*
 * hist: log2 latency histogram.  Bucket 0 holds 0 ns; bucket b (1..64)
 * holds durations in [2^(b-1), 2^b) ns.  Counting is O(1) and never
 * allocates, so every fault is counted, stored as a row or not.  The
 * longest duration is kept exactly beside the buckets: a bucket bound is
 * up to twice the truth, and the worst fault is the one people ask about.
 */
#ifndef FL_HIST_H
#define FL_HIST_H

#include <stdint.h>

#define HIST_BUCKETS 65

struct log2_hist {
	uint64_t count[HIST_BUCKETS];
	uint64_t total;
	uint64_t max_ns;	/* the longest duration added; 0 when empty */
};

static inline unsigned hist_bucket(uint64_t dur_ns)
{
	return dur_ns ? 64u - (unsigned)__builtin_clzll(dur_ns) : 0u;
}

static inline void hist_add(struct log2_hist *h, uint64_t dur_ns)
{
	h->count[hist_bucket(dur_ns)]++;
	h->total++;
	if (dur_ns > h->max_ns)
		h->max_ns = dur_ns;
}

/* Inclusive lower and exclusive upper bound of bucket b, in ns; the top
 * bucket's upper bound saturates at UINT64_MAX. */
static inline uint64_t hist_bucket_lo(unsigned b)
{
	return b ? 1ull << (b - 1) : 0;
}

static inline uint64_t hist_bucket_hi(unsigned b)
{
	return b >= 64 ? UINT64_MAX : 1ull << b;
}

/* The upper bound of the bucket holding the q-quantile (0 < q <= 1);
 * 0 for an empty histogram. */
uint64_t hist_quantile_hi(const struct log2_hist *h, double q);

#endif
