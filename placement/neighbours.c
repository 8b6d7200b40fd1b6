/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Neighbour lists of the stencil graph, computed on the fly. */
#include <stdlib.h>
#include <string.h>

#include "algorithms.h"
#include "neighbours.h"

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

smp_status smp_nbr_init(smp_nbr *nb, const smp_grid *grid, const smp_stencil *st, smp_error *err)
{
    memset(nb, 0, sizeof(*nb));
    if (st->ndims != grid->ndims)
        return smp_error_set(err, SMP_ERR_INPUT, "stencil: has %d dimensions but the grid has %d",
                             st->ndims, grid->ndims);
    int d = grid->ndims, k = st->count;
    bool sym = stencil_symmetric(st);
    nb->grid = grid;
    nb->d = d;
    nb->nk = sym ? k : 2 * k;
    nb->off = malloc(sizeof(int32_t) * (size_t)nb->nk * (size_t)d);
    nb->w = malloc(sizeof(double) * (size_t)nb->nk);
    nb->delta = malloc(sizeof(int64_t) * (size_t)nb->nk);
    nb->wout = malloc(sizeof(double) * (size_t)nb->nk);
    if (!nb->off || !nb->w || !nb->delta || !nb->wout) {
        smp_nbr_free(nb);
        return smp_error_set(err, SMP_ERR_SYSTEM, "neighbours: out of memory");
    }
    smp_strides(grid, nb->stride);
    for (int i = 0; i < d; i++) {
        nb->lo[i] = 0;
        nb->hi[i] = grid->dims[i];
    }
    for (int j = 0; j < nb->nk; j++) {
        /* entries k.. are the incoming edges: v - o is their source */
        int sign = j < k ? 1 : -1;
        const int32_t *o = st->offsets + (size_t)(j % k) * d;
        double w = st->weights ? st->weights[j % k] : 1.0;
        nb->w[j] = sym ? 2 * w : w;
        nb->wout[j] = sign > 0 ? w : 0;
        nb->delta[j] = 0;
        for (int i = 0; i < d; i++) {
            int64_t x = sign * (int64_t)o[i];
            nb->off[(size_t)j * d + i] = (int32_t)x;
            nb->delta[j] += x * nb->stride[i];
            if (x < 0 && -x > nb->lo[i])
                nb->lo[i] = -x;
            if (x > 0 && grid->dims[i] - x < nb->hi[i])
                nb->hi[i] = grid->dims[i] - x;
        }
    }
    return SMP_OK;
}

void smp_nbr_free(smp_nbr *nb)
{
    free(nb->off);
    free(nb->w);
    free(nb->delta);
    free(nb->wout);
    nb->wout = NULL;
    nb->off = NULL;
    nb->w = NULL;
    nb->delta = NULL;
}

/* One body for both entry points; with want_wo a compile-time constant
 * the plain list pays nothing for the directions. */
static inline __attribute__((always_inline)) int nbr_list(const smp_nbr *nb, int64_t v, int64_t *t,
                                                          double *w, double *wo, const bool want_wo)
{
    const smp_grid *g = nb->grid;
    int d = nb->d, n = 0;
    int64_t coord[SMP_MAX_DIMS], rest = v;
    bool interior = true;
    for (int i = 0; i < d; i++) {
        coord[i] = rest / nb->stride[i];
        rest -= coord[i] * nb->stride[i];
        interior = interior && coord[i] >= nb->lo[i] && coord[i] < nb->hi[i];
    }
    if (interior) {
        for (int k = 0; k < nb->nk; k++) {
            t[k] = v + nb->delta[k];
            w[k] = nb->w[k];
        }
        if (want_wo)
            memcpy(wo, nb->wout, sizeof(double) * (size_t)nb->nk);
        return nb->nk;
    }
    for (int k = 0; k < nb->nk; k++) {
        const int32_t *o = nb->off + (size_t)k * d;
        int64_t x_t = v;
        bool inside = true;
        for (int i = 0; i < d; i++) {
            int64_t x = coord[i] + o[i];
            if (x < 0 || x >= g->dims[i]) {
                if (!g->periods[i]) {
                    inside = false;
                    break;
                }
                x = ((x % g->dims[i]) + g->dims[i]) % g->dims[i];
            }
            x_t += (x - coord[i]) * nb->stride[i];
        }
        if (!inside || x_t == v)
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
