/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The cost of MPIX_Cart_stencil_comm step by step, in SimGrid's SMPI, at
 * sizes no machine here can start for real (run.sh beside this file).
 * tests/mpix/bench_stencil_comm.c times the call whole; this driver runs
 * the call's own steps in the call's order, with the library's own
 * functions (smx_nodes_find, smx_plan_keys, then MPI_Scatter,
 * MPI_Comm_split and MPI_Cart_create(reorder=0), as smx_cart_reordered in
 * libstencilmap/mpix/mpix_cart.c), so that each step's simulated time is
 * read apart: every process stamps MPI_Wtime after each step, without
 * barriers between them, and a step's time is the latest stamp after it
 * minus the latest stamp before it (the critical path, as the call sees it).
 *
 * SMPI simulates the messages only (run with simulate-computation:no):
 * rank 0's plan is real CPU work that the simulated clock would not see,
 * so its thread CPU time is measured and injected with smpi_execute right
 * where it happens, before the scatter the other processes wait in.
 * Rank 0's sort of the gathered identities (inside smx_nodes_find, after
 * the gather) is the one piece of CPU work not injected.
 *
 * Before the sequence, and apart from it, two of its pieces alone (each
 * after a barrier, the slowest process's time): the node identities
 * (MPI_Comm_split_type SHARED and the broadcast in the group, as
 * smx_nodes_find does them) and the gather of one fixed record per process
 * (SMPI's size, and Open MPI's, whose MPI_MAX_PROCESSOR_NAME is larger);
 * after it, MPI_Cart_create(reorder=1) of MPI_COMM_WORLD alone, what an
 * application pays without the library.
 *
 *   stencil_comm_steps NDIMS [--no-cart]
 *
 * --no-cart leaves out both MPI_Cart_create calls (SMPI's has been seen
 * to cost O(p^2) of real CPU; with tree collectives it costs little).
 * Prints one "step NAME SECONDS" line per step on rank 0.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "mpix_internal.h"

#undef clock_gettime /* SMPI's would give the simulated clock: the real CPU is wanted */

enum { S_NODES, S_PLAN, S_SCATTER, S_SPLIT, S_CART, NSTEPS };
static const char *const step_name[NSTEPS] = {"identities+gather", "plan", "scatter", "split",
                                              "cart_create"};

/* on rank 0, to stderr: where a long simulation is (the steps take
 * minutes of real time at 16,384 ranks) */
static void progress(int rank, const char *done)
{
    if (rank == 0)
        fprintf(stderr, "stencil_comm_steps: %s done at simulated %.6f s\n", done, MPI_Wtime());
}

static double thread_cpu(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* the slowest process's time of a piece run alone after a barrier */
static double slowest(double t0)
{
    double t = MPI_Wtime() - t0, max;
    MPI_Reduce(&t, &max, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    return max;
}

/* the node identities alone: what smx_nodes_find does before its gather */
static double identities_alone(int rank)
{
    MPI_Comm shm;
    int leader = rank, len;
    char name[MPI_MAX_PROCESSOR_NAME];
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &shm);
    MPI_Bcast(&leader, 1, MPI_INT, 0, shm);
    MPI_Comm_free(&shm);
    MPI_Get_processor_name(name, &len);
    return slowest(t0);
}

/* the gather alone: rank 0's room broadcast, then one record per process
 * of REC bytes: smx_nodes_find's (an int and MPI_MAX_PROCESSOR_NAME bytes,
 * 100 in SMPI) or Open MPI's (MPI_MAX_PROCESSOR_NAME 256) */
static double gather_alone(int rank, int size, int rec)
{
    char me[4 + 256] = {0};
    int room = 1;
    char *all = rank == 0 ? malloc((size_t)rec * (size_t)size) : NULL;
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    MPI_Bcast(&room, 1, MPI_INT, 0, MPI_COMM_WORLD);
    MPI_Gather(me, rec, MPI_BYTE, all, rec, MPI_BYTE, 0, MPI_COMM_WORLD);
    double t = slowest(t0);
    free(all);
    return t;
}

static void fail(const char *what, int rc)
{
    fprintf(stderr, "stencil_comm_steps: %s failed (%d)\n", what, rc);
    MPI_Abort(MPI_COMM_WORLD, 1);
}

/* rank 0's plan, its CPU time injected into the simulated clock */
static double plan_injected(const smx_request *rq, const smx_nodes *nodes, int *key,
                            smx_report *rep)
{
    double c0 = thread_cpu();
    int rc = smx_plan_keys(rq, nodes, key, rep);
    double cpu = thread_cpu() - c0;
    if (rc != MPI_SUCCESS)
        fail("smx_plan_keys", rc);
    smpi_execute(cpu);
    return cpu;
}

/* The call's sequence; stamp[s] = MPI_Wtime after step s; returns rank
 * 0's plan CPU time (0 elsewhere). */
static double sequence(const smx_request *rq, int rank, int size, int cart, double *stamp,
                       smx_report *rep)
{
    smx_nodes nodes;
    MPI_Comm split, comm = MPI_COMM_NULL;
    int mykey = 0, rc;
    double cpu = 0;
    int *key = rank == 0 ? malloc(sizeof(int) * (size_t)size) : NULL;
    if ((rc = smx_nodes_find(MPI_COMM_WORLD, rank != 0 || key, &nodes)) != MPI_SUCCESS)
        fail("smx_nodes_find", rc);
    stamp[S_NODES] = MPI_Wtime();
    progress(rank, "identities+gather");
    if (rank == 0)
        cpu = plan_injected(rq, &nodes, key, rep);
    smx_nodes_free(&nodes);
    stamp[S_PLAN] = MPI_Wtime();
    if ((rc = MPI_Scatter(key, 1, MPI_INT, &mykey, 1, MPI_INT, 0, MPI_COMM_WORLD)))
        fail("MPI_Scatter", rc);
    free(key);
    stamp[S_SCATTER] = MPI_Wtime();
    progress(rank, "plan, scatter");
    if ((rc = MPI_Comm_split(MPI_COMM_WORLD, 0, mykey, &split)))
        fail("MPI_Comm_split", rc);
    stamp[S_SPLIT] = MPI_Wtime();
    progress(rank, "split");
    if (cart && (rc = MPI_Cart_create(split, rq->ndims, rq->dims, rq->periods, 0, &comm)))
        fail("MPI_Cart_create", rc);
    stamp[S_CART] = MPI_Wtime();
    if (comm != MPI_COMM_NULL)
        MPI_Comm_free(&comm);
    MPI_Comm_free(&split);
    return cpu;
}

static double cart_alone(int nd, const int *dims, const int *periods)
{
    MPI_Comm c;
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    int rc = MPI_Cart_create(MPI_COMM_WORLD, nd, dims, periods, 1, &c);
    if (rc != MPI_SUCCESS)
        fail("MPI_Cart_create", rc);
    double t = slowest(t0);
    MPI_Comm_free(&c);
    return t;
}

static void print_sequence(const double *t0, const double *last, double cpu,
                           const smx_report *rep, int cart)
{
    double prev = *t0;
    for (int s = 0; s < NSTEPS; s++) {
        if (s == S_CART && !cart)
            break;
        printf("step %s %.9f\n", step_name[s], last[s] - prev);
        prev = last[s];
    }
    printf("step total %.9f\n", prev - *t0);
    printf("plan_cpu %.6f\n", cpu);
    printf("plan %s %s nodes %d J_sum %lld J_max %lld identity J_sum %lld J_max %lld\n",
           rep->planned ? "reordered" : "kept", rep->planned ? rep->algorithm : rep->why,
           rep->nnodes, (long long)rep->plan.j_sum, (long long)rep->plan.j_max,
           (long long)rep->identity.j_sum, (long long)rep->identity.j_max);
}

int main(int argc, char **argv)
{
    int size, rank, nd = argc > 1 ? atoi(argv[1]) : 0, cart = 1;
    int dims[3] = {0, 0, 0}, periods[3] = {0, 0, 0}, st[18] = {0};
    MPI_Init(&argc, &argv);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (argc > 2 && !strcmp(argv[2], "--no-cart"))
        cart = 0;
    if (nd < 2 || nd > 3 || (argc > 2 && cart) || argc > 3) {
        if (rank == 0)
            fprintf(stderr, "usage: stencil_comm_steps NDIMS (2 or 3) [--no-cart]\n");
        MPI_Finalize();
        return 2;
    }
    MPI_Dims_create(size, nd, dims);
    for (int d = 0; d < nd; d++) { /* the nearest neighbours: 5 or 7 points */
        st[(2 * d) * nd + d] = 1;
        st[(2 * d + 1) * nd + d] = -1;
    }
    smx_request rq = {nd, dims, periods, st, 2 * nd, NULL, "MPIX_Cart_stencil_comm", NULL};
    smx_report rep;
    memset(&rep, 0, sizeof(rep));
    int rec = (int)sizeof(int) + MPI_MAX_PROCESSOR_NAME, rec_ompi = 4 + 256;
    double ident = identities_alone(rank);
    progress(rank, "identities alone");
    double gath = gather_alone(rank, size, rec);
    double gath_ompi = gather_alone(rank, size, rec_ompi);
    progress(rank, "gathers alone");
    double stamp[NSTEPS], last[NSTEPS], t0;
    MPI_Barrier(MPI_COMM_WORLD);
    t0 = MPI_Wtime();
    double cpu = sequence(&rq, rank, size, cart, stamp, &rep);
    MPI_Reduce(stamp, last, NSTEPS, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    double alone = cart ? cart_alone(nd, dims, periods) : 0;
    if (rank == 0) {
        printf("ranks %d dims", size);
        for (int d = 0; d < nd; d++)
            printf("%s%d", d ? "x" : " ", dims[d]);
        printf("\nalone identities %.9f\n", ident);
        printf("alone gather %.9f bytes %ld\n", gath, (long)rec * size);
        printf("alone gather_openmpi %.9f bytes %ld\n", gath_ompi, (long)rec_ompi * size);
        print_sequence(&t0, last, cpu, &rep, cart);
        if (cart)
            printf("alone cart_create_reorder1 %.9f\n", alone);
    }
    MPI_Finalize();
    return 0;
}
