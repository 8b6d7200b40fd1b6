/* SPDX-License-Identifier: GPL-2.0-or-later */
/* An MPI program that says where each rank runs: "RANK NODE SUM" per rank,
 * NODE from MPI_Get_processor_name, SUM an MPI_Allreduce of one per rank
 * (the job's size when every rank took part).  tests/launchers/run.sh
 * builds it with Open MPI's and with MPICH's mpicc. */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    int rank, len, one = 1, sum = 0;
    char name[MPI_MAX_PROCESSOR_NAME];
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Get_processor_name(name, &len);
    MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    printf("%d %s %d\n", rank, name, sum);
    MPI_Finalize();
    return 0;
}
