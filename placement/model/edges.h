/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The one walk over the stencil graph's directed edges.  An edge is a rank
 * and an offset whose target lies in the grid, wrapping on periodic
 * dimensions; the graph is never stored.  Everything that follows edges
 * asks this header for their ends: the scores (score.c, sockets.c),
 * refinement's neighbour lists (neighbours.c), the drawing (cli/svg.c) and
 * Scotch's graph (peers/scotch_map.c).  The in-job check in libstencilmap
 * keeps its own walk on purpose (see libstencilmap/place.c).
 *
 * Strides follow the grid's own rank order, so column-major grids need no
 * conversion, and the common case, no dimension wrapping, costs one add:
 * the target is v + delta. */
#ifndef STENCILMAP_EDGES_H
#define STENCILMAP_EDGES_H

#include <stdbool.h>

#include "stencilmap/placement.h"

typedef struct {
    const smp_grid *grid;
    int d;
    int count;       /* entries: the offsets, then (reverse) their negatives */
    int32_t *off;    /* count * d */
    int64_t *delta;  /* count: the offset as a rank difference, without wrap */
    int64_t stride[SMP_MAX_DIMS];
    /* a rank whose coordinate i lies in [lo[i], hi[i]) reaches every entry
     * without wrapping */
    int64_t lo[SMP_MAX_DIMS], hi[SMP_MAX_DIMS];
} smp_edge_walk;

/* The entries of st on grid: st's offsets in order (entry o is offset o),
 * and with reverse the same negated after them (entry count/2 + o is -o:
 * the edges that end at a rank).  Free with smp_edge_walk_free() whatever
 * the status. */
smp_status smp_edge_walk_init(smp_edge_walk *w, const smp_grid *grid, const smp_stencil *st,
                              bool reverse, smp_error *err);
void smp_edge_walk_free(smp_edge_walk *w);

/* The coordinates of rank 0, then of each next rank in the grid's order. */
static inline void smp_edge_walk_first(const smp_edge_walk *w, int64_t *c)
{
    for (int i = 0; i < w->d; i++)
        c[i] = 0;
}

static inline void smp_edge_walk_next(const smp_edge_walk *w, int64_t *c)
{
    const int64_t *dims = w->grid->dims;
    if (w->grid->order == SMP_ORDER_COLUMN_MAJOR) {
        for (int i = 0; i < w->d; i++) {
            if (++c[i] < dims[i])
                return;
            c[i] = 0;
        }
        return;
    }
    for (int i = w->d - 1; i >= 0; i--) {
        if (++c[i] < dims[i])
            return;
        c[i] = 0;
    }
}

/* True when rank coordinates c reach every entry without wrapping. */
static inline bool smp_edge_interior(const smp_edge_walk *w, const int64_t *c)
{
    for (int i = 0; i < w->d; i++)
        if (c[i] < w->lo[i] || c[i] >= w->hi[i])
            return false;
    return true;
}

/* The fastest-varying dimension: ranks r and r + 1 differ along it
 * unless r ends a row. */
static inline int smp_edge_fast_dim(const smp_edge_walk *w)
{
    return w->grid->order == SMP_ORDER_COLUMN_MAJOR ? 0 : w->d - 1;
}

/* The row that starts at coordinates c (c[fast] == 0): the positions along
 * the fastest dimension whose ranks are interior, [*a, *b) (empty when
 * *b <= *a).  One test per row instead of smp_edge_interior() per rank:
 * only the fast coordinate changes along a row. */
static inline void smp_edge_row_inner(const smp_edge_walk *w, const int64_t *c, int64_t *a,
                                      int64_t *b)
{
    int f = smp_edge_fast_dim(w);
    *a = w->lo[f];
    *b = w->hi[f];
    for (int i = 0; i < w->d; i++)
        if (i != f && (c[i] < w->lo[i] || c[i] >= w->hi[i]))
            *b = *a;
}

/* A walk over the ranks a row of the fastest dimension at a time, for the
 * hot loops that route every edge: the row's interior ranks [a, b) come
 * from one test per row.  Use:
 *   for (smp_edge_rows_first(w, &it); it.r < size; smp_edge_rows_next(w, &it))
 *       for (it.c[it.f] = 0; it.c[it.f] < it.len; it.c[it.f]++)
 *           ... rank it.r + it.c[it.f] at it.c, interior smp_edge_rows_inner(&it) */
typedef struct {
    int f;           /* the fastest dimension */
    int64_t r, len;  /* the row's first rank, its length */
    int64_t a, b;    /* its interior ranks' fast coordinates */
    int64_t c[SMP_MAX_DIMS];
} smp_edge_rows;

static inline void smp_edge_rows_first(const smp_edge_walk *w, smp_edge_rows *it)
{
    it->f = smp_edge_fast_dim(w);
    it->r = 0;
    it->len = w->grid->dims[it->f];
    smp_edge_walk_first(w, it->c);
    smp_edge_row_inner(w, it->c, &it->a, &it->b);
}

static inline void smp_edge_rows_next(const smp_edge_walk *w, smp_edge_rows *it)
{
    it->c[it->f] = it->len - 1; /* the row's last rank: the walk steps to the next row */
    smp_edge_walk_next(w, it->c);
    it->r += it->len;
    smp_edge_row_inner(w, it->c, &it->a, &it->b);
}

static inline bool smp_edge_rows_inner(const smp_edge_rows *it)
{
    return it->c[it->f] >= it->a && it->c[it->f] < it->b;
}

/* The target of entry e from rank v at coordinates c, wrapping on periodic
 * dimensions; -1 when it leaves the grid along a non-periodic one.  May be
 * v itself (a periodic dimension no longer than the offset). */
static inline int64_t smp_edge_target(const smp_edge_walk *w, const int64_t *c, int64_t v, int e)
{
    const int32_t *o = w->off + (size_t)e * (size_t)w->d;
    const smp_grid *g = w->grid;
    int64_t t = v + w->delta[e];
    for (int i = 0; i < w->d; i++) {
        int64_t x = c[i] + o[i];
        if (x >= 0 && x < g->dims[i])
            continue;
        if (!g->periods[i])
            return -1;
        /* wrap: move t by whole periods of this dimension */
        int64_t wrapped = ((x % g->dims[i]) + g->dims[i]) % g->dims[i];
        t += (wrapped - x) * w->stride[i];
    }
    return t;
}

#endif
