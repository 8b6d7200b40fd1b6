/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * stencilmap_mpix.h: the seeds' MPI extensions, so that codes written
 * against them compile unchanged.  Paper 001, Listing 1:
 *
 *   MPIX_Cart_stencil_comm(oldcomm, ndims, dims, periods, reorder,
 *                          stencil, k, &cartcomm);
 *
 * stencil[] holds k relative offsets of ndims entries each (k * ndims
 * ints, offset j at stencil[j*ndims ...]): the neighbours every rank
 * talks to.  Collective over oldcomm.  With reorder = 0 it is
 * MPI_Cart_create(..., 0, ...).  With reorder != 0 the ranks are numbered
 * so that few stencil edges cross nodes: the node of each process is found
 * inside the job (MPI_Comm_split_type SHARED and MPI_Get_processor_name,
 * one allgather), rank 0 plans the grid onto those nodes with the placement
 * core that srun --stencil-map uses (auto), on the network levels of
 * STENCIL_MAP_LEVEL_NODES/STENCIL_MAP_LEVELS when the plugin set them, and
 * the new communicator is MPI_Cart_create(reorder=0) over oldcomm split
 * in the planned order.  When the plan is no better than the order oldcomm
 * already has, oldcomm's order is kept.
 *
 * Errors are returned, never raised through the communicator's error
 * handler: MPI_ERR_COMM (oldcomm null or an intercommunicator), MPI_ERR_DIMS
 * (ndims outside 1..8, a side below 1, a grid of another size than
 * oldcomm's), MPI_ERR_ARG (NULL arrays, k outside 1..4096, an offset that
 * is zero, repeated or beyond 1000000), MPI_ERR_NO_MEM, or MPI_ERR_OTHER
 * (the placement failed); *cartcomm is then MPI_COMM_NULL.  All processes
 * must pass the same arguments, as for MPI_Cart_create.
 *
 * Link libstencilmap-mpix (built with Open MPI's mpicc on Debian), or, under
 * MPICH, libstencilmap-reorder-mpich, which exports the same calls.
 */
#ifndef STENCILMAP_MPIX_H
#define STENCILMAP_MPIX_H

#include <mpi.h>

#ifdef __cplusplus
extern "C" {
#endif

int MPIX_Cart_stencil_comm(MPI_Comm oldcomm, const int ndims, const int dims[],
                           const int periods[], const int reorder, const int stencil[],
                           const int k, MPI_Comm *cartcomm);

#ifdef __cplusplus
}
#endif
#endif
