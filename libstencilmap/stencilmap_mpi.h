/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * stencilmap_mpi.h: MPI convenience calls on top of stencilmap.h, as static
 * inline functions, so that libstencilmap itself does not depend on MPI.
 * Include it after <mpi.h> in an MPI program (compile with mpicc) and link
 * libstencilmap (pkg-config stencilmap).
 *
 *   MPI_Comm cart;
 *   char msg[STENCILMAP_MSG_LEN];
 *   if (stencilmap_mpi_cart_create(MPI_COMM_WORLD, NULL, &cart, msg, sizeof msg))
 *       fprintf(stderr, "%s\n", msg);
 *
 * The Cartesian communicator is created WITHOUT reordering, so its rank r
 * has the row-major coordinates of r, which is how the stencil_map plugin
 * placed the ranks on the nodes.  MPI numbers Cartesian ranks row-major
 * only: for a column-major grid (STENCIL_MAP_ORDER=column-major) the
 * communicator is created over the dims reversed, so rank r is the same
 * process and MPI_Cart_coords gives the grid's coordinates last axis first.
 * Errors are returned, never MPI_Abort'ed.
 */
#ifndef STENCILMAP_MPI_H
#define STENCILMAP_MPI_H

#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#include "stencilmap.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Builds *cart from comm with the grid of place (or, when place is NULL, of
 * the STENCIL_MAP_* environment).  comm must have exactly the grid's number
 * of processes and comm's rank r must be the step's rank r (MPI_COMM_WORLD
 * of a step launched with srun --mpi=pmix).  Returns STENCILMAP_OK, or an
 * error with a message in msg (msglen bytes, may be NULL); *cart is then
 * MPI_COMM_NULL. */
static inline stencilmap_status stencilmap_mpi_cart_create(MPI_Comm comm,
                                                           const stencilmap_place *place,
                                                           MPI_Comm *cart, char *msg,
                                                           size_t msglen)
{
    stencilmap_place own;
    stencilmap_status st = STENCILMAP_OK;
    int dims[STENCILMAP_MAX_DIMS], periods[STENCILMAP_MAX_DIMS], size = 0, rc;
    if (msg && msglen)
        msg[0] = '\0';
    if (!cart) {
        if (msg && msglen)
            snprintf(msg, msglen, "stencilmap_mpi_cart_create: NULL cart");
        return STENCILMAP_ERR_ARG;
    }
    *cart = MPI_COMM_NULL;
    if (!place) {
        st = stencilmap_place_from_env(&own, msg, msglen);
        if (st != STENCILMAP_OK)
            return st;
        place = &own;
    }
    for (int i = 0; i < place->ndims; i++) {
        int a = place->column_major ? place->ndims - 1 - i : i; /* MPI is row-major */
        dims[i] = (int)place->dims[a];
        periods[i] = place->periods[a];
    }
    MPI_Comm_size(comm, &size);
    if ((int64_t)size != place->size) {
        if (msg && msglen)
            snprintf(msg, msglen, "the communicator has %d processes, STENCIL_MAP_DIMS a grid of %lld",
                     size, (long long)place->size);
        st = STENCILMAP_ERR_ENV;
    } else if ((rc = MPI_Cart_create(comm, place->ndims, dims, periods, 0, cart)) != MPI_SUCCESS) {
        char es[MPI_MAX_ERROR_STRING];
        int el = 0;
        MPI_Error_string(rc, es, &el);
        if (msg && msglen)
            snprintf(msg, msglen, "MPI_Cart_create: %s", es);
        *cart = MPI_COMM_NULL;
        st = STENCILMAP_ERR_ARG;
    } else if (place->has_coords) {
        /* the placement's coordinates must be the communicator's */
        int me, c[STENCILMAP_MAX_DIMS];
        MPI_Comm_rank(*cart, &me);
        MPI_Cart_coords(*cart, me, place->ndims, c);
        for (int i = 0; i < place->ndims; i++)
            if (c[i] != place->coords[place->column_major ? place->ndims - 1 - i : i]) {
                if (msg && msglen)
                    snprintf(msg, msglen,
                             "rank %d: MPI_Cart_coords differ from STENCIL_MAP_COORDS in dimension %d "
                             "(%d vs %lld): is comm's rank order the step's?",
                             me, i + 1, c[i],
                             (long long)place->coords[place->column_major ? place->ndims - 1 - i : i]);
                MPI_Comm_free(cart);
                st = STENCILMAP_ERR_ENV;
                break;
            }
    }
    if (place == &own)
        stencilmap_place_free(&own);
    return st;
}

/* Builds *graph, a distributed graph communicator over cart (no reorder)
 * with one edge per stencil offset: destinations[k] = the rank that offset k
 * reaches, sources[k] = the rank from which offset k reaches this rank, in
 * offset order; offsets that leave a non-periodic grid are skipped.  For
 * MPI_Neighbor_alltoall on the graph.  indeg and outdeg may be NULL. */
static inline stencilmap_status stencilmap_mpi_stencil_graph(MPI_Comm cart,
                                                             const stencilmap_place *place,
                                                             MPI_Comm *graph, int *indeg,
                                                             int *outdeg, char *msg,
                                                             size_t msglen)
{
    int me, ni = 0, no = 0, rc;
    if (!place || !graph) {
        if (msg && msglen)
            snprintf(msg, msglen, "stencilmap_mpi_stencil_graph: NULL argument");
        return STENCILMAP_ERR_ARG;
    }
    *graph = MPI_COMM_NULL;
    int *src = malloc(sizeof(int) * (size_t)(place->noffsets + 1));
    int *dst = malloc(sizeof(int) * (size_t)(place->noffsets + 1));
    if (!src || !dst) {
        free(src);
        free(dst);
        if (msg && msglen)
            snprintf(msg, msglen, "out of memory");
        return STENCILMAP_ERR_NOMEM;
    }
    MPI_Comm_rank(cart, &me);
    for (int k = 0; k < place->noffsets; k++) {
        int64_t t = stencilmap_neighbor(place, me, k), f = stencilmap_neighbor_from(place, me, k);
        if (t >= 0)
            dst[no++] = (int)t;
        if (f >= 0)
            src[ni++] = (int)f;
    }
    /* through a volatile pointer: GCC would warn about Open MPI's
     * MPI_UNWEIGHTED, a small constant address */
    int *volatile unweighted = MPI_UNWEIGHTED;
    rc = MPI_Dist_graph_create_adjacent(cart, ni, src, unweighted, no, dst, unweighted,
                                        MPI_INFO_NULL, 0, graph);
    free(src);
    free(dst);
    if (rc != MPI_SUCCESS) {
        char es[MPI_MAX_ERROR_STRING];
        int el = 0;
        MPI_Error_string(rc, es, &el);
        if (msg && msglen)
            snprintf(msg, msglen, "MPI_Dist_graph_create_adjacent: %s", es);
        *graph = MPI_COMM_NULL;
        return STENCILMAP_ERR_ARG;
    }
    if (indeg)
        *indeg = ni;
    if (outdeg)
        *outdeg = no;
    return STENCILMAP_OK;
}

#ifdef __cplusplus
}
#endif
#endif
