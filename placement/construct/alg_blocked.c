/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Blocked: consecutive ranks fill one node after the other, as Slurm's
 * block distribution places them.  The baseline every plan is judged by. */
#include "construct/order.h"

smp_status smp_place_blocked(const smp_grid *grid, const smp_stencil *st, const int32_t *cap,
                             int nnodes, int32_t *node_of_rank, smp_error *err)
{
    (void)st;
    (void)nnodes;
    (void)err;
    smp_chunker ch = {.cap = cap, .node_of_rank = node_of_rank};
    for (int64_t r = 0; r < grid->size; r++)
        smp_chunker_put(&ch, r);
    return SMP_OK;
}
