/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* MPIX_Cart_stencil_comm (paper 001, Listing 1) and the reordering it
 * shares with the reorder library: the nodes gathered at rank 0, one plan
 * there, each process's new rank scattered back (a negative one carries an
 * error class, so every process returns the same), then MPI_Comm_split in
 * that order and MPI_Cart_create without reordering over it: the result is
 * an ordinary Cartesian communicator whose rank r sits on the planned node,
 * and MPI_Cart_coords, MPI_Cart_shift, MPI_Cart_rank and MPI_Topo_test
 * answer for it as for any other.  The reorder library's graph calls take
 * the split communicator alone (smx_comm_reordered) and build their graph
 * on it. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mpix_internal.h"
#include "stencilmap_mpix.h"

static int verbose(void)
{
    const char *v = getenv("STENCIL_MAP_VERBOSE");
    return v && *v && strcmp(v, "0");
}

static void print_report(const smx_request *rq, const smx_report *rep)
{
    char dims[128] = "";
    size_t at = 0;
    for (int i = 0; i < rq->ndims && at < sizeof(dims); i++)
        at += (size_t)snprintf(dims + at, sizeof(dims) - at, "%s%d", i ? "x" : "", rq->dims[i]);
    /* codes that need rank 0 to stay rank 0 (GROMACS) learn it here */
    char rank0[200] = "";
    if (rep->planned && rep->rank0 != 0)
        snprintf(rank0, sizeof(rank0), "; rank 0 renumbered to %d: %s", rep->rank0,
                 rep->rank0_why);
    fprintf(stderr,
            "stencil-map: %s %s on %d nodes: %s, planned J_sum %lld J_max %lld, "
            "identity J_sum %lld J_max %lld (%s%s)\n",
            rq->caller ? rq->caller : "MPIX_Cart_stencil_comm", dims, rep->nnodes,
            rep->planned ? "reordered" : "order kept", (long long)rep->plan.j_sum,
            (long long)rep->plan.j_max, (long long)rep->identity.j_sum,
            (long long)rep->identity.j_max, rep->planned ? rep->algorithm : rep->why, rank0);
}

int smx_comm_reordered(MPI_Comm comm, const smx_request *rq, MPI_Comm *split, smx_report *rep)
{
    int rank, size, mykey = 0, rc;
    smx_report own;
    smx_nodes nodes;
    *split = MPI_COMM_NULL;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    if (!rep)
        rep = &own;
    int keep = rep != &own && rep->keep_nodes && rank == 0;
    memset(rep, 0, sizeof(*rep));
    int *key = rank == 0 ? malloc(sizeof(int) * (size_t)size) : NULL;
    rc = smx_nodes_find(comm, rank != 0 || key, &nodes);
    if (rc == MPI_ERR_NO_MEM && !(rank == 0 && key)) {
        smx_nodes_free(&nodes); /* every process knows: rank 0 said so */
        free(key);
        return rc;
    }
    if (rank == 0) { /* the keys, or every key the negated error class */
        if (rc == MPI_SUCCESS)
            rc = smx_plan_keys(rq, &nodes, key, rep);
        for (int r = 0; rc != MPI_SUCCESS && r < size; r++)
            key[r] = -rc;
    }
    rc = MPI_Scatter(key, 1, MPI_INT, &mykey, 1, MPI_INT, 0, comm);
    if (keep && rc == MPI_SUCCESS && mykey >= 0) { /* rank 0's, for the record */
        rep->nodes = nodes;
        rep->key = key;
        key = NULL;
    } else
        smx_nodes_free(&nodes);
    free(key);
    if (rc != MPI_SUCCESS)
        return rc;
    if (mykey < 0)
        return -mykey;
    if (rank == 0 && verbose())
        print_report(rq, rep);
    return MPI_Comm_split(comm, 0, mykey, split);
}

int smx_cart_reordered(MPI_Comm comm, const smx_request *rq, MPI_Comm *cart, smx_report *rep)
{
    MPI_Comm split;
    *cart = MPI_COMM_NULL;
    int rc = smx_comm_reordered(comm, rq, &split, rep);
    if (rc != MPI_SUCCESS)
        return rc;
    rc = PMPI_Cart_create(split, rq->ndims, rq->dims, rq->periods, 0, cart);
    MPI_Comm_free(&split);
    return rc;
}

void smx_report_free(smx_report *rep)
{
    smx_nodes_free(&rep->nodes);
    free(rep->key);
    rep->key = NULL;
}

int MPIX_Cart_stencil_comm(MPI_Comm oldcomm, const int ndims, const int dims[],
                           const int periods[], const int reorder, const int stencil[],
                           const int k, MPI_Comm *cartcomm)
{
    int size, inter = 0;
    if (!cartcomm)
        return MPI_ERR_ARG;
    *cartcomm = MPI_COMM_NULL;
    if (oldcomm == MPI_COMM_NULL || MPI_Comm_test_inter(oldcomm, &inter) != MPI_SUCCESS || inter)
        return MPI_ERR_COMM;
    MPI_Comm_size(oldcomm, &size);
    smx_request rq = {ndims, dims, periods, stencil, k, NULL, "MPIX_Cart_stencil_comm", NULL};
    if (!stencil)
        return MPI_ERR_ARG;
    int rc = smx_check(&rq, size);
    if (rc != MPI_SUCCESS)
        return rc;
    if (!reorder)
        return PMPI_Cart_create(oldcomm, ndims, dims, periods, 0, cartcomm);
    return smx_cart_reordered(oldcomm, &rq, cartcomm, NULL);
}
