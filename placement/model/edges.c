/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The stencil's entries as rank differences, for edges.h's walk. */
#include <stdlib.h>
#include <string.h>

#include "model/edges.h"

/* Strides of each dimension in the grid's own rank numbering. */
static void order_strides(const smp_grid *grid, int64_t *stride)
{
    int d = grid->ndims;
    if (grid->order == SMP_ORDER_COLUMN_MAJOR) {
        stride[0] = 1;
        for (int i = 1; i < d; i++)
            stride[i] = stride[i - 1] * grid->dims[i - 1];
        return;
    }
    stride[d - 1] = 1;
    for (int i = d - 2; i >= 0; i--)
        stride[i] = stride[i + 1] * grid->dims[i + 1];
}

smp_status smp_edge_walk_init(smp_edge_walk *w, const smp_grid *grid, const smp_stencil *st,
                              bool reverse, smp_error *err)
{
    memset(w, 0, sizeof(*w));
    if (st->ndims != grid->ndims)
        return smp_error_set(err, SMP_ERR_INPUT, "stencil: has %d dimensions but the grid has %d",
                             st->ndims, grid->ndims);
    int d = grid->ndims, k = st->count;
    w->grid = grid;
    w->d = d;
    w->count = reverse ? 2 * k : k;
    w->off = malloc(sizeof(int32_t) * (size_t)(w->count > 0 ? w->count : 1) * (size_t)d);
    w->delta = malloc(sizeof(int64_t) * (size_t)(w->count > 0 ? w->count : 1));
    if (!w->off || !w->delta) {
        smp_edge_walk_free(w);
        return smp_error_set(err, SMP_ERR_SYSTEM, "stencil edges: out of memory");
    }
    order_strides(grid, w->stride);
    for (int i = 0; i < d; i++) {
        w->lo[i] = 0;
        w->hi[i] = grid->dims[i];
    }
    for (int e = 0; e < w->count; e++) {
        int sign = e < k ? 1 : -1;
        const int32_t *o = st->offsets + (size_t)(e % k) * d;
        w->delta[e] = 0;
        for (int i = 0; i < d; i++) {
            int64_t x = sign * (int64_t)o[i];
            w->off[(size_t)e * d + i] = (int32_t)x;
            w->delta[e] += x * w->stride[i];
            if (x < 0 && -x > w->lo[i])
                w->lo[i] = -x;
            if (x > 0 && grid->dims[i] - x < w->hi[i])
                w->hi[i] = grid->dims[i] - x;
        }
    }
    return SMP_OK;
}

void smp_edge_walk_free(smp_edge_walk *w)
{
    free(w->off);
    free(w->delta);
    w->off = NULL;
    w->delta = NULL;
}
