/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Recognising a stencil in a graph an application hands to
 * MPI_Dist_graph_create_adjacent or MPI_Graph_create.  A code that builds
 * its halo neighbours by hand on a Cartesian grid gives MPI only the
 * edges; to plan it like MPI_Cart_create we need the grid and the stencil
 * back.  We try every grid the rank count allows (its factorizations into
 * 1 to 3 sides of 2 or more, each side periodic or not), take the offsets
 * the edges make on it (normalized into (-L/2, L/2] along a periodic
 * side), and keep the grid if every rank's neighbour set is exactly its
 * shifts by those offsets, the ones a non-periodic side cuts off left out.
 * Among the grids that fit, the fewest offsets win, then the shortest
 * (sum of |offset|): the most local description of the same graph.
 * Neighbours are compared as sets, so an edge listed twice (both
 * directions of a periodic side of 2) does not spoil the match; the
 * library keeps the application's own lists for MPI anyway. */
#include <stdlib.h>
#include <string.h>

#include "graph_stencil.h"

typedef struct {
    int n, nd;
    const int *dims, *periods;
    const int *start, *nbrs;
    int *scratch; /* 2 * (max degree + GS_MAX_OFFSETS) ints */
} gs_try;

static void coords_of(int r, int nd, const int *dims, int *c)
{
    for (int i = nd - 1; i >= 0; i--) {
        c[i] = r % dims[i];
        r /= dims[i];
    }
}

/* the offset from a to b on the grid, normalized along periodic sides;
 * 0 when b == a */
static int offset_between(const gs_try *t, int a, int b, int *o)
{
    int ca[GS_MAX_DIMS], cb[GS_MAX_DIMS], nonzero = 0;
    coords_of(a, t->nd, t->dims, ca);
    coords_of(b, t->nd, t->dims, cb);
    for (int i = 0; i < t->nd; i++) {
        int d = cb[i] - ca[i], L = t->dims[i];
        if (t->periods[i]) {
            d = ((d % L) + L) % L;
            if (d > L / 2)
                d -= L;
        }
        o[i] = d;
        nonzero |= d != 0;
    }
    return nonzero;
}

/* rank r shifted by o, or -1 when a non-periodic side cuts it off */
static int shifted(const gs_try *t, int r, const int *o)
{
    int c[GS_MAX_DIMS], q = 0;
    coords_of(r, t->nd, t->dims, c);
    for (int i = 0; i < t->nd; i++) {
        int v = c[i] + o[i], L = t->dims[i];
        if (t->periods[i])
            v = ((v % L) + L) % L;
        else if (v < 0 || v >= L)
            return -1;
        q = q * L + v;
    }
    return q;
}

/* the distinct offsets of all edges into f; 0 when there are too many or
 * an edge is a loop */
static int collect_offsets(const gs_try *t, gs_found *f)
{
    f->k = 0;
    for (int r = 0; r < t->n; r++)
        for (int e = t->start[r]; e < t->start[r + 1]; e++) {
            int o[GS_MAX_DIMS], j;
            if (!offset_between(t, r, t->nbrs[e], o))
                return 0;
            for (j = 0; j < f->k; j++)
                if (!memcmp(f->offsets + j * t->nd, o, sizeof(int) * (size_t)t->nd))
                    break;
            if (j < f->k)
                continue;
            if (f->k == GS_MAX_OFFSETS)
                return 0;
            memcpy(f->offsets + f->k++ * t->nd, o, sizeof(int) * (size_t)t->nd);
        }
    return f->k > 0;
}

static int cmp_int(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;
    return (x > y) - (x < y);
}

static int sorted_unique(int *v, int m)
{
    int u = 0;
    qsort(v, (size_t)m, sizeof(int), cmp_int);
    for (int i = 0; i < m; i++)
        if (!u || v[u - 1] != v[i])
            v[u++] = v[i];
    return u;
}

/* every rank's neighbour set is its shifts by f's offsets */
static int every_rank_matches(const gs_try *t, const gs_found *f, int maxdeg)
{
    int *have = t->scratch, *want = t->scratch + maxdeg + GS_MAX_OFFSETS;
    for (int r = 0; r < t->n; r++) {
        int nh = t->start[r + 1] - t->start[r], nw = 0;
        memcpy(have, t->nbrs + t->start[r], sizeof(int) * (size_t)nh);
        for (int j = 0; j < f->k; j++) {
            int q = shifted(t, r, f->offsets + j * t->nd);
            if (q >= 0)
                want[nw++] = q;
        }
        nh = sorted_unique(have, nh);
        nw = sorted_unique(want, nw);
        if (nh != nw || memcmp(have, want, sizeof(int) * (size_t)nh))
            return 0;
    }
    return 1;
}

static long length_of(const gs_found *f)
{
    long l = 0;
    for (int i = 0; i < f->k * f->ndims; i++)
        l += labs((long)f->offsets[i]);
    return l;
}

/* tries every periodicity of one grid; keeps the best fit in *best */
static void try_grid(gs_try *t, int maxdeg, gs_found *cand, gs_found *best, int *found)
{
    for (int mask = 0; mask < (1 << t->nd); mask++) {
        cand->ndims = t->nd;
        for (int i = 0; i < t->nd; i++) {
            cand->dims[i] = t->dims[i];
            cand->periods[i] = (mask >> i) & 1;
        }
        t->periods = cand->periods;
        if (!collect_offsets(t, cand) || !every_rank_matches(t, cand, maxdeg))
            continue;
        if (!*found || cand->k < best->k || (cand->k == best->k && length_of(cand) < length_of(best))) {
            *best = *cand;
            *found = 1;
        }
    }
}

/* every ordered factorization of rest into sides of 2 or more, at most
 * GS_MAX_DIMS of them, after the sides already in dims[0..nd) */
static void each_grid(gs_try *t, int *dims, int nd, int rest, int maxdeg, gs_found *cand,
                      gs_found *best, int *found)
{
    if (rest == 1) {
        if (nd > 0) {
            t->nd = nd;
            t->dims = dims;
            try_grid(t, maxdeg, cand, best, found);
        }
        return;
    }
    if (nd == GS_MAX_DIMS)
        return;
    for (int side = 2; side <= rest; side++)
        if (rest % side == 0) {
            dims[nd] = side;
            each_grid(t, dims, nd + 1, rest / side, maxdeg, cand, best, found);
        }
}

int gs_find(int n, const int *start, const int *nbrs, gs_found *f)
{
    int maxdeg = 0, dims[GS_MAX_DIMS], found = 0;
    if (n < 2 || !start || start[0] != 0)
        return 0;
    for (int r = 0; r < n; r++) {
        if (start[r + 1] < start[r])
            return 0;
        if (start[r + 1] - start[r] > maxdeg)
            maxdeg = start[r + 1] - start[r];
        for (int e = start[r]; e < start[r + 1]; e++)
            if (nbrs[e] < 0 || nbrs[e] >= n)
                return 0;
    }
    gs_try t = {n, 0, NULL, NULL, start, nbrs, malloc(sizeof(int) * 2 * (size_t)(maxdeg + GS_MAX_OFFSETS))};
    gs_found *cand = malloc(sizeof(*cand));
    if (!t.scratch || !cand) {
        free(t.scratch);
        free(cand);
        return -1;
    }
    each_grid(&t, dims, 0, n, maxdeg, cand, f, &found);
    free(t.scratch);
    free(cand);
    return found;
}
