#include "hist.h"

uint64_t hist_quantile_hi(const struct log2_hist *h, double q)
{
	uint64_t want, seen = 0;

	if (!h->total)
		return 0;
	want = (uint64_t)(q * (double)h->total + 0.5);
	if (want == 0)
		want = 1;
	for (unsigned b = 0; b < HIST_BUCKETS; b++) {
		seen += h->count[b];
		if (seen >= want)
			return hist_bucket_hi(b);
	}
	return hist_bucket_hi(HIST_BUCKETS - 1);
}
