/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Whether a process graph is a stencil on a Cartesian grid in its rank
 * order (graph_stencil.c).  Plain C, no MPI: the reorder library feeds it
 * the gathered graph, tests/mpix/graph_stencil_test drives it directly. */
#ifndef STENCILMAP_GRAPH_STENCIL_H
#define STENCILMAP_GRAPH_STENCIL_H

/* at most this many distinct offsets are looked for (a wider graph is
 * taken as not a stencil) */
#define GS_MAX_OFFSETS 128
#define GS_MAX_DIMS 3

/* The grid found: ndims sides in row-major order (the last axis fastest,
 * as MPI_Cart_create numbers ranks), periods, and the k offsets (k * ndims
 * ints) every rank's out-neighbours are, less those a non-periodic side
 * cuts off. */
typedef struct {
    int ndims;
    int dims[GS_MAX_DIMS];
    int periods[GS_MAX_DIMS];
    int k;
    int offsets[GS_MAX_OFFSETS * GS_MAX_DIMS];
} gs_found;

/* n ranks; the out-neighbours of rank r are nbrs[start[r]] ..
 * nbrs[start[r + 1] - 1], each in [0, n) (checked: anything else is not a
 * stencil).  Returns 1 and fills *f when the graph is a stencil, 0 when
 * it is not, -1 when memory ran out. */
int gs_find(int n, const int *start, const int *nbrs, gs_found *f);

#endif
