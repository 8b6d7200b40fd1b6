/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The Scotch comparator: builds the stencil graph in Scotch's compressed
 * form and asks SCOTCH_graphMap for a mapping onto a weighted complete
 * graph of the node shares, balance ratio 0 (exact).  Scotch treats the
 * balance as a goal, not a constraint, so the result is checked against
 * the shares and reported as it is. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <scotch.h>

#include "algorithms.h"
#include "scotch_map.h"

const char *smp_scotch_version(void)
{
    static char v[32];
    snprintf(v, sizeof(v), "%d.%d.%d", SCOTCH_VERSION, SCOTCH_RELEASE, SCOTCH_PATCHLEVEL);
    return v;
}

/* Integer weight per offset: unit weights stay 1; otherwise weights are
 * scaled so the smallest becomes 16 (rounding keeps ratios to ~3%). */
static void edge_weights(const smp_stencil *st, SCOTCH_Num *iw)
{
    double wmin = INFINITY;
    for (int k = 0; k < st->count; k++)
        if (st->weights && st->weights[k] < wmin)
            wmin = st->weights[k];
    for (int k = 0; k < st->count; k++) {
        if (!smp_stencil_weighted(st)) {
            iw[k] = 1;
            continue;
        }
        double x = round(st->weights[k] / wmin * 16.0);
        iw[k] = x < 1 ? 1 : x > 1e6 ? 1000000 : (SCOTCH_Num)x;
    }
}

static int cmp_arc(const void *a, const void *b)
{
    const SCOTCH_Num *x = a, *y = b;
    return (x[0] > y[0]) - (x[0] < y[0]);
}

/* Other end of edge (v, offset o*sign), or -1 when it leaves the grid or
 * wraps back onto v. */
static int64_t edge_end(const smp_grid *g, const int64_t *stride, const int64_t *coord,
                        int64_t v, const int32_t *o, int sign)
{
    int64_t t = v;
    for (int i = 0; i < g->ndims; i++) {
        int64_t x = coord[i] + sign * (int64_t)o[i];
        if (x < 0 || x >= g->dims[i]) {
            if (!g->periods[i])
                return -1;
            x = ((x % g->dims[i]) + g->dims[i]) % g->dims[i];
        }
        t += (x - coord[i]) * stride[i];
    }
    return t == v ? -1 : t;
}

smp_status smp_scotch_map(const smp_grid *grid, const smp_stencil *st, const int32_t *slots,
                          int nnodes, int32_t *node_of_rank, smp_scotch_info *info,
                          smp_error *err)
{
    memset(info, 0, sizeof(*info));
    if (grid->order == SMP_ORDER_COLUMN_MAJOR) { /* the same ranks, row-major */
        smp_canon c;
        smp_status s = smp_canon_make(&c, grid, st, err);
        if (!s)
            s = smp_scotch_map(&c.grid, &c.st, slots, nnodes, node_of_rank, info, err);
        smp_canon_free(&c);
        return s;
    }
    if (st->ndims != grid->ndims)
        return smp_error_set(err, SMP_ERR_INPUT, "stencil: has %d dimensions but the grid has %d",
                             st->ndims, grid->ndims);
    if (grid->size > INT32_MAX / (2 * st->count + 1))
        return smp_error_set(err, SMP_ERR_INPUT, "scotch: %lld ranks are too many for its 32-bit indices",
                             (long long)grid->size);
    int64_t total = 0;
    for (int i = 0; i < nnodes; i++)
        total += slots[i];
    if (nnodes < 1 || total < grid->size)
        return smp_error_set(err, SMP_ERR_INFEASIBLE, "infeasible: %lld ranks but only %lld slots",
                             (long long)grid->size, (long long)total);
    /* shares as plan computes them: nodes filled in order */
    SCOTCH_Num *share = malloc(sizeof(SCOTCH_Num) * (size_t)nnodes);
    int ndense = 0;
    if (!share)
        return smp_error_set(err, SMP_ERR_SYSTEM, "scotch: out of memory");
    for (int64_t left = grid->size; ndense < nnodes && left > 0; ndense++) {
        share[ndense] = (SCOTCH_Num)(left < slots[ndense] ? left : slots[ndense]);
        left -= share[ndense];
    }
    int64_t p = grid->size;
    int k = st->count, d = grid->ndims;
    size_t maxarcs = (size_t)p * 2 * (size_t)k;
    SCOTCH_Num *verttab = malloc(sizeof(SCOTCH_Num) * (size_t)(p + 1));
    SCOTCH_Num *edgetab = malloc(sizeof(SCOTCH_Num) * maxarcs);
    SCOTCH_Num *edlotab = malloc(sizeof(SCOTCH_Num) * maxarcs);
    SCOTCH_Num *parttab = malloc(sizeof(SCOTCH_Num) * (size_t)p);
    SCOTCH_Num *iw = malloc(sizeof(SCOTCH_Num) * (size_t)k);
    SCOTCH_Num *arcs = malloc(sizeof(SCOTCH_Num) * 4 * (size_t)k); /* (end, weight) pairs */
    smp_status s = SMP_OK;
    if (!verttab || !edgetab || !edlotab || !parttab || !iw || !arcs) {
        s = smp_error_set(err, SMP_ERR_SYSTEM, "scotch: out of memory for %lld ranks", (long long)p);
        goto out;
    }
    edge_weights(st, iw);
    int64_t stride[SMP_MAX_DIMS], coord[SMP_MAX_DIMS] = {0};
    smp_strides(grid, stride);
    /* Scotch wants a symmetric graph without loops or multi-edges: the
     * directed edges v->t and t->v of the stencil become one edge whose
     * weight is their sum, so a cut edge costs what J_sum counts. */
    size_t na = 0;
    for (int64_t v = 0; v < p; v++) {
        size_t first = na;
        verttab[v] = (SCOTCH_Num)na;
        int n = 0;
        for (int o = 0; o < k; o++)
            for (int sign = 1; sign >= -1; sign -= 2) {
                int64_t t = edge_end(grid, stride, coord, v, st->offsets + (size_t)o * d, sign);
                if (t < 0)
                    continue;
                arcs[2 * n] = (SCOTCH_Num)t;
                arcs[2 * n + 1] = iw[o];
                n++;
            }
        qsort(arcs, (size_t)n, 2 * sizeof(SCOTCH_Num), cmp_arc);
        for (int i = 0; i < n; i++) {
            if (na > first && edgetab[na - 1] == arcs[2 * i]) {
                edlotab[na - 1] += arcs[2 * i + 1];
                continue;
            }
            edgetab[na] = arcs[2 * i];
            edlotab[na++] = arcs[2 * i + 1];
        }
        for (int i = d - 1; i >= 0; i--) {
            if (++coord[i] < grid->dims[i])
                break;
            coord[i] = 0;
        }
    }
    verttab[p] = (SCOTCH_Num)na;

    SCOTCH_Graph g, cg;
    SCOTCH_Arch arch;
    SCOTCH_Strat strat;
    SCOTCH_Context ctx;
    SCOTCH_randomReset();
    if (SCOTCH_graphInit(&g) || SCOTCH_graphInit(&cg) || SCOTCH_archInit(&arch) ||
        SCOTCH_stratInit(&strat) || SCOTCH_contextInit(&ctx)) {
        s = smp_error_set(err, SMP_ERR_SYSTEM, "scotch: cannot initialise");
        goto out;
    }
    int rc = SCOTCH_graphBuild(&g, 0, (SCOTCH_Num)p, verttab, NULL, NULL, NULL, (SCOTCH_Num)na, edgetab,
                               edlotab);
    /* one thread, as the placement core runs: the comparison is per core,
     * and a single thread keeps Scotch's answer reproducible */
    if (!rc)
        rc = SCOTCH_contextThreadSpawn(&ctx, 1, NULL);
    if (!rc)
        rc = SCOTCH_contextRandomClone(&ctx);
    if (!rc)
        rc = SCOTCH_contextBindGraph(&ctx, &g, &cg);
    if (!rc)
        rc = SCOTCH_archCmpltw(&arch, ndense, share);
    /* the default strategy with the balance ratio forced to 0, as
     * scotch_gmap -b0 does */
    if (!rc)
        rc = SCOTCH_stratGraphMapBuild(&strat, SCOTCH_STRATDEFAULT, ndense, 0.0);
    if (!rc)
        rc = SCOTCH_graphMap(&cg, &arch, &strat, parttab);
    SCOTCH_stratExit(&strat);
    SCOTCH_archExit(&arch);
    SCOTCH_graphExit(&cg);
    SCOTCH_graphExit(&g);
    SCOTCH_contextExit(&ctx);
    if (rc) {
        s = smp_error_set(err, SMP_ERR_SYSTEM, "scotch: SCOTCH_graphMap failed (%d)", rc);
        goto out;
    }
    /* check the answer against the shares and the slots */
    int64_t *got = calloc((size_t)nnodes, sizeof(int64_t));
    if (!got) {
        s = smp_error_set(err, SMP_ERR_SYSTEM, "scotch: out of memory");
        goto out;
    }
    for (int64_t v = 0; v < p; v++) {
        if (parttab[v] < 0 || parttab[v] >= ndense) {
            free(got);
            s = smp_error_set(err, SMP_ERR_SYSTEM, "scotch: rank %lld mapped to part %d of %d",
                              (long long)v, (int)parttab[v], ndense);
            goto out;
        }
        node_of_rank[v] = (int32_t)parttab[v];
        got[parttab[v]]++;
    }
    for (int i = 0; i < ndense; i++) {
        if (got[i] > share[i]) {
            info->overfull++;
            if (got[i] - share[i] > info->max_excess)
                info->max_excess = got[i] - share[i];
        }
        info->over_slots += got[i] > slots[i];
        info->empty += got[i] == 0;
    }
    info->exact = info->overfull == 0; /* sums match, so none is short either */
    free(got);
out:
    free(share);
    free(verttab);
    free(edgetab);
    free(edlotab);
    free(parttab);
    free(iw);
    free(arcs);
    return s;
}
