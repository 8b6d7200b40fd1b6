/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Neighbour lists of the stencil graph, computed on the fly. */
#include <stdlib.h>
#include <string.h>

#include "model/model.h"
#include "model/neighbours.h"

static bool stencil_symmetric(const smp_stencil *st)
{
    int d = st->ndims;
    for (int a = 0; a < st->count; a++) {
        bool found = false;
        for (int b = 0; b < st->count && !found; b++) {
            bool neg = true;
            for (int i = 0; i < d && neg; i++)
                neg = st->offsets[b * d + i] == -st->offsets[a * d + i];
            found = neg && (!st->weights || st->weights[a] == st->weights[b]);
        }
        if (!found)
            return false;
    }
    return true;
}

/* Which ranks are interior to the walk (see smp_nbr.interior), row by row
 * along the axis of stride 1. */
static uint64_t *interior_bits(const smp_grid *grid, const smp_edge_walk *wk)
{
    uint64_t *bits = calloc((size_t)(grid->size / 64 + 1), sizeof(uint64_t));
    if (!bits)
        return NULL;
    int d = grid->ndims, f = grid->order == SMP_ORDER_COLUMN_MAJOR ? 0 : d - 1;
    int64_t len = grid->dims[f], c[SMP_MAX_DIMS];
    smp_edge_walk_first(wk, c);
    for (int64_t row = 0; row < grid->size; row += len) {
        bool outer = true;
        for (int i = 0; i < d; i++)
            outer = outer && (i == f || (c[i] >= wk->lo[i] && c[i] < wk->hi[i]));
        for (int64_t k = wk->lo[f]; outer && k < wk->hi[f]; k++)
            bits[(row + k) >> 6] |= (uint64_t)1 << ((row + k) & 63);
        c[f] = len - 1;
        smp_edge_walk_next(wk, c);
    }
    return bits;
}

smp_status smp_nbr_init(smp_nbr *nb, const smp_grid *grid, const smp_stencil *st, smp_error *err)
{
    memset(nb, 0, sizeof(*nb));
    if (st->ndims != grid->ndims)
        return smp_error_set(err, SMP_ERR_INPUT, "stencil: has %d dimensions but the grid has %d",
                             st->ndims, grid->ndims);
    int k = st->count;
    bool sym = stencil_symmetric(st);
    smp_status s = smp_edge_walk_init(&nb->walk, grid, st, !sym, err);
    if (s) {
        smp_nbr_free(nb);
        return s;
    }
    nb->nk = nb->walk.count;
    nb->w = malloc(sizeof(double) * (size_t)(nb->nk > 0 ? nb->nk : 1));
    nb->wout = malloc(sizeof(double) * (size_t)(nb->nk > 0 ? nb->nk : 1));
    if (!nb->w || !nb->wout) {
        smp_nbr_free(nb);
        return smp_error_set(err, SMP_ERR_SYSTEM, "neighbours: out of memory");
    }
    if (!(nb->interior = interior_bits(grid, &nb->walk))) {
        smp_nbr_free(nb);
        return smp_error_set(err, SMP_ERR_SYSTEM, "neighbours: out of memory");
    }
    for (int j = 0; j < nb->nk; j++) {
        /* entries k.. are the incoming edges: v - o is their source */
        double w = st->weights ? st->weights[j % k] : 1.0;
        nb->w[j] = sym ? 2 * w : w;
        nb->wout[j] = j < k ? w : 0;
    }
    return SMP_OK;
}

void smp_nbr_free(smp_nbr *nb)
{
    smp_edge_walk_free(&nb->walk);
    free(nb->w);
    free(nb->wout);
    free(nb->interior);
    nb->wout = NULL;
    nb->w = NULL;
    nb->interior = NULL;
}

/* One body for both entry points; with want_wo a compile-time constant
 * the plain list pays nothing for the directions. */
static inline __attribute__((always_inline)) int nbr_list(const smp_nbr *nb, int64_t v, int64_t *t,
                                                          double *w, double *wo, const bool want_wo)
{
    const smp_edge_walk *wk = &nb->walk;
    int d = wk->d, n = 0;
    if (nb->interior[v >> 6] >> (v & 63) & 1) {
        for (int k = 0; k < nb->nk; k++) {
            t[k] = v + wk->delta[k];
            w[k] = nb->w[k];
        }
        if (want_wo)
            memcpy(wo, nb->wout, sizeof(double) * (size_t)nb->nk);
        return nb->nk;
    }
    int64_t coord[SMP_MAX_DIMS], rest = v;
    if (wk->grid->order == SMP_ORDER_COLUMN_MAJOR) {
        for (int i = d - 1; i >= 0; i--) {
            coord[i] = rest / wk->stride[i];
            rest -= coord[i] * wk->stride[i];
        }
    } else {
        for (int i = 0; i < d; i++) {
            coord[i] = rest / wk->stride[i];
            rest -= coord[i] * wk->stride[i];
        }
    }
    for (int k = 0; k < nb->nk; k++) {
        int64_t x_t = smp_edge_target(wk, coord, v, k);
        if (x_t < 0 || x_t == v)
            continue;
        t[n] = x_t;
        if (want_wo)
            wo[n] = nb->wout[k];
        w[n++] = nb->w[k];
    }
    return n;
}

int smp_nbr_list(const smp_nbr *nb, int64_t v, int64_t *t, double *w)
{
    return nbr_list(nb, v, t, w, NULL, false);
}

int smp_nbr_list_dir(const smp_nbr *nb, int64_t v, int64_t *t, double *w, double *wo)
{
    return wo ? nbr_list(nb, v, t, w, wo, true) : nbr_list(nb, v, t, w, NULL, false);
}
