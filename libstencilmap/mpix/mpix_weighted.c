/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Seed 003's weighted calls (HLRS, MPI Forum issue 120) on the placement
 * core's factorizations (smp_dims_weighted, smp_dims_ml):
 * MPIX_Dims_weighted_create, MPIX_Dims_ml_create, MPIX_Cart_ml_create
 * (the multi-level grid laid over ranks numbered sequentially in the
 * hardware, as the seed requires) and MPIX_Cart_weighted_create, which
 * finds the nodes itself: equal nodes get the seed's two-level choice
 * (nodes, then processes per node) over the processes sorted by node;
 * unequal ones the weighted dims, planned onto the nodes like
 * MPIX_Cart_stencil_comm with the +-1 stencil weighted by each axis's
 * halo (w_i * dims[i] per edge, the face a process exchanges).  info is
 * for future use, as in the seed.  Errors are returned, never raised. */
#include <stdlib.h>
#include <string.h>

#include "mpix_internal.h"
#include "stencilmap_mpix.h"

int MPIX_Dims_weighted_create(int nnodes, int ndims, const double dim_weights[],
                              const int periods[], MPI_Info info, int dims[])
{
    int64_t d[SMP_MAX_DIMS];
    bool per[SMP_MAX_DIMS];
    smp_error err;
    (void)info;
    if (ndims < 1 || ndims > SMP_MAX_DIMS || nnodes < 1)
        return MPI_ERR_DIMS;
    if (!dims)
        return MPI_ERR_ARG;
    for (int i = 0; i < ndims; i++) {
        if (dims[i] < 0)
            return MPI_ERR_DIMS;
        d[i] = dims[i];
        per[i] = periods && periods[i]; /* ties: the lower real cut */
    }
    if (smp_dims_weighted(nnodes, ndims, dim_weights, per, d, NULL, &err) != SMP_OK)
        return err.status == SMP_ERR_SYSTEM ? MPI_ERR_NO_MEM : MPI_ERR_DIMS;
    for (int i = 0; i < ndims; i++)
        dims[i] = (int)d[i];
    return MPI_SUCCESS;
}

int MPIX_Dims_ml_create(int nnodes, int ndims, const double dim_weights[], int nlevels,
                        const int sizes[], const int periods[], MPI_Info info, int dims_ml[])
{
    int64_t s[SMP_MAX_LEVELS + 1], *ml, product = 1;
    bool per[SMP_MAX_DIMS];
    smp_error err;
    (void)info;
    if (ndims < 1 || ndims > SMP_MAX_DIMS || nlevels < 1 || nlevels > SMP_MAX_LEVELS + 1)
        return MPI_ERR_DIMS;
    if (!sizes || !dims_ml)
        return MPI_ERR_ARG;
    for (int l = 0; l < nlevels; l++) {
        if (sizes[l] < 1)
            return MPI_ERR_DIMS;
        s[l] = sizes[l];
        product *= sizes[l];
        if (product > SMP_MAX_RANKS)
            return MPI_ERR_DIMS;
    }
    if (product != nnodes)
        return MPI_ERR_DIMS;
    if (!(ml = calloc((size_t)ndims * (size_t)nlevels, sizeof(int64_t))))
        return MPI_ERR_NO_MEM;
    int rc = MPI_SUCCESS; /* dims_ml is OUT in the seed: every entry free */
    for (int i = 0; i < ndims; i++)
        per[i] = periods && periods[i]; /* ties: the lower real cut */
    if (smp_dims_ml(ndims, dim_weights, per, nlevels, s, ml, NULL, &err) != SMP_OK)
        rc = err.status == SMP_ERR_SYSTEM ? MPI_ERR_NO_MEM : MPI_ERR_DIMS;
    for (int k = 0; rc == MPI_SUCCESS && k < ndims * nlevels; k++)
        dims_ml[k] = (int)ml[k];
    free(ml);
    return rc;
}

/* The grid rank of the process at rank p of a sequentially numbered comm:
 * p's digits by level (the coarsest slowest), each a row-major position in
 * that level's grid dims_ml[.][l], give coordinate i as the mixed radix
 * sum over levels; the rank is row-major over dims. */
static int ml_key(int p, int ndims, int nlevels, const int *dims_ml, const int *dims)
{
    int64_t c[SMP_MAX_DIMS] = {0};
    int64_t unit = 1; /* processes in one unit of the current level */
    for (int l = 0; l < nlevels; l++) {
        int64_t s = 1;
        for (int i = 0; i < ndims; i++)
            s *= dims_ml[i * nlevels + l];
        unit *= s;
    }
    int64_t rest = p;
    for (int l = 0; l < nlevels; l++) {
        int64_t s = 1;
        for (int i = 0; i < ndims; i++)
            s *= dims_ml[i * nlevels + l];
        unit /= s;
        int64_t u = rest / unit; /* the unit of level l, row-major in its grid */
        rest %= unit;
        for (int i = ndims - 1; i >= 0; i--) {
            int64_t side = dims_ml[i * nlevels + l];
            c[i] = c[i] * side + u % side;
            u /= side;
        }
    }
    int64_t key = 0;
    for (int i = 0; i < ndims; i++)
        key = key * dims[i] + c[i];
    return (int)key;
}

/* dims[i] = the product of dims_ml[i][.]; MPI_SUCCESS when they fill comm */
static int ml_dims(int size, int ndims, int nlevels, const int *dims_ml, int *dims)
{
    int64_t total = 1;
    for (int i = 0; i < ndims; i++) {
        int64_t d = 1;
        for (int l = 0; l < nlevels; l++) {
            if (dims_ml[i * nlevels + l] < 1)
                return MPI_ERR_DIMS;
            d *= dims_ml[i * nlevels + l];
            if (d > SMP_MAX_RANKS)
                return MPI_ERR_DIMS;
        }
        dims[i] = (int)d;
        total *= d;
        if (total > SMP_MAX_RANKS)
            return MPI_ERR_DIMS;
    }
    return total == size ? MPI_SUCCESS : MPI_ERR_DIMS;
}

int MPIX_Cart_ml_create(MPI_Comm comm_old, int ndims, const int periods[], int nlevels,
                        const int dims_ml[], MPI_Info info, int dims[], MPI_Comm *comm_cart)
{
    int size, rank, inter = 0, rc;
    MPI_Comm split;
    (void)info;
    if (!comm_cart)
        return MPI_ERR_ARG;
    *comm_cart = MPI_COMM_NULL;
    if (comm_old == MPI_COMM_NULL || MPI_Comm_test_inter(comm_old, &inter) != MPI_SUCCESS || inter)
        return MPI_ERR_COMM;
    if (ndims < 1 || ndims > SMP_MAX_DIMS || nlevels < 1)
        return MPI_ERR_DIMS;
    if (!periods || !dims_ml || !dims)
        return MPI_ERR_ARG;
    MPI_Comm_size(comm_old, &size);
    MPI_Comm_rank(comm_old, &rank);
    if ((rc = ml_dims(size, ndims, nlevels, dims_ml, dims)) != MPI_SUCCESS)
        return rc;
    if ((rc = MPI_Comm_split(comm_old, 0, ml_key(rank, ndims, nlevels, dims_ml, dims), &split)))
        return rc;
    rc = PMPI_Cart_create(split, ndims, dims, periods, 0, comm_cart);
    MPI_Comm_free(&split);
    return rc;
}

/* rank 0: the shape of the nodes and each rank's place when comm is
 * numbered node by node (nodes as smx_nodes_find numbers them, ranks of
 * a node in comm's order) */
static void root_shape(const smx_nodes *nodes, int *shape, int *hw)
{
    int32_t *start = calloc((size_t)nodes->nnodes + 1, sizeof(int32_t));
    if (!start) {
        shape[0] = -MPI_ERR_NO_MEM;
        return;
    }
    shape[0] = nodes->nnodes;
    shape[1] = nodes->slots[0];
    for (int n = 0; n < nodes->nnodes; n++) {
        start[n + 1] = start[n] + nodes->slots[n];
        if (nodes->slots[n] != nodes->slots[0])
            shape[1] = 0;
    }
    for (int r = 0; r < nodes->size; r++)
        hw[r] = start[nodes->node_of[r]]++;
    free(start);
}

/* The nodes as every process needs them here: how many, whether all hold
 * the same number of processes (*per_node, else 0), and this process's
 * rank when comm is numbered node by node.  Collective. */
static int node_shape(MPI_Comm comm, int *nnodes, int *per_node, int *hw_rank)
{
    int rank, size, shape[2] = {0, 0}, rc;
    smx_nodes nodes;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    int *hw = rank == 0 ? malloc(sizeof(int) * (size_t)size) : NULL;
    rc = smx_nodes_find(comm, rank != 0 || hw, &nodes);
    if (rc == MPI_ERR_NO_MEM && !(rank == 0 && hw)) {
        smx_nodes_free(&nodes);
        free(hw);
        return rc;
    }
    if (rank == 0) {
        if (rc == MPI_SUCCESS)
            root_shape(&nodes, shape, hw);
        else
            shape[0] = -rc;
    }
    smx_nodes_free(&nodes);
    if ((rc = MPI_Bcast(shape, 2, MPI_INT, 0, comm)) == MPI_SUCCESS && shape[0] > 0)
        rc = MPI_Scatter(hw, 1, MPI_INT, hw_rank, 1, MPI_INT, 0, comm);
    free(hw);
    if (rc != MPI_SUCCESS)
        return rc;
    if (shape[0] < 0)
        return -shape[0];
    *nnodes = shape[0];
    *per_node = shape[1];
    return MPI_SUCCESS;
}

/* equal nodes, all dims free: seed 003's two levels over the processes
 * numbered node by node */
static int cart_two_levels(MPI_Comm comm, int ndims, const double *w, const int *periods,
                           int nnodes, int per_node, int hw_rank, int *dims, MPI_Comm *cart)
{
    int sizes[2] = {nnodes, per_node}, ml[2 * SMP_MAX_DIMS], rc;
    MPI_Comm seq;
    if ((rc = MPIX_Dims_ml_create(nnodes * per_node, ndims, w, 2, sizes, periods,
                                  MPI_INFO_NULL, ml)) != MPI_SUCCESS)
        return rc;
    if ((rc = MPI_Comm_split(comm, 0, hw_rank, &seq)) != MPI_SUCCESS)
        return rc;
    rc = MPIX_Cart_ml_create(seq, ndims, periods, 2, ml, MPI_INFO_NULL, dims, cart);
    MPI_Comm_free(&seq);
    return rc;
}

/* otherwise: the weighted dims, planned onto the nodes with the +-1
 * stencil weighted by each axis's face */
static int cart_planned(MPI_Comm comm, int ndims, const double *w, const int *periods, int *dims,
                        MPI_Comm *cart)
{
    int size, off[2 * SMP_MAX_DIMS * SMP_MAX_DIMS] = {0}, rc;
    double ew[2 * SMP_MAX_DIMS];
    MPI_Comm_size(comm, &size);
    if ((rc = MPIX_Dims_weighted_create(size, ndims, w, periods, MPI_INFO_NULL, dims)))
        return rc;
    for (int d = 0; d < ndims; d++) {
        off[(2 * d) * ndims + d] = 1;
        off[(2 * d + 1) * ndims + d] = -1;
        ew[2 * d] = ew[2 * d + 1] = (w ? w[d] : 1.0) * dims[d];
    }
    smx_request rq = {ndims, dims, periods, off, 2 * ndims, NULL, "MPIX_Cart_weighted_create", ew};
    return smx_cart_reordered(comm, &rq, cart, NULL);
}

int MPIX_Cart_weighted_create(MPI_Comm comm_old, int ndims, const double dim_weights[],
                              const int periods[], MPI_Info info, int dims[],
                              MPI_Comm *comm_cart)
{
    int inter = 0, nnodes = 0, per_node = 0, hw = 0, rc, free_dims = 1;
    (void)info;
    if (!comm_cart)
        return MPI_ERR_ARG;
    *comm_cart = MPI_COMM_NULL;
    if (comm_old == MPI_COMM_NULL || MPI_Comm_test_inter(comm_old, &inter) != MPI_SUCCESS || inter)
        return MPI_ERR_COMM;
    if (ndims < 1 || ndims > SMP_MAX_DIMS)
        return MPI_ERR_DIMS;
    if (!periods || !dims)
        return MPI_ERR_ARG;
    for (int i = 0; i < ndims; i++) {
        if (dims[i] < 0)
            return MPI_ERR_DIMS;
        free_dims &= dims[i] == 0;
        if (dim_weights && !(dim_weights[i] > 0 && dim_weights[i] < 1e300))
            return MPI_ERR_ARG;
    }
    if ((rc = node_shape(comm_old, &nnodes, &per_node, &hw)) != MPI_SUCCESS)
        return rc;
    if (free_dims && per_node > 0 && nnodes > 1)
        return cart_two_levels(comm_old, ndims, dim_weights, periods, nnodes, per_node, hw, dims,
                               comm_cart);
    return cart_planned(comm_old, ndims, dim_weights, periods, dims, comm_cart);
}
