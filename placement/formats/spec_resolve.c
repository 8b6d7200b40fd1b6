/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* A spec resolved once the step is known: its grid checked against the
 * task count, grid.dims "auto" chosen as MPI_Dims_create would (balanced),
 * and grid.dims "weighted" (seed 003) with the weights spec_dims.c read:
 * the nodes' cut first, then the sockets', then the cores' (placement/dims/
 * through the public calls).  Apart from the parsing (spec.c), which never
 * calls it. */
#include <string.h>

#include "formats/spec_internal.h"

/* the level sizes: nodes, sockets, cores of one, when the nodes are equal
 * and hold ntasks exactly; else ntasks alone */
static int level_sizes(int64_t ntasks, int nnodes, const int32_t *slots, int sockets,
                       int64_t *sizes)
{
    if (nnodes < 1 || !slots)
        return sizes[0] = ntasks, 1;
    for (int n = 1; n < nnodes; n++)
        if (slots[n] != slots[0])
            return sizes[0] = ntasks, 1;
    if (slots[0] < 1 || (int64_t)nnodes * slots[0] != ntasks)
        return sizes[0] = ntasks, 1;
    int k = 0;
    sizes[k++] = nnodes;
    if (sockets > 1 && slots[0] % sockets == 0) {
        sizes[k++] = sockets;
        sizes[k++] = slots[0] / sockets;
    } else {
        sizes[k++] = slots[0];
    }
    return k;
}

smp_status smp_spec_resolve_on(smp_spec *spec, int64_t ntasks, int nnodes, const int32_t *slots,
                               int sockets, int64_t *levels_out, int *nlevels_out,
                               smp_error *err)
{
    if (!spec->dims_weighted)
        return smp_spec_resolve(spec, ntasks, err);
    if (ntasks < 1)
        return smp_error_set(err, SMP_ERR_INPUT,
                             "grid.dims: \"weighted\" needs the task count (give --ranks or -n)");
    int64_t sizes[3], ml[SMP_MAX_DIMS * 3] = {0}, d[SMP_MAX_DIMS];
    int nl = level_sizes(ntasks, nnodes, slots, sockets > 0 ? sockets : spec->sockets, sizes);
    int ndims = spec->grid.ndims;
    smp_status s = smp_dims_ml(ndims, spec->dims_w, spec->grid.periods, nl, sizes, ml, NULL, err);
    if (s)
        return s;
    for (int i = 0; i < ndims; i++) {
        d[i] = 1;
        for (int l = 0; l < nl; l++)
            d[i] *= ml[i * nl + l];
    }
    bool per[SMP_MAX_DIMS];
    memcpy(per, spec->grid.periods, sizeof(per));
    smp_order order = spec->grid.order;
    if ((s = smp_grid_init(&spec->grid, ndims, d, per, err)))
        return s;
    spec->grid.order = order;
    spec->dims_auto = false;
    spec->dims_weighted = false;
    if (levels_out)
        memcpy(levels_out, sizes, sizeof(int64_t) * (size_t)nl);
    if (nlevels_out)
        *nlevels_out = nl;
    return SMP_OK;
}

smp_status smp_spec_resolve(smp_spec *spec, int64_t ntasks, smp_error *err)
{
    if (spec->dims_weighted)
        return smp_spec_resolve_on(spec, ntasks, 0, NULL, 0, NULL, NULL, err);
    if (spec->dims_auto) {
        if (ntasks < 1)
            return smp_error_set(err, SMP_ERR_INPUT,
                                 "grid.dims: \"auto\" needs the task count (give --ranks or -n)");
        int64_t d[SMP_MAX_DIMS];
        bool per[SMP_MAX_DIMS];
        smp_status s = smp_dims_create(ntasks, spec->grid.ndims, d, err);
        if (s)
            return s;
        memcpy(per, spec->grid.periods, sizeof(per));
        smp_order order = spec->grid.order;
        s = smp_grid_init(&spec->grid, spec->grid.ndims, d, per, err);
        if (s)
            return s;
        spec->grid.order = order;
        spec->dims_auto = false;
        return SMP_OK;
    }
    if (ntasks > 0 && ntasks != spec->grid.size)
        return smp_error_set(err, SMP_ERR_INPUT,
                             "grid.dims: the grid holds %lld ranks but the step has %lld tasks",
                             (long long)spec->grid.size, (long long)ntasks);
    return SMP_OK;
}
