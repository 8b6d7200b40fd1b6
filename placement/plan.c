/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Planning: check feasibility, derive each node's exact share, run one
 * construction or all of them (auto, which then refines the best; on
 * network levels, plan_levels.c; given the links above the levels, by
 * the busiest link, plan_links.c), lay a plan without a topology out
 * along the node order, and score the result, on the links too
 * (network/). */
#include <stdlib.h>
#include <string.h>

#include "levels/plan_levels.h"
#include "network/network.h"
#include "plan_auto.h"
#include "plan_links.h"

smp_status smp_plan(const smp_grid *grid, const smp_stencil *st, const int32_t *slots, int nnodes,
                    smp_algorithm alg, smp_placement *out, smp_error *err)
{
    return smp_plan_for(grid, st, slots, nnodes, alg, SMP_OBJ_SUM, out, err);
}

smp_status smp_plan_for(const smp_grid *grid, const smp_stencil *st, const int32_t *slots,
                        int nnodes, smp_algorithm alg, smp_objective obj, smp_placement *out,
                        smp_error *err)
{
    smp_plan_opts opts = {.algorithm = alg, .objective = obj, .effort = SMP_EFFORT_DEFAULT};
    return smp_plan_with(grid, st, slots, nnodes, &opts, out, err);
}

/* The inputs checked in order, the first problem reported; *lv: the
 * levels to plan on, NULL for none. */
static smp_status check_inputs(const smp_grid *grid, const smp_stencil *st, const int32_t *slots,
                               int nnodes, const smp_plan_opts *opts, int effort,
                               const smp_levels **lv, smp_error *err)
{
    smp_algorithm alg = opts->algorithm;
    smp_objective obj = opts->objective;
    if (st->ndims != grid->ndims)
        return smp_error_set(err, SMP_ERR_INPUT, "stencil: has %d dimensions but the grid has %d",
                             st->ndims, grid->ndims);
    if (nnodes < 1)
        return smp_error_set(err, SMP_ERR_INPUT, "nodes: none given");
    if (alg < 0 || alg >= SMP_ALG_COUNT)
        return smp_error_set(err, SMP_ERR_INPUT, "algorithm: unknown");
    if (obj != SMP_OBJ_SUM && obj != SMP_OBJ_MAX)
        return smp_error_set(err, SMP_ERR_INPUT, "objective: unknown");
    if (effort < 1 || effort > SMP_MAX_EFFORT)
        return smp_error_set(err, SMP_ERR_INPUT, "effort: must be 1 to %d, not %d",
                             SMP_MAX_EFFORT, effort);
    *lv = opts->levels && opts->levels->nlevels > 0 ? opts->levels : NULL;
    if (*lv && opts->levels_mode >= SMP_LEVELS_MODE_COUNT)
        return smp_error_set(err, SMP_ERR_INPUT, "levels mode: unknown");
    smp_status ls = *lv ? smp_levels_check(*lv, nnodes, err) : SMP_OK;
    if (!ls)
        ls = smp_links_check(opts->links, *lv, err);
    if (ls)
        return ls;
    int64_t total = 0;
    for (int i = 0; i < nnodes; i++) {
        if (slots[i] < 1)
            return smp_error_set(err, SMP_ERR_INPUT, "slots[%d]: must be positive", i);
        total += slots[i];
    }
    if (grid->size > total)
        return smp_error_set(err, SMP_ERR_INFEASIBLE,
                             "infeasible: %lld ranks but only %lld slots on %d nodes",
                             (long long)grid->size, (long long)total, nnodes);
    return SMP_OK;
}

/* Each node's share: fill nodes in order, as a blocked launch would, so
 * every algorithm uses the same nodes and shares as the baseline.  The
 * used nodes' shares in cap, their indices in dense; their count. */
static int fill_in_order(int64_t ranks, const int32_t *slots, int nnodes, int32_t *cap,
                         int32_t *dense)
{
    int ndense = 0;
    int64_t left = ranks;
    for (int i = 0; i < nnodes && left > 0; i++) {
        cap[ndense] = (int32_t)(left < slots[i] ? left : slots[i]);
        dense[ndense++] = i;
        left -= cap[ndense - 1];
    }
    return ndense;
}

/* -1, 0, 1: x below, level with (to rounding), above y */
static int cmp_load(double x, double y)
{
    double eps = 1e-9 * (x > y ? x : y);
    return x < y - eps ? -1 : x > y + eps ? 1 : 0;
}

/* The stand-in network of a step without a topology (improve/
 * node_order.c): leaf switches of ORDER_LEAF consecutive nodes with
 * ORDER_UPLINKS uplinks each, static routing: a tapered tree, 4:1 above
 * its leaves, where a plan's node order matters most. */
#define ORDER_LEAF 32
#define ORDER_UPLINKS 8

/* Scores node_of_rank on the stand-in tree into *ls. */
static smp_status order_tree_score(const smp_grid *grid, const smp_stencil *st,
                                   const int32_t *node_of_rank, int nnodes, smp_link_score *ls,
                                   smp_error *err)
{
    smp_levels lv = {.nlevels = 1, .nnodes = nnodes,
                     .ngroups = {(nnodes + ORDER_LEAF - 1) / ORDER_LEAF}};
    smp_links lk = {.routing = SMP_ROUTING_STATIC};
    lv.group_of_node[0] = malloc(sizeof(int32_t) * (size_t)nnodes);
    lk.uplinks[0] = malloc(sizeof(int32_t) * (size_t)lv.ngroups[0]);
    smp_status s = SMP_OK;
    if (!lv.group_of_node[0] || !lk.uplinks[0])
        s = smp_error_set(err, SMP_ERR_SYSTEM, "plan: out of memory for %d nodes", nnodes);
    for (int v = 0; v < nnodes && !s; v++)
        lv.group_of_node[0][v] = v / ORDER_LEAF;
    for (int g = 0; g < lv.ngroups[0] && !s; g++)
        lk.uplinks[0][g] = ORDER_UPLINKS;
    if (!s)
        s = smp_link_score_compute(grid, st, node_of_rank, nnodes, &lv, &lk, ls, err);
    free(lv.group_of_node[0]);
    smp_links_free(&lk);
    return s;
}

/* (l_max, then up_max): a below b on the stand-in tree */
static bool tree_lower(const smp_link_score *a, const smp_link_score *b)
{
    int c = cmp_load(a->l_max, b->l_max);
    return c < 0 || (c == 0 && cmp_load(a->up_max, b->up_max) < 0);
}

/* Without a topology the node order stands for the network: auto's
 * blocks handed to other nodes so that neighbours sit on nearby nodes
 * (improve/node_order.c, through plan_auto.c), each way from auto's plan; the one that loads
 * the stand-in tree least is kept, auto's own unless one is lower (static
 * routing can pile a relabelled plan's messages onto one uplink).  The
 * figures are the same, but j_max_node names a physical node: scored
 * again. */
static smp_status order_nodes(const smp_grid *grid, const smp_stencil *st, const int32_t *cap,
                              const int32_t *dense, int ndense, int nnodes, smp_objective obj,
                              smp_placement *out, smp_error *err)
{
    size_t bytes = sizeof(int32_t) * (size_t)grid->size;
    int32_t *from = malloc(bytes), *trial = malloc(bytes);
    smp_link_score best, now;
    smp_status s = SMP_OK;
    if (!from || !trial)
        s = smp_error_set(err, SMP_ERR_SYSTEM, "plan: out of memory for %lld ranks",
                          (long long)grid->size);
    else
        s = order_tree_score(grid, st, out->node_of_rank, nnodes, &best, err);
    if (!s)
        memcpy(from, out->node_of_rank, bytes);
    for (int way = 0; way < SMP_AUTO_NODE_ORDER_WAYS && !s; way++) {
        memcpy(trial, from, bytes);
        s = smp_auto_node_order(grid, st, cap, dense, ndense, nnodes, obj, way, trial, err);
        if (!s)
            s = order_tree_score(grid, st, trial, nnodes, &now, err);
        if (!s && tree_lower(&now, &best)) {
            memcpy(out->node_of_rank, trial, bytes);
            best = now;
        }
    }
    free(from);
    free(trial);
    return s ? s : smp_score_compute(grid, st, out->node_of_rank, nnodes, &out->score, err);
}

/* Whether the used nodes (dense) all lie in one group of the finest
 * level (so of every level): the levels then say nothing the node order
 * does not, and the step plans as without them. */
static bool one_leaf(const smp_levels *lv, const int32_t *dense, int ndense)
{
    for (int i = 1; i < ndense; i++)
        if (lv->group_of_node[0][dense[i]] != lv->group_of_node[0][dense[0]])
            return false;
    return true;
}

/* auto without levels (lv: scored on them, or NULL), its blocks laid out
 * along the node order. */
static smp_status auto_in_order(const smp_grid *grid, const smp_stencil *st, const int32_t *cap,
                                const int32_t *dense, int ndense, int nnodes, smp_objective obj,
                                int effort, const smp_levels *lv, smp_placement *out,
                                smp_error *err)
{
    smp_status s =
        smp_plan_auto(grid, st, cap, dense, ndense, nnodes, obj, effort, out, NULL, err);
    if (!s)
        s = order_nodes(grid, st, cap, dense, ndense, nnodes, obj, out, err);
    if (!s && lv) {
        out->nlevels = lv->nlevels;
        s = smp_levels_score_compute(grid, st, out->node_of_rank, nnodes, lv, out->level, err);
    }
    return s;
}

smp_status smp_plan_with(const smp_grid *grid, const smp_stencil *st, const int32_t *slots,
                         int nnodes, const smp_plan_opts *opts, smp_placement *out,
                         smp_error *err)
{
    smp_algorithm alg = opts->algorithm;
    smp_objective obj = opts->objective;
    int effort = opts->effort ? opts->effort : SMP_EFFORT_DEFAULT;
    if (grid->order == SMP_ORDER_COLUMN_MAJOR) {
        smp_canon c;
        smp_status s = smp_canon_make(&c, grid, st, err);
        if (!s)
            s = smp_plan_with(&c.grid, &c.st, slots, nnodes, opts, out, err);
        else
            memset(out, 0, sizeof(*out));
        if (!s && out->fold_axis >= 0) /* an axis of the grid as given */
            out->fold_axis = grid->ndims - 1 - out->fold_axis;
        smp_canon_free(&c);
        return s;
    }
    memset(out, 0, sizeof(*out));
    out->fold_axis = -1;
    const smp_levels *lv = NULL;
    smp_status s = check_inputs(grid, st, slots, nnodes, opts, effort, &lv, err);
    if (s)
        return s;
    int32_t *cap = malloc(sizeof(int32_t) * (size_t)nnodes);
    int32_t *dense = malloc(sizeof(int32_t) * (size_t)nnodes);
    out->node_of_rank = malloc(sizeof(int32_t) * (size_t)grid->size);
    if (!cap || !dense || !out->node_of_rank) {
        s = smp_error_set(err, SMP_ERR_SYSTEM, "plan: out of memory for %lld ranks",
                          (long long)grid->size);
        goto done;
    }
    int ndense = fill_in_order(grid->size, slots, nnodes, cap, dense);
    out->ranks = grid->size;
    out->nnodes = nnodes;
    if (alg != SMP_ALG_AUTO)
        s = smp_plan_one(grid, st, alg, cap, dense, ndense, nnodes, lv, out, err);
    else if (lv && opts->links && opts->levels_mode == SMP_LEVELS_BEST)
        s = smp_plan_by_links(grid, st, cap, dense, ndense, nnodes, effort, opts, out, err);
    else if (lv && one_leaf(lv, dense, ndense)) /* plans as without levels */
        s = auto_in_order(grid, st, cap, dense, ndense, nnodes, obj, effort, lv, out, err);
    else if (lv)
        s = smp_plan_levels(grid, st, cap, dense, ndense, nnodes, lv, opts->levels_mode, obj,
                            effort, out, NULL, NULL, err);
    else
        s = auto_in_order(grid, st, cap, dense, ndense, nnodes, obj, effort, NULL, out, err);
    if (!s && !out->by_links) /* on the links given (node links alone without) */
        s = smp_link_score_compute(grid, st, out->node_of_rank, nnodes, lv, opts->links,
                                   &out->link, err);
done:
    free(cap);
    free(dense);
    if (s)
        smp_placement_free(out);
    return s;
}

void smp_placement_free(smp_placement *pl)
{
    free(pl->node_of_rank);
    pl->node_of_rank = NULL;
}
