/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The cost of MPIX_Cart_stencil_comm beside MPI_Cart_create, as an
 * application sees it: each call REPS times over MPI_COMM_WORLD in a
 * balanced 2-D (or 3-D) grid with the nearest-neighbour stencil, after a
 * barrier, its time the slowest process's; prints the median of each.
 *
 *   bench_stencil_comm [NDIMS [REPS]]
 *
 * Built with -DWITH_MPIX against libstencilmap-mpix (tests/mpix/run.sh's
 * bench, doc/inside-the-application.md's figures).  Not a test: it asserts
 * nothing but that the calls succeed.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <stencilmap_mpix.h>

static int by_value(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static double timed(int mpix, int nd, const int *dims, const int *periods, const int *st)
{
    MPI_Comm c;
    MPI_Barrier(MPI_COMM_WORLD);
    double t = MPI_Wtime(), max;
    int rc = mpix ? MPIX_Cart_stencil_comm(MPI_COMM_WORLD, nd, dims, periods, 1, st, 2 * nd, &c)
                  : MPI_Cart_create(MPI_COMM_WORLD, nd, dims, periods, 1, &c);
    t = MPI_Wtime() - t;
    if (rc != MPI_SUCCESS) {
        fprintf(stderr, "bench_stencil_comm: call failed (%d)\n", rc);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    MPI_Comm_free(&c);
    MPI_Allreduce(&t, &max, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    return max;
}

int main(int argc, char **argv)
{
    int size, rank, nd = argc > 1 ? atoi(argv[1]) : 2, reps = argc > 2 ? atoi(argv[2]) : 5;
    int dims[3] = {0, 0, 0}, periods[3] = {0, 0, 0}, st[18] = {0};
    MPI_Init(&argc, &argv);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (nd < 2 || nd > 3 || reps < 1 || reps > 100) {
        if (rank == 0)
            fprintf(stderr, "usage: bench_stencil_comm [2|3 [REPS (1..100)]]\n");
        MPI_Finalize();
        return 2;
    }
    MPI_Dims_create(size, nd, dims);
    for (int d = 0; d < nd; d++) {
        st[(2 * d) * nd + d] = 1;
        st[(2 * d + 1) * nd + d] = -1;
    }
    double tm[100], tc[100];
    for (int i = 0; i < reps; i++) {
        tm[i] = timed(1, nd, dims, periods, st);
        tc[i] = timed(0, nd, dims, periods, st);
    }
    qsort(tm, (size_t)reps, sizeof(double), by_value);
    qsort(tc, (size_t)reps, sizeof(double), by_value);
    if (rank == 0)
        printf("ranks %d dims %dd: MPIX_Cart_stencil_comm %.2f ms, MPI_Cart_create %.2f ms "
               "(median of %d)\n", size, nd, 1e3 * tm[reps / 2], 1e3 * tc[reps / 2], reps);
    MPI_Finalize();
    return 0;
}
