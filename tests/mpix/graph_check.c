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
 * (r to r+1 and to 3r+2 mod n).  Reordering keeps the graph as given in
 * rank numbers and renumbers the processes, so the process of rank v in
 * the new communicator plays vertex v.  Checks, "ok ..." on rank 0 or
 * "FAIL ..." with exit 1: MPI_Topo_test; every process's neighbours in the
 * new communicator are vertex v's as the program described them, in that
 * order; a neighbour allgather of ranks over it delivers them.  Then
 * "moved N of M" (processes whose rank changed) and, for other and
 * weighted, that none did; and "observed J_sum S J_max M": the
 * directed edges to distinct out-neighbours of another processor name,
 * counted on the new communicator (S), and the most a node sends (M).
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

/* the sources of vertex v: every q that names v, in q's order */
static int sources(int v, int nd, const int *dims, const int *per, int *in)
{
    int n = 0, out[2 * MAXD];
    for (int q = 0; q < size; q++) {
        int m = neighbours(q, nd, dims, per, out);
        for (int i = 0; i < m; i++)
            if (out[i] == v)
                in[n++] = q;
    }
    return n;
}

static int same_list(int n, const int *got, const int *want)
{
    int ok = 1;
    for (int i = 0; i < n; i++)
        ok &= got[i] == want[i];
    return ok;
}

/* the observed inter-node edges of g's out-neighbours d[0..n), on g's rank 0 */
static void edges(MPI_Comm g, int n, const int *d)
{
    int me, gsize, len, cut = 0;
    char name[MPI_MAX_PROCESSOR_NAME] = "";
    MPI_Comm_rank(g, &me);
    MPI_Comm_size(g, &gsize);
    MPI_Get_processor_name(name, &len);
    char *all = malloc((size_t)gsize * MPI_MAX_PROCESSOR_NAME);
    int *cuts = malloc(sizeof(int) * (size_t)gsize);
    MPI_Allgather(name, MPI_MAX_PROCESSOR_NAME, MPI_CHAR, all, MPI_MAX_PROCESSOR_NAME, MPI_CHAR, g);
    for (int i = 0; i < n; i++) {
        int seen = 0;
        for (int j = 0; j < i; j++)
            seen |= d[j] == d[i];
        if (!seen && strcmp(all + (size_t)d[i] * MPI_MAX_PROCESSOR_NAME, name))
            cut++;
    }
    MPI_Gather(&cut, 1, MPI_INT, cuts, 1, MPI_INT, 0, g);
    if (me == 0) {
        long sum = 0, max = 0;
        for (int r = 0; r < gsize; r++) {
            long node = 0;
            for (int q = 0; q < gsize; q++)
                if (!strcmp(all + (size_t)q * MPI_MAX_PROCESSOR_NAME, all + (size_t)r * MPI_MAX_PROCESSOR_NAME))
                    node += cuts[q];
            sum += cuts[r];
            max = node > max ? node : max;
        }
        printf("observed J_sum %ld J_max %ld\n", sum, max);
    }
    free(all);
    free(cuts);
}

/* the process of rank me in g plays vertex me of the described graph */
static void check_graph(MPI_Comm g, const char *mode, int nd, const int *dims, const int *per)
{
    int st = MPI_UNDEFINED, me = -1, s[4 * MAXD + 4], d[4 * MAXD + 4], got[4 * MAXD + 4];
    int in[4 * MAXD + 4], out[2 * MAXD], nin, nout;
    int ok = g != MPI_COMM_NULL, dist = strcmp(mode, "graph") != 0, moved = 0, cnt = -1, cin, cout, w;
    check(ok, "the communicator was created");
    if (!ok)
        return;
    MPI_Topo_test(g, &st);
    check(st == (dist ? MPI_DIST_GRAPH : MPI_GRAPH), "MPI_Topo_test");
    MPI_Comm_rank(g, &me);
    nout = neighbours(me, nd, dims, per, out);
    nin = dist ? sources(me, nd, dims, per, in) : nout;
    if (!dist)
        memcpy(in, out, sizeof(int) * (size_t)nout); /* a Graph_create graph receives from its neighbours */
    if (dist) {
        MPI_Dist_graph_neighbors_count(g, &cin, &cout, &w);
        ok = cin == nin && cout == nout;
        if (ok)
            MPI_Dist_graph_neighbors(g, cin, s, unweighted, cout, d, unweighted);
        ok = ok && same_list(nin, s, in) && same_list(nout, d, out);
    } else {
        MPI_Graph_neighbors_count(g, me, &cnt);
        ok = cnt == nout;
        if (ok)
            MPI_Graph_neighbors(g, me, cnt, d);
        ok = ok && same_list(nout, d, out);
    }
    check(ok, "each process has its vertex's neighbours, as described, in that order");
    edges(g, ok ? nout : 0, d);
    MPI_Neighbor_allgather(&me, 1, MPI_INT, got, 1, MPI_INT, g);
    check(same_list(nin, got, in), "a neighbour allgather over it delivers from those neighbours");
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
    int nout = neighbours(rank, nd, dims, per, out), nin = sources(rank, nd, dims, per, in);
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
    check_graph(g, mode, nd, dims, per);
    MPI_Finalize();
    return failed;
}
