/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* auto on the network levels above the nodes: groups (leaf switches,
 * blocks) -> nodes, before the sockets (sockets.c) split each node.  Two
 * ways, chosen by smp_levels_mode:
 *
 * groups first: the grid is planned onto the coarsest level's groups as
 * super-nodes whose capacity is the sum of their nodes' shares, by auto
 * itself (constructions, refinement, annealing, the objective); then each
 * group's ranks are split over its groups of the next level down, and at
 * last over its nodes, with exact shares: bisection inside the group and
 * refinement restricted to the group (as sockets.c does inside nodes),
 * and on small grids annealing restricted to the group as well, so a
 * coarser level's figures never change once planned.
 *
 * nodes first: auto's node plan as without levels, then relabel.c hands
 * its nodes' rank sets to physical nodes of equal share so that few edges
 * cross groups: the node figures stay exactly those of the plan without
 * levels.
 *
 * best (the default): both, and the better by the levelled objective
 * (smp_levels_better: the coarsest level first, each by the objective,
 * then the nodes).  The groups-first plan is relabelled too, which may
 * only lower its group figures; on small grids its coarsest groups are
 * then polished (polish.c) and split again while that lowers them, and
 * the groups the nodes-first plan falls into, polished, are a second
 * start for groups first. */
#include <stdlib.h>
#include <string.h>

#include "improve/improve.h"
#include "levels/groups.h"
#include "levels/plan_levels.h"
#include "plan_auto.h"

/* The coarsest groups planned as super-nodes by auto.  The constructions
 * lay groups out in their order, so where the groups' capacities differ
 * the order matters (where the short group goes); on small grids, where
 * auto anneals and time is cheap, the groups are also tried in reverse,
 * in ascending and descending capacity, and largest and smallest in turn
 * (a short group between two long ones shortens their boundary: paper
 * 001's nearest stencil, 418 ranks in 3-D in groups of 88, 88, 88, 88
 * and 66: group J_max 42 with this order, 44 without), and the best by the
 * objective is kept. */
static int cmp_cap_asc(const void *x, const void *y)
{
    const int32_t *a = x, *b = y; /* (cap, group) pairs */
    return a[0] != b[0] ? (a[0] > b[0]) - (a[0] < b[0]) : (a[1] > b[1]) - (a[1] < b[1]);
}

static smp_status plan_orders(const smp_grid *grid, const smp_stencil *st, const int32_t *gc,
                              const int32_t *gd, int ngd, int ng, smp_objective obj, int effort,
                              smp_placement *gp, smp_error *err)
{
    smp_status s = smp_plan_auto(grid, st, gc, gd, ngd, ng, obj, effort, gp, NULL, err);
    bool unequal = false;
    for (int i = 1; i < ngd; i++)
        unequal = unequal || gc[i] != gc[0];
    if (s || !unequal || !smp_anneal_applies(grid, st))
        return s;
    size_t bytes = sizeof(int32_t) * (size_t)grid->size;
    int32_t *pairs = malloc(sizeof(int32_t) * 2 * (size_t)ngd);
    int32_t *c2 = malloc(sizeof(int32_t) * (size_t)ngd), *d2 = malloc(sizeof(int32_t) * (size_t)ngd);
    smp_placement alt = {.node_of_rank = malloc(bytes ? bytes : 1), .fold_axis = -1};
    if (!pairs || !c2 || !d2 || !alt.node_of_rank)
        s = smp_error_set(err, SMP_ERR_SYSTEM, "levels: out of memory");
    bool weighted = smp_stencil_weighted(st);
    for (int order = 0; order < 4 && !s; order++) {
        for (int i = 0; i < ngd; i++) {
            pairs[2 * i] = gc[i];
            pairs[2 * i + 1] = gd[i];
        }
        if (order > 0)
            qsort(pairs, (size_t)ngd, 2 * sizeof(int32_t), cmp_cap_asc);
        for (int i = 0; i < ngd; i++) { /* reverse: order 0 given, 2 descending */
            int k = order == 1 ? i : ngd - 1 - i;
            if (order == 3) /* largest, smallest, second largest, ... */
                k = i % 2 ? i / 2 : ngd - 1 - i / 2;
            c2[i] = pairs[2 * k];
            d2[i] = pairs[2 * k + 1];
        }
        if ((s = smp_plan_auto(grid, st, c2, d2, ngd, ng, obj, effort, &alt, NULL, err)))
            break;
        if (smp_score_better_for(&alt.score, &gp->score, weighted, obj)) {
            memcpy(gp->node_of_rank, alt.node_of_rank, bytes);
            gp->score = alt.score;
            gp->algorithm = alt.algorithm;
            gp->fold_axis = alt.fold_axis;
            gp->refined = alt.refined;
        }
    }
    free(pairs);
    free(c2);
    free(d2);
    free(alt.node_of_rank);
    return s;
}

/* Keeps cand (a placement on the groups) in gp when it is better. */
static smp_status keep_better(const smp_grid *grid, const smp_stencil *st, const int32_t *cand,
                              int ng, smp_objective obj, smp_algorithm alg, smp_placement *gp,
                              smp_error *err)
{
    smp_score sc;
    smp_status s = smp_score_compute(grid, st, cand, ng, &sc, err);
    if (!s && smp_score_better_for(&sc, &gp->score, smp_stencil_weighted(st), obj)) {
        memcpy(gp->node_of_rank, cand, sizeof(int32_t) * (size_t)grid->size);
        gp->score = sc;
        gp->algorithm = alg;
        gp->fold_axis = -1;
        gp->refined = false;
    }
    return s;
}

/* plan_orders, and where the grid falls apart into slices, whole slices
 * to each group and plan_orders on the slices left over (slices.c), and
 * on small grids the groups packed into the slices (slice_pack.c). */
static smp_status plan_groups(const smp_grid *grid, const smp_stencil *st, const int32_t *gc,
                              const int32_t *gd, int ngd, int ng, smp_objective obj, int effort,
                              smp_placement *gp, smp_error *err)
{
    smp_slices sl;
    smp_status s = plan_orders(grid, st, gc, gd, ngd, ng, obj, effort, gp, err);
    if (s || (s = smp_slices_split(grid, st, gc, ngd, &sl, err)))
        return s;
    size_t bytes = sizeof(int32_t) * (size_t)grid->size;
    int32_t *rc = malloc(sizeof(int32_t) * (size_t)ngd), *rd = malloc(sizeof(int32_t) * (size_t)ngd);
    int32_t *cand = malloc(bytes ? bytes : 1);
    smp_placement sub = {.node_of_rank = malloc(sizeof(int32_t) * (size_t)(sl.sub.size + 1)),
                         .fold_axis = -1};
    if (!rc || !rd || !cand || !sub.node_of_rank)
        s = smp_error_set(err, SMP_ERR_SYSTEM, "levels: out of memory");
    if (!s && sl.applies) {
        int nr = 0;
        for (int i = 0; i < ngd; i++)
            if (sl.rest[i] > 0) {
                rc[nr] = sl.rest[i];
                rd[nr++] = gd[i];
            }
        if (nr > 0)
            s = plan_orders(&sl.sub, st, rc, rd, nr, ng, obj, effort, &sub, err);
        if (!s) {
            smp_slices_merge(grid, &sl, gd, sub.node_of_rank, cand);
            s = keep_better(grid, st, cand, ng, obj, nr > 0 ? sub.algorithm : SMP_ALG_BLOCKED, gp,
                            err);
        }
    }
    for (int way = 0; !s && way < 2 && smp_anneal_applies(grid, st); way++) {
        bool applied;
        s = smp_slices_pack(grid, st, gc, gd, ngd, ng, obj, effort, way, cand, &applied, err);
        if (!s && applied)
            s = keep_better(grid, st, cand, ng, obj, SMP_ALG_AUTO, gp, err);
    }
    free(rc);
    free(rd);
    free(cand);
    free(sub.node_of_rank);
    smp_slices_free(&sl);
    return s;
}

/* Rounds of polishing the coarsest groups (polish.c) after they were
 * split into nodes and relabelled: each round that lowers the group
 * figures is split and relabelled again.  A bound on the time (each round
 * is a polish, a split and a relabelling), on small grids only. */
#define POLISH_ROUNDS 3

/* Groups first: auto on the coarsest groups (or the groups of each rank
 * given in start), then split down the levels and relabelled; then, while
 * it lowers them, the coarsest groups polished and split again.  Fills
 * node_of_rank and, in meta, what the group-level auto reports and the
 * result's node and level figures (the last relabelling scores them). */
static smp_status groups_first(const smp_grid *grid, const smp_stencil *st,
                               const int32_t *capnode, int nnodes, const smp_levels *lv,
                               smp_objective obj, int effort, const int32_t *start,
                               int32_t *node_of_rank, smp_placement *meta, smp_error *err)
{
    int L = lv->nlevels - 1, ng = lv->ngroups[L];
    size_t p = (size_t)grid->size;
    int64_t *gcap = calloc((size_t)ng, sizeof(int64_t));
    int32_t *gc = malloc(sizeof(int32_t) * (size_t)ng), *gd = malloc(sizeof(int32_t) * (size_t)ng);
    int32_t *part = malloc(sizeof(int32_t) * (p ? p : 1));
    int32_t *label = malloc(sizeof(int32_t) * (p ? p : 1));
    smp_status s = SMP_OK;
    if (!gcap || !gc || !gd || !part || !label) {
        s = smp_error_set(err, SMP_ERR_SYSTEM, "levels: out of memory for %zu ranks", p);
        goto done;
    }
    if (start) {
        memcpy(node_of_rank, start, sizeof(int32_t) * p);
    } else {
        for (int n = 0; n < nnodes; n++)
            gcap[lv->group_of_node[L][n]] += capnode[n];
        int ngd = 0;
        for (int g = 0; g < ng; g++)
            if (gcap[g] > 0) {
                gc[ngd] = (int32_t)gcap[g];
                gd[ngd++] = g;
            }
        smp_placement gp = {.node_of_rank = node_of_rank, .fold_axis = -1};
        s = plan_groups(grid, st, gc, gd, ngd, ng, obj, effort, &gp, err);
        meta->algorithm = gp.algorithm;
        meta->fold_axis = gp.fold_axis;
        meta->refined = gp.refined;
    }
    for (int round = 0; !s; round++) {
        for (int l = L - 1; l >= -1 && !s; l--)
            s = smp_split_down(grid, st, capnode, nnodes, lv, l, obj, effort, node_of_rank, part,
                               label, err);
        if (!s)
            s = smp_relabel_levels(grid, st, capnode, nnodes, lv, obj, node_of_rank, &meta->score,
                                   meta->level, err);
        if (s || round + 1 == POLISH_ROUNDS || !smp_anneal_applies(grid, st))
            break;
        /* the coarsest groups as they came out, polished (part: scratch) */
        for (size_t r = 0; r < p; r++)
            part[r] = lv->group_of_node[L][node_of_rank[r]];
        bool improved;
        if ((s = smp_polish_labels(grid, st, part, ng, NULL, obj, effort, &improved, err)) ||
            !improved)
            break;
        memcpy(node_of_rank, part, sizeof(int32_t) * p);
        meta->refined = true;
    }
done:
    free(gcap);
    free(gc);
    free(gd);
    free(part);
    free(label);
    return s;
}

/* Whether the used nodes (dense) all lie in one group of the finest level
 * (so of every level). */
static bool in_one_group(const smp_levels *lv, const int32_t *dense, int ndense)
{
    bool one_group = true;
    for (int i = 1; i < ndense && one_group; i++)
        one_group = lv->group_of_node[0][dense[i]] == lv->group_of_node[0][dense[0]];
    return one_group;
}

/* A copy of pl into keep (NULL: none), keep's own node_of_rank kept. */
static void keep_copy(const smp_placement *pl, int64_t ranks, smp_placement *keep)
{
    if (!keep)
        return;
    int32_t *buf = keep->node_of_rank;
    *keep = *pl;
    keep->node_of_rank = buf;
    memcpy(buf, pl->node_of_rank, sizeof(int32_t) * (size_t)ranks);
}

/* Nodes first: auto's node plan as without levels (a copy in node_only),
 * its node sets handed to physical nodes of equal share (relabel.c),
 * scored again. */
static smp_status nodes_first(const smp_grid *grid, const smp_stencil *st, const int32_t *cap,
                              const int32_t *dense, int ndense, const int32_t *capnode,
                              int nnodes, const smp_levels *lv, smp_objective obj, int effort,
                              smp_placement *out, smp_placement *node_only, smp_auto_built *built,
                              smp_error *err)
{
    smp_status s =
        smp_plan_auto(grid, st, cap, dense, ndense, nnodes, obj, effort, out, built, err);
    if (!s)
        keep_copy(out, grid->size, node_only);
    /* scored again: the same node figures, but j_max_node names a
     * physical node now */
    if (!s)
        s = smp_relabel_levels(grid, st, capnode, nnodes, lv, obj, out->node_of_rank,
                               &out->score, out->level, err);
    return s;
}

/* The coarsest groups the plan node_of_rank falls into, polished, into
 * seed; *seeded when the polish lowered them. */
static smp_status seed_groups(const smp_grid *grid, const smp_stencil *st, const smp_levels *lv,
                              smp_objective obj, int effort, const int32_t *node_of_rank,
                              int32_t *seed, bool *seeded, smp_error *err)
{
    int L = lv->nlevels - 1;
    for (int64_t r = 0; r < grid->size; r++)
        seed[r] = lv->group_of_node[L][node_of_rank[r]];
    return smp_polish_labels(grid, st, seed, lv->ngroups[L], NULL, obj, effort, seeded, err);
}

/* Takes the groups-first candidate g, its ranks' nodes in other, as the
 * plan. */
static void adopt(smp_placement *out, const smp_placement *g, const int32_t *other, size_t bytes)
{
    memcpy(out->node_of_rank, other, bytes);
    out->score = g->score;
    out->constructed = g->score;
    memcpy(out->level, g->level, sizeof(g->level));
    out->algorithm = g->algorithm;
    out->fold_axis = g->fold_axis;
    out->refined = g->refined;
    out->groups_first = true;
}

smp_status smp_plan_levels(const smp_grid *grid, const smp_stencil *st, const int32_t *cap,
                           const int32_t *dense, int ndense, int nnodes, const smp_levels *lv,
                           smp_levels_mode mode, smp_objective obj, int effort,
                           smp_placement *out, smp_placement *node_only, smp_auto_built *built,
                           smp_error *err)
{
    size_t bytes = sizeof(int32_t) * (size_t)grid->size;
    int32_t *capnode = calloc((size_t)nnodes, sizeof(int32_t));
    int32_t *other = NULL, *seed = NULL;
    bool weighted = smp_stencil_weighted(st);
    smp_status s = SMP_OK;
    if (!capnode) {
        s = smp_error_set(err, SMP_ERR_SYSTEM, "levels: out of memory for %d nodes", nnodes);
        goto done;
    }
    for (int i = 0; i < ndense; i++)
        capnode[dense[i]] = cap[i];
    out->nlevels = lv->nlevels;
    out->groups_first = false;
    /* a step whose ranks all land in one group of the finest level (so of
     * every level) plans exactly as without levels */
    if (in_one_group(lv, dense, ndense)) {
        s = smp_plan_auto(grid, st, cap, dense, ndense, nnodes, obj, effort, out, built, err);
        if (!s && mode != SMP_LEVELS_GROUPS_FIRST)
            keep_copy(out, grid->size, node_only);
        if (!s)
            s = smp_levels_score_compute(grid, st, out->node_of_rank, nnodes, lv, out->level, err);
        goto done;
    }
    if (mode != SMP_LEVELS_GROUPS_FIRST) {
        s = nodes_first(grid, st, cap, dense, ndense, capnode, nnodes, lv, obj, effort, out,
                        node_only, built, err);
        if (s || mode == SMP_LEVELS_NODES_FIRST)
            goto done;
    }
    /* best: the groups the plan without levels fell into, polished, are
     * a start of their own for groups first (seed) */
    if (!(other = malloc(bytes ? bytes : 1)) ||
        (mode == SMP_LEVELS_BEST && smp_anneal_applies(grid, st) &&
         !(seed = malloc(bytes ? bytes : 1)))) {
        s = smp_error_set(err, SMP_ERR_SYSTEM, "levels: out of memory");
        goto done;
    }
    bool seeded = false;
    smp_algorithm nf_alg = out->algorithm;
    if (seed &&
        (s = seed_groups(grid, st, lv, obj, effort, out->node_of_rank, seed, &seeded, err)))
        goto done;
    for (int c = 0; c < (seeded ? 2 : 1); c++) {
        smp_placement g = {.fold_axis = -1, .algorithm = nf_alg, .refined = true};
        s = groups_first(grid, st, capnode, nnodes, lv, obj, effort, c ? seed : NULL, other, &g,
                         err);
        if (s)
            goto done;
        if ((mode == SMP_LEVELS_GROUPS_FIRST && c == 0) ||
            smp_levels_better(g.level, &g.score, out->level, &out->score, lv->nlevels, weighted,
                              obj))
            adopt(out, &g, other, bytes);
    }
done:
    free(capnode);
    free(other);
    free(seed);
    return s;
}
