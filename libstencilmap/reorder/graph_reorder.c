/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * MPI_Dist_graph_create_adjacent and MPI_Graph_create with reorder=1 that
 * reorder, in the preload library beside MPI_Cart_create (reorder.c).
 * Many stencil codes describe their halo neighbours as a graph rather
 * than a Cartesian communicator; when that graph is a stencil on a grid
 * in the communicator's rank order (graph_stencil.c finds it), it is
 * planned exactly as MPI_Cart_create's grid would be, the plan kept only
 * when it beats the current order, and the graph communicator is created
 * on the reordered communicator with every neighbour list translated to
 * the new ranks: each process keeps its neighbours as processes (and
 * their weights, list positions and info), only rank numbers change, as
 * reorder=1 allows.  Everything else goes to MPI as given: reorder=0,
 * STENCIL_MAP_REORDER=0, a graph that is not a stencil, unequal weights,
 * arguments MPI would refuse, fewer graph nodes than processes.  Every
 * decision is taken on data every process holds (MPI_Graph_create's
 * arguments, the allgathered lists of the distributed graph, one
 * allreduce for what only one process knows), so all take the same path.
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>

#include "../mpix/mpix_internal.h"
#include "graph_stencil.h"
#include "reorder_env.h"

enum { GR_PASS, GR_KEEP, GR_SPLIT };

static void say(MPI_Comm comm, const char *call, const char *what)
{
    int rank;
    MPI_Comm_rank(comm, &rank);
    if (rank == 0 && sm_reorder_verbose())
        fprintf(stderr, "stencil-map: %s: %s\n", call, what);
}

/* the verbose line's opening: the call and what was found */
static void describe(char *buf, size_t len, const char *call, const gs_found *f)
{
    size_t at = (size_t)snprintf(buf, len, "%s: a stencil of %d offsets, periods ", call, f->k);
    for (int i = 0; i < f->ndims && at < len; i++)
        at += (size_t)snprintf(buf + at, len - at, "%s%d", i ? "," : "", f->periods[i]);
    if (at < len)
        snprintf(buf + at, len - at, ", on");
}

/* Plans the found grid: GR_PASS (MPI as asked), GR_KEEP (the plugin
 * placed it: MPI with reorder=0) or GR_SPLIT with *split in the planned
 * order and newrank[r] the new rank of old's rank r (freed by the caller).
 * Collective. */
static int reorder_for(MPI_Comm old, const char *call, const gs_found *f, MPI_Comm *split,
                       int **newrank)
{
    char caller[200];
    int size, me, ok;
    MPI_Comm_size(old, &size);
    describe(caller, sizeof(caller), call, f);
    smx_request rq = {f->ndims, f->dims, f->periods, f->offsets, f->k, NULL, caller, NULL};
    if (smx_check(&rq, size) != MPI_SUCCESS) {
        say(old, call, "a stencil the planner cannot take, passed to MPI as given");
        return GR_PASS;
    }
    if (sm_placed_by_plugin(f->ndims, f->dims)) {
        say(old, call, "a stencil on the grid placed by srun --stencil-map (STENCIL_MAP_DIMS): order kept");
        return GR_KEEP;
    }
    if (smx_comm_reordered(old, &rq, split, NULL) != MPI_SUCCESS) {
        say(old, call, "not reordered: the reordering failed, MPI's own order");
        return GR_PASS;
    }
    *newrank = malloc(sizeof(int) * (size_t)size);
    ok = *newrank != NULL;
    MPI_Allreduce(MPI_IN_PLACE, &ok, 1, MPI_INT, MPI_LAND, old);
    MPI_Comm_rank(*split, &me);
    if (!ok || MPI_Allgather(&me, 1, MPI_INT, *newrank, 1, MPI_INT, old) != MPI_SUCCESS) {
        free(*newrank);
        *newrank = NULL;
        MPI_Comm_free(split);
        say(old, call, "not reordered: out of memory, MPI's own order");
        return GR_PASS;
    }
    return GR_SPLIT;
}

static int skip(MPI_Comm old, int reorder, const void *out)
{
    int inter = 1;
    return !reorder || sm_reorder_off() || !out || old == MPI_COMM_NULL ||
           MPI_Comm_test_inter(old, &inter) != MPI_SUCCESS || inter;
}

/* ---------------------------------------------- MPI_Graph_create ----- */

/* index[] as gs_find's start[], translated lists in ni/ne once reordered */
typedef struct {
    int *start, *inv, *ni, *ne;
} graph_bufs;

static void graph_bufs_free(graph_bufs *b)
{
    free(b->start);
    free(b->inv);
    free(b->ni);
    free(b->ne);
}

/* the same graph of processes, numbered by newrank */
static void translate_graph(int n, const int *edges, const int *newrank, graph_bufs *b)
{
    int at = 0;
    for (int r = 0; r < n; r++)
        b->inv[newrank[r]] = r;
    for (int i = 0; i < n; i++) {
        int o = b->inv[i];
        for (int e = b->start[o]; e < b->start[o + 1]; e++)
            b->ne[at++] = newrank[edges[e]];
        b->ni[i] = at;
    }
}

int MPI_Graph_create(MPI_Comm old, int nnodes, const int index[], const int edges[], int reorder,
                     MPI_Comm *graph)
{
    int size = 0, found = 0, *newrank = NULL;
    gs_found *f = NULL;
    graph_bufs b = {NULL, NULL, NULL, NULL};
    MPI_Comm split;
    if (skip(old, reorder, graph) || MPI_Comm_size(old, &size) != MPI_SUCCESS || nnodes != size ||
        !index || !edges || index[nnodes - 1] < 0)
        return PMPI_Graph_create(old, nnodes, index, edges, reorder, graph);
    f = malloc(sizeof(*f));
    b.start = malloc(sizeof(int) * (size_t)(size + 1));
    b.inv = malloc(sizeof(int) * (size_t)size);
    b.ni = malloc(sizeof(int) * (size_t)size);
    b.ne = malloc(sizeof(int) * ((size_t)index[size - 1] + 1));
    if (f && b.start && b.inv && b.ni && b.ne) {
        b.start[0] = 0;
        for (int r = 0; r < size; r++)
            b.start[r + 1] = index[r];
        found = gs_find(size, b.start, edges, f);
    } else
        found = -1;
    /* the same arguments everywhere: only memory can make a process differ */
    MPI_Allreduce(MPI_IN_PLACE, &found, 1, MPI_INT, MPI_MIN, old);
    int how = GR_PASS;
    if (found == 1)
        how = reorder_for(old, "MPI_Graph_create", f, &split, &newrank);
    else
        say(old, "MPI_Graph_create",
            found ? "not examined (out of memory), passed to MPI as given"
                  : "not a stencil on a Cartesian grid, passed to MPI as given");
    int rc;
    if (how == GR_SPLIT) {
        translate_graph(size, edges, newrank, &b);
        rc = PMPI_Graph_create(split, size, b.ni, b.ne, 0, graph);
        MPI_Comm_free(&split);
    } else
        rc = PMPI_Graph_create(old, nnodes, index, edges, how == GR_KEEP ? 0 : reorder, graph);
    free(newrank);
    free(f);
    graph_bufs_free(&b);
    return rc;
}

/* ------------------------------------- MPI_Dist_graph_create_adjacent --- */

/* the lists every process gave, gathered; tsrc/tdst: its own translated */
typedef struct {
    int *start, *nbrs, *tsrc, *tdst;
} dist_bufs;

static void dist_bufs_free(dist_bufs *b)
{
    free(b->start);
    free(b->nbrs);
    free(b->tsrc);
    free(b->tdst);
}

/* this process's arguments fit [0, size) and its weights' range */
static int local_ok(int size, int deg, const int *list, const int *w, int *minw, int *maxw)
{
    if (deg < 0 || (deg > 0 && !list))
        return 0;
    for (int i = 0; i < deg; i++) {
        if (list[i] < 0 || list[i] >= size)
            return 0;
        if (w != MPI_UNWEIGHTED && w != MPI_WEIGHTS_EMPTY) {
            *minw = w[i] < *minw ? w[i] : *minw;
            *maxw = w[i] > *maxw ? w[i] : *maxw;
        }
    }
    return 1;
}

/* every process's destinations at every process (start[], nbrs[]) and
 * what was found in them: 1 a stencil in *f, 0 not, -1 not examined;
 * the same answer everywhere.  Collective. */
static int dist_find(MPI_Comm old, int size, int ok, int outdeg, const int *dst, dist_bufs *b,
                     gs_found *f, const char **why)
{
    int *displ = malloc(sizeof(int) * (size_t)size), total = 0, found = -1;
    ok = ok && displ && b->start;
    MPI_Allreduce(MPI_IN_PLACE, &ok, 1, MPI_INT, MPI_LAND, old);
    if (ok && MPI_Allgather(&outdeg, 1, MPI_INT, b->start + 1, 1, MPI_INT, old) == MPI_SUCCESS) {
        long long sum = 0;
        for (int r = 0; r < size; r++) {
            displ[r] = (int)sum;
            sum += b->start[r + 1];
        }
        total = sum <= INT_MAX ? (int)sum : -1;
        b->nbrs = total >= 0 ? malloc(sizeof(int) * ((size_t)total + 1)) : NULL;
        ok = b->nbrs != NULL;
        MPI_Allreduce(MPI_IN_PLACE, &ok, 1, MPI_INT, MPI_LAND, old);
        if (ok && MPI_Allgatherv(dst, outdeg, MPI_INT, b->nbrs, b->start + 1, displ, MPI_INT,
                                 old) == MPI_SUCCESS) {
            b->start[0] = 0;
            for (int r = 0; r < size; r++)
                b->start[r + 1] = displ[r] + b->start[r + 1];
            found = gs_find(size, b->start, b->nbrs, f);
            MPI_Allreduce(MPI_IN_PLACE, &found, 1, MPI_INT, MPI_MIN, old);
        }
    }
    free(displ);
    if (found != 1)
        *why = found < 0 ? "not examined (arguments MPI will judge, or out of memory), passed to MPI as given"
                         : "not a stencil on a Cartesian grid, passed to MPI as given";
    return found;
}

int MPI_Dist_graph_create_adjacent(MPI_Comm old, int indeg, const int src[], const int sw[],
                                   int outdeg, const int dst[], const int dw[], MPI_Info info,
                                   int reorder, MPI_Comm *graph)
{
    const char *call = "MPI_Dist_graph_create_adjacent", *why = NULL;
    int size = 0, *newrank = NULL, w[2] = {INT_MIN, -INT_MAX}; /* max, -min */
    int minw = INT_MAX, maxw = INT_MIN, how = GR_PASS, rc;
    dist_bufs b = {NULL, NULL, NULL, NULL};
    gs_found *f = NULL;
    MPI_Comm split;
    if (skip(old, reorder, graph) || MPI_Comm_size(old, &size) != MPI_SUCCESS)
        return PMPI_Dist_graph_create_adjacent(old, indeg, src, sw, outdeg, dst, dw, info, reorder, graph);
    int ok = local_ok(size, indeg, src, sw, &minw, &maxw) && local_ok(size, outdeg, dst, dw, &minw, &maxw);
    f = malloc(sizeof(*f));
    b.start = malloc(sizeof(int) * ((size_t)size + 1));
    b.tsrc = ok ? malloc(sizeof(int) * ((size_t)indeg + 1)) : NULL;
    b.tdst = ok ? malloc(sizeof(int) * ((size_t)outdeg + 1)) : NULL;
    w[0] = maxw;
    w[1] = -minw;
    MPI_Allreduce(MPI_IN_PLACE, w, 2, MPI_INT, MPI_MAX, old);
    if (w[0] > -w[1])
        why = "weights not all equal, passed to MPI as given";
    else if (dist_find(old, size, ok && f && b.tsrc && b.tdst, outdeg, dst, &b, f, &why) == 1)
        how = reorder_for(old, call, f, &split, &newrank);
    if (why)
        say(old, call, why);
    if (how == GR_SPLIT) {
        for (int i = 0; i < indeg; i++)
            b.tsrc[i] = newrank[src[i]];
        for (int i = 0; i < outdeg; i++)
            b.tdst[i] = newrank[dst[i]];
        rc = PMPI_Dist_graph_create_adjacent(split, indeg, b.tsrc, sw, outdeg, b.tdst, dw, info, 0, graph);
        MPI_Comm_free(&split);
    } else
        rc = PMPI_Dist_graph_create_adjacent(old, indeg, src, sw, outdeg, dst, dw, info,
                                             how == GR_KEEP ? 0 : reorder, graph);
    free(newrank);
    free(f);
    dist_bufs_free(&b);
    return rc;
}
