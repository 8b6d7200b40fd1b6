/* SPDX-License-Identifier: GPL-2.0-or-later */
/* nonstencil: MPI traffic that no placement shortens, for the learned
 * suite (tests/learned/run.sh).
 *
 *   nonstencil --pattern ring|alltoall|scatter [--iters N] [--bytes B]
 *
 * ring: every rank sends B bytes to the next one (a token ring: one
 * dimension, which Slurm's blocked layout already cuts least); alltoall:
 * MPI_Alltoall is a collective the profile does not count, so each rank
 * sends B bytes to every other by MPI_Isend; scatter: each rank sends to
 * three partners drawn at random (a seed per rank) with sizes drawn too,
 * which no grid explains.  Checks what it receives; exit 0, or 1 when a
 * message was wrong. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static unsigned next(unsigned *s)
{
    *s = *s * 1103515245u + 12345u;
    return *s >> 8;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size, iters = 10, bytes = 4096, bad = 0;
    const char *pattern = "ring";
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    for (int i = 1; i + 1 < argc; i += 2) {
        if (!strcmp(argv[i], "--pattern"))
            pattern = argv[i + 1];
        else if (!strcmp(argv[i], "--iters"))
            iters = atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "--bytes"))
            bytes = atoi(argv[i + 1]);
    }
    int known = !strcmp(pattern, "ring") || !strcmp(pattern, "alltoall") || !strcmp(pattern, "scatter");
    if (!known || size < 2 || iters < 1 || bytes < 1 || bytes > (1 << 24)) {
        if (!rank)
            fprintf(stderr, "nonstencil: --pattern ring|alltoall|scatter, at least 2 ranks\n");
        MPI_Finalize();
        return 2;
    }
    /* who sends to whom, and how much: to[k] gets len[k] bytes */
    int *to = malloc(sizeof(int) * (size_t)size), *len = malloc(sizeof(int) * (size_t)size), n = 0;
    if (!strcmp(pattern, "ring")) {
        to[n] = (rank + 1) % size;
        len[n++] = bytes;
    } else if (!strcmp(pattern, "alltoall")) {
        for (int q = 0; q < size; q++)
            if (q != rank) {
                to[n] = q;
                len[n++] = bytes;
            }
    } else {
        unsigned seed = 7919u * (unsigned)rank + 26u;
        for (int k = 0; k < 3 && k < size - 1; k++) {
            int q, dup;
            do {
                q = (int)(next(&seed) % (unsigned)size);
                dup = q == rank;
                for (int j = 0; j < n; j++)
                    dup |= to[j] == q;
            } while (dup);
            to[n] = q;
            len[n++] = 1 + (int)(next(&seed) % (unsigned)bytes);
        }
    }
    /* everyone learns what it will receive */
    int *count = calloc((size_t)size, sizeof(int)), *from_len = malloc(sizeof(int) * (size_t)size);
    for (int k = 0; k < n; k++)
        count[to[k]] = len[k];
    MPI_Alltoall(count, 1, MPI_INT, from_len, 1, MPI_INT, MPI_COMM_WORLD);
    char *out = malloc((size_t)bytes), *in = malloc((size_t)bytes * (size_t)size);
    memset(out, 'a' + rank % 26, (size_t)bytes);
    MPI_Request *req = malloc(sizeof(MPI_Request) * (size_t)(2 * size));
    for (int it = 0; it < iters; it++) {
        int r = 0;
        for (int q = 0; q < size; q++)
            if (from_len[q])
                MPI_Irecv(in + (size_t)q * (size_t)bytes, from_len[q], MPI_CHAR, q, it, MPI_COMM_WORLD,
                          &req[r++]);
        for (int k = 0; k < n; k++)
            MPI_Isend(out, len[k], MPI_CHAR, to[k], it, MPI_COMM_WORLD, &req[r++]);
        MPI_Waitall(r, req, MPI_STATUSES_IGNORE);
        for (int q = 0; q < size; q++)
            for (int b = 0; b < from_len[q]; b++)
                bad |= in[(size_t)q * (size_t)bytes + (size_t)b] != 'a' + q % 26;
    }
    int any = 0;
    MPI_Allreduce(&bad, &any, 1, MPI_INT, MPI_LOR, MPI_COMM_WORLD);
    if (!rank)
        printf("nonstencil: %s on %d ranks, %d iterations, %s\n", pattern, size, iters,
               any ? "WRONG MESSAGES" : "all messages right");
    free(to);
    free(len);
    free(count);
    free(from_len);
    free(out);
    free(in);
    free(req);
    MPI_Finalize();
    return any ? 1 : 0;
}
