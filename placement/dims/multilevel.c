/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Seed 003's MPIX_Dims_ml_create: the grid's dims chosen level by level,
 * coarsest first (the nodes, then the sockets in a node, then the cores in
 * a socket), each level by smp_dims_weighted() so that the costliest cut,
 * between nodes, is the smallest it can be and the finer levels do the
 * best they can inside it.  One unit of level l holds a piece of the data
 * grid cut n_i = prod_{k<l} dims_ml[i][k] times along i, so its weights are
 * w_i * n_i (weights.c with g_i / n_i in place of g_i, common factors
 * dropped).  periods break the ties of the coarsest level only, by the
 * real cut between its units (the nodes, smp_dims_weighted): the finer
 * levels cut nothing between nodes, and keep the seed's tie rule, which
 * its tables of the periodic halo benchmark follow. */
#include "dims/dims.h"

static smp_status check_levels(int ndims, int nlevels, const int64_t *sizes,
                               const int64_t *dims_ml, smp_error *err)
{
    if (ndims < 1 || ndims > SMP_MAX_DIMS)
        return smp_error_set(err, SMP_ERR_INPUT, "ndims: must be between 1 and %d, not %d",
                             SMP_MAX_DIMS, ndims);
    if (nlevels < 1 || nlevels > SMP_DIMS_MAX_LEVELS)
        return smp_error_set(err, SMP_ERR_INPUT, "nlevels: must be between 1 and %d, not %d",
                             SMP_DIMS_MAX_LEVELS, nlevels);
    int64_t total = 1;
    for (int l = 0; l < nlevels; l++) {
        if (sizes[l] < 1 || sizes[l] > SMP_MAX_RANKS / total)
            return smp_error_set(err, SMP_ERR_INPUT,
                                 "sizes[%d] = %lld: must be positive, with a product of at "
                                 "most %lld processes",
                                 l, (long long)sizes[l], (long long)SMP_MAX_RANKS);
        total *= sizes[l];
    }
    for (int i = 0; i < ndims; i++)
        for (int l = 0; l < nlevels; l++)
            if (dims_ml[i * nlevels + l] < 0)
                return smp_error_set(err, SMP_ERR_INPUT,
                                     "dims_ml[%d][%d]: must be 0 (free) or positive", i, l);
    return SMP_OK;
}

smp_status smp_dims_ml(int ndims, const double *w, const bool *periods, int nlevels,
                       const int64_t *sizes, int64_t *dims_ml, double *cost, smp_error *err)
{
    smp_status st;
    if ((st = check_levels(ndims, nlevels, sizes, dims_ml, err)) ||
        (st = smp_dims_check_weights(ndims, w, "w", err)))
        return st;
    double wl[SMP_MAX_DIMS];
    int64_t dl[SMP_MAX_DIMS];
    for (int i = 0; i < ndims; i++)
        wl[i] = w ? w[i] : 1.0;
    for (int l = 0; l < nlevels; l++) {
        for (int i = 0; i < ndims; i++)
            dl[i] = dims_ml[i * nlevels + l];
        double c;
        smp_error inner = {0};
        if ((st = smp_dims_weighted(sizes[l], ndims, wl, l == 0 ? periods : NULL, dl, &c,
                                    &inner)))
            return smp_error_set(err, st, "level %d (sizes[%d] = %lld): %s", l, l,
                                 (long long)sizes[l], inner.msg);
        if (l == 0 && cost)
            *cost = c;
        for (int i = 0; i < ndims; i++) {
            dims_ml[i * nlevels + l] = dl[i];
            wl[i] *= (double)dl[i];
        }
    }
    return SMP_OK;
}
