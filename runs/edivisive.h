/*
 * edivisive: change points in a series by E-Divisive means (Matteson and
 * James, "A Nonparametric Approach for Multiple Change Point Analysis of
 * Multivariate Data", JASA 2014), as MongoDB's performance CI and Apache
 * Otava (formerly Hunter) use it.
 *
 * Divisive binary segmentation with the energy statistic: for a segment
 * X[s, e) and a split tau, A = X[s, tau), B = X[tau, e), m = |A|, n = |B|,
 *
 *   E = 2/(mn) sum |a - b|^alpha - 1/C(m,2) sum_{a<a'} |a - a'|^alpha
 *                                - 1/C(n,2) sum_{b<b'} |b - b'|^alpha
 *   Q = mn/(m+n) E
 *
 * (the right end kappa fixed at the segment's end, as MongoDB's
 * implementation does).  Each round takes the split of largest Q over all
 * current segments, with both sides at least min_size long, and keeps it
 * when a permutation test says it is significant: the values are shuffled
 * within each current segment `permutations` times and the largest Q of
 * the shuffled series found again; p = (1 + shuffles with a Q at least as
 * large) / (1 + permutations).  It stops at the first split whose p is
 * above p_max, or when no segment can be split.
 *
 * The shuffles come from a generator seeded with `seed` (splitmix64): the
 * same series gives the same answer every time.  With 999 permutations
 * the smallest p is 0.001.  Under no change, a series is split with
 * probability about p_max: a noise series gives a false change point one
 * time in twenty at 0.05.  O(permutations * n^2) time per round, O(n)
 * memory.  Pure: no I/O.
 */
#ifndef FL_EDIVISIVE_H
#define FL_EDIVISIVE_H

#include <stddef.h>
#include <stdint.h>

struct edm_params {
	double alpha;		/* exponent of the distance, (0, 2); 1 */
	double p_max;		/* a split is kept at p <= p_max; 0.05 */
	size_t min_size;	/* the fewest values a segment keeps; 3 */
	unsigned permutations;	/* shuffles per test; 999 */
	uint64_t seed;		/* of the shuffles */
};

/* alpha 1, p_max 0.05, min_size 3, 999 permutations, a fixed seed. */
void edm_params_init(struct edm_params *p);

struct edm_change {
	size_t index;	/* the first value after the change */
	double p;	/* the permutation test's p of the split */
	double q;	/* its energy statistic Q */
};

/*
 * The change points of x[0, n), sorted by index, into out (max entries at
 * most; a series of n values has fewer than n / min_size) and their
 * number into *nout.  0, or -ENOMEM, or -EINVAL for parameters out of
 * range.
 */
int edm_find(const double *x, size_t n, const struct edm_params *p,
	     struct edm_change *out, size_t max, size_t *nout);

#endif
