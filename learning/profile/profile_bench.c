/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* profile_bench: the cost of one counted message.
 *
 * Times 8-byte sends from a rank to itself (Isend + Recv + Wait) in batches,
 * alternating batches whose send goes through MPI_Isend (the profiling
 * library's wrapper when it is preloaded) with batches that call
 * PMPI_Isend (never wrapped), on MPI_COMM_WORLD and on a duplicate of it
 * (whose ranks the library translates through a cached attribute).  The
 * best batch of each kind is kept; the difference is the wrapper's cost
 * per message, measured inside one process so that the noise of a shared
 * machine mostly cancels.  Without the library the difference is the
 * measurement's noise.  Prints; asserts nothing. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

static double batch(MPI_Comm comm, int rank, long n, int wrapped)
{
    char out[8] = "abcdefg", in[8];
    MPI_Request req;
    double t0 = MPI_Wtime();
    for (long i = 0; i < n; i++) {
        if (wrapped)
            MPI_Isend(out, 8, MPI_BYTE, rank, 7, comm, &req);
        else
            PMPI_Isend(out, 8, MPI_BYTE, rank, 7, comm, &req);
        MPI_Recv(in, 8, MPI_BYTE, rank, 7, comm, MPI_STATUS_IGNORE);
        MPI_Wait(&req, MPI_STATUS_IGNORE);
    }
    return (MPI_Wtime() - t0) / (double)n * 1e9;
}

static void measure(const char *name, MPI_Comm comm, int rank, long n)
{
    double best[2] = {1e30, 1e30};
    for (int rep = 0; rep < 40; rep++)
        for (int w = 0; w < 2; w++) {
            double t = batch(comm, rank, n, w);
            if (t < best[w])
                best[w] = t;
        }
    if (rank == 0)
        printf("%-15s %7.1f ns/message through MPI_Isend, %7.1f through PMPI_Isend: %+.1f ns\n", name,
               best[1], best[0], best[1] - best[0]);
}

int main(int argc, char **argv)
{
    long n = argc > 1 ? atol(argv[1]) : 20000;
    int rank;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm dup;
    MPI_Comm_dup(MPI_COMM_WORLD, &dup);
    measure("MPI_COMM_WORLD", MPI_COMM_WORLD, rank, n);
    measure("a duplicate", dup, rank, n);
    MPI_Comm_free(&dup);
    MPI_Finalize();
    return 0;
}
