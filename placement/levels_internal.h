/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Internal interface of planning on the network levels above the nodes:
 * the quotient graph of a placement (quotient.c), handing a placement's
 * node rank sets to physical nodes (relabel.c) and the levelled planner
 * smp_plan_with calls (plan_levels.c). */
#ifndef STENCILMAP_LEVELS_INTERNAL_H
#define STENCILMAP_LEVELS_INTERNAL_H

#include "algorithms.h"

/* The placement's nodes as a graph: for node u, its neighbours nb[k] for k
 * in [start[u], start[u + 1]), with the stencil weight on edges u -> nb[k]
 * (wout) and nb[k] -> u (win); counts when the stencil has no weights. */
typedef struct {
    int n;
    int64_t *start; /* n + 1 */
    int32_t *nb;
    double *wout, *win;
    double total; /* the weight of every cut edge: J_sum (weighted) */
} smp_quotient;
smp_status smp_quotient_build(const smp_grid *grid, const smp_stencil *st,
                              const int32_t *node_of_rank, int nnodes, smp_quotient *q,
                              smp_error *err);
void smp_quotient_free(smp_quotient *q);

/* Hands the rank sets of node_of_rank's nodes to physical nodes, only
 * between nodes of equal share cap[n] (cap[n] == 0: the node gets no rank
 * and is not used), so that the levels' figures fall: top down, the nodes
 * under each group of level l + 1 are dealt to its groups of level l (by
 * the order they come in, or grown greedily along the quotient graph,
 * whichever is better), then improved by swaps of two nodes of equal
 * share.  Every node's rank set is kept (node figures do not change) and
 * the levelled figures are never worse than the input's.  Rewrites
 * node_of_rank in place. */
smp_status smp_relabel_levels(const smp_grid *grid, const smp_stencil *st, const int32_t *cap,
                              int nnodes, const smp_levels *lv, smp_objective obj,
                              int32_t *node_of_rank, smp_error *err);

/* Refinement inside parents (as smp_refine_within) for an objective. */
smp_status smp_refine_within_for(const smp_grid *grid, const smp_stencil *st, int32_t *label,
                                 int nlabels, const int32_t *parent, int64_t budget,
                                 smp_objective obj, smp_refine_stats *stats, smp_error *err);

/* Annealing inside parents (as smp_anneal): a rank only moves between
 * labels with the same parent[label], so the parents' rank sets never
 * change; for the nodes of each group in plan_levels.c. */
smp_status smp_anneal_within(const smp_grid *grid, const smp_stencil *st, int32_t *label,
                             int nlabels, const int32_t *parent, int64_t budget, smp_objective obj,
                             uint32_t round, smp_anneal_stats *stats, smp_error *err);

/* auto on levels (plan_levels.c): cap[ndense] are the shares of nodes
 * dense[ndense] (the first nodes in order); fills out as smp_plan_auto
 * does, and out->level[]. */
smp_status smp_plan_levels(const smp_grid *grid, const smp_stencil *st, const int32_t *cap,
                           const int32_t *dense, int ndense, int nnodes, const smp_levels *lv,
                           smp_levels_mode mode, smp_objective obj, int effort,
                           smp_placement *out, smp_error *err);

#endif
