/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Polishing a partition of the ranks into the groups of one level (leaf
 * switches, blocks) for the objective, as auto polishes its nodes:
 * refinement, and on small grids annealing.
 *
 * Why it is needed beside auto on the groups: auto plans the groups as
 * super-nodes and refines its constructions, but relabel.c then trades
 * whole nodes between groups, and a partition made so (or the one the
 * plan without levels falls into) is often far from a local optimum of
 * the group objective: on paper 001's component stencil, 16 nodes of 25
 * in groups of 4, the groups-first plan's groups (J_max, J_sum) 15/46
 * refine to 9/36 (Scotch's tree-leaf: 14/48).
 *
 * Two refinements from the input, for the objective alone and (under
 * "max") for J_sum first, then J_max: the J_sum moves reach shapes the
 * J_max moves do not, as in plan_auto.c.  The better goes on to annealing
 * on small grids (a round per unit of effort), then refinement again.
 * The labels are rewritten only when the result is better by the
 * objective, so a polish never loses. */
#include <stdlib.h>
#include <string.h>

#include "improve/improve.h"

static bool better(const smp_score *a, const smp_score *b, bool weighted, smp_objective obj)
{
    return smp_score_better_for(a, b, weighted, obj);
}

smp_status smp_polish_labels(const smp_grid *grid, const smp_stencil *st, int32_t *label,
                             int nlabels, const int32_t *parent, smp_objective obj, int effort,
                             bool *improved, smp_error *err)
{
    *improved = false;
    size_t bytes = sizeof(int32_t) * (size_t)grid->size;
    bool weighted = smp_stencil_weighted(st);
    int32_t *a = malloc(bytes ? bytes : 1), *b = malloc(bytes ? bytes : 1);
    smp_score in, sa, sb;
    smp_refine_stats rs;
    smp_status s = SMP_OK;
    if (!a || !b) {
        s = smp_error_set(err, SMP_ERR_SYSTEM, "levels: out of memory for %lld ranks",
                          (long long)grid->size);
        goto done;
    }
    if ((s = smp_score_compute(grid, st, label, nlabels, &in, err)))
        goto done;
    /* a: refined by the objective */
    memcpy(a, label, bytes);
    if ((s = smp_refine_within_for(grid, st, a, nlabels, parent, 0, obj, &rs, err)))
        goto done;
    sa = rs.after;
    if (obj == SMP_OBJ_MAX) { /* b: by J_sum, then by J_max */
        memcpy(b, label, bytes);
        if ((s = smp_refine_within_for(grid, st, b, nlabels, parent, 0, SMP_OBJ_SUM, &rs, err)) ||
            (s = smp_refine_within_for(grid, st, b, nlabels, parent, 0, obj, &rs, err)))
            goto done;
        sb = rs.after;
        if (better(&sb, &sa, weighted, obj)) {
            int32_t *t = a;
            a = b;
            b = t;
            sa = sb;
        }
    }
    if (smp_anneal_applies(grid, st)) {
        bool moved = false;
        for (int r = 0; r < effort; r++) {
            smp_anneal_stats as;
            if ((s = smp_anneal_within(grid, st, a, nlabels, parent, 0, obj, (uint32_t)r, &as,
                                       err)))
                goto done;
            moved = moved || better(&as.after, &as.before, weighted, obj);
            if (better(&as.after, &sa, weighted, obj))
                sa = as.after;
        }
        if (moved) {
            if ((s = smp_refine_within_for(grid, st, a, nlabels, parent, 0, obj, &rs, err)))
                goto done;
            sa = rs.after;
        }
    }
    if (better(&sa, &in, weighted, obj)) {
        memcpy(label, a, bytes);
        *improved = true;
    }
done:
    free(a);
    free(b);
    return s;
}
