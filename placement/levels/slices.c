/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Groups on a grid that falls apart into slices: where the stencil leaves
 * axes out (paper 001's "component" family leaves out the last one), no
 * edge joins two slices, so a group that holds whole slices pays nothing
 * for them.  fold.c lets the constructions stack slices, but they still
 * cut the stack at every group's boundary, wherever the seams fall;
 * Scotch's tree-leaf mapping, which sees the slices as the graph's
 * components, gives each group whole slices and shares out the rest (on
 * a 10x10x7 grid in 7 groups of 112, 112, ..., 28 ranks: group figures
 * 16/78 against 22/102 for auto on the groups).
 *
 * This does the same as a candidate for the groups: each group takes as
 * many whole slices as it holds, in order; the slices left over form a
 * grid of their own (the same stencil; the first left-out axis as long
 * as there are such slices, the others 1), which the caller plans on the
 * groups' remainders, and smp_slices_merge puts the two together. */
#include <stdlib.h>
#include <string.h>

#include "construct/construct.h"
#include "levels/groups.h"

smp_status smp_slices_split(const smp_grid *grid, const smp_stencil *st, const int32_t *cap,
                            int ncap, smp_slices *sl, smp_error *err)
{
    memset(sl, 0, sizeof(*sl));
    if (smp_fold_zero_axes(grid, st, sl->zero) == 0)
        return SMP_OK; /* no slices */
    sl->ndims = grid->ndims;
    memcpy(sl->dims, grid->dims, sizeof(sl->dims));
    int64_t nslices = 1;
    int first_zero = -1;
    for (int d = 0; d < grid->ndims; d++)
        if (sl->zero[d]) {
            nslices *= grid->dims[d];
            if (first_zero < 0)
                first_zero = d;
        }
    int64_t q = grid->size / nslices;
    int64_t whole = 0;
    for (int i = 0; i < ncap; i++)
        whole += cap[i] / q;
    if (whole == 0)
        return SMP_OK; /* no group holds a whole slice: nothing to gain */
    sl->slice_size = q;
    sl->nslices = nslices;
    sl->left = nslices - whole;
    sl->slice_owner = malloc(sizeof(int32_t) * (size_t)nslices);
    sl->rest = malloc(sizeof(int32_t) * (size_t)(ncap ? ncap : 1));
    if (!sl->slice_owner || !sl->rest) {
        smp_slices_free(sl);
        return smp_error_set(err, SMP_ERR_SYSTEM, "levels: out of memory for %lld slices",
                             (long long)nslices);
    }
    int64_t s = 0;
    for (int i = 0; i < ncap; i++) {
        for (int64_t k = 0; k < cap[i] / q; k++)
            sl->slice_owner[s++] = i;
        sl->rest[i] = (int32_t)(cap[i] % q);
    }
    for (; s < nslices; s++)
        sl->slice_owner[s] = -1;
    /* the grid of the slices left over */
    sl->sub = *grid;
    for (int d = 0; d < grid->ndims; d++)
        if (sl->zero[d])
            sl->sub.dims[d] = d == first_zero ? sl->left : 1;
    sl->sub.size = sl->left * q;
    sl->applies = true;
    return SMP_OK;
}

void smp_slices_merge(const smp_grid *grid, const smp_slices *sl, const int32_t *dense,
                      const int32_t *sub_node, int32_t *node_of_rank)
{
    int d = grid->ndims;
    int64_t c[SMP_MAX_DIMS] = {0};
    int64_t first_left = sl->nslices - sl->left;
    for (int64_t r = 0; r < grid->size; r++) {
        /* r's slice, row-major over the left-out axes */
        int64_t s = 0;
        for (int k = 0; k < d; k++)
            if (sl->zero[k])
                s = s * grid->dims[k] + c[k];
        if (s < first_left) {
            node_of_rank[r] = dense[sl->slice_owner[s]];
        } else { /* its place in the grid of the slices left over */
            int64_t t = s - first_left, sr = 0;
            bool placed = false;
            for (int k = 0; k < d; k++) {
                int64_t x = c[k];
                if (sl->zero[k]) {
                    x = placed ? 0 : t;
                    placed = true;
                }
                sr = sr * sl->sub.dims[k] + x;
            }
            node_of_rank[r] = sub_node[sr];
        }
        for (int k = d - 1; k >= 0 && ++c[k] == grid->dims[k]; k--)
            c[k] = 0;
    }
}

void smp_slices_free(smp_slices *sl)
{
    free(sl->slice_owner);
    free(sl->rest);
    memset(sl, 0, sizeof(*sl));
}
