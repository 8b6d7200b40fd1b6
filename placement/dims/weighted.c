/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Seed 003's MPIX_Dims_weighted_create: the factorization of nprocs into
 * ndims factors with the smallest sum(dims[i] * w[i]), the exchange of one
 * process up to a common factor (weights.c).  Exhaustive over the ordered
 * factorizations drawn from the divisors, cut by the AM-GM bound: k factors
 * with product R and weights w_j cost at least k * (R * prod w_j)^(1/k),
 * with the heaviest held at 1 where that optimum would put them below.
 * Ties are broken first by the real cut on periodic axes: sum(dims[i] *
 * w[i]) counts dims[i] cuts along i, which an open axis has minus one
 * (the same for every candidate: no tie changes) and a periodic one has
 * exactly, except at dims[i] = 1, where it has none; so among tied
 * candidates the one leaving the heaviest periodic axes whole cuts least,
 * in total and per process (seed 003's halo bench, 4:2:1 on 4 nodes:
 * 4x1x1 nodes, not 2x2x1, as doc/benchmarks.md explains).  Then as
 * MPICH's MPI_Dims_create breaks them: the most
 * balanced free entries (smallest max - min), then the larger first.  With
 * equal weights this gives MPICH's dims for every count up to 3000 into 2
 * to 4 dims (doc/algorithms.md, "Weighted dims (seed 003)"). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "dims/dims.h"

struct wsearch {
    int nfree;
    double w[SMP_MAX_DIMS];          /* weights of the free dims, in order */
    bool periodic[SMP_MAX_DIMS];     /* ... and whether each is periodic */
    /* the weights of free dims k.., heaviest first, and the sums of the
     * logs of tail_w[k][j..] */
    double tail_w[SMP_MAX_DIMS][SMP_MAX_DIMS];
    double tail_log[SMP_MAX_DIMS][SMP_MAX_DIMS + 1];
    const int64_t *divs;             /* divisors of the free product, ascending */
    int ndivs;
    int64_t cur[SMP_MAX_DIMS], best[SMP_MAX_DIMS];
    double best_cost;
    bool found;
    int64_t steps;
    bool over;
};

/* costs this close to the best are ties: relative, so that weights of any
 * scale (1e-300 or 1e300) tie and prune alike */
static double tolerance(double cost)
{
    return 1e-9 * fabs(cost);
}

/* The least the free dims k.. can cost when their product is rest, each at
 * least 1: by AM-GM the m lightest cost m * (rest * their product)^(1/m)
 * with dims lambda / w_j; a heavier dim whose lambda / w_j would fall below
 * 1 is held at 1 (the box-constrained relaxation's optimum). */
static double lower_bound(const struct wsearch *s, int k, int64_t rest)
{
    int n = s->nfree - k;
    const double *w = s->tail_w[k];
    double held = 0.0, logr = log((double)rest);
    for (int j = 0; j < n; j++) {
        int m = n - j;
        double lambda = exp((s->tail_log[k][j] + logr) / m);
        if (lambda >= w[j] || m == 1)
            return held + m * lambda;
        held += w[j];
    }
    return held;
}

static int64_t spread(const int64_t *v, int n)
{
    int64_t lo = v[0], hi = v[0];
    for (int i = 1; i < n; i++) {
        lo = v[i] < lo ? v[i] : lo;
        hi = v[i] > hi ? v[i] : hi;
    }
    return hi - lo;
}

/* what the periodic free dims of v left whole save from sum(v[k] * w[k]):
 * their weights (a ring of one process cuts nothing) */
static double whole_periodic(const struct wsearch *s, const int64_t *v)
{
    double saved = 0.0;
    for (int k = 0; k < s->nfree; k++)
        if (s->periodic[k] && v[k] == 1)
            saved += s->w[k];
    return saved;
}

/* cur (costing cost) better than the best so far */
static bool better(const struct wsearch *s, double cost)
{
    if (!s->found)
        return true;
    double tol = tolerance(s->best_cost);
    if (cost < s->best_cost - tol)
        return true;
    if (cost > s->best_cost + tol)
        return false;
    double sc = whole_periodic(s, s->cur), sb = whole_periodic(s, s->best);
    if (sc > sb + tolerance(sb) || sc < sb - tolerance(sb))
        return sc > sb; /* the lower real cut */
    int64_t a = spread(s->cur, s->nfree), b = spread(s->best, s->nfree);
    if (a != b)
        return a < b;
    for (int i = 0; i < s->nfree; i++)
        if (s->cur[i] != s->best[i])
            return s->cur[i] > s->best[i];
    return false;
}

static void wsearch_dfs(struct wsearch *s, int k, int64_t rest, double cost)
{
    if (k == s->nfree - 1) {
        s->cur[k] = rest;
        cost += s->w[k] * (double)rest;
        if (better(s, cost)) {
            memcpy(s->best, s->cur, sizeof(s->cur));
            s->best_cost = s->found && cost > s->best_cost ? s->best_cost : cost;
            s->found = true;
        }
        return;
    }
    for (int d = 0; d < s->ndivs && s->divs[d] <= rest; d++) {
        int64_t f = s->divs[d];
        if (rest % f)
            continue;
        if (++s->steps > SMP_DIMS_MAX_STEPS) {
            s->over = true;
            return;
        }
        double here = cost + s->w[k] * (double)f;
        if (s->found &&
            here + lower_bound(s, k + 1, rest / f) > s->best_cost + tolerance(s->best_cost))
            continue;
        s->cur[k] = f;
        wsearch_dfs(s, k + 1, rest / f, here);
        if (s->over)
            return;
    }
}

/* the divisors of n (n < 2^31: at most 1600), ascending; NULL when out of memory */
static int64_t *divisors(int64_t n, int *count)
{
    int64_t *d = malloc(sizeof(int64_t) * 2048);
    if (!d)
        return NULL;
    int lo = 0, hi = 2047;
    for (int64_t f = 1; f * f <= n; f++)
        if (n % f == 0) {
            d[lo++] = f;
            if (f != n / f)
                d[hi--] = n / f;
        }
    memmove(d + lo, d + hi + 1, sizeof(int64_t) * (size_t)(2047 - hi));
    *count = lo + (2047 - hi);
    return d;
}

/* nprocs, ndims and the fixed entries checked; *rest the free product */
static smp_status check_fixed(int64_t nprocs, int ndims, const int64_t *dims, int64_t *rest,
                              smp_error *err)
{
    if (ndims < 1 || ndims > SMP_MAX_DIMS)
        return smp_error_set(err, SMP_ERR_INPUT, "ndims: must be between 1 and %d, not %d",
                             SMP_MAX_DIMS, ndims);
    if (nprocs < 1 || nprocs > SMP_MAX_RANKS)
        return smp_error_set(err, SMP_ERR_INPUT, "nprocs %lld: must be between 1 and %lld",
                             (long long)nprocs, (long long)SMP_MAX_RANKS);
    *rest = nprocs;
    for (int i = 0; i < ndims; i++) {
        if (dims[i] < 0)
            return smp_error_set(err, SMP_ERR_INPUT,
                                 "dims[%d]: must be 0 (free) or positive, not %lld", i,
                                 (long long)dims[i]);
        if (dims[i] > 0 && *rest % dims[i])
            return smp_error_set(err, SMP_ERR_INPUT,
                                 "dims[%d] = %lld: the fixed entries must divide nprocs %lld",
                                 i, (long long)dims[i], (long long)nprocs);
        if (dims[i] > 0)
            *rest /= dims[i];
    }
    return SMP_OK;
}

static int heavier_first(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x < y) - (x > y);
}

/* the free dims' weights (all > 0 here: zero weights go to
 * zero_weight_dims) and, per tail, sorted with their log sums */
static void wsearch_setup(struct wsearch *s, int ndims, const double *w, const bool *periods,
                          const int64_t *dims)
{
    memset(s, 0, sizeof(*s));
    for (int i = 0; i < ndims; i++)
        if (dims[i] == 0) {
            s->periodic[s->nfree] = periods && periods[i];
            s->w[s->nfree++] = w ? w[i] : 1.0;
        }
    for (int k = 0; k < s->nfree; k++) {
        int n = s->nfree - k;
        memcpy(s->tail_w[k], s->w + k, sizeof(double) * (size_t)n);
        qsort(s->tail_w[k], (size_t)n, sizeof(double), heavier_first);
        s->tail_log[k][n] = 0.0;
        for (int j = n - 1; j >= 0; j--)
            s->tail_log[k][j] = s->tail_log[k][j + 1] + log(s->tail_w[k][j]);
    }
}

/* Some free dim weighs 0: every process goes to those dims at no cost, each
 * other free dim is 1 (any more costs its weight), and the zero-weight dims
 * share them as equal weights would, which is a short search; the bound
 * alone would enumerate them all. */
static bool zero_weight_free(int ndims, const double *w, const int64_t *dims)
{
    for (int i = 0; w && i < ndims; i++)
        if (dims[i] == 0 && w[i] == 0.0)
            return true;
    return false;
}

static smp_status zero_weight_dims(int64_t nprocs, int ndims, const double *w,
                                   const bool *periods, int64_t *dims, double *cost,
                                   smp_error *err)
{
    int64_t d[SMP_MAX_DIMS];
    for (int i = 0; i < ndims; i++)
        d[i] = dims[i] == 0 && w[i] > 0.0 ? 1 : dims[i];
    smp_status st = smp_dims_weighted(nprocs, ndims, NULL, periods, d, NULL, err);
    if (st)
        return st;
    double sum = 0.0;
    for (int i = 0; i < ndims; i++) {
        dims[i] = d[i];
        sum += w[i] * (double)d[i];
    }
    if (cost)
        *cost = sum;
    return SMP_OK;
}

smp_status smp_dims_weighted(int64_t nprocs, int ndims, const double *w, const bool *periods,
                             int64_t *dims, double *cost, smp_error *err)
{
    int64_t rest = 0;
    smp_status st;
    if ((st = check_fixed(nprocs, ndims, dims, &rest, err)) ||
        (st = smp_dims_check_weights(ndims, w, "w", err)))
        return st;
    if (zero_weight_free(ndims, w, dims))
        return zero_weight_dims(nprocs, ndims, w, periods, dims, cost, err);
    struct wsearch s;
    wsearch_setup(&s, ndims, w, periods, dims);
    if (s.nfree == 0 && rest != 1)
        return smp_error_set(err, SMP_ERR_INPUT,
                             "dims: every entry is fixed and their product is not nprocs %lld",
                             (long long)nprocs);
    if (s.nfree > 0) {
        s.divs = divisors(rest, &s.ndivs);
        if (!s.divs)
            return smp_error_set(err, SMP_ERR_SYSTEM, "dims: out of memory");
        wsearch_dfs(&s, 0, rest, 0.0);
        free((void *)s.divs);
        if (s.over)
            return smp_error_set(err, SMP_ERR_INFEASIBLE,
                                 "nprocs %lld: more than %lld steps to search its factorizations "
                                 "into %d free dims (weights many orders of magnitude apart tie "
                                 "too often); fix some dims or bring the weights closer",
                                 (long long)nprocs, (long long)SMP_DIMS_MAX_STEPS, s.nfree);
    }
    double sum = 0.0;
    for (int i = 0, k = 0; i < ndims; i++) {
        if (dims[i] == 0)
            dims[i] = s.best[k++];
        sum += (w ? w[i] : 1.0) * (double)dims[i];
    }
    if (cost)
        *cost = sum;
    return SMP_OK;
}
