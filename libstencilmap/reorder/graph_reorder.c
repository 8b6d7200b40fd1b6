/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * MPI_Dist_graph_create_adjacent and MPI_Graph_create with reorder=1 that
 * reorder, in the preload library beside MPI_Cart_create (reorder.c).
 * Many stencil codes describe their halo neighbours as a graph rather
 * than a Cartesian communicator; when that graph is a stencil on a grid
 * in the communicator's rank order (graph_stencil.c finds it), it is
 * planned exactly as MPI_Cart_create's grid would be and the plan kept
 * only when it beats the current order.  As with MPI_Cart_create, the
 * graph stays the one the application gave, in rank numbers, and the
 * processes are renumbered: the process that gets new rank r sits where
 * the plan put grid position r and holds vertex r's neighbours (for
 * MPI_Graph_create the arrays as given; for the distributed graph the
 * lists, weights included, that old rank r passed, sent to it).  Only
 * then do the graph's edges between nodes become the planned ones; a
 * program that takes its role from its rank in the new communicator, as
 * reorder=1 requires of it, sees the graph it described.  Everything else
 * goes to MPI as given: reorder=0, STENCIL_MAP_REORDER=0, a graph that is
 * not a stencil, unequal weights, arguments MPI would refuse, fewer graph
 * nodes than processes.  Every decision is taken on data every process
 * holds (MPI_Graph_create's arguments, the allgathered destinations of the
 * distributed graph, an allreduce for what only one process knows), so all
 * take the same path.
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

int MPI_Graph_create(MPI_Comm old, int nnodes, const int index[], const int edges[], int reorder,
                     MPI_Comm *graph)
{
    int size = 0, found = -1, *newrank = NULL, *start = NULL, how = GR_PASS, rc;
    gs_found *f = NULL;
    MPI_Comm split;
    if (skip(old, reorder, graph) || MPI_Comm_size(old, &size) != MPI_SUCCESS || nnodes != size ||
        !index || !edges)
        return PMPI_Graph_create(old, nnodes, index, edges, reorder, graph);
    f = malloc(sizeof(*f));
    start = malloc(sizeof(int) * ((size_t)size + 1));
    if (f && start) {
        start[0] = 0;
        for (int r = 0; r < size; r++)
            start[r + 1] = index[r];
        found = gs_find(size, start, edges, f);
    }
    /* the same arguments everywhere: only memory can make a process differ */
    MPI_Allreduce(MPI_IN_PLACE, &found, 1, MPI_INT, MPI_MIN, old);
    if (found == 1)
        how = reorder_for(old, "MPI_Graph_create", f, &split, &newrank);
    else
        say(old, "MPI_Graph_create",
            found ? "not examined (out of memory), passed to MPI as given"
                  : "not a stencil on a Cartesian grid, passed to MPI as given");
    if (how == GR_SPLIT) { /* the graph as given, on the renumbered processes */
        rc = PMPI_Graph_create(split, size, index, edges, 0, graph);
        MPI_Comm_free(&split);
    } else
        rc = PMPI_Graph_create(old, nnodes, index, edges, how == GR_KEEP ? 0 : reorder, graph);
    free(newrank);
    free(f);
    free(start);
    return rc;
}

/* ------------------------------------- MPI_Dist_graph_create_adjacent --- */

/* the destinations every process gave, gathered */
typedef struct {
    int *start, *nbrs;
} dist_bufs;

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

/* a vertex's lists in one buffer: indeg, outdeg, sources, their weights,
 * destinations, their weights (1 where unweighted) */
static int *pack(int indeg, const int *src, const int *sw, int outdeg, const int *dst,
                 const int *dw, int *len)
{
    *len = 2 + 2 * (indeg + outdeg);
    int *p = malloc(sizeof(int) * (size_t)*len), *at = p + 2;
    if (!p)
        return NULL;
    p[0] = indeg;
    p[1] = outdeg;
    for (int i = 0; i < indeg; i++, at++)
        at[0] = src[i], at[indeg] = sw == MPI_UNWEIGHTED || sw == MPI_WEIGHTS_EMPTY ? 1 : sw[i];
    at += indeg;
    for (int i = 0; i < outdeg; i++, at++)
        at[0] = dst[i], at[outdeg] = dw == MPI_UNWEIGHTED || dw == MPI_WEIGHTS_EMPTY ? 1 : dw[i];
    return p;
}

/* vertex v's lists to the process whose new rank is v: each sends its own
 * (old rank o's) to the process renumbered o and receives old rank
 * newrank[me]'s into *got.  1 when every process has them.  Collective. */
static int swap_lists(MPI_Comm old, const int *newrank, const int *mine, int len, int **got)
{
    int me, size, to = 0, glen = 0, ok;
    MPI_Comm_rank(old, &me);
    MPI_Comm_size(old, &size);
    for (int r = 0; r < size; r++)
        if (newrank[r] == me)
            to = r;
    MPI_Sendrecv(&len, 1, MPI_INT, to, 71, &glen, 1, MPI_INT, newrank[me], 71, old, MPI_STATUS_IGNORE);
    *got = malloc(sizeof(int) * ((size_t)glen + 1));
    ok = *got != NULL;
    MPI_Allreduce(MPI_IN_PLACE, &ok, 1, MPI_INT, MPI_LAND, old);
    return ok && MPI_Sendrecv(mine, len, MPI_INT, to, 72, *got, glen, MPI_INT, newrank[me], 72, old,
                              MPI_STATUS_IGNORE) == MPI_SUCCESS;
}

/* the graph as given, vertex r on the process renumbered r */
static int create_on(MPI_Comm old, MPI_Comm split, const int *newrank, const int *mine, int len,
                     const int *sw, const int *dw, MPI_Info info, MPI_Comm *graph)
{
    int *got = NULL, rc;
    if (!swap_lists(old, newrank, mine, len, &got)) {
        free(got);
        say(old, "MPI_Dist_graph_create_adjacent", "not reordered: out of memory, MPI's own order");
        return -1;
    }
    int in = got[0], out = got[1], *s = got + 2, *d = got + 2 + 2 * in;
    rc = PMPI_Dist_graph_create_adjacent(split, in, s, sw == MPI_UNWEIGHTED ? MPI_UNWEIGHTED : s + in,
                                         out, d, dw == MPI_UNWEIGHTED ? MPI_UNWEIGHTED : d + out,
                                         info, 0, graph);
    free(got);
    return rc;
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
    int minw = INT_MAX, maxw = INT_MIN, how = GR_PASS, rc = -1, len = 0, *mine = NULL;
    dist_bufs b = {NULL, NULL};
    gs_found *f = NULL;
    MPI_Comm split;
    if (skip(old, reorder, graph) || MPI_Comm_size(old, &size) != MPI_SUCCESS)
        return PMPI_Dist_graph_create_adjacent(old, indeg, src, sw, outdeg, dst, dw, info, reorder, graph);
    int ok = local_ok(size, indeg, src, sw, &minw, &maxw) && local_ok(size, outdeg, dst, dw, &minw, &maxw);
    f = malloc(sizeof(*f));
    b.start = malloc(sizeof(int) * ((size_t)size + 1));
    mine = ok ? pack(indeg, src, sw, outdeg, dst, dw, &len) : NULL;
    w[0] = maxw;
    w[1] = -minw;
    MPI_Allreduce(MPI_IN_PLACE, w, 2, MPI_INT, MPI_MAX, old);
    if (w[0] > -w[1])
        why = "weights not all equal, passed to MPI as given";
    else if (dist_find(old, size, ok && f && mine, outdeg, dst, &b, f, &why) == 1)
        how = reorder_for(old, call, f, &split, &newrank);
    if (why)
        say(old, call, why);
    if (how == GR_SPLIT) {
        rc = create_on(old, split, newrank, mine, len, sw, dw, info, graph);
        MPI_Comm_free(&split);
    }
    if (rc == -1) /* not reordered: MPI as asked, or with reorder=0 for a placed grid */
        rc = PMPI_Dist_graph_create_adjacent(old, indeg, src, sw, outdeg, dst, dw, info,
                                             how == GR_KEEP ? 0 : reorder, graph);
    free(newrank);
    free(f);
    free(mine);
    free(b.start);
    free(b.nbrs);
    return rc;
}
