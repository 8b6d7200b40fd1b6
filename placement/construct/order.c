/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Shared building blocks of the constructions: strides, boustrophedon
 * traversal of boxes, and per-axis stencil measures. */
#include <math.h>

#include "construct/order.h"

void smp_strides(const smp_grid *grid, int64_t *stride)
{
    stride[grid->ndims - 1] = 1;
    for (int i = grid->ndims - 2; i >= 0; i--)
        stride[i] = stride[i + 1] * grid->dims[i + 1];
}

void smp_snake_box(const smp_grid *grid, const smp_box *box, const int *order, const int *dir0,
                   smp_chunker *ch)
{
    int d = grid->ndims;
    int64_t stride[SMP_MAX_DIMS], pos[SMP_MAX_DIMS];
    int dir[SMP_MAX_DIMS];
    smp_strides(grid, stride);
    int64_t cell = 0;
    for (int l = 0; l < d; l++) {
        int j = order[l];
        dir[l] = dir0 ? dir0[l] : 1;
        pos[l] = dir[l] > 0 ? 0 : box->len[j] - 1;
        cell += (box->lo[j] + pos[l]) * stride[j];
    }
    for (;;) {
        smp_chunker_put(ch, cell);
        int l = d - 1;
        for (; l >= 0; l--) {
            int j = order[l];
            int64_t np = pos[l] + dir[l];
            if (np >= 0 && np < box->len[j]) {
                pos[l] = np;
                cell += dir[l] * stride[j];
                break;
            }
            dir[l] = -dir[l]; /* stay at this end; the next pass runs back */
        }
        if (l < 0)
            return;
    }
}

void smp_axis_parallelism(const smp_stencil *st, double *par)
{
    for (int i = 0; i < st->ndims; i++)
        par[i] = 0;
    for (int k = 0; k < st->count; k++) {
        const int32_t *o = st->offsets + k * st->ndims;
        double norm2 = 0, w = st->weights ? st->weights[k] : 1.0;
        for (int i = 0; i < st->ndims; i++)
            norm2 += (double)o[i] * o[i];
        for (int i = 0; i < st->ndims; i++)
            par[i] += w * (double)o[i] * o[i] / norm2;
    }
}

void smp_axis_traffic(const smp_stencil *st, double *traffic)
{
    for (int i = 0; i < st->ndims; i++)
        traffic[i] = 0;
    for (int k = 0; k < st->count; k++)
        for (int i = 0; i < st->ndims; i++)
            traffic[i] += (st->weights ? st->weights[k] : 1.0) * fabs((double)st->offsets[k * st->ndims + i]);
}
