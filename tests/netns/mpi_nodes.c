/* SPDX-License-Identifier: GPL-2.0-or-later */
/* mpi_nodes: every rank sends its node name to the next rank in a ring and
 * checks it got its left neighbour's, as MPI_Allgather reported it; rank 0
 * prints "mpi_nodes: N ranks on M nodes, ring ok" (or "ring FAILED", exit 1).
 * Compiled by tests/netns/run.sh with mpicc, to see Open MPI's TCP between
 * netns nodes work with the settings `minicluster env` prints. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size, len;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    char name[MPI_MAX_PROCESSOR_NAME] = "", left[MPI_MAX_PROCESSOR_NAME] = "";
    MPI_Get_processor_name(name, &len);
    char *all = malloc((size_t)size * MPI_MAX_PROCESSOR_NAME);
    if (!all)
        MPI_Abort(MPI_COMM_WORLD, 2);
    MPI_Allgather(name, MPI_MAX_PROCESSOR_NAME, MPI_CHAR, all, MPI_MAX_PROCESSOR_NAME, MPI_CHAR,
                  MPI_COMM_WORLD);
    MPI_Sendrecv(name, MPI_MAX_PROCESSOR_NAME, MPI_CHAR, (rank + 1) % size, 0, left,
                 MPI_MAX_PROCESSOR_NAME, MPI_CHAR, (rank + size - 1) % size, 0, MPI_COMM_WORLD,
                 MPI_STATUS_IGNORE);
    int bad = strcmp(left, all + (size_t)((rank + size - 1) % size) * MPI_MAX_PROCESSOR_NAME) != 0, nbad = 0;
    MPI_Reduce(&bad, &nbad, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
    if (!rank) {
        int nodes = 0;
        for (int r = 0; r < size; r++) {
            int seen = 0;
            for (int q = 0; q < r && !seen; q++)
                seen = !strcmp(all + (size_t)q * MPI_MAX_PROCESSOR_NAME, all + (size_t)r * MPI_MAX_PROCESSOR_NAME);
            nodes += !seen;
        }
        printf("mpi_nodes: %d ranks on %d nodes, ring %s\n", size, nodes, nbad ? "FAILED" : "ok");
    }
    free(all);
    MPI_Finalize();
    return nbad ? 1 : 0;
}
