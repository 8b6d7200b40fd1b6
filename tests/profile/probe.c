/* SPDX-License-Identifier: GPL-2.0-or-later */
/* probe: a stencil exchange whose grid and traffic the profile test knows.
 *
 *   probe --dims 4,2 [--order row-major|column-major] [--periods 1,0]
 *         [--bytes 100,300] [--iters N] [--cart]
 *
 * Every rank sends bytes[d] to each of its two neighbours along dimension
 * d (none across a non-periodic border), --iters times.  Without --cart it
 * never calls MPI_Cart_create: it numbers the grid itself in the given
 * order and mixes the kinds of sends: dimension 0 by MPI_Isend on
 * MPI_COMM_WORLD, dimension 1 by persistent requests (MPI_Send_init,
 * MPI_Startall) on a duplicate of it, higher dimensions by MPI_Sendrecv on
 * a communicator with the ranks reversed (so ranks are translated).  With
 * --cart (row-major only) it builds the grid with MPI_Cart_create and
 * exchanges by MPI_Neighbor_alltoallv.  Exit 0, or 1 when a received
 * message was wrong. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAXD 8

static int parse_list(const char *s, int *v)
{
    int n = 0;
    while (s && *s && n < MAXD) {
        char *end;
        v[n++] = (int)strtol(s, &end, 10);
        s = *end == ',' ? end + 1 : end;
        if (*end && *end != ',')
            return -1;
    }
    return n;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size, nd = 0, dims[MAXD], periods[MAXD] = {0}, bytes[MAXD], nb = 0, iters = 10;
    int colmajor = 0, cart = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    for (int i = 1; i < argc; i++) {
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(argv[i], "--dims") && v)
            nd = parse_list(v, dims), i++;
        else if (!strcmp(argv[i], "--periods") && v)
            parse_list(v, periods), i++;
        else if (!strcmp(argv[i], "--bytes") && v)
            nb = parse_list(v, bytes), i++;
        else if (!strcmp(argv[i], "--iters") && v)
            iters = atoi(v), i++;
        else if (!strcmp(argv[i], "--order") && v)
            colmajor = !strcmp(v, "column-major"), i++;
        else if (!strcmp(argv[i], "--cart"))
            cart = 1;
        else {
            if (!rank)
                fprintf(stderr, "probe: bad argument %s\n", argv[i]);
            MPI_Finalize();
            return 2;
        }
    }
    int prod = 1;
    for (int d = 0; d < nd; d++)
        prod *= dims[d];
    if (nd < 1 || prod != size || (nb && nb != nd) || (cart && colmajor)) {
        if (!rank)
            fprintf(stderr, "probe: --dims must multiply to %d ranks, --bytes give one count per dimension\n", size);
        MPI_Finalize();
        return 2;
    }
    for (int d = nb; d < nd; d++)
        bytes[d] = 64;
    /* stride of dimension d in the rank numbering */
    int stride[MAXD], me[MAXD];
    for (int d = 0, s = 1; d < nd; d++) {
        int k = colmajor ? d : nd - 1 - d;
        stride[k] = s;
        s *= dims[k];
    }
    for (int d = 0; d < nd; d++)
        me[d] = rank / stride[d] % dims[d];
    int maxb = 0;
    for (int d = 0; d < nd; d++)
        maxb = bytes[d] > maxb ? bytes[d] : maxb;
    char *sbuf = malloc((size_t)(2 * nd * maxb + 1)), *rbuf = malloc((size_t)(2 * nd * maxb + 1));
    int bad = 0;
    /* neighbours: nbr[2d] at -1, nbr[2d+1] at +1 along d */
    int nbr[2 * MAXD];
    for (int d = 0; d < nd; d++)
        for (int s = 0; s < 2; s++) {
            int c = me[d] + (s ? 1 : -1);
            if (c < 0 || c >= dims[d])
                c = periods[d] ? (c + dims[d]) % dims[d] : -1;
            nbr[2 * d + s] = c < 0 ? MPI_PROC_NULL : rank + (c - me[d]) * stride[d];
        }
    if (cart) {
        MPI_Comm cc;
        MPI_Cart_create(MPI_COMM_WORLD, nd, dims, periods, 0, &cc);
        int sc[2 * MAXD], sd[2 * MAXD];
        for (int k = 0; k < 2 * nd; k++) {
            sc[k] = bytes[k / 2];
            sd[k] = k ? sd[k - 1] + sc[k - 1] : 0;
        }
        for (int it = 0; it < iters; it++) {
            memset(sbuf, (char)rank, (size_t)(2 * nd * maxb));
            MPI_Neighbor_alltoallv(sbuf, sc, sd, MPI_BYTE, rbuf, sc, sd, MPI_BYTE, cc);
            for (int k = 0; k < 2 * nd; k++)
                if (nbr[k] != MPI_PROC_NULL && sc[k] && rbuf[sd[k]] != (char)nbr[k])
                    bad++;
        }
        MPI_Comm_free(&cc);
    } else {
        MPI_Comm dup, rev;
        MPI_Comm_dup(MPI_COMM_WORLD, &dup);
        MPI_Comm_split(MPI_COMM_WORLD, 0, size - 1 - rank, &rev);
        MPI_Request preq[4];
        int np = 0;
        if (nd > 1) {
            for (int s = 0; s < 2; s++) {
                MPI_Send_init(sbuf + (2 + s) * maxb, bytes[1], MPI_BYTE, nbr[2 + s], 1, dup, &preq[np++]);
                MPI_Recv_init(rbuf + (2 + s) * maxb, bytes[1], MPI_BYTE, nbr[3 - s], 1, dup, &preq[np++]);
            }
        }
        for (int it = 0; it < iters; it++) {
            memset(sbuf, (char)rank, (size_t)(2 * nd * maxb));
            memset(rbuf, -1, (size_t)(2 * nd * maxb));
            MPI_Request req[4];
            for (int s = 0; s < 2; s++) {
                MPI_Irecv(rbuf + s * maxb, bytes[0], MPI_BYTE, nbr[1 - s], 0, MPI_COMM_WORLD, &req[2 * s]);
                MPI_Isend(sbuf + s * maxb, bytes[0], MPI_BYTE, nbr[s], 0, MPI_COMM_WORLD, &req[2 * s + 1]);
            }
            MPI_Waitall(4, req, MPI_STATUSES_IGNORE);
            if (np) {
                MPI_Startall(np, preq);
                MPI_Waitall(np, preq, MPI_STATUSES_IGNORE);
            }
            for (int d = 2; d < nd; d++)
                for (int s = 0; s < 2; s++) {
                    int to = nbr[2 * d + s], from = nbr[2 * d + 1 - s];
                    MPI_Sendrecv(sbuf + (2 * d + s) * maxb, bytes[d], MPI_BYTE,
                                 to == MPI_PROC_NULL ? MPI_PROC_NULL : size - 1 - to, 2,
                                 rbuf + (2 * d + s) * maxb, bytes[d], MPI_BYTE,
                                 from == MPI_PROC_NULL ? MPI_PROC_NULL : size - 1 - from, 2, rev,
                                 MPI_STATUS_IGNORE);
                }
            /* block k came from the neighbour opposite to where it went */
            for (int d = 0; d < nd; d++)
                for (int s = 0; s < 2; s++) {
                    int from = nbr[2 * d + 1 - s];
                    if (from != MPI_PROC_NULL && bytes[d] && rbuf[(2 * d + s) * maxb] != (char)from)
                        bad++;
                }
        }
        for (int k = 0; k < np; k++)
            MPI_Request_free(&preq[k]);
        MPI_Comm_free(&rev);
        MPI_Comm_free(&dup);
    }
    int all = 0;
    MPI_Allreduce(&bad, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (!rank)
        printf("probe: %d ranks, %d iterations, %s\n", size, iters, all ? "WRONG messages" : "all messages right");
    free(sbuf);
    free(rbuf);
    MPI_Finalize();
    return all ? 1 : 0;
}
