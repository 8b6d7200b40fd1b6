/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* What the MPIX_ calls and the reorder library share (smx_*): the nodes
 * of a communicator found inside the job, the plan of a grid onto them,
 * and the reordered Cartesian communicator built from that plan.  Not
 * installed. */
#ifndef STENCILMAP_MPIX_INTERNAL_H
#define STENCILMAP_MPIX_INTERNAL_H

#include <mpi.h>
#include <stddef.h>
#include <stdint.h>

#include <stencilmap/placement.h>

/* A grid and its stencil as the caller gave them (MPI's int arrays). */
typedef struct {
    int ndims;
    const int *dims;
    const int *periods;
    const int *offsets; /* k * ndims; NULL with k == 0: the stencil family below */
    int k;
    const char *family; /* with offsets NULL: a family name, NULL for "nearest" */
    const char *caller; /* the call the verbose line names */
    const double *weights; /* k weights of the offsets, NULL for unit weights */
} smx_request;

/* The nodes of a communicator: node_of[r] for each rank r of it, in
 * [0, nnodes), nodes numbered in the order of their first rank; slots[n]
 * ranks on node n; names[n] its processor name. */
typedef struct {
    int size;
    int nnodes;
    int32_t *node_of;
    int32_t *slots;
    char **names;
} smx_nodes;

/* What the plan gave, for the verbose line and the reorder record. */
typedef struct {
    int planned;        /* 1: the new order is the plan's; 0: comm's order kept */
    int nnodes;
    int nlevels;        /* network levels planned on (from STENCIL_MAP_LEVEL_*) */
    smp_score plan;     /* the plan's score */
    smp_score identity; /* the score of comm's own order */
    char algorithm[48];
    int rank0;          /* the new rank of comm's rank 0: 0 unless the plan had to move it */
    char rank0_why[160]; /* why rank 0 could not stay 0, "" otherwise */
    char why[600];      /* why comm's order was kept, "" otherwise */
    /* for the reorder record: with keep_nodes set before smx_cart_reordered,
     * rank 0 gets the nodes found and key[r], comm's rank r's new rank
     * (on success only; smx_report_free releases them) */
    int keep_nodes;
    smx_nodes nodes;
    int *key;
} smx_report;

/* rq's grid and stencil as the placement core takes them (smp_ errors) */
smp_status smx_make_grid(const smx_request *rq, smp_grid *g, smp_error *err);
smp_status smx_load_stencil(const smx_request *rq, smp_stencil *st, smp_error *err);
/* What keep_nodes kept. */
void smx_report_free(smx_report *rep);
/* Checks the arguments as MPIX_Cart_stencil_comm documents: MPI_SUCCESS
 * or its error class; size is the communicator's. */
int smx_check(const smx_request *rq, int size);
/* The nodes of comm, on rank 0 only: one MPI_Comm_split_type and one
 * gather of the processes' identities (their shared-memory group and
 * processor name).  Collective.  root_room (read on rank 0): whether
 * rank 0 could allocate what it needs beside; when it could not, every
 * process returns MPI_ERR_NO_MEM.  Other errors are rank 0's;
 * *nodes freeable either way. */
int smx_nodes_find(MPI_Comm comm, int root_room, smx_nodes *nodes);
void smx_nodes_free(smx_nodes *nodes);
/* The network levels above nodes from STENCIL_MAP_LEVEL_NODES and
 * STENCIL_MAP_LEVELS (by node name); 0 levels when unset or when a node
 * is not named there.  lv is freeable either way. */
void smx_levels_from_env(const smx_nodes *nodes, smp_levels *lv);
/* Rank 0's work: plans rq's grid onto nodes and fills key[r], the new rank
 * of comm's rank r (key[r] == r when comm's order is kept), and rep.
 * Returns an MPI error class. */
int smx_plan_keys(const smx_request *rq, const smx_nodes *nodes, int *key, smx_report *rep);
/* The reordering without the topology: nodes, plan at rank 0, the keys
 * scattered, then MPI_Comm_split of comm in the planned order (a process's
 * rank in *split is its new rank).  Collective.  rep (may be NULL) is
 * filled on rank 0 only. */
int smx_comm_reordered(MPI_Comm comm, const smx_request *rq, MPI_Comm *split, smx_report *rep);
/* Keeps comm's rank 0 as the grid's rank 0 when that costs nothing
 * (mpix_plan.c): when pl puts grid rank 0 on node X, not on node 0
 * (comm's rank 0's), exchanges the two nodes' planned ranks in pl if that
 * leaves every figure of the plan as it is.  Returns 1 when it exchanged
 * or had nothing to do, 0 when rank 0 must move (why[len] says why). */
int smx_keep_rank0(const smp_grid *g, const smp_stencil *st, const smx_nodes *nodes,
                   const smp_levels *lv, smp_placement *pl, char *why, size_t len);
/* The whole reordering: nodes, plan at rank 0, the keys scattered, then
 * MPI_Comm_split and PMPI_Cart_create(reorder=0).  Collective.  rep (may
 * be NULL) is filled on rank 0 only. */
int smx_cart_reordered(MPI_Comm comm, const smx_request *rq, MPI_Comm *cart, smx_report *rep);

#endif
