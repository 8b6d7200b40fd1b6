/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The graph program of tests/mpix: a halo graph described to MPI the way
 * MODE says, with reorder=1 (so the reorder library, preloaded, acts on
 * it), checked as an application would rely on it.
 *
 *   graph_check dist|graph|weighted DIMS PERIODS
 *   graph_check other
 *
 * dist: MPI_Dist_graph_create_adjacent with each rank's +-1 neighbours
 * along every axis of the grid DIMS/PERIODS in MPI_COMM_WORLD's row-major
 * order (a 5-point stencil in 2-D, 7-point in 3-D), unweighted; graph:
 * MPI_Graph_create of the same graph; weighted: dist with weights that
 * differ (left to MPI by the library); other: a graph that is no stencil
 * (r to r+1 and to 3r+2 mod n).  Checks, "ok ..." on rank 0 or "FAIL ..."
 * with exit 1: MPI_Topo_test; every process's neighbours, translated back
 * to MPI_COMM_WORLD, are the processes it named, in its order; a
 * neighbour allgather of world ranks over the new communicator delivers
 * them.  Then "moved N of M" (ranks whose number changed) and, for other
 * and weighted, that none did.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAXD 3
#define MAXN 64
static int failed, rank, size;
/* MPI_UNWEIGHTED through a volatile: it is a sentinel address, which gcc
 * otherwise takes for a zero-sized array */
static int *volatile unweighted;

static void check(int ok, const char *what)
{
    int all = 0;
    MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_LAND, MPI_COMM_WORLD);
    if (rank == 0)
        printf("%s %s\n", all ? "ok" : "FAIL", what);
    failed |= !all;
}

static int parse_list(const char *s, int *v)
{
    int n = 0;
    for (char *end; *s && n < MAXD; s = *end ? end + 1 : end)
        v[n++] = (int)strtol(s, &end, 10);
    return n;
}

/* r's out-neighbours: the stencil's, or the non-stencil's with nd == 0 */
static int neighbours(int r, int nd, const int *dims, const int *per, int *out)
{
    int n = 0, c[MAXD];
    if (nd == 0) {
        out[n++] = (r + 1) % size;
        if ((3 * r + 2) % size != r && (3 * r + 2) % size != out[0])
            out[n++] = (3 * r + 2) % size;
        return n;
    }
    for (int i = nd - 1, q = r; i >= 0; q /= dims[i--])
        c[i] = q % dims[i];
    for (int d = 0; d < nd; d++)
        for (int dir = -1; dir <= 1; dir += 2) {
            int v = c[d] + dir, q = 0;
            if (v < 0 || v >= dims[d]) {
                if (!per[d])
                    continue;
                v = (v + dims[d]) % dims[d];
            }
            for (int i = 0; i < nd; i++)
                q = q * dims[i] + (i == d ? v : c[i]);
            out[n++] = q;
        }
    return n;
}

/* the sources: every q that names r, in q's order */
static int sources(int nd, const int *dims, const int *per, int *in)
{
    int n = 0, out[2 * MAXD];
    for (int q = 0; q < size; q++) {
        int m = neighbours(q, nd, dims, per, out);
        for (int i = 0; i < m; i++)
            if (out[i] == rank)
                in[n++] = q;
    }
    return n;
}

/* g's ranks in list, as MPI_COMM_WORLD's, equal want */
static int same_processes(MPI_Comm g, int n, const int *list, const int *want)
{
    MPI_Group gg, wg;
    int w[4 * MAXD + 4], ok = 1;
    MPI_Comm_group(g, &gg);
    MPI_Comm_group(MPI_COMM_WORLD, &wg);
    MPI_Group_translate_ranks(gg, n, list, wg, w);
    for (int i = 0; i < n; i++)
        ok &= w[i] == want[i];
    MPI_Group_free(&gg);
    MPI_Group_free(&wg);
    return ok;
}

static void check_graph(MPI_Comm g, const char *mode, int nin, const int *in, int nout,
                        const int *out)
{
    int st = MPI_UNDEFINED, me = -1, s[4 * MAXD + 4], d[4 * MAXD + 4], got[4 * MAXD + 4];
    int ok = g != MPI_COMM_NULL, dist = strcmp(mode, "graph") != 0, moved = 0, cnt = -1, cin, cout, w;
    check(ok, "the communicator was created");
    if (!ok)
        return;
    MPI_Topo_test(g, &st);
    check(st == (dist ? MPI_DIST_GRAPH : MPI_GRAPH), "MPI_Topo_test");
    MPI_Comm_rank(g, &me);
    if (dist) {
        MPI_Dist_graph_neighbors_count(g, &cin, &cout, &w);
        ok = cin == nin && cout == nout;
        if (ok)
            MPI_Dist_graph_neighbors(g, cin, s, unweighted, cout, d, unweighted);
        ok = ok && same_processes(g, nin, s, in) && same_processes(g, nout, d, out);
    } else {
        MPI_Graph_neighbors_count(g, me, &cnt);
        ok = cnt == nout;
        if (ok)
            MPI_Graph_neighbors(g, me, cnt, d);
        ok = ok && same_processes(g, nout, d, out);
        nin = nout, in = out; /* a Graph_create graph receives from its neighbours */
    }
    check(ok, "each process has the neighbours it named, as processes, in its order");
    MPI_Neighbor_allgather(&rank, 1, MPI_INT, got, 1, MPI_INT, g);
    ok = 1;
    for (int i = 0; i < nin; i++)
        ok &= got[i] == in[i];
    check(ok, "a neighbour allgather over it delivers the named processes");
    int m = me != rank;
    MPI_Allreduce(&m, &moved, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0)
        printf("moved %d of %d\n", moved, size);
    if (!strcmp(mode, "other") || !strcmp(mode, "weighted"))
        check(moved == 0, "order unchanged");
    MPI_Comm_free(&g);
}

int main(int argc, char **argv)
{
    int dims[MAXD], per[MAXD] = {0, 0, 0}, nd = 0, in[4 * MAXD + 4], out[2 * MAXD], sw[4 * MAXD + 4],
        dw[2 * MAXD];
    MPI_Comm g = MPI_COMM_NULL;
    unweighted = MPI_UNWEIGHTED;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    const char *mode = argc > 1 ? argv[1] : "";
    if (strcmp(mode, "other")) {
        int prod = 1;
        if (argc != 4 || (nd = parse_list(argv[2], dims)) != parse_list(argv[3], per))
            nd = 0, prod = -1;
        for (int i = 0; i < nd; i++)
            prod *= dims[i];
        if (prod != size || size > MAXN) {
            if (rank == 0)
                fprintf(stderr, "usage: graph_check dist|graph|weighted DIMS PERIODS (product = ranks <= %d) | other\n", MAXN);
            MPI_Abort(MPI_COMM_WORLD, 2);
        }
    }
    int nout = neighbours(rank, nd, dims, per, out), nin = sources(nd, dims, per, in);
    for (int i = 0; i < nin; i++)
        sw[i] = 1 + in[i] % 3;
    for (int i = 0; i < nout; i++)
        dw[i] = 1 + rank % 3;
    if (!strcmp(mode, "graph")) {
        int index[MAXN], edges[MAXN * 2 * MAXD], e = 0, o[2 * MAXD];
        for (int r = 0; r < size; r++) {
            int m = neighbours(r, nd, dims, per, o);
            memcpy(edges + e, o, sizeof(int) * (size_t)m);
            index[r] = e += m;
        }
        MPI_Graph_create(MPI_COMM_WORLD, size, index, edges, 1, &g);
    } else if (!strcmp(mode, "weighted"))
        MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, nin, in, sw, nout, out, dw, MPI_INFO_NULL, 1, &g);
    else
        MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, nin, in, unweighted, nout, out, unweighted,
                                       MPI_INFO_NULL, 1, &g);
    check_graph(g, mode, nin, in, nout, out);
    MPI_Finalize();
    return failed;
}
