/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The quotient graph of a placement (quotient.c), for relabel.c: private
 * to the improve room. */
#ifndef STENCILMAP_IMPROVE_QUOTIENT_H
#define STENCILMAP_IMPROVE_QUOTIENT_H

#include "model/model.h"

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

#endif
