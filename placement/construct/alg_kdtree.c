/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* k-d tree (paper 001 SV-B): halve the grid recursively, always along the
 * axis with the largest side per unit of stencil traffic across it, down to
 * single cells.  The leaves, read left to right, form a locality-preserving
 * order that is cut into runs of each node's capacity, so any mix of node
 * sizes is served. */
#include <math.h>

#include "construct/order.h"

struct kd_ctx {
    const smp_grid *grid;
    double traffic[SMP_MAX_DIMS];
    int64_t stride[SMP_MAX_DIMS];
    smp_chunker *ch;
};

static void kd_split(const struct kd_ctx *c, smp_box *box, int64_t vol, int64_t cell)
{
    if (vol == 1) {
        smp_chunker_put(c->ch, cell);
        return;
    }
    int d = c->grid->ndims, best = -1;
    double best_score = -1;
    for (int i = 0; i < d; i++) {
        if (box->len[i] < 2)
            continue;
        /* an axis no offset crosses is free to cut: score it above all.
         * A box spanning a whole periodic axis is a ring there: halving it
         * cuts two layers of edges (the middle and the wrap), so that cut
         * counts its traffic twice; once halved, each part is a line. */
        double t = c->traffic[i];
        if (c->grid->periods[i] && box->len[i] == c->grid->dims[i] && box->len[i] > 2)
            t *= 2;
        double s = t > 0 ? (double)box->len[i] / t : INFINITY;
        if (best < 0 || s > best_score ||
            (s == best_score && box->len[i] > box->len[best])) {
            best = i;
            best_score = s;
        }
    }
    int64_t len = box->len[best], half = len / 2;
    box->len[best] = half;
    kd_split(c, box, vol / len * half, cell);
    box->len[best] = len - half;
    kd_split(c, box, vol / len * (len - half), cell + half * c->stride[best]);
    box->len[best] = len;
}

smp_status smp_place_kdtree(const smp_grid *grid, const smp_stencil *st, const int32_t *cap,
                            int nnodes, int32_t *node_of_rank, smp_error *err)
{
    (void)nnodes;
    (void)err;
    smp_chunker ch = {.cap = cap, .node_of_rank = node_of_rank};
    struct kd_ctx c = {.grid = grid, .ch = &ch};
    smp_axis_traffic(st, c.traffic);
    smp_strides(grid, c.stride);
    smp_box whole = {{0}, {0}};
    for (int i = 0; i < grid->ndims; i++)
        whole.len[i] = grid->dims[i];
    kd_split(&c, &whole, grid->size, 0);
    return SMP_OK;
}
