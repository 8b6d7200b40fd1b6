/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Internal interface of the improve room (placement/improve/): moves that
 * make a given placement better without changing any node's share:
 * refinement (refine.c), annealing (anneal.c), both together on a
 * partition (polish.c), and handing whole rank sets to other physical
 * nodes for the network levels (relabel.c, over the quotient graph of
 * model/quotient.c).  The room stands on model/ only. */
#ifndef STENCILMAP_IMPROVE_H
#define STENCILMAP_IMPROVE_H

#include "model/model.h"

/* Refinement that only moves ranks between labels with the same parent:
 * parent[label] (e.g. the node of a socket group), so the parents' rank
 * sets never change. */
smp_status smp_refine_within(const smp_grid *grid, const smp_stencil *st, int32_t *label,
                             int nlabels, const int32_t *parent, int64_t budget,
                             smp_refine_stats *stats, smp_error *err);
/* Refinement inside parents (as smp_refine_within) for an objective. */
smp_status smp_refine_within_for(const smp_grid *grid, const smp_stencil *st, int32_t *label,
                                 int nlabels, const int32_t *parent, int64_t budget,
                                 smp_objective obj, smp_refine_stats *stats, smp_error *err);
/* smp_refine_for on a row-major grid whose placement's score the caller
 * computed (known, by smp_score_compute), so it is not computed again. */
smp_status smp_refine_known(const smp_grid *grid, const smp_stencil *st, int32_t *node_of_rank,
                            int nnodes, int64_t budget, smp_objective obj, const smp_score *known,
                            smp_refine_stats *stats, smp_error *err);

/* Annealing (anneal.c): a randomised search that auto runs after
 * refinement on small grids, for (weighted) J_sum; under SMP_OBJ_MAX no
 * node's outgoing cut may pass the input's J_max.  Keeps every node's
 * share, never returns a placement worse by the objective than its input,
 * and depends only on its input and the round, which seeds its random
 * numbers.  Budget in work units (<= 0: smp_anneal_default_budget). */
#define SMP_ANNEAL_MAX_RANKS 4096
#define SMP_ANNEAL_MAX_ENTRIES ((int64_t)1 << 20) /* stored neighbour entries */
#define SMP_ANNEAL_WORK_PER_RANK 10000
#define SMP_ANNEAL_WORK_MAX 6000000
typedef struct {
    int64_t work;
    smp_score before, after;
} smp_anneal_stats;
bool smp_anneal_applies(const smp_grid *grid, const smp_stencil *st);
int64_t smp_anneal_default_budget(int64_t ranks);
smp_status smp_anneal(const smp_grid *grid, const smp_stencil *st, int32_t *node_of_rank,
                      int nnodes, int64_t budget, smp_objective obj, uint32_t round,
                      smp_anneal_stats *stats, smp_error *err);
/* Annealing inside parents (as smp_anneal): a rank only moves between
 * labels with the same parent[label], so the parents' rank sets never
 * change; for the nodes of each group in levels/. */
smp_status smp_anneal_within(const smp_grid *grid, const smp_stencil *st, int32_t *label,
                             int nlabels, const int32_t *parent, int64_t budget, smp_objective obj,
                             uint32_t round, smp_anneal_stats *stats, smp_error *err);

/* Polishes label[] (a partition into nlabels groups, parent as in
 * smp_refine_within, NULL: none) for obj: refinement both ways, annealing
 * on small grids (effort rounds); rewritten only when better by obj,
 * *improved then true (polish.c). */
smp_status smp_polish_labels(const smp_grid *grid, const smp_stencil *st, int32_t *label,
                             int nlabels, const int32_t *parent, smp_objective obj, int effort,
                             bool *improved, smp_error *err);

/* Hands the rank sets of node_of_rank's nodes to physical nodes, only
 * between nodes of equal share cap[n] (cap[n] == 0: the node gets no rank
 * and is not used), so that the levels' figures fall: top down, the nodes
 * under each group of level l + 1 are dealt to its groups of level l (by
 * the order they come in, or grown greedily along the quotient graph,
 * whichever is better), then improved by swaps of two nodes of equal
 * share.  Every node's rank set is kept (node figures do not change) and
 * the levelled figures are never worse than the input's.  Rewrites
 * node_of_rank in place (relabel.c).  nodes and levels (NULL: not asked)
 * get the result's figures, as smp_score_compute and
 * smp_levels_score_compute give them: without weights off the node graph
 * the relabelling works on, with no walk over the edges. */
smp_status smp_relabel_levels(const smp_grid *grid, const smp_stencil *st, const int32_t *cap,
                              int nnodes, const smp_levels *lv, smp_objective obj,
                              int32_t *node_of_rank, smp_score *nodes, smp_score *levels,
                              smp_error *err);

/* Without a topology: the node plan's blocks (cap[i] ranks on node
 * dense[i]) handed to other nodes of the same share so that neighbouring
 * blocks land close in node order, the order standing for the network
 * (node_order.c): along the grid (blocked's order of the blocks) or by
 * nested groups of consecutive nodes taken as levels (relabel.c).  Every
 * node's rank set and share is kept: J_sum and J_max do not move. */
typedef enum {
    SMP_NODE_ORDER_GRID = 0,
    SMP_NODE_ORDER_LEVELS,
    SMP_NODE_ORDER_COUNT
} smp_node_order;
smp_status smp_relabel_node_order(const smp_grid *grid, const smp_stencil *st,
                                  const int32_t *cap, const int32_t *dense, int ndense,
                                  int nnodes, smp_objective obj, smp_node_order way,
                                  int32_t *node_of_rank, smp_error *err);

#endif
