/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Grid arithmetic and the edge counting of a parsed place (place.c),
 * shared by stencilmap_verify(), the network levels (job_levels.c) and the
 * unit tests.  No PMIx.  The deliberate twin of the placement core's grid
 * and edges (placement/edges.h), kept apart on purpose: see below. */
#include <stdlib.h>
#include <string.h>

#include "stencilmap.h"
#include "stencilmap_internal.h"

/* ---- grid ---------------------------------------------------------------- */
/* The one deliberate twin of placement/edges.h: this grid arithmetic and
 * the edge walk below are how the running job checks the planner, so they
 * share none of its code (a bug in a shared walk would make the plan and
 * the check agree on a wrong count, and the check would hide it).
 * tests/injob/test_injob_edges.c holds the two to the same counts on
 * random grids (1 to 5 dimensions, periodic or not, row- or column-major,
 * weighted, offsets longer than the grid) and on the core's real plans. */
void stencilmap_rank_coords(const stencilmap_place *pl, int64_t rank, int64_t *coords)
{
    for (int k = 0; k < pl->ndims; k++) {
        int i = pl->column_major ? k : pl->ndims - 1 - k; /* the fastest axis first */
        coords[i] = rank % pl->dims[i];
        rank /= pl->dims[i];
    }
}

int64_t stencilmap_coords_rank(const stencilmap_place *pl, const int64_t *coords)
{
    int64_t r = 0;
    for (int k = 0; k < pl->ndims; k++) {
        int i = pl->column_major ? pl->ndims - 1 - k : k; /* the slowest axis first */
        r = r * pl->dims[i] + coords[i];
    }
    return r;
}

static int64_t shifted(const stencilmap_place *pl, int64_t rank, int k, int sign)
{
    if (rank < 0 || rank >= pl->size || k < 0 || k >= pl->noffsets)
        return -1;
    int64_t c[STENCILMAP_MAX_DIMS];
    stencilmap_rank_coords(pl, rank, c);
    for (int i = 0; i < pl->ndims; i++) {
        int64_t x = c[i] + sign * (int64_t)pl->offsets[k * pl->ndims + i];
        if (x < 0 || x >= pl->dims[i]) {
            if (!pl->periods[i])
                return -1;
            x = ((x % pl->dims[i]) + pl->dims[i]) % pl->dims[i];
        }
        c[i] = x;
    }
    return stencilmap_coords_rank(pl, c);
}

int64_t stencilmap_neighbor(const stencilmap_place *pl, int64_t rank, int k)
{
    return shifted(pl, rank, k, 1);
}

int64_t stencilmap_neighbor_from(const stencilmap_place *pl, int64_t rank, int k)
{
    return shifted(pl, rank, k, -1);
}

/* ---- edges ---------------------------------------------------------------- */
stencilmap_status stencilmap_rank_out_edges(const stencilmap_place *pl, int64_t rank,
                                            stencilmap_same_node_fn same, void *arg,
                                            int64_t *edges, double *weight)
{
    if (!pl || !same || rank < 0 || rank >= pl->size)
        return STENCILMAP_ERR_ARG;
    int64_t e = 0;
    double w = 0;
    for (int k = 0; k < pl->noffsets; k++) {
        int64_t t = stencilmap_neighbor(pl, rank, k);
        if (t < 0)
            continue;
        int s = same(arg, rank, t);
        if (s < 0)
            return STENCILMAP_ERR_PMIX;
        if (s)
            continue;
        e++;
        w += pl->weights ? pl->weights[k] : 1.0;
    }
    if (edges)
        *edges = e;
    if (weight)
        *weight = w;
    return STENCILMAP_OK;
}

void stencilmap_edges_free(stencilmap_edges *e)
{
    if (!e)
        return;
    free(e->node_edges);
    free(e->node_weight);
    free(e->node_ranks);
    memset(e, 0, sizeof(*e));
}

stencilmap_status stencilmap_edges_aggregate(stencilmap_edges *out, int64_t nranks,
                                             const int32_t *node_of_rank, int nnodes,
                                             const int64_t *rank_edges, const double *rank_weight)
{
    if (!out || !node_of_rank || !rank_edges || nnodes <= 0 || nranks < 0)
        return STENCILMAP_ERR_ARG;
    memset(out, 0, sizeof(*out));
    out->node_edges = calloc((size_t)nnodes, sizeof(int64_t));
    out->node_weight = calloc((size_t)nnodes, sizeof(double));
    out->node_ranks = calloc((size_t)nnodes, sizeof(int64_t));
    if (!out->node_edges || !out->node_weight || !out->node_ranks) {
        stencilmap_edges_free(out);
        return STENCILMAP_ERR_NOMEM;
    }
    out->nnodes = nnodes;
    for (int64_t r = 0; r < nranks; r++) {
        int32_t n = node_of_rank[r];
        if (n < 0 || n >= nnodes) {
            stencilmap_edges_free(out);
            return STENCILMAP_ERR_ARG;
        }
        out->node_edges[n] += rank_edges[r];
        out->node_weight[n] += rank_weight ? rank_weight[r] : (double)rank_edges[r];
        out->node_ranks[n]++;
    }
    for (int n = 0; n < nnodes; n++) {
        out->jsum += out->node_edges[n];
        out->wsum += out->node_weight[n];
        if (out->node_edges[n] > out->jmax) {
            out->jmax = out->node_edges[n];
            out->jmax_node = n;
        }
        if (out->node_weight[n] > out->wmax)
            out->wmax = out->node_weight[n];
    }
    return STENCILMAP_OK;
}

static int same_by_array(void *arg, int64_t a, int64_t b)
{
    const int32_t *node_of_rank = arg;
    return node_of_rank[a] == node_of_rank[b];
}

stencilmap_status stencilmap_edges_count(stencilmap_edges *out, const stencilmap_place *pl,
                                         const int32_t *node_of_rank, int nnodes)
{
    if (!out || !pl || !node_of_rank)
        return STENCILMAP_ERR_ARG;
    int64_t *re = malloc(sizeof(int64_t) * (size_t)(pl->size ? pl->size : 1));
    double *rw = malloc(sizeof(double) * (size_t)(pl->size ? pl->size : 1));
    if (!re || !rw) {
        free(re);
        free(rw);
        return STENCILMAP_ERR_NOMEM;
    }
    stencilmap_status st = STENCILMAP_OK;
    for (int64_t r = 0; r < pl->size && st == STENCILMAP_OK; r++)
        st = stencilmap_rank_out_edges(pl, r, same_by_array, (void *)node_of_rank, &re[r], &rw[r]);
    if (st == STENCILMAP_OK)
        st = stencilmap_edges_aggregate(out, pl->size, node_of_rank, nnodes, re, rw);
    free(re);
    free(rw);
    return st;
}
