/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The stencil graph seen from one rank: every directed stencil edge that
 * starts or ends at the rank, with the other end and the edge's weight.
 * The graph is never stored; ends are computed from grid coordinates, so
 * refinement and the socket split cost no memory per edge. */
#ifndef STENCILMAP_NEIGHBOURS_H
#define STENCILMAP_NEIGHBOURS_H

#include "model/edges.h"
#include "stencilmap/placement.h"

typedef struct {
    smp_edge_walk walk; /* the entries: offsets, then their negatives if asymmetric */
    int nk;             /* entries per rank (walk.count) */
    double *w;          /* nk: weight of the edge(s) this entry stands for */
    double *wout;       /* nk: the part of w that leaves the rank (the rest enters) */
    uint64_t *interior; /* bit v: rank v reaches every entry without wrapping, so its
                         * list needs no coordinates (and no divisions) */
} smp_nbr;

/* For a symmetric stencil (every offset o has -o with the same weight)
 * the edges into v come from the same ranks as the edges out of v, so
 * one entry per offset with twice the weight stands for both; otherwise
 * outgoing and incoming entries are listed separately. */
smp_status smp_nbr_init(smp_nbr *nb, const smp_grid *grid, const smp_stencil *st,
                        smp_error *err);
void smp_nbr_free(smp_nbr *nb);

/* Fills t[] and w[] (nb->nk entries each at most) with the other ends of
 * the edges at v that stay in the grid and do not loop back to v; returns
 * their count.  An end can appear more than once (several edges). */
int smp_nbr_list(const smp_nbr *nb, int64_t v, int64_t *t, double *w);
/* The same, and wo[] (if not NULL) the part of each w[] on edges that
 * leave v (v -> t); the rest of w[] is on edges t -> v. */
int smp_nbr_list_dir(const smp_nbr *nb, int64_t v, int64_t *t, double *w, double *wo);

#endif
