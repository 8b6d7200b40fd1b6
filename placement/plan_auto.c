/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* auto: every construction the table in constructions.c offers it (bisect
 * only on small grids), and for stencils that leave axes out every
 * construction on each folded grid too, then refinement, then on grids
 * where it applies annealing (anneal.c), as long as the effort says.
 *
 * Refinement starts from the best construction, then tries the next ones
 * in order of their scores while the work budget lasts: a construction
 * that is a little worse can end better once refined (a different shape
 * of the same cost has other local moves).  The placement kept is the best
 * by J_sum (weighted when weighted), then J_max; blocked is first among
 * equals, so a tie keeps the launch Slurm would have made anyway.
 * Candidates are rebuilt rather than stored: constructions are cheap and
 * deterministic, memory for a million ranks is not.  The one being refined
 * both ways below is kept in between, up to AUTO_KEEP_MAX_RANKS: on larger
 * grids the first way spends most of the budget, the second seldom runs,
 * and the copy would only add to the peak memory.
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

#include "construct/construct.h"
#include "improve/improve.h"
#include "plan_auto.h"

#define AUTO_KEEP_MAX_RANKS (1 << 18) /* a 1 MiB copy */

struct cand {
    smp_algorithm alg;
    int fold;
    smp_score sc;
    int seq; /* order tried, the tie-break */
};

/* One auto run: its inputs, the candidates found, the work arrays. */
struct auto_run {
    const smp_grid *grid;
    const smp_stencil *st;
    const int32_t *cap, *dense;
    int ndense, nnodes;
    smp_objective obj;
    int effort;
    bool weighted;
    size_t bytes;
    int32_t *trial; /* the placement being built or refined */
    int32_t *built; /* under "max", on grids up to AUTO_KEEP_MAX_RANKS: the
                     * candidate's construction, for its second refinement */
    int32_t *sum_best; /* under "max", where annealing applies: the best
                        * placement by J_sum that refinement reached... */
    smp_score sum_best_score; /* ...and its score (j_sum < 0: none yet) */
    smp_auto_built *noted; /* the unfolded constructions' scores, or NULL */
    struct cand cands[(SMP_MAX_DIMS + 1) * SMP_ALG_COUNT];
    int nc;
    int64_t budget;
    smp_placement *out;
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

/* Builds and scores every construction auto tries on the grid folded
 * along f (< 0: as it is); the best so far goes to out. */
static smp_status construct_on(struct auto_run *a, int f, smp_error *err)
{
    const smp_algorithm *algs;
    int nalgs = smp_auto_constructions(&algs);
    for (int t = 0; t < nalgs; t++) {
        smp_error terr;
        if (!smp_auto_tries(algs[t], a->grid->size))
            continue;
        if (smp_run_construction(algs[t], f, a->grid, a->st, a->cap, a->dense, a->ndense,
                                 a->trial, &terr))
            continue; /* not applicable here (nodecart on unequal nodes) */
        struct cand *c = &a->cands[a->nc];
        smp_status s = smp_score_compute(a->grid, a->st, a->trial, a->nnodes, &c->sc, err);
        if (s)
            return s;
        c->alg = algs[t];
        c->fold = f;
        c->seq = a->nc++;
        if (f < 0 && a->noted) {
            a->noted->have[c->alg] = true;
            a->noted->score[c->alg] = c->sc;
        }
        if (a->nc == 1 || smp_score_better_for(&c->sc, &a->out->score, a->weighted, a->obj)) {
            memcpy(a->out->node_of_rank, a->trial, a->bytes);
            a->out->score = c->sc;
            a->out->algorithm = c->alg;
            a->out->fold_axis = f;
        }
    }
    return SMP_OK;
}

static smp_status construct_all(struct auto_run *a, smp_error *err)
{
    bool zero[SMP_MAX_DIMS];
    bool can_fold = smp_fold_zero_axes(a->grid, a->st, zero) > 0;
    for (int f = -1; f < (can_fold ? a->grid->ndims : 0); f++) {
        if (f >= 0 && zero[f])
            continue;
        smp_status s = construct_on(a, f, err);
        if (s)
            return s;
    }
    if (a->nc == 0) /* blocked always applies; this is a bug if reached */
        return smp_error_set(err, SMP_ERR_SYSTEM, "plan: no construction applies");
    a->out->constructed = a->out->score;
    return SMP_OK;
}

static void sort_cands(struct auto_run *a)
{
    for (int i = 1; i < a->nc; i++) /* insertion sort: a few dozen at most */
        for (int j = i; j > 0 && cand_before(&a->cands[j], &a->cands[j - 1], a->weighted, a->obj);
             j--) {
            struct cand tmp = a->cands[j];
            a->cands[j] = a->cands[j - 1];
            a->cands[j - 1] = tmp;
        }
}

/* Refines trial, whose score is *known, for obj within the budget left. */
static smp_status refine_step(struct auto_run *a, smp_objective obj, const smp_score *known,
                              smp_refine_stats *rs, smp_error *err)
{
    smp_status s = smp_refine_known(a->grid, a->st, a->trial, a->nnodes, a->budget, obj, known,
                                    rs, err);
    if (!s)
        a->budget -= rs->work;
    return s;
}

/* Refines candidate c one way (way 0: by the objective alone; way 1, under
 * "max" only: J_sum moves polished by J_max moves) and keeps the result
 * when it beats out. */
static smp_status refine_way(struct auto_run *a, const struct cand *c, int way, smp_error *err)
{
    smp_status s;
    if (way == 1 && a->built) {
        memcpy(a->trial, a->built, a->bytes);
    } else {
        s = smp_run_construction(c->alg, c->fold, a->grid, a->st, a->cap, a->dense, a->ndense,
                                 a->trial, err);
        if (s)
            return s;
        if (a->built)
            memcpy(a->built, a->trial, a->bytes);
    }
    smp_refine_stats rs = {.after = c->sc};
    if (way == 1 && (s = refine_step(a, SMP_OBJ_SUM, &c->sc, &rs, err)))
        return s;
    smp_score now = rs.after;
    if (way == 1 && a->sum_best &&
        (a->sum_best_score.j_sum < 0 ||
         smp_score_better_for(&now, &a->sum_best_score, a->weighted, SMP_OBJ_SUM))) {
        memcpy(a->sum_best, a->trial, a->bytes);
        a->sum_best_score = now;
    }
    /* (a budget of 0 would mean the default one: skip instead) */
    if ((way == 0 || a->budget >= a->grid->size) && (s = refine_step(a, a->obj, &now, &rs, err)))
        return s;
    if (smp_score_better_for(&rs.after, &a->out->score, a->weighted, a->obj)) {
        memcpy(a->out->node_of_rank, a->trial, a->bytes);
        a->out->score = rs.after;
        a->out->algorithm = c->alg;
        a->out->fold_axis = c->fold;
        a->out->constructed = c->sc;
        a->out->refined = smp_score_better_for(&rs.after, &c->sc, a->weighted, a->obj);
    }
    return SMP_OK;
}

static smp_status refine_all(struct auto_run *a, smp_error *err)
{
    a->budget = smp_refine_default_budget(a->grid->size);
    int ways = a->obj == SMP_OBJ_MAX ? 2 : 1;
    for (int i = 0; i < a->nc; i++) {
        /* a pass needs at least one look at every rank */
        if (a->budget < a->grid->size)
            break;
        bool dup = false;
        for (int j = 0; j < i && !dup; j++)
            dup = same_score(&a->cands[i].sc, &a->cands[j].sc);
        if (dup)
            continue; /* most likely the same placement, already refined */
        for (int way = 0; way < ways && a->budget >= a->grid->size; way++) {
            smp_status s = refine_way(a, &a->cands[i], way, err);
            if (s)
                return s;
        }
    }
    return SMP_OK;
}

/* Anneals trial (holding a placement) for aobj, one round of the default
 * budget per unit of effort, each from the last one's result (so more
 * effort never ends the annealing worse); refines the result for J_max
 * under "max", and keeps it when it beats out by the objective. */
static smp_status anneal_one(struct auto_run *a, smp_objective aobj, smp_error *err)
{
    smp_score before = {0}, now = {0};
    for (int r = 0; r < a->effort; r++) {
        smp_anneal_stats as;
        smp_status s = smp_anneal(a->grid, a->st, a->trial, a->nnodes, 0, aobj, (uint32_t)r, &as,
                                  err);
        if (s)
            return s;
        if (r == 0)
            before = as.before;
        now = as.after;
    }
    if (same_score(&now, &before))
        return SMP_OK;
    if (a->obj == SMP_OBJ_MAX) {
        smp_refine_stats rs;
        smp_status s =
            smp_refine_known(a->grid, a->st, a->trial, a->nnodes, 0, SMP_OBJ_MAX, &now, &rs, err);
        if (s)
            return s;
        now = rs.after;
    }
    if (smp_score_better_for(&now, &a->out->score, a->weighted, a->obj)) {
        memcpy(a->out->node_of_rank, a->trial, a->bytes);
        a->out->score = now;
        a->out->refined = true;
    }
    return SMP_OK;
}

/* On small grids, annealing after refinement (anneal.c).  Under "max" the
 * best placement by J_sum is annealed for J_sum first (then refined for
 * J_max: a low J_sum often comes with a low J_max), then the best by
 * J_max for J_sum without raising its J_max. */
static smp_status anneal_best(struct auto_run *a, smp_error *err)
{
    if (!smp_anneal_applies(a->grid, a->st))
        return SMP_OK;
    smp_status s = SMP_OK;
    if (a->sum_best && a->sum_best_score.j_sum >= 0) {
        memcpy(a->trial, a->sum_best, a->bytes);
        s = anneal_one(a, SMP_OBJ_SUM, err);
    }
    if (!s) {
        memcpy(a->trial, a->out->node_of_rank, a->bytes);
        s = anneal_one(a, a->obj, err);
    }
    return s;
}

smp_status smp_plan_auto(const smp_grid *grid, const smp_stencil *st, const int32_t *cap,
                         const int32_t *dense, int ndense, int nnodes, smp_objective obj,
                         int effort, smp_placement *out, smp_auto_built *built,
                         smp_error *err)
{
    struct auto_run *a = calloc(1, sizeof(*a));
    if (!a)
        return smp_error_set(err, SMP_ERR_SYSTEM, "plan: out of memory");
    *a = (struct auto_run){.grid = grid, .st = st, .cap = cap, .dense = dense, .ndense = ndense,
                           .nnodes = nnodes, .obj = obj, .effort = effort,
                           .weighted = smp_stencil_weighted(st),
                           .bytes = sizeof(int32_t) * (size_t)grid->size, .out = out,
                           .noted = built};
    if (built)
        memset(built, 0, sizeof(*built));
    a->trial = malloc(a->bytes);
    bool keep = obj == SMP_OBJ_MAX && grid->size >= 2 && grid->size <= AUTO_KEEP_MAX_RANKS;
    if (keep)
        a->built = malloc(a->bytes);
    bool sum_best = obj == SMP_OBJ_MAX && smp_anneal_applies(grid, st);
    if (sum_best)
        a->sum_best = malloc(a->bytes);
    a->sum_best_score.j_sum = -1;
    smp_status s;
    if (!a->trial || (keep && !a->built) || (sum_best && !a->sum_best))
        s = smp_error_set(err, SMP_ERR_SYSTEM, "plan: out of memory");
    else if (!(s = construct_all(a, err)) && grid->size >= 2) {
        sort_cands(a);
        if (!(s = refine_all(a, err)))
            s = anneal_best(a, err);
    }
    free(a->trial);
    free(a->built);
    free(a->sum_best);
    free(a);
    return s;
}

smp_status smp_auto_node_order(const smp_grid *grid, const smp_stencil *st, const int32_t *cap,
                               const int32_t *dense, int ndense, int nnodes, smp_objective obj,
                               int way, int32_t *node_of_rank, smp_error *err)
{
    if (way < 0 || way >= SMP_NODE_ORDER_COUNT)
        return smp_error_set(err, SMP_ERR_INPUT, "node order: way %d unknown", way);
    return smp_relabel_node_order(grid, st, cap, dense, ndense, nnodes, obj,
                                  (smp_node_order)way, node_of_rank, err);
}

/* One construction, scored; a single construction is placed as without
 * levels (blocked stays what Slurm launches), and scored on them. */
smp_status smp_plan_one(const smp_grid *grid, const smp_stencil *st, smp_algorithm alg,
                        const int32_t *cap, const int32_t *dense, int ndense, int nnodes,
                        const smp_levels *lv, smp_placement *out, smp_error *err)
{
    smp_status s =
        smp_run_construction(alg, -1, grid, st, cap, dense, ndense, out->node_of_rank, err);
    if (!s)
        s = smp_score_compute(grid, st, out->node_of_rank, nnodes, &out->score, err);
    out->constructed = out->score;
    out->algorithm = alg;
    if (!s && lv) {
        out->nlevels = lv->nlevels;
        s = smp_levels_score_compute(grid, st, out->node_of_rank, nnodes, lv, out->level, err);
    }
    return s;
}
