/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The building blocks the constructions share (order.c): boxes of the
 * grid, handing cells out to nodes in order, boustrophedon traversal and
 * per-axis stencil measures.  Private to the construct room. */
#ifndef STENCILMAP_CONSTRUCT_ORDER_H
#define STENCILMAP_CONSTRUCT_ORDER_H

#include "construct/construct.h"

/* An axis-aligned sub-box of the grid. */
typedef struct {
    int64_t lo[SMP_MAX_DIMS];
    int64_t len[SMP_MAX_DIMS];
} smp_box;

/* Hands out grid cells to nodes in the order they are fed: the first cap[0]
 * cells to node 0, the next cap[1] to node 1, and so on. */
typedef struct {
    const int32_t *cap;
    int32_t *node_of_rank;
    int node;
    int32_t used;
} smp_chunker;

static inline void smp_chunker_put(smp_chunker *ch, int64_t cell)
{
    ch->node_of_rank[cell] = ch->node;
    if (++ch->used == ch->cap[ch->node]) {
        ch->node++;
        ch->used = 0;
    }
}

/* Row-major strides of the grid. */
void smp_strides(const smp_grid *grid, int64_t *stride);
/* Feeds the cells of box to ch in boustrophedon order: order[0] is the
 * outermost dimension, every inner dimension reverses direction when the
 * one outside it steps, so consecutive cells are always grid neighbours.
 * dir0 gives the starting direction (+1/-1) of each dimension. */
void smp_snake_box(const smp_grid *grid, const smp_box *box, const int *order,
                   const int *dir0, smp_chunker *ch);
/* Per-dimension sum over offsets of weight * cos^2(offset, axis): small
 * means cutting across that axis severs few edges (paper 001, eq. 2). */
void smp_axis_parallelism(const smp_stencil *st, double *par);
/* Per-dimension traffic across a unit cut: sum of weight * |offset_i|. */
void smp_axis_traffic(const smp_stencil *st, double *traffic);

#endif
