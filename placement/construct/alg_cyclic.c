/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Cyclic, a reference order (never tried by auto): ranks dealt one per
 * node in turn, as Slurm's -m cyclic lays tasks out (its step layout
 * deals pass after pass over the nodes and skips a node whose CPUs are
 * all taken), here on the shares every construction gets, which are the
 * slots when the ranks fill them.  The thesis's round-robin starting
 * order (6.3.2): on a stencil it puts nearly every neighbour pair on two
 * nodes, the layout a plan should never resemble. */
#include "construct/order.h"

smp_status smp_place_cyclic(const smp_grid *grid, const smp_stencil *st, const int32_t *cap,
                            int nnodes, int32_t *node_of_rank, smp_error *err)
{
    (void)st;
    (void)err;
    /* pass j gives node i a rank while j < cap[i]; the shares add up to the
     * grid's size, so every pass places at least one rank until the last */
    int64_t r = 0;
    for (int32_t pass = 0; r < grid->size; pass++)
        for (int i = 0; i < nnodes && r < grid->size; i++)
            if (pass < cap[i])
                node_of_rank[r++] = i;
    return SMP_OK;
}
