/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* auto: every construction (bisect only up to AUTO_BISECT_MAX_RANKS), and
 * for stencils that leave axes out every construction on each folded grid
 * too, then refinement.
 *
 * Refinement starts from the best construction, then tries the next ones
 * in order of their scores while the work budget lasts: a construction
 * that is a little worse can end better once refined (a different shape
 * of the same cost has other local moves).  The placement kept is the best
 * by J_sum (weighted when weighted), then J_max; blocked is first among
 * equals, so a tie keeps the launch Slurm would have made anyway.
 * Candidates are rebuilt rather than stored: constructions are cheap and
 * deterministic, memory for a million ranks is not.
 *
 * With SMP_OBJ_MAX every comparison above is by J_max, then J_sum, and
 * the refinement keeps that order (smp_refine_for): auto's J_max is never
 * above the best J_max of the constructions it tried.  Each candidate is
 * also refined for J_sum first and then for J_max: the J_sum moves reach
 * shapes the J_max moves do not (36 ranks of a 4x3x3 7-point grid on
 * 3 x 16 slots: 34/12 that way, 40/16 by J_max moves alone), so under
 * "max" auto's J_max is no worse than under "sum". */
#include <stdlib.h>
#include <string.h>

#include "algorithms.h"

/* bisect's search is the dearest construction (about 1.5 us per rank in
 * 3-D, where it tries six axis pairs per cut) and it pays off mostly on
 * small grids with awkward node sizes; on large grids strips and
 * hyperplane, refined, come within a few percent of it.  auto runs in
 * srun's critical path, where a 10,000-rank step must be planned in well
 * under 50 ms, so auto leaves bisect out above this many ranks. */
#define AUTO_BISECT_MAX_RANKS 8192

struct cand {
    smp_algorithm alg;
    int fold;
    smp_score sc;
    int seq; /* order tried, the tie-break */
};

/* x before y: the better score, then the one tried first */
static bool cand_before(const struct cand *x, const struct cand *y, bool weighted,
                        smp_objective obj)
{
    if (smp_score_better_for(&x->sc, &y->sc, weighted, obj))
        return true;
    if (smp_score_better_for(&y->sc, &x->sc, weighted, obj))
        return false;
    return x->seq < y->seq;
}

static bool same_score(const smp_score *a, const smp_score *b)
{
    return a->j_sum == b->j_sum && a->j_max == b->j_max && a->w_sum == b->w_sum &&
           a->w_max == b->w_max;
}

smp_status smp_plan_auto(const smp_grid *grid, const smp_stencil *st, const int32_t *cap,
                         const int32_t *dense, int ndense, int nnodes, smp_objective obj,
                         smp_placement *out, smp_error *err)
{
    static const smp_algorithm tries[] = {SMP_ALG_BLOCKED, SMP_ALG_HYPERPLANE, SMP_ALG_STRIPS,
                                          SMP_ALG_KDTREE, SMP_ALG_NODECART, SMP_ALG_BISECT};
    const int ntries = (int)(sizeof(tries) / sizeof(tries[0]));
    bool weighted = smp_stencil_weighted(st);
    size_t bytes = sizeof(int32_t) * (size_t)grid->size;
    bool zero[SMP_MAX_DIMS];
    bool can_fold = smp_fold_zero_axes(grid, st, zero) > 0;
    struct cand cands[(SMP_MAX_DIMS + 1) * (sizeof(tries) / sizeof(tries[0]))];
    int nc = 0;
    int32_t *trial = malloc(bytes);
    if (!trial)
        return smp_error_set(err, SMP_ERR_SYSTEM, "plan: out of memory");
    smp_status s = SMP_OK;
    for (int f = -1; f < (can_fold ? grid->ndims : 0); f++) {
        if (f >= 0 && zero[f])
            continue;
        for (int t = 0; t < ntries; t++) {
            smp_error terr;
            if (tries[t] == SMP_ALG_BISECT && grid->size > AUTO_BISECT_MAX_RANKS)
                continue;
            if (smp_run_construction(tries[t], f, grid, st, cap, dense, ndense, trial, &terr))
                continue; /* not applicable here (nodecart on unequal nodes) */
            struct cand *c = &cands[nc];
            if ((s = smp_score_compute(grid, st, trial, nnodes, &c->sc, err)))
                goto done;
            c->alg = tries[t];
            c->fold = f;
            c->seq = nc++;
            if (nc == 1 || smp_score_better_for(&c->sc, &out->score, weighted, obj)) {
                memcpy(out->node_of_rank, trial, bytes);
                out->score = c->sc;
                out->algorithm = c->alg;
                out->fold_axis = f;
            }
        }
    }
    if (nc == 0) { /* blocked always applies; this is a bug if reached */
        s = smp_error_set(err, SMP_ERR_SYSTEM, "plan: no construction applies");
        goto done;
    }
    out->constructed = out->score;
    if (grid->size < 2)
        goto done;
    for (int i = 1; i < nc; i++) /* insertion sort: a few dozen at most */
        for (int j = i; j > 0 && cand_before(&cands[j], &cands[j - 1], weighted, obj); j--) {
            struct cand tmp = cands[j];
            cands[j] = cands[j - 1];
            cands[j - 1] = tmp;
        }
    int64_t budget = smp_refine_default_budget(grid->size);
    for (int i = 0; i < nc; i++) {
        /* a pass needs at least one look at every rank */
        if (budget < grid->size)
            break;
        bool dup = false;
        for (int j = 0; j < i && !dup; j++)
            dup = same_score(&cands[i].sc, &cands[j].sc);
        if (dup)
            continue; /* most likely the same placement, already refined */
        /* under "max": J_max moves alone, then J_sum moves polished by
         * J_max moves, from the same construction */
        for (int way = 0; way < (obj == SMP_OBJ_MAX ? 2 : 1); way++) {
            if (budget < grid->size)
                break;
            if ((s = smp_run_construction(cands[i].alg, cands[i].fold, grid, st, cap, dense,
                                          ndense, trial, err)))
                goto done;
            smp_refine_stats rs;
            if (way == 1) {
                if ((s = smp_refine_for(grid, st, trial, nnodes, budget, SMP_OBJ_SUM, &rs, err)))
                    goto done;
                budget -= rs.work;
            }
            /* (a budget of 0 would mean the default one: skip instead) */
            if (way == 0 || budget >= grid->size) {
                if ((s = smp_refine_for(grid, st, trial, nnodes, budget, obj, &rs, err)))
                    goto done;
                budget -= rs.work;
            }
            if (smp_score_better_for(&rs.after, &out->score, weighted, obj)) {
                memcpy(out->node_of_rank, trial, bytes);
                out->score = rs.after;
                out->algorithm = cands[i].alg;
                out->fold_axis = cands[i].fold;
                out->constructed = cands[i].sc;
                out->refined = smp_score_better_for(&rs.after, &cands[i].sc, weighted, obj);
            }
        }
    }
done:
    free(trial);
    return s;
}
