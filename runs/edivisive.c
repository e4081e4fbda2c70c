#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "edivisive.h"

void edm_params_init(struct edm_params *p)
{
	p->alpha = 1.0;
	p->p_max = 0.05;
	p->min_size = 3;
	p->permutations = 999;
	p->seed = 0x5eed2014u;	/* the paper's year: any fixed value */
}

static uint64_t splitmix64(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

static double dist(double a, double b, double alpha)
{
	double d = fabs(a - b);

	return alpha == 1.0 ? d : pow(d, alpha);
}

/* sum over i < k of d(v[i], v[k]), i and k in [lo, hi) */
static double within(const double *v, size_t lo, size_t hi, double alpha)
{
	double s = 0;

	for (size_t i = lo; i < hi; i++)
		for (size_t k = i + 1; k < hi; k++)
			s += dist(v[i], v[k], alpha);
	return s;
}

/*
 * The split of v[0, m) of largest Q with both sides >= min_size: Q into
 * *best_q (-1 when m is too short), the split into *best_tau.  Moving the
 * split one to the right moves v[tau] from B to A, which changes the
 * three sums by its distances to each side: O(m) a step, O(m^2) in all.
 */
static void best_split(const double *v, size_t m, size_t min_size, double alpha,
		       double *best_q, size_t *best_tau)
{
	double a, b, c = 0;
	size_t tau = min_size;

	*best_q = -1;
	*best_tau = 0;
	if (m < 2 * min_size)
		return;
	a = within(v, 0, tau, alpha);
	b = within(v, tau, m, alpha);
	for (size_t i = 0; i < tau; i++)
		for (size_t k = tau; k < m; k++)
			c += dist(v[i], v[k], alpha);
	for (;;) {
		double nl = (double)tau, nr = (double)(m - tau);
		double e = 2 * c / (nl * nr) - a / (nl * (nl - 1) / 2) -
			   b / (nr * (nr - 1) / 2);
		double q = nl * nr / (nl + nr) * e;
		double row_l = 0, row_r = 0;

		if (q > *best_q) {
			*best_q = q;
			*best_tau = tau;
		}
		if (tau + 1 > m - min_size)
			break;
		for (size_t i = 0; i < tau; i++)
			row_l += dist(v[i], v[tau], alpha);
		for (size_t k = tau + 1; k < m; k++)
			row_r += dist(v[tau], v[k], alpha);
		a += row_l;
		b -= row_r;
		c += row_r - row_l;
		tau++;
	}
}

/* Segments as sorted bounds: bound[0] = 0 < ... < bound[nb-1] = n. */
struct segs {
	size_t *bound;
	size_t nb;
};

/* The best split over all segments of v: its Q, and its absolute index. */
static double best_over(const double *v, const struct segs *sg, size_t min_size,
			double alpha, size_t *at)
{
	double best = -1;

	*at = 0;
	for (size_t i = 0; i + 1 < sg->nb; i++) {
		size_t lo = sg->bound[i], tau;
		double q;

		best_split(v + lo, sg->bound[i + 1] - lo, min_size, alpha, &q, &tau);
		if (q > best) {
			best = q;
			*at = lo + tau;
		}
	}
	return best;
}

/* Fisher-Yates within each segment. */
static void shuffle_within(double *v, const struct segs *sg, uint64_t *rng)
{
	for (size_t i = 0; i + 1 < sg->nb; i++) {
		size_t lo = sg->bound[i], n = sg->bound[i + 1] - lo;

		for (size_t k = n; k > 1; k--) {
			size_t j = (size_t)(splitmix64(rng) % k);
			double t = v[lo + k - 1];

			v[lo + k - 1] = v[lo + j];
			v[lo + j] = t;
		}
	}
}

/* The permutation test's p for a split of statistic q over sg. */
static double p_value(const double *x, size_t n, double *work,
		      const struct segs *sg, const struct edm_params *p,
		      uint64_t *rng, double q)
{
	unsigned as_large = 0;
	/* Sums in another order differ in their last bits: a shuffle that
	 * gives the same series back must count as "as large". */
	double tie = q - 1e-9 * fabs(q);
	size_t at;

	memcpy(work, x, n * sizeof(*x));
	for (unsigned r = 0; r < p->permutations; r++) {
		shuffle_within(work, sg, rng);
		if (best_over(work, sg, p->min_size, p->alpha, &at) >= tie)
			as_large++;
	}
	return (1.0 + as_large) / (1.0 + p->permutations);
}

static void insert_bound(struct segs *sg, size_t at)
{
	size_t i = sg->nb;

	while (i > 0 && sg->bound[i - 1] > at) {
		sg->bound[i] = sg->bound[i - 1];
		i--;
	}
	sg->bound[i] = at;
	sg->nb++;
}

int edm_find(const double *x, size_t n, const struct edm_params *p,
	     struct edm_change *out, size_t max, size_t *nout)
{
	struct segs sg = { NULL, 0 };
	uint64_t rng = p->seed;
	double *work = NULL;
	int err = 0;

	*nout = 0;
	if (!(p->alpha > 0 && p->alpha < 2) || p->min_size < 2 || p->permutations == 0)
		return -EINVAL;
	sg.bound = malloc((n + 2) * sizeof(*sg.bound));
	work = malloc((n ? n : 1) * sizeof(*work));
	if (!sg.bound || !work) {
		err = -ENOMEM;
		goto out;
	}
	sg.bound[0] = 0;
	sg.bound[1] = n;
	sg.nb = 2;
	while (*nout < max) {
		size_t at;
		double q = best_over(x, &sg, p->min_size, p->alpha, &at), pv;
		size_t i;

		if (q < 0)
			break;
		pv = p_value(x, n, work, &sg, p, &rng, q);
		if (pv > p->p_max)
			break;
		for (i = *nout; i > 0 && out[i - 1].index > at; i--)
			out[i] = out[i - 1];
		out[i] = (struct edm_change){ at, pv, q };
		(*nout)++;
		insert_bound(&sg, at);
	}
out:
	free(sg.bound);
	free(work);
	return err;
}
