/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* auto by the busiest link (plan_links.c): every candidate of auto, on
 * the nodes and on the levels, scored on the links the site described,
 * the lowest busiest link kept.  It stands on construct/, levels/,
 * network/ and plan_auto.h; plan.c calls it when the step has levels,
 * links and the levels mode best. */
#ifndef STENCILMAP_PLAN_LINKS_H
#define STENCILMAP_PLAN_LINKS_H

#include "model/model.h"

/* out (its node_of_rank allocated, the rest cleared except ranks and
 * nnodes) gets the winner with its link score and level[] figures, and
 * by_links set; cap and dense: the used nodes' shares (plan.c). */
smp_status smp_plan_by_links(const smp_grid *grid, const smp_stencil *st, const int32_t *cap,
                             const int32_t *dense, int ndense, int nnodes, int effort,
                             const smp_plan_opts *opts, smp_placement *out, smp_error *err);

#endif
