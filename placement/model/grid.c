/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Cartesian process grids: validation, row-major rank <-> coordinates, and
 * MPI_Dims_create's balanced factorisation. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "model/model.h"

smp_status smp_grid_init(smp_grid *grid, int ndims, const int64_t *dims,
                         const bool *periods, smp_error *err)
{
    memset(grid, 0, sizeof(*grid));
    if (ndims < 1 || ndims > SMP_MAX_DIMS)
        return smp_error_set(err, SMP_ERR_INPUT,
                             "grid.dims: must have 1 to %d entries, not %d",
                             SMP_MAX_DIMS, ndims);
    int64_t size = 1;
    for (int i = 0; i < ndims; i++) {
        if (dims[i] < 1)
            return smp_error_set(err, SMP_ERR_INPUT,
                                 "grid.dims[%d]: must be a positive integer", i);
        /* size * dims[i] <= SMP_MAX_RANKS, checked without overflowing */
        if (dims[i] > SMP_MAX_RANKS / size)
            return smp_error_set(err, SMP_ERR_INPUT,
                                 "grid.dims: product exceeds the limit of %lld ranks",
                                 (long long)SMP_MAX_RANKS);
        size *= dims[i];
        grid->dims[i] = dims[i];
        grid->periods[i] = periods ? periods[i] : false;
    }
    grid->ndims = ndims;
    grid->size = size;
    return SMP_OK;
}

void smp_grid_coords(const smp_grid *grid, int64_t rank, int64_t *coords)
{
    if (grid->order == SMP_ORDER_COLUMN_MAJOR) {
        for (int i = 0; i < grid->ndims; i++) {
            coords[i] = rank % grid->dims[i];
            rank /= grid->dims[i];
        }
        return;
    }
    for (int i = grid->ndims - 1; i >= 0; i--) {
        coords[i] = rank % grid->dims[i];
        rank /= grid->dims[i];
    }
}

int64_t smp_grid_rank(const smp_grid *grid, const int64_t *coords)
{
    int64_t r = 0;
    if (grid->order == SMP_ORDER_COLUMN_MAJOR) {
        for (int i = grid->ndims - 1; i >= 0; i--)
            r = r * grid->dims[i] + coords[i];
        return r;
    }
    for (int i = 0; i < grid->ndims; i++)
        r = r * grid->dims[i] + coords[i];
    return r;
}

const char *smp_order_name(smp_order order)
{
    return order == SMP_ORDER_COLUMN_MAJOR ? "column-major" : "row-major";
}

bool smp_order_from_name(const char *name, smp_order *order)
{
    if (!strcmp(name, "row-major"))
        *order = SMP_ORDER_ROW_MAJOR;
    else if (!strcmp(name, "column-major"))
        *order = SMP_ORDER_COLUMN_MAJOR;
    else
        return false;
    return true;
}

/* A column-major grid numbers its cells exactly as the row-major grid of
 * its axes reversed does, so the constructions, the scorer and refinement,
 * which all work on row-major ranks, run on that grid with the offsets'
 * components reversed; node_of_rank[] means the same on both. */
smp_status smp_canon_make(smp_canon *c, const smp_grid *grid, const smp_stencil *st, smp_error *err)
{
    memset(c, 0, sizeof(*c));
    int d = grid->ndims;
    c->grid = *grid;
    c->grid.order = SMP_ORDER_ROW_MAJOR;
    for (int i = 0; i < d; i++) {
        c->grid.dims[i] = grid->dims[d - 1 - i];
        c->grid.periods[i] = grid->periods[d - 1 - i];
    }
    if (!st)
        return SMP_OK;
    c->st = *st; /* weights and name shared: the offsets keep their order */
    int sd = st->ndims;
    c->st.offsets = malloc(sizeof(int32_t) * (size_t)st->count * (size_t)(sd > 0 ? sd : 1));
    if (!c->st.offsets)
        return smp_error_set(err, SMP_ERR_SYSTEM, "grid: out of memory");
    for (int k = 0; k < st->count; k++)
        for (int i = 0; i < sd; i++)
            c->st.offsets[(size_t)k * sd + i] = st->offsets[(size_t)k * sd + (sd - 1 - i)];
    return SMP_OK;
}

void smp_canon_free(smp_canon *c)
{
    free(c->st.offsets);
    c->st.offsets = NULL;
}

/* Depth-first search over non-increasing factorisations drawn from the
 * divisors of p; keeps the one with the smallest spread between largest and
 * smallest factor (ties: the smaller largest factor). */
struct dims_search {
    int ndims;
    const int64_t *divs; /* divisors of p, descending */
    int ndivs;
    int64_t cur[SMP_MAX_DIMS];
    int64_t best[SMP_MAX_DIMS];
    int64_t best_spread, best_top;
    bool found;
};

/* f^k saturated at limit+1, so the comparison never overflows. */
static int64_t pow_capped(int64_t f, int k, int64_t limit)
{
    int64_t r = 1;
    while (k-- > 0) {
        if (r > limit / f)
            return limit + 1;
        r *= f;
    }
    return r;
}

static void dims_dfs(struct dims_search *s, int depth, int64_t rest, int64_t cap)
{
    if (depth == s->ndims - 1) {
        if (rest > cap)
            return;
        s->cur[depth] = rest;
        int64_t spread = s->cur[0] - rest, top = s->cur[0];
        if (!s->found || spread < s->best_spread ||
            (spread == s->best_spread && top < s->best_top)) {
            memcpy(s->best, s->cur, sizeof(s->cur));
            s->best_spread = spread;
            s->best_top = top;
            s->found = true;
        }
        return;
    }
    /* divisors are descending: skip straight to the first one <= cap */
    int lo = 0, hi = s->ndivs;
    while (lo < hi) {
        int mid = (lo + hi) / 2;
        if (s->divs[mid] > cap)
            lo = mid + 1;
        else
            hi = mid;
    }
    int left = s->ndims - depth;
    for (int k = lo; k < s->ndivs; k++) {
        int64_t f = s->divs[k];
        if (rest % f)
            continue;
        /* the remaining factors are <= f: once f^left < rest, stop */
        if (pow_capped(f, left, rest) < rest)
            break;
        /* the smallest later factor is at most the (left-1)-th root of what
         * remains, which bounds the spread from below */
        if (s->found) {
            int64_t top = depth ? s->cur[0] : f;
            double root = pow((double)(rest / f), 1.0 / (left - 1));
            if ((double)top - (root + 1e-9) > (double)s->best_spread)
                continue;
        }
        s->cur[depth] = f;
        dims_dfs(s, depth + 1, rest / f, f);
    }
}

smp_status smp_dims_create(int64_t p, int ndims, int64_t *dims, smp_error *err)
{
    if (ndims < 1 || ndims > SMP_MAX_DIMS)
        return smp_error_set(err, SMP_ERR_INPUT,
                             "grid.ndims: must be between 1 and %d, not %d",
                             SMP_MAX_DIMS, ndims);
    if (p < 1 || p > SMP_MAX_RANKS)
        return smp_error_set(err, SMP_ERR_INPUT,
                             "task count %lld: must be between 1 and %lld",
                             (long long)p, (long long)SMP_MAX_RANKS);
    /* p < 2^31 has at most 1600 divisors */
    int64_t divs[2048], small[1024];
    int nsmall = 0, n = 0;
    for (int64_t f = 1; f * f <= p; f++)
        if (p % f == 0)
            small[nsmall++] = f;
    for (int k = 0; k < nsmall; k++) /* large divisors, descending */
        divs[n++] = p / small[k];
    for (int k = nsmall - 1; k >= 0; k--)
        if (small[k] != p / small[k])
            divs[n++] = small[k];
    struct dims_search s = {.ndims = ndims, .divs = divs, .ndivs = n};
    dims_dfs(&s, 0, p, p);
    memcpy(dims, s.best, sizeof(int64_t) * (size_t)ndims);
    return SMP_OK;
}
