/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Splitting each group of one level into its units of the level below
 * (or into its nodes) with exact shares, for groups first (plan_levels.c):
 * bisection inside each group, and where it does better there, recursive
 * coordinate bisection (alg_bisect.c); then refinement restricted to each
 * group, and on small grids annealing restricted to it too, so the
 * groups' rank sets, and with them every coarser level's figures, never
 * change.
 *
 * Why two ways: a group's region from the level above is a box with a
 * tail where its share does not fill whole layers (1M ranks in groups of
 * 16 nodes of 128: 46 x 44 cells and two rows of 47).  Bisection's
 * cheapest first cut can leave the tail to one node (2 x 47 and a bit:
 * 77 edges out after refinement, where the others have 48); cutting
 * across the widest axis shares the tail out.  Each group keeps the way
 * whose busiest unit has fewer edges out (then fewer in all; under "sum"
 * the other way round): the groups do not affect each other, the edges
 * between two groups being cut whichever way either is split. */
#include <stdlib.h>
#include <string.h>

#include "model/edges.h"
#include "construct/construct.h"
#include "improve/improve.h"
#include "levels/groups.h"

/* Each label's outgoing cut (weighted), into out[nlabels]. */
static smp_status label_cuts(const smp_grid *grid, const smp_stencil *st, const int32_t *label,
                             int nlabels, double *out, smp_error *err)
{
    smp_edge_walk w;
    smp_status s = smp_edge_walk_init(&w, grid, st, false, err);
    memset(out, 0, sizeof(double) * (size_t)nlabels);
    if (!s) {
        int64_t c[SMP_MAX_DIMS];
        smp_edge_walk_first(&w, c);
        for (int64_t r = 0; r < grid->size; r++, smp_edge_walk_next(&w, c)) {
            int32_t me = label[r];
            bool inner = smp_edge_interior(&w, c);
            for (int o = 0; o < w.count; o++) {
                int64_t t = inner ? r + w.delta[o] : smp_edge_target(&w, c, r, o);
                if (t >= 0 && label[t] != me)
                    out[me] += st->weights ? st->weights[o] : 1.0;
            }
        }
    }
    smp_edge_walk_free(&w);
    return s;
}

/* Per parent q (its units [first[q], first[q + 1])), the busiest unit's
 * cut and the sum, into mx[q] and sm[q]. */
static void parent_figures(const double *out, const int32_t *first, int nparts, double *mx,
                           double *sm)
{
    for (int q = 0; q < nparts; q++) {
        mx[q] = sm[q] = 0;
        for (int32_t k = first[q]; k < first[q + 1]; k++) {
            sm[q] += out[k];
            if (out[k] > mx[q])
                mx[q] = out[k];
        }
    }
}

/* Splits every parent by recursive coordinate bisection too, its first
 * cut across the widest axis (and on small grids across each axis in
 * turn), and takes
 * each split into label[] for the parents where it is better by obj than
 * what label[] holds. */
static smp_status rcb_where_better(const smp_grid *grid, const smp_stencil *st,
                                   const int32_t *ccap, int nchild, const int32_t *part,
                                   const int32_t *first, int nparts, smp_objective obj,
                                   int32_t *label, smp_error *err)
{
    size_t p = (size_t)grid->size;
    int32_t *alt = malloc(sizeof(int32_t) * (p ? p : 1));
    double *out = malloc(sizeof(double) * (size_t)(nchild ? nchild : 1));
    double *f = malloc(sizeof(double) * 4 * (size_t)(nparts ? nparts : 1));
    uint8_t *take = calloc((size_t)(nparts ? nparts : 1), 1);
    smp_status s = SMP_OK;
    if (!alt || !out || !f || !take) {
        s = smp_error_set(err, SMP_ERR_SYSTEM, "levels: out of memory");
        goto done;
    }
    double *m1 = f, *s1 = f + nparts, *m2 = f + 2 * nparts, *s2 = f + 3 * nparts;
    if ((s = label_cuts(grid, st, label, nchild, out, err)))
        goto done;
    parent_figures(out, first, nparts, m1, s1);
    /* the first cut across each axis in turn on small grids only: on 1M
     * ranks each such pass costs about 50 ms (a fifth of groups first)
     * for node J_sum 0.06 % lower than with the widest axis alone */
    int last_axis = smp_anneal_applies(grid, st) ? grid->ndims : 0;
    for (int axis = -1; axis < last_axis; axis++) {
        if ((s = smp_rcb_within(grid, st, ccap, nchild, part, first, nparts, axis, alt, err)) ||
            (s = label_cuts(grid, st, alt, nchild, out, err)))
            goto done;
        parent_figures(out, first, nparts, m2, s2);
        bool any = false;
        for (int q = 0; q < nparts; q++) {
            double a1 = obj == SMP_OBJ_MAX ? m1[q] : s1[q], b1 = obj == SMP_OBJ_MAX ? s1[q] : m1[q];
            double a2 = obj == SMP_OBJ_MAX ? m2[q] : s2[q], b2 = obj == SMP_OBJ_MAX ? s2[q] : m2[q];
            take[q] = a2 < a1 || (a2 == a1 && b2 < b1);
            if (take[q]) {
                m1[q] = m2[q];
                s1[q] = s2[q];
                any = true;
            }
        }
        for (size_t r = 0; any && r < p; r++)
            if (take[part[r]])
                label[r] = alt[r];
    }
done:
    free(alt);
    free(out);
    free(f);
    free(take);
    return s;
}

smp_status smp_split_down(const smp_grid *grid, const smp_stencil *st, const int32_t *capnode,
                         int nnodes, const smp_levels *lv, int l, smp_objective obj, int effort,
                         int32_t *cur, int32_t *part, int32_t *label, smp_error *err)
{
    int npar = lv->ngroups[l + 1], nunits = l >= 0 ? lv->ngroups[l] : nnodes;
    const int32_t *up = lv->group_of_node[l + 1];
    int64_t *ucap = calloc((size_t)nunits, sizeof(int64_t));
    int64_t *pcap = calloc((size_t)npar, sizeof(int64_t));
    int32_t *upar = malloc(sizeof(int32_t) * (size_t)nunits);
    int32_t *pidx = malloc(sizeof(int32_t) * (size_t)npar);
    int32_t *first = calloc((size_t)npar + 2, sizeof(int32_t));
    int32_t *ccap = malloc(sizeof(int32_t) * (size_t)nunits);
    int32_t *cunit = malloc(sizeof(int32_t) * (size_t)nunits);
    int32_t *cpar = malloc(sizeof(int32_t) * (size_t)nunits);
    smp_status s = SMP_OK;
    if (!ucap || !pcap || !upar || !pidx || !first || !ccap || !cunit || !cpar) {
        s = smp_error_set(err, SMP_ERR_SYSTEM, "levels: out of memory");
        goto done;
    }
    for (int n = 0; n < nnodes; n++) {
        int32_t u = l >= 0 ? lv->group_of_node[l][n] : n;
        ucap[u] += capnode[n];
        pcap[up[n]] += capnode[n];
        upar[u] = up[n];
    }
    /* the parents that hold ranks, densely; their units that get ranks
     * listed parent by parent: parent q's are [first[q], first[q + 1]) */
    int nparts = 0;
    for (int g = 0; g < npar; g++)
        pidx[g] = pcap[g] > 0 ? nparts++ : -1;
    for (int u = 0; u < nunits; u++)
        if (ucap[u] > 0)
            first[pidx[upar[u]] + 2]++;
    for (int q = 0; q < nparts; q++)
        first[q + 2] += first[q + 1];
    for (int u = 0; u < nunits; u++)
        if (ucap[u] > 0) {
            int32_t k = first[pidx[upar[u]] + 1]++;
            ccap[k] = (int32_t)ucap[u];
            cunit[k] = u;
            cpar[k] = pidx[upar[u]];
        }
    int nchild = first[nparts];
    for (int64_t r = 0; r < grid->size; r++)
        part[r] = pidx[cur[r]];
    s = smp_bisect_within(grid, st, ccap, nchild, part, first, nparts, label, err);
    if (!s)
        s = rcb_where_better(grid, st, ccap, nchild, part, first, nparts, obj, label, err);
    /* nodes get twice the budget: under "max" the busiest node's cut
     * comes down slowly (1M ranks in groups of 64 nodes: J_max 109 with
     * the default budget, 82 with twice it, 82 with four times) */
    int64_t budget = (l < 0 ? 2 : 1) * smp_refine_default_budget(grid->size);
    if (!s)
        s = smp_refine_within_for(grid, st, label, nchild, cpar, budget, obj, NULL, err);
    /* on small grids, annealing inside each parent as auto anneals the
     * nodes (a round per unit of effort), then refinement again */
    if (!s && smp_anneal_applies(grid, st)) {
        smp_anneal_stats as;
        bool changed = false;
        for (int r = 0; r < effort && !s; r++) {
            s = smp_anneal_within(grid, st, label, nchild, cpar, 0, obj, (uint32_t)r, &as, err);
            changed = changed || as.after.j_sum != as.before.j_sum || as.after.w_sum != as.before.w_sum;
        }
        if (!s && changed)
            s = smp_refine_within_for(grid, st, label, nchild, cpar, 0, obj, NULL, err);
    }
    for (int64_t r = 0; !s && r < grid->size; r++)
        cur[r] = cunit[label[r]];
done:
    free(ucap);
    free(pcap);
    free(upar);
    free(pidx);
    free(first);
    free(ccap);
    free(cunit);
    free(cpar);
    return s;
}

