/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* auto on the nodes (plan_auto.c): every construction auto tries, each
 * refined and annealed, the best kept.  It stands on construct/ and
 * improve/; the levels room plans each group's nodes with it, plan_links.c
 * weighs its candidates, and plan.c calls it for a step without levels. */
#ifndef STENCILMAP_PLAN_AUTO_H
#define STENCILMAP_PLAN_AUTO_H

#include "model/model.h"

/* The score of each construction auto built as it is, unfolded
 * (have[alg]): what smp_plan_one would give it on the same shares, so a
 * caller that weighs the constructions alone too knows one's figures
 * without building it (plan_links.c). */
typedef struct {
    bool have[SMP_ALG_COUNT];
    smp_score score[SMP_ALG_COUNT];
} smp_auto_built;

/* Fills out->node_of_rank (allocated by the caller), score, algorithm,
 * fold_axis, constructed and refined; anneals with effort times the
 * default budget.  built (NULL: not wanted) gets the constructions'
 * scores. */
smp_status smp_plan_auto(const smp_grid *grid, const smp_stencil *st, const int32_t *cap,
                         const int32_t *dense_to_node, int ndense, int nnodes,
                         smp_objective obj, int effort, smp_placement *out,
                         smp_auto_built *built, smp_error *err);

/* One construction alg into out->node_of_rank (allocated by the
 * caller), scored on the nodes and, given lv, on its levels. */
smp_status smp_plan_one(const smp_grid *grid, const smp_stencil *st, smp_algorithm alg,
                        const int32_t *cap, const int32_t *dense, int ndense, int nnodes,
                        const smp_levels *lv, smp_placement *out, smp_error *err);

/* Without a topology: the blocks of auto's plan node_of_rank handed to
 * other nodes of equal share, one of SMP_AUTO_NODE_ORDER_WAYS ways
 * (improve/node_order.c); J_sum and J_max do not move. */
#define SMP_AUTO_NODE_ORDER_WAYS 2
smp_status smp_auto_node_order(const smp_grid *grid, const smp_stencil *st, const int32_t *cap,
                               const int32_t *dense, int ndense, int nnodes, smp_objective obj,
                               int way, int32_t *node_of_rank, smp_error *err);

#endif
