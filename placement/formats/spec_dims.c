/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The spec's weighted dims (seed 003): grid.domain, grid.halo and
 * grid.cost give the weights of grid.dims "weighted", and the dims are
 * chosen once the task count (and, when known, the nodes and sockets) is:
 * the nodes' cut first, then the sockets', then the cores' (placement/dims/
 * through the public calls). */
#include <jansson.h>
#include <string.h>

#include "formats/spec_internal.h"

/* a list of ndims numbers (field in messages) */
static smp_status number_list(const json_t *arr, const char *field, int ndims, double *out,
                              smp_error *err)
{
    if (!json_is_array(arr))
        return smp_error_set(err, SMP_ERR_INPUT, "%s: must be a list of %d numbers, not %s",
                             field, ndims, smp_json_kind(arr));
    if (json_array_size(arr) != (size_t)ndims)
        return smp_error_set(err, SMP_ERR_INPUT,
                             "%s: has %zu entries but the grid has %d dimensions", field,
                             json_array_size(arr), ndims);
    for (int i = 0; i < ndims; i++) {
        json_t *v = json_array_get(arr, (size_t)i);
        if (!json_is_number(v))
            return smp_error_set(err, SMP_ERR_INPUT, "%s[%d]: must be a number, not %s", field,
                                 i, smp_json_kind(v));
        out[i] = json_number_value(v);
    }
    return SMP_OK;
}

smp_status smp_spec_grid_weights(smp_spec *spec, const json_t *g, smp_error *err)
{
    static const char *const names[3] = {"grid.domain", "grid.halo", "grid.cost"};
    double v[3][SMP_MAX_DIMS];
    bool have[3];
    int ndims = spec->grid.ndims;
    smp_status s;
    for (int k = 0; k < 3; k++) {
        json_t *arr = json_object_get(g, names[k] + 5);
        have[k] = arr != NULL;
        if (arr && !spec->dims_weighted)
            return smp_error_set(err, SMP_ERR_INPUT,
                                 "%s: used only with grid.dims \"weighted\"", names[k]);
        if (arr && (s = number_list(arr, names[k], ndims, v[k], err)))
            return s;
    }
    if (!spec->dims_weighted)
        return SMP_OK;
    if (!have[0])
        for (int i = 0; i < ndims; i++)
            v[0][i] = 1.0; /* equal extents: the halos and costs alone */
    return smp_dims_weights(ndims, v[0], have[1] ? v[1] : NULL, have[2] ? v[2] : NULL,
                            spec->dims_w, err);
}

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
    smp_status s = smp_dims_ml(ndims, spec->dims_w, nl, sizes, ml, NULL, err);
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
