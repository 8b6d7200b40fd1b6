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

#include "model/model.h"
#include "model/edges.h"
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

/* The stencil graph in Scotch's compressed form. */
struct sc_graph {
    SCOTCH_Num *verttab, *edgetab, *edlotab;
    size_t na;
};

static void sc_graph_free(struct sc_graph *gr)
{
    free(gr->verttab);
    free(gr->edgetab);
    free(gr->edlotab);
}

/* Scotch wants a symmetric graph without loops or multi-edges: the
 * directed edges v->t and t->v of the stencil become one edge whose
 * weight is their sum, so a cut edge costs what J_sum counts. */
static smp_status sc_graph_build(const smp_grid *grid, const smp_stencil *st, struct sc_graph *gr,
                                 smp_error *err)
{
    int64_t p = grid->size;
    int k = st->count;
    size_t maxarcs = (size_t)p * 2 * (size_t)k;
    smp_edge_walk w;
    memset(gr, 0, sizeof(*gr));
    smp_status s = smp_edge_walk_init(&w, grid, st, true, err); /* entry k + o is -o */
    gr->verttab = malloc(sizeof(SCOTCH_Num) * (size_t)(p + 1));
    gr->edgetab = malloc(sizeof(SCOTCH_Num) * maxarcs);
    gr->edlotab = malloc(sizeof(SCOTCH_Num) * maxarcs);
    SCOTCH_Num *iw = malloc(sizeof(SCOTCH_Num) * (size_t)k);
    SCOTCH_Num *arcs = malloc(sizeof(SCOTCH_Num) * 4 * (size_t)k); /* (end, weight) pairs */
    if (!s && (!gr->verttab || !gr->edgetab || !gr->edlotab || !iw || !arcs))
        s = smp_error_set(err, SMP_ERR_SYSTEM, "scotch: out of memory for %lld ranks", (long long)p);
    if (!s)
        edge_weights(st, iw);
    int64_t c[SMP_MAX_DIMS];
    smp_edge_walk_first(&w, c);
    for (int64_t v = 0; v < p && !s; v++, smp_edge_walk_next(&w, c)) {
        size_t first = gr->na;
        gr->verttab[v] = (SCOTCH_Num)gr->na;
        int n = 0;
        for (int e = 0; e < w.count; e++) {
            int64_t t = smp_edge_target(&w, c, v, e);
            if (t < 0 || t == v)
                continue;
            arcs[2 * n] = (SCOTCH_Num)t;
            arcs[2 * n + 1] = iw[e % k];
            n++;
        }
        qsort(arcs, (size_t)n, 2 * sizeof(SCOTCH_Num), cmp_arc);
        for (int i = 0; i < n; i++) {
            if (gr->na > first && gr->edgetab[gr->na - 1] == arcs[2 * i]) {
                gr->edlotab[gr->na - 1] += arcs[2 * i + 1];
                continue;
            }
            gr->edgetab[gr->na] = arcs[2 * i];
            gr->edlotab[gr->na++] = arcs[2 * i + 1];
        }
    }
    if (!s)
        gr->verttab[p] = (SCOTCH_Num)gr->na;
    smp_edge_walk_free(&w);
    free(iw);
    free(arcs);
    return s;
}

/* The target: the complete graph of the node shares (tleaf NULL), or a
 * tree-leaf of slots cut down to the leaves that exist. */
struct sc_target {
    int ndense;
    SCOTCH_Num *share;
    const SCOTCH_Num *tsize, *tlink; /* tree levels from the top, or NULL */
    int tlevels;
    const SCOTCH_Num *leaves;        /* the leaves kept, in order */
    SCOTCH_Num nleaves;
};

static int sc_arch(const struct sc_target *tg, SCOTCH_Arch *arch, SCOTCH_Arch *full)
{
    if (!tg->tsize)
        return SCOTCH_archCmpltw(arch, tg->ndense, tg->share);
    int rc = SCOTCH_archTleaf(full, tg->tlevels, tg->tsize, tg->tlink);
    return rc ? rc : SCOTCH_archSub(arch, full, tg->nleaves, tg->leaves);
}

/* Maps the graph onto the target; Scotch's status (0 on success). */
static int sc_map(const struct sc_graph *gr, int64_t p, const struct sc_target *tg,
                  SCOTCH_Num *parttab)
{
    int nparts = tg->tsize ? (int)tg->nleaves : tg->ndense;
    SCOTCH_Graph g, cg;
    SCOTCH_Arch arch, full;
    SCOTCH_Strat strat;
    SCOTCH_Context ctx;
    SCOTCH_randomReset();
    if (SCOTCH_graphInit(&g) || SCOTCH_graphInit(&cg) || SCOTCH_archInit(&arch) ||
        SCOTCH_archInit(&full) || SCOTCH_stratInit(&strat) || SCOTCH_contextInit(&ctx))
        return -1;
    int rc = SCOTCH_graphBuild(&g, 0, (SCOTCH_Num)p, gr->verttab, NULL, NULL, NULL,
                               (SCOTCH_Num)gr->na, gr->edgetab, gr->edlotab);
    /* one thread, as the placement core runs: the comparison is per core,
     * and a single thread keeps Scotch's answer reproducible */
    if (!rc)
        rc = SCOTCH_contextThreadSpawn(&ctx, 1, NULL);
    if (!rc)
        rc = SCOTCH_contextRandomClone(&ctx);
    if (!rc)
        rc = SCOTCH_contextBindGraph(&ctx, &g, &cg);
    if (!rc)
        rc = sc_arch(tg, &arch, &full);
    /* the default strategy with the balance ratio forced to 0, as
     * scotch_gmap -b0 does */
    if (!rc)
        rc = SCOTCH_stratGraphMapBuild(&strat, SCOTCH_STRATDEFAULT, nparts, 0.0);
    if (!rc)
        rc = SCOTCH_graphMap(&cg, &arch, &strat, parttab);
    SCOTCH_stratExit(&strat);
    SCOTCH_archExit(&arch);
    SCOTCH_archExit(&full);
    SCOTCH_graphExit(&cg);
    SCOTCH_graphExit(&g);
    SCOTCH_contextExit(&ctx);
    return rc;
}

/* Takes Scotch's answer and checks it against the shares and the slots. */
static smp_status sc_take(const SCOTCH_Num *parttab, int64_t p, const SCOTCH_Num *share, int ndense,
                          const int32_t *slots, int nnodes, int32_t *node_of_rank,
                          smp_scotch_info *info, smp_error *err)
{
    int64_t *got = calloc((size_t)nnodes, sizeof(int64_t));
    if (!got)
        return smp_error_set(err, SMP_ERR_SYSTEM, "scotch: out of memory");
    for (int64_t v = 0; v < p; v++) {
        if (parttab[v] < 0 || parttab[v] >= ndense) {
            free(got);
            return smp_error_set(err, SMP_ERR_SYSTEM, "scotch: rank %lld mapped to part %d of %d",
                                 (long long)v, (int)parttab[v], ndense);
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
    return SMP_OK;
}

/* The shares as plan makes them, and the checks shared by both targets. */
static smp_status shares_of(const smp_grid *grid, const int32_t *slots, int nnodes,
                            SCOTCH_Num **share, int *ndense, smp_error *err)
{
    int64_t total = 0;
    for (int i = 0; i < nnodes; i++)
        total += slots[i];
    if (nnodes < 1 || total < grid->size)
        return smp_error_set(err, SMP_ERR_INFEASIBLE, "infeasible: %lld ranks but only %lld slots",
                             (long long)grid->size, (long long)total);
    *share = malloc(sizeof(SCOTCH_Num) * (size_t)nnodes);
    if (!*share)
        return smp_error_set(err, SMP_ERR_SYSTEM, "scotch: out of memory");
    *ndense = 0;
    for (int64_t left = grid->size; *ndense < nnodes && left > 0; (*ndense)++) {
        (*share)[*ndense] = (SCOTCH_Num)(left < slots[*ndense] ? left : slots[*ndense]);
        left -= (*share)[*ndense];
    }
    return SMP_OK;
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
    SCOTCH_Num *share;
    int ndense;
    smp_status s = shares_of(grid, slots, nnodes, &share, &ndense, err);
    if (s)
        return s;
    int64_t p = grid->size;
    struct sc_graph gr;
    SCOTCH_Num *parttab = malloc(sizeof(SCOTCH_Num) * (size_t)p);
    s = sc_graph_build(grid, st, &gr, err);
    if (!s && !parttab)
        s = smp_error_set(err, SMP_ERR_SYSTEM, "scotch: out of memory for %lld ranks", (long long)p);
    struct sc_target tg = {.ndense = ndense, .share = share};
    int rc = s ? 0 : sc_map(&gr, p, &tg, parttab);
    if (!s && rc < 0)
        s = smp_error_set(err, SMP_ERR_SYSTEM, "scotch: cannot initialise");
    else if (!s && rc)
        s = smp_error_set(err, SMP_ERR_SYSTEM, "scotch: SCOTCH_graphMap failed (%d)", rc);
    if (!s)
        s = sc_take(parttab, p, share, ndense, slots, nnodes, node_of_rank, info, err);
    sc_graph_free(&gr);
    free(parttab);
    free(share);
    return s;
}

/* The tree-leaf target of the levels: the levels that branch among
 * group, place in the group and slot, with their costs, and the leaves
 * the shares use, each with its node. */
struct sc_tree {
    SCOTCH_Num tsize[3], tlink[3];
    int tl;
    SCOTCH_Num *leaves, nleaves;
    int32_t *leaf_node;
};

/* Fills tr (its leaves and leaf_node allocated for every rank) from level
 * 0's groups and the shares; pos and fill: scratch per node and per group. */
static void tree_target(const smp_levels *lv, int nnodes, const SCOTCH_Num *share, int ndense,
                        const int *cost, int32_t *pos, int32_t *fill, struct sc_tree *tr)
{
    /* each node's place in its group, the largest group and share */
    const int32_t *gof = lv->group_of_node[0];
    SCOTCH_Num maxm = 1, maxn = 1;
    for (int i = 0; i < nnodes; i++) {
        pos[i] = fill[gof[i]]++;
        if (fill[gof[i]] > maxm)
            maxm = fill[gof[i]];
    }
    for (int i = 0; i < ndense; i++)
        if (share[i] > maxn)
            maxn = share[i];
    SCOTCH_Num full[3] = {lv->ngroups[0], maxm, maxn};
    tr->tl = 0;
    for (int k = 0; k < 3; k++) /* Scotch wants every level to branch */
        if (full[k] >= 2) {
            tr->tsize[tr->tl] = full[k];
            tr->tlink[tr->tl++] = cost[k];
        }
    tr->nleaves = 0;
    for (int i = 0; i < ndense; i++)
        for (SCOTCH_Num k = 0; k < share[i]; k++) {
            tr->leaves[tr->nleaves] = ((SCOTCH_Num)gof[i] * maxm + pos[i]) * maxn + k;
            tr->leaf_node[tr->nleaves++] = i;
        }
}

/* Maps the graph onto the tree's leaves into parttab (all to leaf 0 when
 * no level branches: a single slot). */
static smp_status map_on_tree(const struct sc_graph *gr, int64_t p, SCOTCH_Num *share,
                              int ndense, const struct sc_tree *tr, SCOTCH_Num *parttab,
                              smp_error *err)
{
    if (tr->tl == 0) {
        for (int64_t v = 0; v < p; v++)
            parttab[v] = 0;
        return SMP_OK;
    }
    struct sc_target tg = {.ndense = ndense, .share = share, .tsize = tr->tsize,
                           .tlink = tr->tlink, .tlevels = tr->tl, .leaves = tr->leaves,
                           .nleaves = tr->nleaves};
    int rc = sc_map(gr, p, &tg, parttab);
    if (rc)
        return smp_error_set(err, SMP_ERR_SYSTEM, "scotch: tree-leaf mapping failed (%d)", rc);
    return SMP_OK;
}

/* Each rank's leaf in parttab replaced by the leaf's node. */
static smp_status leaves_to_nodes(SCOTCH_Num *parttab, int64_t p, const struct sc_tree *tr,
                                  smp_error *err)
{
    for (int64_t v = 0; v < p; v++) {
        if (parttab[v] < 0 || parttab[v] >= tr->nleaves)
            return smp_error_set(err, SMP_ERR_SYSTEM, "scotch: rank %lld mapped to leaf %d of %d",
                                 (long long)v, (int)parttab[v], (int)tr->nleaves);
        parttab[v] = tr->leaf_node[parttab[v]];
    }
    return SMP_OK;
}

smp_status smp_scotch_map_levels(const smp_grid *grid, const smp_stencil *st, const int32_t *slots,
                                 int nnodes, const smp_levels *lv, const int *cost,
                                 int32_t *node_of_rank, smp_scotch_info *info, smp_error *err)
{
    memset(info, 0, sizeof(*info));
    if (grid->order == SMP_ORDER_COLUMN_MAJOR) {
        smp_canon c;
        smp_status s = smp_canon_make(&c, grid, st, err);
        if (!s)
            s = smp_scotch_map_levels(&c.grid, &c.st, slots, nnodes, lv, cost, node_of_rank, info,
                                      err);
        smp_canon_free(&c);
        return s;
    }
    if (lv->nlevels < 1 || lv->nnodes != nnodes)
        return smp_error_set(err, SMP_ERR_INPUT, "scotch: levels for %d nodes needed", nnodes);
    if (grid->size > INT32_MAX / (2 * st->count + 1))
        return smp_error_set(err, SMP_ERR_INPUT, "scotch: %lld ranks are too many", (long long)grid->size);
    SCOTCH_Num *share;
    int ndense;
    smp_status s = shares_of(grid, slots, nnodes, &share, &ndense, err);
    if (s)
        return s;
    size_t per_rank = (size_t)(grid->size ? grid->size : 1);
    int32_t *pos = malloc(sizeof(int32_t) * (size_t)nnodes);
    int32_t *fill = calloc((size_t)lv->ngroups[0], sizeof(int32_t));
    struct sc_tree tr = {.leaves = malloc(sizeof(SCOTCH_Num) * per_rank),
                         .leaf_node = malloc(sizeof(int32_t) * per_rank)};
    SCOTCH_Num *parttab = malloc(sizeof(SCOTCH_Num) * per_rank);
    struct sc_graph gr = {0};
    if (!pos || !fill || !tr.leaves || !tr.leaf_node || !parttab) {
        s = smp_error_set(err, SMP_ERR_SYSTEM, "scotch: out of memory");
        goto done;
    }
    tree_target(lv, nnodes, share, ndense, cost, pos, fill, &tr);
    s = sc_graph_build(grid, st, &gr, err);
    if (!s)
        s = map_on_tree(&gr, grid->size, share, ndense, &tr, parttab, err);
    /* leaves to nodes, then the shares checked as for the complete graph */
    if (!s)
        s = leaves_to_nodes(parttab, grid->size, &tr, err);
    if (!s)
        s = sc_take(parttab, grid->size, share, ndense, slots, nnodes, node_of_rank, info, err);
done:
    sc_graph_free(&gr);
    free(pos);
    free(fill);
    free(tr.leaves);
    free(tr.leaf_node);
    free(parttab);
    free(share);
    return s;
}
