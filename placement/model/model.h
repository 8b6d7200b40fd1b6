/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Internal interface of the model room (placement/model/): the grid, the
 * stencil, the walk over its edges (edges.h), the neighbour lists
 * (neighbours.h), the scores and objectives, and the network levels as
 * plain data (network_levels.c).  Everything else in the core stands on
 * this room; it includes only the public header and its own headers. */
#ifndef STENCILMAP_MODEL_H
#define STENCILMAP_MODEL_H

#include "stencilmap/placement.h"

/* a better than b: lower J_sum (weighted if weights are given), then J_max
 * (objective.c) */
bool smp_score_better(const smp_score *a, const smp_score *b, bool weighted);

/* A column-major grid as the row-major grid of its axes reversed, with the
 * stencil's components reversed (st may be NULL); same ranks, same
 * node_of_rank.  Free with smp_canon_free() whatever the status
 * (grid.c). */
typedef struct {
    smp_grid grid;
    smp_stencil st;
} smp_canon;
smp_status smp_canon_make(smp_canon *c, const smp_grid *grid, const smp_stencil *st, smp_error *err);
void smp_canon_free(smp_canon *c);

#endif
