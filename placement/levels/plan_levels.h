/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* auto on the network levels above the nodes (the levels room,
 * placement/levels/): what plan.c calls.  The room's own parts share
 * levels/groups.h. */
#ifndef STENCILMAP_PLAN_LEVELS_H
#define STENCILMAP_PLAN_LEVELS_H

#include "model/model.h"
#include "plan_auto.h"

/* cap[ndense] are the shares of nodes dense[ndense] (the first nodes in
 * order); fills out as smp_plan_auto does, and out->level[]
 * (plan_levels.c).  node_only (NULL: not wanted; its node_of_rank
 * allocated by the caller), in every mode but groups first: auto's node
 * plan before the relabelling, as out was then (its level[] not scored),
 * so that a caller comparing it too need not plan it again; built (NULL:
 * not wanted), where node_only is given: the constructions' scores of
 * that plan's auto (plan_auto.h). */
smp_status smp_plan_levels(const smp_grid *grid, const smp_stencil *st, const int32_t *cap,
                           const int32_t *dense, int ndense, int nnodes, const smp_levels *lv,
                           smp_levels_mode mode, smp_objective obj, int effort,
                           smp_placement *out, smp_placement *node_only, smp_auto_built *built,
                           smp_error *err);

#endif
