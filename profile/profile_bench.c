/* profile_bench: the cost of one counted message.
 *
 * Times N sends of 8 bytes from a rank to itself (MPI_Isend + MPI_Recv +
 * MPI_Wait), on MPI_COMM_WORLD and on a duplicate of it (whose ranks the
 * profiling library translates through a cached attribute), and prints
 * nanoseconds per message.  `make bench` in profile/ runs it without and
 * with LD_PRELOAD=libstencilmap-profile.so and prints the difference: the
 * library's overhead per message.  Single process; no timing is asserted. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

static double per_message(MPI_Comm comm, int rank, long n)
{
    char out[8] = "abcdefg", in[8];
    MPI_Request req;
    double best = 1e30;
    for (int rep = 0; rep < 5; rep++) {
        double t0 = MPI_Wtime();
        for (long i = 0; i < n; i++) {
            MPI_Isend(out, 8, MPI_BYTE, rank, 7, comm, &req);
            MPI_Recv(in, 8, MPI_BYTE, rank, 7, comm, MPI_STATUS_IGNORE);
            MPI_Wait(&req, MPI_STATUS_IGNORE);
        }
        double t = (MPI_Wtime() - t0) / (double)n;
        if (t < best)
            best = t;
    }
    return best * 1e9;
}

int main(int argc, char **argv)
{
    long n = argc > 1 ? atol(argv[1]) : 200000;
    int rank;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm dup;
    MPI_Comm_dup(MPI_COMM_WORLD, &dup);
    double w = per_message(MPI_COMM_WORLD, rank, n);
    double d = per_message(dup, rank, n);
    if (rank == 0)
        printf("world %.1f ns/message, dup %.1f ns/message (%ld messages, best of 5)\n", w, d, n);
    MPI_Comm_free(&dup);
    MPI_Finalize();
    return 0;
}
