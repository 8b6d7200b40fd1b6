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
 * only lower its group figures. */
#include <stdlib.h>
#include <string.h>

#include "levels_internal.h"

/* Splits the ranks of each group of level l + 1 (cur[r], a group of level
 * l + 1) over its units of level l (l < 0: its nodes), exact shares. */
static smp_status split_down(const smp_grid *grid, const smp_stencil *st, const int32_t *capnode,
                             int nnodes, const smp_levels *lv, int l, smp_objective obj, int effort,
                             int32_t *cur, int32_t *part, int32_t *label, smp_error *err)
{
    int npar = lv->ngroups[l + 1], nunits = l >= 0 ? lv->ngroups[l] : nnodes;
    const int32_t *up = lv->group_of_node[l + 1];
    int64_t *ucap = calloc((size_t)nunits, sizeof(int64_t));
    int64_t *pcap = calloc((size_t)npar, sizeof(int64_t));
    int32_t *upar = malloc(sizeof(int32_t) * (size_t)nunits);
    int32_t *pidx = malloc(sizeof(int32_t) * (size_t)npar);
    int32_t *first = calloc((size_t)npar + 2, sizeof(int32_t));
    int32_t *ccap = malloc(sizeof(int32_t) * (size_t)nunits);
    int32_t *cunit = malloc(sizeof(int32_t) * (size_t)nunits);
    int32_t *cpar = malloc(sizeof(int32_t) * (size_t)nunits);
    smp_status s = SMP_OK;
    if (!ucap || !pcap || !upar || !pidx || !first || !ccap || !cunit || !cpar) {
        s = smp_error_set(err, SMP_ERR_SYSTEM, "levels: out of memory");
        goto done;
    }
    for (int n = 0; n < nnodes; n++) {
        int32_t u = l >= 0 ? lv->group_of_node[l][n] : n;
        ucap[u] += capnode[n];
        pcap[up[n]] += capnode[n];
        upar[u] = up[n];
    }
    /* the parents that hold ranks, densely; their units that get ranks
     * listed parent by parent: parent q's are [first[q], first[q + 1]) */
    int nparts = 0;
    for (int g = 0; g < npar; g++)
        pidx[g] = pcap[g] > 0 ? nparts++ : -1;
    for (int u = 0; u < nunits; u++)
        if (ucap[u] > 0)
            first[pidx[upar[u]] + 2]++;
    for (int q = 0; q < nparts; q++)
        first[q + 2] += first[q + 1];
    for (int u = 0; u < nunits; u++)
        if (ucap[u] > 0) {
            int32_t k = first[pidx[upar[u]] + 1]++;
            ccap[k] = (int32_t)ucap[u];
            cunit[k] = u;
            cpar[k] = pidx[upar[u]];
        }
    int nchild = first[nparts];
    for (int64_t r = 0; r < grid->size; r++)
        part[r] = pidx[cur[r]];
    s = smp_bisect_within(grid, st, ccap, nchild, part, first, nparts, label, err);
    /* nodes get twice the budget: under "max" the busiest node's cut
     * comes down slowly (1M ranks in groups of 64 nodes: J_max 109 with
     * the default budget, 82 with twice it, 82 with four times) */
    int64_t budget = (l < 0 ? 2 : 1) * smp_refine_default_budget(grid->size);
    if (!s)
        s = smp_refine_within_for(grid, st, label, nchild, cpar, budget, obj, NULL, err);
    /* on small grids, annealing inside each parent as auto anneals the
     * nodes (a round per unit of effort), then refinement again */
    if (!s && smp_anneal_applies(grid, st)) {
        smp_anneal_stats as;
        bool changed = false;
        for (int r = 0; r < effort && !s; r++) {
            s = smp_anneal_within(grid, st, label, nchild, cpar, 0, obj, (uint32_t)r, &as, err);
            changed = changed || as.after.j_sum != as.before.j_sum || as.after.w_sum != as.before.w_sum;
        }
        if (!s && changed)
            s = smp_refine_within_for(grid, st, label, nchild, cpar, 0, obj, NULL, err);
    }
    for (int64_t r = 0; !s && r < grid->size; r++)
        cur[r] = cunit[label[r]];
done:
    free(ucap);
    free(pcap);
    free(upar);
    free(pidx);
    free(first);
    free(ccap);
    free(cunit);
    free(cpar);
    return s;
}

/* The coarsest groups planned as super-nodes by auto.  The constructions
 * lay groups out in their order, so where the groups' capacities differ
 * the order matters (where the short group goes); on small grids, where
 * auto anneals and time is cheap, the groups are also tried in reverse
 * and in ascending and descending capacity, and the best by the
 * objective is kept. */
static int cmp_cap_asc(const void *x, const void *y)
{
    const int32_t *a = x, *b = y; /* (cap, group) pairs */
    return a[0] != b[0] ? (a[0] > b[0]) - (a[0] < b[0]) : (a[1] > b[1]) - (a[1] < b[1]);
}

static smp_status plan_groups(const smp_grid *grid, const smp_stencil *st, const int32_t *gc,
                              const int32_t *gd, int ngd, int ng, smp_objective obj, int effort,
                              smp_placement *gp, smp_error *err)
{
    smp_status s = smp_plan_auto(grid, st, gc, gd, ngd, ng, obj, effort, gp, err);
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
    for (int order = 0; order < 3 && !s; order++) {
        for (int i = 0; i < ngd; i++) {
            pairs[2 * i] = gc[i];
            pairs[2 * i + 1] = gd[i];
        }
        if (order > 0)
            qsort(pairs, (size_t)ngd, 2 * sizeof(int32_t), cmp_cap_asc);
        for (int i = 0; i < ngd; i++) { /* reverse: order 0 given, 2 descending */
            int k = order == 1 ? i : ngd - 1 - i;
            c2[i] = pairs[2 * k];
            d2[i] = pairs[2 * k + 1];
        }
        if ((s = smp_plan_auto(grid, st, c2, d2, ngd, ng, obj, effort, &alt, err)))
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

/* Groups first: auto on the coarsest groups, then split down the levels.
 * Fills node_of_rank and, in meta, what the group-level auto reports. */
static smp_status groups_first(const smp_grid *grid, const smp_stencil *st,
                               const int32_t *capnode, int nnodes, const smp_levels *lv,
                               smp_objective obj, int effort, int32_t *node_of_rank,
                               smp_placement *meta, smp_error *err)
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
    for (int l = L - 1; l >= -1 && !s; l--)
        s = split_down(grid, st, capnode, nnodes, lv, l, obj, effort, node_of_rank, part, label,
                       err);
done:
    free(gcap);
    free(gc);
    free(gd);
    free(part);
    free(label);
    return s;
}

/* Scores a levelled candidate: the nodes' and every level's figures. */
static smp_status score_all(const smp_grid *grid, const smp_stencil *st, const int32_t *node_of_rank,
                            int nnodes, const smp_levels *lv, smp_score *nodes, smp_score *levels,
                            smp_error *err)
{
    smp_status s = smp_score_compute(grid, st, node_of_rank, nnodes, nodes, err);
    return s ? s : smp_levels_score_compute(grid, st, node_of_rank, nnodes, lv, levels, err);
}

smp_status smp_plan_levels(const smp_grid *grid, const smp_stencil *st, const int32_t *cap,
                           const int32_t *dense, int ndense, int nnodes, const smp_levels *lv,
                           smp_levels_mode mode, smp_objective obj, int effort,
                           smp_placement *out, smp_error *err)
{
    size_t bytes = sizeof(int32_t) * (size_t)grid->size;
    int32_t *capnode = calloc((size_t)nnodes, sizeof(int32_t));
    int32_t *other = NULL;
    bool weighted = smp_stencil_weighted(st);
    smp_status s = SMP_OK;
    if (!capnode) {
        s = smp_error_set(err, SMP_ERR_SYSTEM, "levels: out of memory for %d nodes", nnodes);
        goto done;
    }
    for (int i = 0; i < ndense; i++)
        capnode[dense[i]] = cap[i];
    out->nlevels = lv->nlevels;
    /* a step whose ranks all land in one group of the finest level (so of
     * every level) plans exactly as without levels */
    bool one_group = true;
    for (int i = 1; i < ndense && one_group; i++)
        one_group = lv->group_of_node[0][dense[i]] == lv->group_of_node[0][dense[0]];
    if (one_group) {
        s = smp_plan_auto(grid, st, cap, dense, ndense, nnodes, obj, effort, out, err);
        if (!s)
            s = smp_levels_score_compute(grid, st, out->node_of_rank, nnodes, lv, out->level, err);
        goto done;
    }
    if (mode != SMP_LEVELS_GROUPS_FIRST) {
        s = smp_plan_auto(grid, st, cap, dense, ndense, nnodes, obj, effort, out, err);
        if (!s)
            s = smp_relabel_levels(grid, st, capnode, nnodes, lv, obj, out->node_of_rank, err);
        /* the same figures, but j_max_node names a physical node now */
        if (!s)
            s = score_all(grid, st, out->node_of_rank, nnodes, lv, &out->score, out->level, err);
        if (s || mode == SMP_LEVELS_NODES_FIRST)
            goto done;
    }
    smp_placement g = {.fold_axis = -1};
    if (!(other = malloc(bytes ? bytes : 1))) {
        s = smp_error_set(err, SMP_ERR_SYSTEM, "levels: out of memory");
        goto done;
    }
    s = groups_first(grid, st, capnode, nnodes, lv, obj, effort, other, &g, err);
    if (!s)
        s = smp_relabel_levels(grid, st, capnode, nnodes, lv, obj, other, err);
    if (!s)
        s = score_all(grid, st, other, nnodes, lv, &g.score, g.level, err);
    if (s)
        goto done;
    if (mode == SMP_LEVELS_GROUPS_FIRST ||
        smp_levels_better(g.level, &g.score, out->level, &out->score, lv->nlevels, weighted, obj)) {
        memcpy(out->node_of_rank, other, bytes);
        out->score = g.score;
        out->constructed = g.score;
        memcpy(out->level, g.level, sizeof(g.level));
        out->algorithm = g.algorithm;
        out->fold_axis = g.fold_axis;
        out->refined = g.refined;
    }
done:
    free(capnode);
    free(other);
    return s;
}
