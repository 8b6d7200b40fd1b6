/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Groups packed into the slices of a grid that falls apart into slices
 * (see slices.c), piece by piece: where groups are smaller than a slice,
 * whole slices (slices.c) do not apply, but the seams still pay nothing,
 * and a slice filled by few pieces costs less than the stack of slices
 * cut at every group's boundary.  Scotch's tree-leaf mapping of paper
 * 001's component stencil on 31x7x4 ranks in 8 groups of 112, 112, ...,
 * 84: three slices of two pieces (112 and 105) and one slice taking the
 * 84 and the three 7s left over, group figures 14/88 against 14/96 for
 * auto on the groups.
 *
 * A packing is a list of pieces (group, ranks) per slice that fills every
 * slice exactly and gives every group its share; each slice's pieces are
 * then laid out by auto on the slice alone.  Two ways of packing, slice by
 * slice, the groups taken largest first:
 *   0 (first fit): the largest group (or rest of one) that fits whole,
 *     again while one fits; then the largest of the others split to fill
 *     the slice;
 *   1 (pairs): the largest that fits whole, then the largest of those
 *     that do not fit split to fill the slice; only when none is larger
 *     than the room, the largest that fit whole, and so on: at most one
 *     split per slice, its rests gathered where the small pieces go.
 * The caller keeps the better by the objective. */
#include <stdlib.h>
#include <string.h>

#include "construct/construct.h"
#include "levels/groups.h"
#include "plan_auto.h"

#define PACK_WAYS 2

/* Index of the largest rest with want(rest, room), or -1. */
static int largest(const int64_t *rest, int n, int64_t room, bool fits)
{
    int best = -1;
    for (int i = 0; i < n; i++) {
        if (rest[i] <= 0 || (fits ? rest[i] > room : rest[i] <= room))
            continue;
        if (best < 0 || rest[i] > rest[best])
            best = i;
    }
    return best;
}

/* The pieces of one packing: slice s holds pieces [start[s], start[s+1]),
 * piece k is pgroup[k] (an index into the caps) with pranks[k] ranks. */
static void pack(const int32_t *cap, int ncap, int64_t nslices, int64_t q, int way,
                 int64_t *rest, int64_t *start, int32_t *pgroup, int64_t *pranks)
{
    for (int i = 0; i < ncap; i++)
        rest[i] = cap[i];
    int64_t k = 0;
    for (int64_t s = 0; s < nslices; s++) {
        start[s] = k;
        int64_t room = q;
        bool split_done = false;
        while (room > 0) {
            int i = largest(rest, ncap, room, true);
            bool whole = i >= 0;
            if (way == 1 && whole && k > start[s] && !split_done) {
                /* pairs: after the first piece, split a larger one */
                int j = largest(rest, ncap, room, false);
                if (j >= 0) {
                    i = j;
                    whole = false;
                }
            }
            if (i < 0) {
                i = largest(rest, ncap, room, false);
                whole = false;
            }
            if (i < 0)
                break; /* cannot happen: the shares fill the slices */
            int64_t take = whole ? rest[i] : room;
            split_done = split_done || !whole;
            pgroup[k] = i;
            pranks[k++] = take;
            rest[i] -= take;
            room -= take;
        }
    }
    start[nslices] = k;
}

/* at[sl * q + in]: the real rank at place in (row-major) of slice sl, the
 * slices numbered along the zero axes. */
static void slice_major(const smp_grid *grid, const bool *zero, int64_t q, int32_t *at)
{
    int d = grid->ndims;
    int64_t c[SMP_MAX_DIMS] = {0};
    for (int64_t r = 0; r < grid->size; r++) {
        int64_t sl = 0, in = 0;
        for (int i = 0; i < d; i++) {
            if (zero[i])
                sl = sl * grid->dims[i] + c[i];
            else
                in = in * grid->dims[i] + c[i];
        }
        at[sl * q + in] = (int32_t)r;
        for (int i = d - 1; i >= 0 && ++c[i] == grid->dims[i]; i--)
            c[i] = 0;
    }
}

/* The packing (start, pgroup, pranks) and the scratch of laying out its
 * slices: per piece of one slice its ranks (pc) and node (pd), and the
 * slice's placement (sp). */
struct packing {
    int64_t *start, *pranks;
    int32_t *pgroup, *pc, *pd;
    smp_placement sp;
};

/* Lays out each slice's pieces by auto on the slice alone (a slice of one
 * piece goes whole to its group's node) into node_of_rank. */
static smp_status lay_out_slices(const smp_grid *slice, const smp_stencil *st,
                                 const int32_t *dense, int64_t nslices, const int32_t *at,
                                 int nnodes, smp_objective obj, int effort, struct packing *pk,
                                 int32_t *node_of_rank, smp_error *err)
{
    int64_t q = slice->size;
    smp_status s = SMP_OK;
    for (int64_t sl = 0; sl < nslices && !s; sl++) {
        int np = (int)(pk->start[sl + 1] - pk->start[sl]);
        const int32_t *slice_ranks = at + sl * q;
        if (np == 1) {
            for (int64_t i = 0; i < q; i++)
                node_of_rank[slice_ranks[i]] = dense[pk->pgroup[pk->start[sl]]];
            continue;
        }
        for (int k = 0; k < np; k++) {
            pk->pc[k] = (int32_t)pk->pranks[pk->start[sl] + k];
            pk->pd[k] = dense[pk->pgroup[pk->start[sl] + k]];
        }
        s = smp_plan_auto(slice, st, pk->pc, pk->pd, np, nnodes, obj, effort, &pk->sp, NULL,
                          err);
        for (int64_t i = 0; !s && i < q; i++)
            node_of_rank[slice_ranks[i]] = pk->sp.node_of_rank[i];
    }
    return s;
}

smp_status smp_slices_pack(const smp_grid *grid, const smp_stencil *st, const int32_t *cap,
                           const int32_t *dense, int ncap, int nnodes, smp_objective obj,
                           int effort, int way, int32_t *node_of_rank, bool *applied,
                           smp_error *err)
{
    *applied = false;
    bool zero[SMP_MAX_DIMS];
    if (way < 0 || way >= PACK_WAYS || smp_fold_zero_axes(grid, st, zero) == 0)
        return SMP_OK;
    int d = grid->ndims;
    int64_t nslices = 1;
    for (int i = 0; i < d; i++)
        if (zero[i])
            nslices *= grid->dims[i];
    int64_t q = grid->size / nslices, p = grid->size;
    smp_grid slice = *grid; /* one slice alone */
    for (int i = 0; i < d; i++)
        if (zero[i])
            slice.dims[i] = 1;
    slice.size = q;
    int64_t maxp = ncap + nslices;
    int64_t *rest = malloc(sizeof(int64_t) * (size_t)ncap);
    struct packing pk = {
        .start = malloc(sizeof(int64_t) * (size_t)(nslices + 1)),
        .pgroup = malloc(sizeof(int32_t) * (size_t)maxp),
        .pranks = malloc(sizeof(int64_t) * (size_t)maxp),
        .pc = malloc(sizeof(int32_t) * (size_t)maxp),
        .pd = malloc(sizeof(int32_t) * (size_t)maxp),
        .sp = {.node_of_rank = malloc(sizeof(int32_t) * (size_t)(q ? q : 1)), .fold_axis = -1}};
    int32_t *at = malloc(sizeof(int32_t) * (size_t)(p ? p : 1)); /* slice-major: the real rank */
    smp_status s = SMP_OK;
    if (!rest || !pk.start || !pk.pgroup || !pk.pranks || !pk.pc || !pk.pd || !at ||
        !pk.sp.node_of_rank) {
        s = smp_error_set(err, SMP_ERR_SYSTEM, "levels: out of memory for %lld slices",
                          (long long)nslices);
        goto done;
    }
    pack(cap, ncap, nslices, q, way, rest, pk.start, pk.pgroup, pk.pranks);
    for (int i = 0; i < ncap; i++)
        if (rest[i] != 0)
            goto done; /* the caps do not fill the slices: not for this grid */
    slice_major(grid, zero, q, at);
    s = lay_out_slices(&slice, st, dense, nslices, at, nnodes, obj, effort, &pk, node_of_rank,
                       err);
    *applied = !s;
done:
    free(rest);
    free(pk.start);
    free(pk.pgroup);
    free(pk.pranks);
    free(pk.pc);
    free(pk.pd);
    free(at);
    free(pk.sp.node_of_rank);
    return s;
}
