/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The quotient graph of a placement (quotient.c): its nodes and the stencil
 * traffic between them, for what works on whole nodes (improve/relabel.c
 * hands them to groups, network/link_net.c routes their messages). */
#ifndef STENCILMAP_MODEL_QUOTIENT_H
#define STENCILMAP_MODEL_QUOTIENT_H

#include "model/model.h"

/* The placement's nodes as a graph: for node u, its neighbours nb[k] for k
 * in [start[u], start[u + 1]), with the stencil weight on edges u -> nb[k]
 * (wout) and nb[k] -> u (win); counts when the stencil has no weights.
 * Each weight is summed in rank, then entry, order: the order of every
 * walk over the edges (edges.h), so its floating value is the one a walk
 * summing it edge by edge finds.  With positive weights, a zero wout or
 * win says that no edge goes that way. */
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

/* smp_score_compute's figures from q, node u's ranks moved to node
 * phys[u] (phys NULL: where they are); without weights only, as below. */
smp_status smp_score_quotient(const smp_quotient *q, const int32_t *phys, smp_score *score,
                              smp_error *err);
/* smp_levels_score_compute's figures from q, the placement's ranks moved
 * to node phys[u] from node u (phys NULL: where they are), lv checked
 * against q->n nodes.  For a stencil without weights only: q then holds
 * counts, exact in any order, where weights summed per pair would not
 * match the walk's sums to the last bit (network_levels.c). */
smp_status smp_levels_score_quotient(const smp_quotient *q, const int32_t *phys,
                                     const smp_levels *lv, smp_score *per_level, smp_error *err);

#endif
