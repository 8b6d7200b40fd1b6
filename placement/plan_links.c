/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* auto by the busiest link: given the links above the levels, auto
 * chooses among all its candidates (nodes first, groups first, the
 * node-only plan, each construction alone) by the busiest link's load,
 * L_max: the halo exchange's time follows it at scale (doc/benchmarks.md,
 * "At scale"), not J_max nor the groups' figures. */
#include <stdlib.h>
#include <string.h>

#include "construct/construct.h"
#include "levels/plan_levels.h"
#include "network/network.h"
#include "plan_auto.h"
#include "plan_links.h"

/* -1, 0, 1: x below, level with (to rounding), above y */
static int cmp_load(double x, double y)
{
    double eps = 1e-9 * (x > y ? x : y);
    return x < y - eps ? -1 : x > y + eps ? 1 : 0;
}

/* a better than b on the links: lower L_max, then lower load on the
 * busiest link above the nodes (where the node links bind, the bench's
 * tapered tree ran 8 % faster with the lighter uplinks), then J_max,
 * then J_sum (weighted when weighted). */
static bool links_better(const smp_placement *a, const smp_placement *b, bool weighted)
{
    int c = cmp_load(a->link.l_max, b->link.l_max);
    if (!c)
        c = cmp_load(a->link.up_max, b->link.up_max);
    if (c)
        return c < 0;
    return smp_score_better_for(&a->score, &b->score, weighted, SMP_OBJ_MAX);
}

/* What every candidate of auto by the links shares; node_only: candidate
 * 0's auto plan before the relabelling (ranks 0 until it is held), which
 * is candidate 2; node_only_link: its links' score, once scored. */
struct by_links {
    const smp_grid *grid;
    const smp_stencil *st;
    const int32_t *cap, *dense;
    int ndense, nnodes, effort;
    const smp_plan_opts *opts;
    smp_placement node_only;
    smp_auto_built built; /* the node plan's constructions, scored */
    smp_link_score node_only_link;
    bool node_only_scored;
    smp_quotient q;  /* node_only's node graph, once built (has_q) */
    bool has_q;
    int32_t *phys;   /* nnodes: a placement's node of node_only's node u */
    uint8_t *taken;  /* nnodes: scratch for relabelling_of */
};

/* Whether x is node_only with its nodes renamed (every node's ranks all
 * on one node of x, no two on the same), the renaming into b->phys. */
static bool relabelling_of(struct by_links *b, const int32_t *x)
{
    const int32_t *from = b->node_only.node_of_rank;
    for (int u = 0; u < b->nnodes; u++) {
        b->phys[u] = -1;
        b->taken[u] = 0;
    }
    for (int64_t r = 0; r < b->grid->size; r++) {
        int32_t u = from[r];
        if (b->phys[u] < 0) {
            if (b->taken[x[r]])
                return false;
            b->phys[u] = x[r];
            b->taken[x[r]] = 1;
        } else if (b->phys[u] != x[r]) {
            return false;
        }
    }
    for (int u = 0; u < b->nnodes; u++) /* nodes without ranks send nothing */
        if (b->phys[u] < 0)
            b->phys[u] = u;
    return true;
}

/* node_of_rank scored on the links into *out.  Nodes first, the node-only
 * plan and the swapped winner are mostly node_only with its nodes renamed:
 * then, without weights and under static or adaptive routing, the score
 * comes exactly off node_only's node graph (built once, a walk's cost)
 * with no walk of its own (smp_link_score_quotient). */
static smp_status link_score(struct by_links *b, const int32_t *node_of_rank,
                             smp_link_score *out, smp_error *err)
{
    const smp_links *lk = b->opts->links;
    bool graph = !b->st->weights && lk->routing != SMP_ROUTING_DIRECT &&
                 b->node_only.ranks == b->grid->size && b->phys && b->taken;
    smp_status s = SMP_OK;
    if (graph && !b->has_q) {
        s = smp_quotient_build(b->grid, b->st, b->node_only.node_of_rank, b->nnodes, &b->q, err);
        b->has_q = !s;
    }
    if (s)
        return s;
    if (graph && relabelling_of(b, node_of_rank))
        return smp_link_score_quotient(&b->q, b->phys, b->opts->levels, lk, out, err);
    return smp_link_score_compute(b->grid, b->st, node_of_rank, b->nnodes, b->opts->levels, lk,
                                  out, err);
}

/* Whether c, scored on the nodes, is sure to load its busiest link above
 * out's L_max (to rounding): without weights a node's link out carries
 * exactly its cut edges (link_load.c), so L_max >= J_max. */
static bool above_by_nodes(const smp_placement *c, const smp_placement *out, const smp_stencil *st)
{
    return !st->weights && cmp_load((double)c->score.j_max, out->link.l_max) > 0;
}

/* Candidate k into out (its node_of_rank allocated): 0 nodes first (the
 * node plan's figures kept), 1 groups first, 2 the node-only plan, then
 * each construction auto tries, alone (SMP_ERR_INFEASIBLE, no message:
 * one auto skips on this grid).  From 2 on, level[] is left unscored:
 * only the winner's is (plan_by_links). */
static smp_status candidate(struct by_links *b, int k, smp_placement *out, smp_error *err)
{
    const smp_levels *lv = b->opts->levels;
    smp_objective obj = b->opts->objective;
    if (k < 2)
        return smp_plan_levels(b->grid, b->st, b->cap, b->dense, b->ndense, b->nnodes, lv,
                               k == 0 ? SMP_LEVELS_NODES_FIRST : SMP_LEVELS_GROUPS_FIRST, obj,
                               b->effort, out, k == 0 ? &b->node_only : NULL,
                               k == 0 ? &b->built : NULL, err);
    if (k == 2 && b->node_only.ranks == b->grid->size) {
        int32_t *buf = out->node_of_rank;
        *out = b->node_only;
        out->node_of_rank = buf;
        memcpy(buf, b->node_only.node_of_rank, sizeof(int32_t) * (size_t)b->grid->size);
        return SMP_OK;
    }
    if (k == 2) {
        out->nlevels = lv->nlevels;
        return smp_plan_auto(b->grid, b->st, b->cap, b->dense, b->ndense, b->nnodes, obj,
                             b->effort, out, &b->built, err);
    }
    const smp_algorithm *algs;
    int n = smp_auto_constructions(&algs);
    if (k - 3 >= n || !smp_auto_tries(algs[k - 3], b->grid->size))
        return SMP_ERR_INFEASIBLE;
    smp_algorithm alg = algs[k - 3];
    if (!b->built.have[alg])
        return smp_plan_one(b->grid, b->st, alg, b->cap, b->dense, b->ndense, b->nnodes, NULL,
                            out, err);
    /* smp_plan_one, its score known from auto's run on the same shares */
    out->score = out->constructed = b->built.score[alg];
    out->algorithm = alg;
    return smp_run_construction(alg, -1, b->grid, b->st, b->cap, b->dense, b->ndense,
                                out->node_of_rank, err);
}

/* Whether candidate k (>= 3) is a construction whose figures, known from
 * auto's run, put it above out's L_max already: not built at all. */
static bool known_above(const struct by_links *b, int k, const smp_placement *out)
{
    const smp_algorithm *algs;
    int n = smp_auto_constructions(&algs);
    if (k < 3 || k - 3 >= n || !b->built.have[algs[k - 3]])
        return false;
    smp_placement known = {.score = b->built.score[algs[k - 3]]};
    return above_by_nodes(&known, out, b->st);
}

/* Candidate k planned into c (its node_of_rank allocated, the rest
 * cleared) and scored on the links; *skip when it cannot be kept: a
 * construction that does not apply, the very placement of out (the same
 * figures are not better), or one whose node links alone load more than
 * out's busiest link. */
static smp_status plan_scored(struct by_links *b, int k, smp_placement *c,
                              const smp_placement *out, bool *skip, smp_error *err)
{
    int32_t *keep = c->node_of_rank;
    memset(c, 0, sizeof(*c));
    c->node_of_rank = keep;
    c->fold_axis = -1;
    c->ranks = b->grid->size;
    c->nnodes = b->nnodes;
    if (k >= 3 && known_above(b, k, out)) {
        *skip = true;
        return SMP_OK;
    }
    smp_error cerr;
    smp_status s = candidate(b, k, c, k >= 3 ? &cerr : err);
    *skip = s && k >= 3; /* a construction auto does not try, or that does not apply */
    if (s)
        return *skip ? SMP_OK : s;
    size_t bytes = sizeof(int32_t) * (size_t)b->grid->size;
    *skip = k > 0 && (above_by_nodes(c, out, b->st) ||
                      !memcmp(c->node_of_rank, out->node_of_rank, bytes));
    if (*skip)
        return SMP_OK;
    /* auto's plan is often one construction's alone: the same placement,
     * the same score, without a walk over every edge */
    if (k >= 3 && b->node_only_scored &&
        !memcmp(c->node_of_rank, b->node_only.node_of_rank, bytes)) {
        c->link = b->node_only_link;
        return SMP_OK;
    }
    s = link_score(b, c->node_of_rank, &c->link, err);
    if (!s && k == 2 && b->node_only.ranks == b->grid->size) { /* candidate 2 is node_only */
        b->node_only_link = c->link;
        b->node_only_scored = true;
    }
    return s;
}

/* The winner's blocks exchanged between nodes to spread static routing's
 * busiest links (network/block_swaps.c), when its L_max leaves room above
 * the bound; *swapped when a swap was kept.  Its J figures are carried
 * over by the swaps (they keep their values, not the node that attains
 * J_max) and its links rescored, so what is printed is exact; its level[]
 * is left to plan_by_links, which scores it once. */
static smp_status swap_blocks(struct by_links *b, smp_placement *out, bool *swapped,
                              smp_error *err)
{
    const smp_links *lk = b->opts->links;
    *swapped = false;
    if (lk->routing != SMP_ROUTING_STATIC || cmp_load(out->link.l_max, out->link.bound) <= 0)
        return SMP_OK;
    smp_swap_stats st;
    const smp_levels *lv = b->opts->levels;
    smp_status s = smp_swap_blocks(b->grid, b->st, out->node_of_rank, b->nnodes, lv, lk,
                                   b->effort, &out->score, &st, err);
    if (s || !st.swaps)
        return s;
    *swapped = true;
    return link_score(b, out->node_of_rank, &out->link, err);
}

/* every candidate planned and scored on the links, the best
 * (links_better) kept in out, its blocks swapped, its level[] scored. */
static smp_status plan_by_links(struct by_links *b, smp_placement *out, smp_error *err)
{
    const smp_algorithm *algs;
    int last = 3 + smp_auto_constructions(&algs), best = 0;
    bool weighted = smp_stencil_weighted(b->st);
    size_t bytes = sizeof(int32_t) * (size_t)b->grid->size;
    smp_placement c = {.node_of_rank = malloc(bytes)};
    b->node_only = (smp_placement){.node_of_rank = malloc(bytes)};
    b->phys = malloc(sizeof(int32_t) * (size_t)b->nnodes);
    b->taken = malloc((size_t)b->nnodes);
    smp_status s = SMP_OK;
    if (!c.node_of_rank || !b->node_only.node_of_rank || !b->phys || !b->taken)
        s = smp_error_set(err, SMP_ERR_SYSTEM, "plan: out of memory");
    for (int k = 0; k < last && !s; k++) {
        bool skip;
        s = plan_scored(b, k, &c, out, &skip, err);
        if (!s && !skip && (k == 0 || links_better(&c, out, weighted))) {
            smp_placement t = *out;
            *out = c;
            c = t;
            best = k;
        }
    }
    bool swapped = false;
    if (!s)
        s = swap_blocks(b, out, &swapped, err);
    /* level[] scored once, on the placement kept: candidates from 2 on
     * leave it unscored, and swaps across groups move the groups' cut */
    if (!s && (best >= 2 || swapped)) {
        out->nlevels = b->opts->levels->nlevels;
        s = smp_levels_score_compute(b->grid, b->st, out->node_of_rank, b->nnodes,
                                     b->opts->levels, out->level, err);
    }
    smp_placement_free(&c);
    smp_placement_free(&b->node_only);
    if (b->has_q)
        smp_quotient_free(&b->q);
    free(b->phys);
    free(b->taken);
    out->by_links = true;
    return s;
}

smp_status smp_plan_by_links(const smp_grid *grid, const smp_stencil *st, const int32_t *cap,
                             const int32_t *dense, int ndense, int nnodes, int effort,
                             const smp_plan_opts *opts, smp_placement *out, smp_error *err)
{
    struct by_links b = {.grid = grid, .st = st, .cap = cap, .dense = dense, .ndense = ndense,
                         .nnodes = nnodes, .effort = effort, .opts = opts};
    return plan_by_links(&b, out, err);
}
