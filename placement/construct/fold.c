/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Folding: when no stencil offset moves along some axes (the paper's
 * "component" family leaves out the last one), the grid falls apart into
 * independent slices, and a node may hold the end of one slice and the
 * start of another at no cost.  The box constructions do not know that:
 * they cut every slice the same way.  Folding stacks the slices along one
 * axis that the stencil does use, so that the construction sees one longer
 * grid of fewer dimensions; seams between stacked slices carry no edges in
 * the real grid, so the real J_sum is at most what the construction aimed
 * at.  auto tries every axis to stack along. */
#include <stdlib.h>
#include <string.h>

#include "construct/order.h"

int smp_fold_zero_axes(const smp_grid *grid, const smp_stencil *st, bool *zero)
{
    int nz = 0;
    for (int i = 0; i < grid->ndims; i++) {
        zero[i] = true;
        for (int k = 0; k < st->count && zero[i]; k++)
            zero[i] = st->offsets[k * st->ndims + i] == 0;
        /* a slice of width 1 is no slice at all: nothing to fold */
        if (zero[i] && grid->dims[i] == 1)
            zero[i] = false;
        nz += zero[i];
    }
    return nz == grid->ndims ? 0 : nz;
}

smp_status smp_place_folded(smp_construct_fn fn, const smp_grid *grid, const smp_stencil *st,
                            const int32_t *cap, int nnodes, int into, int32_t *node_of_rank,
                            smp_error *err)
{
    bool zero[SMP_MAX_DIMS];
    int d = grid->ndims;
    if (smp_fold_zero_axes(grid, st, zero) == 0 || into < 0 || into >= d || zero[into])
        return smp_error_set(err, SMP_ERR_INPUT, "fold: axis %d cannot take the slices", into);
    /* the folded grid: the kept axes in order, axis `into` times the
     * number of slices; the stencil without the folded components */
    int64_t fdims[SMP_MAX_DIMS], nslices = 1;
    bool fper[SMP_MAX_DIMS];
    int map[SMP_MAX_DIMS], fd = 0, finto = 0;
    for (int i = 0; i < d; i++) {
        if (zero[i]) {
            nslices *= grid->dims[i];
            continue;
        }
        if (i == into)
            finto = fd;
        map[fd] = i;
        fper[fd] = grid->periods[i];
        fdims[fd++] = grid->dims[i];
    }
    fdims[finto] *= nslices;
    fper[finto] = false; /* a wrap would join different slices */
    smp_grid fg;
    smp_stencil fst;
    int32_t *foff = malloc(sizeof(int32_t) * (size_t)st->count * (size_t)(fd ? fd : 1));
    int32_t *fnode = malloc(sizeof(int32_t) * (size_t)grid->size);
    if (!foff || !fnode) {
        free(foff);
        free(fnode);
        return smp_error_set(err, SMP_ERR_SYSTEM, "fold: out of memory");
    }
    for (int k = 0; k < st->count; k++)
        for (int j = 0; j < fd; j++)
            foff[k * fd + j] = st->offsets[k * d + map[j]];
    smp_status s = smp_grid_init(&fg, fd, fdims, fper, err);
    if (!s)
        s = smp_stencil_init(&fst, fd, st->count, foff, st->weights, "stencil", err);
    free(foff);
    if (s) {
        free(fnode);
        return s;
    }
    s = fn(&fg, &fst, cap, nnodes, fnode, err);
    smp_stencil_free(&fst);
    if (s) {
        free(fnode);
        return s;
    }
    /* real rank -> folded rank: slice index = row-major index over the
     * folded axes; it offsets the coordinate along `into` */
    int64_t c[SMP_MAX_DIMS] = {0}, fstride[SMP_MAX_DIMS];
    smp_strides(&fg, fstride);
    for (int64_t r = 0; r < grid->size; r++) {
        int64_t slice = 0, fr = 0;
        for (int i = 0; i < d; i++)
            if (zero[i])
                slice = slice * grid->dims[i] + c[i];
        for (int j = 0; j < fd; j++) {
            int64_t x = c[map[j]];
            if (j == finto)
                x += slice * grid->dims[into];
            fr += x * fstride[j];
        }
        node_of_rank[r] = fnode[fr];
        for (int i = d - 1; i >= 0; i--) {
            if (++c[i] < grid->dims[i])
                break;
            c[i] = 0;
        }
    }
    free(fnode);
    return SMP_OK;
}
