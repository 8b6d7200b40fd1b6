/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The levels room's own parts, for plan_levels.c: groups laid out in whole
 * slices of the grid (slices.c, slice_pack.c) and groups split into their
 * units, level by level (split_groups.c).  Private to placement/levels/. */
#ifndef STENCILMAP_LEVELS_GROUPS_H
#define STENCILMAP_LEVELS_GROUPS_H

#include "model/model.h"

/* A grid that falls apart into slices (slices.c): each of ncap groups
 * takes cap[i] / slice_size whole slices, in order (slice_owner[s], -1
 * for the slices left over, the last ones); the rest of each group,
 * rest[i] ranks, is to be planned on sub, the grid of the slices left
 * over.  applies is false where the stencil leaves no axis out or no
 * group holds a whole slice. */
typedef struct {
    bool applies;
    int ndims;
    int64_t dims[SMP_MAX_DIMS];
    bool zero[SMP_MAX_DIMS];
    int64_t slice_size, nslices, left;
    int32_t *slice_owner, *rest;
    smp_grid sub;
} smp_slices;
smp_status smp_slices_split(const smp_grid *grid, const smp_stencil *st, const int32_t *cap,
                            int ncap, smp_slices *sl, smp_error *err);
/* node_of_rank: dense[slice_owner[s]] on the whole slices, sub_node[] (a
 * placement of sub) on the rest. */
void smp_slices_merge(const smp_grid *grid, const smp_slices *sl, const int32_t *dense,
                      const int32_t *sub_node, int32_t *node_of_rank);
void smp_slices_free(smp_slices *sl);

/* The groups (cap[i] ranks, named dense[i], ncap of them) packed into the
 * slices piece by piece, way 0 or 1, each slice's pieces laid out by auto
 * (slice_pack.c); *applied false where the grid has no slices. */
smp_status smp_slices_pack(const smp_grid *grid, const smp_stencil *st, const int32_t *cap,
                           const int32_t *dense, int ncap, int nnodes, smp_objective obj,
                           int effort, int way, int32_t *node_of_rank, bool *applied,
                           smp_error *err);

/* Groups first's splitting (split_groups.c): the ranks of each group of
 * level l + 1 (cur[r]) over its units of level l (l < 0: its nodes) with
 * the shares capnode[] adds up; cur[] is rewritten with the units; part[]
 * and label[] are scratch of grid->size entries. */
smp_status smp_split_down(const smp_grid *grid, const smp_stencil *st, const int32_t *capnode,
                          int nnodes, const smp_levels *lv, int l, smp_objective obj, int effort,
                          int32_t *cur, int32_t *part, int32_t *label, smp_error *err);

#endif
