/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Seed 003's weights from the application's data: a d-dimensional data grid
 * of G = g_0 * ... * g_{d-1} cells, halo width h_i and cost factor c_i in
 * direction i, costs 2 * G / g_i * h_i * c_i to exchange across all planes
 * normal to i (2 = left + right).  Cut into n_i pieces along each i, one
 * piece's exchange is sum(n_i * w_i) / N, which smp_dims_weighted()
 * minimises. */
#include <math.h>

#include "dims/dims.h"

smp_status smp_dims_check_weights(int ndims, const double *w, const char *field,
                                  smp_error *err)
{
    if (!w)
        return SMP_OK;
    for (int i = 0; i < ndims; i++)
        if (!isfinite(w[i]) || w[i] < 0)
            return smp_error_set(err, SMP_ERR_INPUT,
                                 "%s[%d]: must be a finite number >= 0, not %g", field, i,
                                 w[i]);
    return SMP_OK;
}

smp_status smp_dims_weights(int ndims, const double *domain, const double *halo,
                            const double *cost, double *w, smp_error *err)
{
    if (ndims < 1 || ndims > SMP_MAX_DIMS)
        return smp_error_set(err, SMP_ERR_INPUT,
                             "grid.domain: must have 1 to %d entries, not %d", SMP_MAX_DIMS,
                             ndims);
    if (!domain)
        return smp_error_set(err, SMP_ERR_INPUT, "grid.domain: missing");
    for (int i = 0; i < ndims; i++)
        if (!isfinite(domain[i]) || domain[i] <= 0)
            return smp_error_set(err, SMP_ERR_INPUT,
                                 "grid.domain[%d]: must be a finite number > 0, not %g", i,
                                 domain[i]);
    smp_status s;
    if ((s = smp_dims_check_weights(ndims, halo, "grid.halo", err)) ||
        (s = smp_dims_check_weights(ndims, cost, "grid.cost", err)))
        return s;
    for (int i = 0; i < ndims; i++) {
        /* G / g_i as the product of the other extents: no division, and
         * exact for the integer grids applications have */
        double rest = 2.0;
        for (int j = 0; j < ndims; j++)
            if (j != i)
                rest *= domain[j];
        rest *= (halo ? halo[i] : 1.0) * (cost ? cost[i] : 1.0);
        if (!isfinite(rest))
            return smp_error_set(err, SMP_ERR_INPUT,
                                 "grid.domain: the weight of dim %d overflows (extents too large)",
                                 i);
        w[i] = rest;
    }
    return SMP_OK;
}
