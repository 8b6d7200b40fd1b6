/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * libstencilmap-reorder: MPI_Cart_create(..., reorder=1, ...) that really
 * reorders, for unchanged binaries (Open MPI, MPICH and Intel MPI ignore
 * the flag):
 *
 *   mpirun -x LD_PRELOAD=libstencilmap-reorder.so ./app         (Open MPI)
 *   mpiexec.mpich -genv LD_PRELOAD libstencilmap-reorder-mpich.so ./app
 *
 * PMPI interposition in plain MPI-3 C, one build per MPI (their handles
 * differ).  The grid is planned as MPIX_Cart_stencil_comm plans it, with
 * the nearest-neighbour stencil of MPI_Cart_shift (+-1 along each axis),
 * or the family STENCIL_MAP_REORDER_STENCIL names (doc/specs.md).  Left to
 * MPI untouched: reorder=0; STENCIL_MAP_REORDER=0; a grid smaller than
 * the communicator, an intercommunicator or arguments MPI refuses (MPI's
 * own answer then).  The identity order, without planning: the grid the
 * plugin already placed (STENCIL_MAP_DIMS equal to dims), one node.  If
 * the reordering fails on the way, MPI_Cart_create is called as the
 * application asked.  STENCIL_MAP_VERBOSE: one line on rank 0 with the
 * planned and the identity's J_sum/J_max; STENCIL_MAP_RECORD_DIR: an audit
 * record (reorder_record.c).  MPI_Dist_graph_create_adjacent
 * and MPI_Graph_create with reorder=1 are reordered the same way when
 * their graph is a stencil on a grid (graph_reorder.c); Fortran callers
 * reach all this through fortran_calls.c.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../mpix/mpix_internal.h"
#include "reorder_env.h"
#include "reorder_record.h"

static void say(MPI_Comm comm, const char *what, int ndims, const int dims[])
{
    int rank;
    if (!sm_reorder_verbose())
        return;
    MPI_Comm_rank(comm, &rank);
    if (rank != 0)
        return;
    fprintf(stderr, "stencil-map: MPI_Cart_create ");
    for (int i = 0; i < ndims; i++)
        fprintf(stderr, "%s%d", i ? "x" : "", dims[i]);
    fprintf(stderr, ": %s\n", what);
}

int MPI_Cart_create(MPI_Comm old, int ndims, const int dims[], const int periods[], int reorder,
                    MPI_Comm *cart)
{
    int size, inter = 1;
    if (!reorder || sm_reorder_off() || !cart || old == MPI_COMM_NULL ||
        MPI_Comm_test_inter(old, &inter) != MPI_SUCCESS || inter)
        return PMPI_Cart_create(old, ndims, dims, periods, reorder, cart);
    MPI_Comm_size(old, &size);
    smx_request rq = {ndims, dims, periods, NULL, 0, getenv("STENCIL_MAP_REORDER_STENCIL"),
                      "MPI_Cart_create", NULL};
    if (smx_check(&rq, size) != MPI_SUCCESS)
        return PMPI_Cart_create(old, ndims, dims, periods, reorder, cart);
    if (sm_placed_by_plugin(ndims, dims)) {
        say(old, "order kept (placed by srun --stencil-map, STENCIL_MAP_DIMS)", ndims, dims);
        return PMPI_Cart_create(old, ndims, dims, periods, 0, cart);
    }
    smx_report rep = {.keep_nodes = 1}; /* for the record (reorder_record.c) */
    int rc = smx_cart_reordered(old, &rq, cart, &rep);
    if (rc == MPI_SUCCESS)
        smx_reorder_record(&rq, &rep);
    smx_report_free(&rep);
    if (rc == MPI_SUCCESS)
        return MPI_SUCCESS;
    say(old, "not reordered: the reordering failed, MPI's own order", ndims, dims);
    return PMPI_Cart_create(old, ndims, dims, periods, reorder, cart);
}
