/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Without a topology, the node order stands for the network: Slurm lists
 * a job's nodes by name and sites number nodes rack by rack, so nodes
 * close in that order mostly share a leaf switch.  Auto's node plan is
 * built for J only, and which node gets which block follows from the
 * construction (hyperplane numbers its blocks along other axes than
 * blocked, refinement keeps its numbering); on a tapered tree with static
 * routing that can load an uplink twice as much as blocked's numbering.
 *
 * Two ways to hand the plan's node blocks to the nodes (plan.c keeps the
 * one that loads a stand-in tree's busiest link least, or the plan as it
 * was):
 *   - along the grid: the blocks sorted as blocked numbers its blocks,
 *     row-major by the block row their centre falls in (a block row is as
 *     high as the blocks' mean extent along that axis), the fastest axis
 *     by the centre itself;
 *   - by virtual levels: relabel.c with nested groups of consecutive nodes
 *     as if they were network levels: 8, 32, 128 and 512 nodes (the sizes
 *     below the step's node count).  Several sizes because the leaf width
 *     is unknown: powers of two line up with any power-of-two leaf (32 on
 *     the bench's tapered tree), the finer ones keep neighbours close
 *     inside a leaf.  The levels are a device here, never reported.
 * Only blocks of equal share trade nodes, so J_sum and J_max are exactly
 * the plan's. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "improve/improve.h"

static const int order_sizes[] = {8, 32, 128, 512}; /* finest first, nested */

/* a used node's block: its share, then where it lies along the grid */
struct along {
    int32_t share;
    int nkeys; /* the keys compared (qsort has no context; no global, so
                * planning stays safe in threads) */
    double key[SMP_MAX_DIMS];
    int32_t node;
};

static int cmp_along(const void *x, const void *y)
{
    const struct along *a = x, *b = y;
    if (a->share != b->share)
        return a->share < b->share ? -1 : 1;
    for (int d = 0; d < a->nkeys; d++)
        if (a->key[d] != b->key[d])
            return a->key[d] < b->key[d] ? -1 : 1;
    return (a->node > b->node) - (a->node < b->node);
}

/* Each node's block centre into al[node].key, and the used blocks'
 * extents summed per axis into ext; lo/hi: scratch of nnodes * ndims. */
static void block_extents(const smp_grid *grid, const int32_t *node_of_rank, int nnodes,
                          const int32_t *capnode, struct along *al, int64_t *lo, int64_t *hi,
                          double *ext)
{
    size_t nd = (size_t)grid->ndims;
    int64_t x[SMP_MAX_DIMS] = {0};
    for (size_t i = 0; i < (size_t)nnodes * nd; i++) {
        lo[i] = INT64_MAX;
        hi[i] = -1;
    }
    for (int v = 0; v < nnodes; v++)
        al[v] = (struct along){.share = capnode[v], .node = v};
    for (int64_t r = 0; r < grid->size; r++) {
        int32_t v = node_of_rank[r];
        for (size_t d = 0; d < nd; d++) {
            size_t i = (size_t)v * nd + d;
            al[v].key[d] += (double)x[d];
            lo[i] = x[d] < lo[i] ? x[d] : lo[i];
            hi[i] = x[d] > hi[i] ? x[d] : hi[i];
        }
        for (int d = grid->ndims - 1; d >= 0 && ++x[d] == grid->dims[d]; d--)
            x[d] = 0;
    }
    for (int v = 0; v < nnodes; v++)
        for (size_t d = 0; d < nd && capnode[v] > 0; d++) {
            al[v].key[d] /= capnode[v];
            ext[d] += (double)(hi[(size_t)v * nd + d] - lo[(size_t)v * nd + d] + 1);
        }
}

/* Along the grid: phys[node] = the node its block goes to.  Blocks and
 * nodes both listed by share first, so the i-th block in grid order gets
 * the i-th node in node order, of the same share. */
static smp_status along_grid(const smp_grid *grid, const int32_t *node_of_rank, int nnodes,
                             const int32_t *capnode, int32_t *phys, smp_error *err)
{
    size_t n = (size_t)nnodes, nd = (size_t)grid->ndims;
    struct along *al = malloc(sizeof(*al) * n), *to = malloc(sizeof(*to) * n);
    int64_t *lo = malloc(sizeof(int64_t) * n * nd), *hi = malloc(sizeof(int64_t) * n * nd);
    smp_status s = SMP_OK;
    if (!al || !to || !lo || !hi) {
        s = smp_error_set(err, SMP_ERR_SYSTEM, "node order: out of memory for %d nodes", nnodes);
        goto done;
    }
    double ext[SMP_MAX_DIMS] = {0};
    block_extents(grid, node_of_rank, nnodes, capnode, al, lo, hi, ext);
    int used = 0;
    for (int v = 0; v < nnodes; v++) {
        phys[v] = v;
        if (capnode[v] > 0) {
            to[used] = (struct along){.share = capnode[v], .node = v};
            al[used++] = al[v];
        }
    }
    for (int i = 0; i < used; i++)
        for (size_t d = 0; d + 1 < nd; d++) /* the block row, not the centre */
            al[i].key[d] = floor(al[i].key[d] * used / ext[d]);
    for (int i = 0; i < used; i++)
        al[i].nkeys = (int)nd; /* the nodes (to): by share, then index */
    qsort(al, (size_t)used, sizeof(*al), cmp_along);
    qsort(to, (size_t)used, sizeof(*to), cmp_along);
    for (int i = 0; i < used; i++)
        phys[al[i].node] = to[i].node;
done:
    free(al);
    free(to);
    free(lo);
    free(hi);
    return s;
}

/* The virtual levels over nnodes nodes whose first nused are used: each
 * size below nused, as groups of that many consecutive nodes; false on
 * ENOMEM (what was allocated stays in lv for levels_free). */
static bool order_levels(smp_levels *lv, int nnodes, int nused)
{
    int n = (int)(sizeof(order_sizes) / sizeof(order_sizes[0]));
    lv->nnodes = nnodes;
    for (int i = 0; i < n && i < SMP_MAX_LEVELS && order_sizes[i] < nused; i++) {
        int size = order_sizes[i], l = lv->nlevels;
        lv->group_of_node[l] = malloc(sizeof(int32_t) * (size_t)nnodes);
        if (!lv->group_of_node[l])
            return false;
        lv->nlevels++;
        lv->ngroups[l] = (nnodes + size - 1) / size;
        for (int v = 0; v < nnodes; v++)
            lv->group_of_node[l][v] = v / size;
    }
    return true;
}

static void levels_free(smp_levels *lv)
{
    for (int l = 0; l < SMP_MAX_LEVELS; l++)
        free(lv->group_of_node[l]);
}

/* By virtual levels (relabel.c), node_of_rank rewritten in place. */
static smp_status by_levels(const smp_grid *grid, const smp_stencil *st, const int32_t *capnode,
                            int nnodes, int last_used, smp_objective obj, int32_t *node_of_rank,
                            smp_error *err)
{
    smp_levels lv = {0};
    smp_status s = SMP_OK;
    if (!order_levels(&lv, nnodes, last_used + 1))
        s = smp_error_set(err, SMP_ERR_SYSTEM, "node order: out of memory for %d nodes", nnodes);
    else if (lv.nlevels > 0)
        s = smp_relabel_levels(grid, st, capnode, nnodes, &lv, obj, node_of_rank, NULL, NULL,
                               err);
    levels_free(&lv);
    return s;
}

smp_status smp_relabel_node_order(const smp_grid *grid, const smp_stencil *st,
                                  const int32_t *cap, const int32_t *dense, int ndense,
                                  int nnodes, smp_objective obj, smp_node_order way,
                                  int32_t *node_of_rank, smp_error *err)
{
    int32_t *capnode = calloc((size_t)nnodes, sizeof(int32_t));
    int32_t *phys = malloc(sizeof(int32_t) * (size_t)nnodes);
    smp_status s = SMP_OK;
    if (!capnode || !phys) {
        s = smp_error_set(err, SMP_ERR_SYSTEM, "node order: out of memory for %d nodes", nnodes);
        goto done;
    }
    int last_used = 0;
    for (int i = 0; i < ndense; i++) {
        capnode[dense[i]] = cap[i];
        last_used = dense[i] > last_used ? dense[i] : last_used;
    }
    if (ndense < 2)
        goto done;
    if (way == SMP_NODE_ORDER_LEVELS) {
        s = by_levels(grid, st, capnode, nnodes, last_used, obj, node_of_rank, err);
    } else if (!(s = along_grid(grid, node_of_rank, nnodes, capnode, phys, err))) {
        for (int64_t r = 0; r < grid->size; r++)
            node_of_rank[r] = phys[node_of_rank[r]];
    }
done:
    free(capnode);
    free(phys);
    return s;
}
