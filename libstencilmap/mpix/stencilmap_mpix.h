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
 * Seed 003 (HLRS, MPI Forum issue 120): MPIX_Dims_weighted_create, the
 * factorization of nnodes minimising sum(dims[i] * dim_weights[i]), with
 * w_i = 2 G / g_i * h_i * c_i from the data grid g, halo widths h and cost
 * factors c (MPIX_WEIGHTS_EQUAL: all equal); MPIX_Dims_ml_create, that
 * choice level by level (sizes[l] units per unit of the level above,
 * coarsest first; dims_ml[i * nlevels + l]); MPIX_Cart_ml_create, the grid
 * of those levels over a comm_old ranked sequentially in the hardware;
 * and MPIX_Cart_weighted_create, which finds the nodes itself (equal
 * nodes: the two-level choice over the processes sorted by node; unequal
 * ones: the weighted dims planned onto them).  dims is INOUT (0 = free),
 * info is for future use (MPI_INFO_NULL).
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

#define MPIX_WEIGHTS_EQUAL ((const double *)0)

int MPIX_Dims_weighted_create(int nnodes, int ndims, const double dim_weights[],
                              const int periods[], MPI_Info info, int dims[]);
int MPIX_Dims_ml_create(int nnodes, int ndims, const double dim_weights[], int nlevels,
                        const int sizes[], const int periods[], MPI_Info info, int dims_ml[]);
int MPIX_Cart_ml_create(MPI_Comm comm_old, int ndims, const int periods[], int nlevels,
                        const int dims_ml[], MPI_Info info, int dims[], MPI_Comm *comm_cart);
int MPIX_Cart_weighted_create(MPI_Comm comm_old, int ndims, const double dim_weights[],
                              const int periods[], MPI_Info info, int dims[],
                              MPI_Comm *comm_cart);

#ifdef __cplusplus
}
#endif
#endif
