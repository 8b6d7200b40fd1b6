/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Hyperplane (thesis Algorithm 8, paper 001 SIV-A): recursive bisection of
 * the grid by axis-aligned hyperplanes placed so that each side holds
 * exactly the ranks of a run of whole nodes.  Axes are tried from the one
 * most orthogonal to the stencil (least sum of cos^2; ties: the longer
 * side), positions from the middle outwards.
 *
 * Heterogeneous nodes: a side must hold the capacity of a prefix of the
 * node range, not a multiple of one node size.  When no axis admits such a
 * cut, the box is handed out along a boustrophedon path in the same axis
 * order, which keeps every node's share contiguous.
 *
 * Exact cuts can force long thin slabs (a 13x10 grid on nodes of 13 ranks
 * only splits into 13x1 columns).  So for boxes of at most LOCAL_NODES
 * nodes, where the remaining choices are few, every exact cut and the
 * boustrophedon hand-out are tried and the one cutting the fewest stencil
 * edges inside the box is kept; edges leaving the box cross nodes whatever
 * is chosen inside, so they do not enter the comparison.  This plays the
 * role of the paper's base case for grids of at most 2n ranks. */
#include <stdlib.h>

#include "construct/order.h"

#define LOCAL_NODES 4
#define MEMO_SIZE 4096 /* power of two */

/* The decision for a small box depends only on its side lengths and its
 * nodes' capacities (edges leaving the box never enter it), so it is
 * remembered: a million-rank grid has only a handful of distinct shapes. */
struct hp_memo {
    bool used;
    int64_t len[SMP_MAX_DIMS];
    int32_t cap[LOCAL_NODES];
    int axis;
    int64_t t;
    int m_off;
};

struct hp_ctx {
    const smp_grid *grid;
    const smp_stencil *st;
    const int64_t *prefix; /* prefix[i] = sum of cap[0..i) */
    const int32_t *cap;
    double par[SMP_MAX_DIMS];
    int32_t *node_of_rank;
    int64_t stride[SMP_MAX_DIMS];
    struct hp_memo *memo; /* MEMO_SIZE entries, or NULL */
};

/* The m in (a, b) with prefix[m] == want, or -1. */
static int find_prefix(const int64_t *prefix, int a, int b, int64_t want)
{
    int lo = a + 1, hi = b - 1;
    while (lo <= hi) {
        int mid = lo + (hi - lo) / 2;
        if (prefix[mid] == want)
            return mid;
        if (prefix[mid] < want)
            lo = mid + 1;
        else
            hi = mid - 1;
    }
    return -1;
}

/* Axis order for this box: ascending parallelism, ties to the longer side. */
static void axis_order(const struct hp_ctx *c, const smp_box *box, int *order)
{
    int d = c->grid->ndims;
    for (int i = 0; i < d; i++)
        order[i] = i;
    for (int i = 1; i < d; i++) /* insertion sort: d <= 8 */
        for (int j = i; j > 0; j--) {
            int x = order[j - 1], y = order[j];
            bool swap = c->par[y] < c->par[x] - 1e-12 ||
                        (c->par[y] <= c->par[x] + 1e-12 && box->len[y] > box->len[x]);
            if (!swap)
                break;
            order[j - 1] = y;
            order[j] = x;
        }
}

static void fill_box(const struct hp_ctx *c, const smp_box *box, int32_t node)
{
    int d = c->grid->ndims;
    int64_t pos[SMP_MAX_DIMS] = {0}, cell = 0;
    for (int i = 0; i < d; i++)
        cell += box->lo[i] * c->stride[i];
    for (;;) {
        /* the innermost dimension is contiguous in memory */
        for (int64_t x = 0; x < box->len[d - 1]; x++)
            c->node_of_rank[cell + x] = node;
        int i = d - 2;
        for (; i >= 0; i--) {
            if (++pos[i] < box->len[i]) {
                cell += c->stride[i];
                break;
            }
            cell -= (pos[i] - 1) * c->stride[i];
            pos[i] = 0;
        }
        if (i < 0)
            return;
    }
}

/* Stencil edges between cells of box whose nodes differ (weighted). */
static double box_internal_cut(const struct hp_ctx *c, const smp_box *box)
{
    int d = c->grid->ndims;
    const smp_stencil *st = c->st;
    double cut = 0;
    int64_t pos[SMP_MAX_DIMS] = {0}, cell = 0;
    for (int i = 0; i < d; i++)
        cell += box->lo[i] * c->stride[i];
    for (;;) {
        int32_t me = c->node_of_rank[cell];
        for (int k = 0; k < st->count; k++) {
            const int32_t *o = st->offsets + k * d;
            int64_t t = cell;
            bool inside = true;
            for (int i = 0; i < d && inside; i++) {
                int64_t x = pos[i] + o[i];
                inside = x >= 0 && x < box->len[i];
                t += o[i] * c->stride[i];
            }
            if (inside && c->node_of_rank[t] != me)
                cut += st->weights ? st->weights[k] : 1.0;
        }
        int i = d - 1;
        for (; i >= 0; i--) {
            if (++pos[i] < box->len[i]) {
                cell += c->stride[i];
                break;
            }
            cell -= (pos[i] - 1) * c->stride[i];
            pos[i] = 0;
        }
        if (i < 0)
            return cut;
    }
}

/* One way to divide a box among nodes [a, b): cut axis j at t, or (j < 0)
 * the boustrophedon hand-out. */
struct hp_choice {
    int axis;
    int64_t t;
    int m;
};

static void hp_split(const struct hp_ctx *c, const smp_box *box, int a, int b);

/* The slot for this box's shape and capacities; *hit tells whether it
 * already holds the decision.  NULL when the table is full or absent. */
static struct hp_memo *memo_slot(const struct hp_ctx *c, const smp_box *box, int a, int b,
                                 bool *hit)
{
    *hit = false;
    if (!c->memo)
        return NULL;
    int d = c->grid->ndims, k = b - a;
    uint64_t h = 1469598103934665603ull;
    for (int i = 0; i < d; i++)
        h = (h ^ (uint64_t)box->len[i]) * 1099511628211ull;
    for (int i = 0; i < k; i++)
        h = (h ^ (uint64_t)c->cap[a + i]) * 1099511628211ull;
    h ^= (uint64_t)k << 56;
    for (int probe = 0; probe < 16; probe++) {
        struct hp_memo *e = &c->memo[(h + (uint64_t)probe) & (MEMO_SIZE - 1)];
        if (!e->used)
            return e;
        bool same = true;
        for (int i = 0; i < d && same; i++)
            same = e->len[i] == box->len[i];
        for (int i = 0; i < LOCAL_NODES && same; i++)
            same = e->cap[i] == (i < k ? c->cap[a + i] : 0);
        if (same) {
            *hit = true;
            return e;
        }
    }
    return NULL;
}

static void apply_choice(const struct hp_ctx *c, const smp_box *box, int a, int b,
                         const int *order, const struct hp_choice *ch)
{
    if (ch->axis < 0) {
        smp_chunker chunk = {.cap = c->cap, .node_of_rank = c->node_of_rank, .node = a};
        smp_snake_box(c->grid, box, order, NULL, &chunk);
        return;
    }
    smp_box left = *box, right = *box;
    left.len[ch->axis] = ch->t;
    right.lo[ch->axis] += ch->t;
    right.len[ch->axis] -= ch->t;
    hp_split(c, &left, a, ch->m);
    hp_split(c, &right, ch->m, b);
}

/* Fills the box with the ranks of nodes [a, b). */
static void hp_split(const struct hp_ctx *c, const smp_box *box, int a, int b)
{
    if (b - a == 1) {
        fill_box(c, box, a);
        return;
    }
    int d = c->grid->ndims, order[SMP_MAX_DIMS] = {0};
    int64_t vol = c->prefix[b] - c->prefix[a];
    bool compare = b - a <= LOCAL_NODES;
    struct hp_choice best = {.axis = -1};
    double best_cut = 0;
    axis_order(c, box, order);
    bool hit = false;
    struct hp_memo *memo = compare ? memo_slot(c, box, a, b, &hit) : NULL;
    if (hit) {
        best = (struct hp_choice){.axis = memo->axis, .t = memo->t, .m = a + memo->m_off};
        apply_choice(c, box, a, b, order, &best);
        return;
    }
    if (compare) { /* the hand-out is the reference the cuts must beat */
        apply_choice(c, box, a, b, order, &best);
        best_cut = box_internal_cut(c, box);
    }
    for (int l = 0; l < d; l++) {
        int j = order[l];
        int64_t len = box->len[j], h = vol / len;
        if (len < 2)
            continue;
        /* middle first, then outwards; t and len - t are both tried so that
         * unequal node runs may sit on either side */
        for (int64_t t = len / 2; t >= 1; t--) {
            int64_t cand[2] = {t, len - t};
            for (int k = 0; k < 2; k++) {
                int m = find_prefix(c->prefix, a, b, c->prefix[a] + cand[k] * h);
                if (m < 0)
                    continue;
                struct hp_choice ch = {.axis = j, .t = cand[k], .m = m};
                if (!compare) { /* large box: the paper's first fit */
                    apply_choice(c, box, a, b, order, &ch);
                    return;
                }
                apply_choice(c, box, a, b, order, &ch);
                double cut = box_internal_cut(c, box);
                if (cut < best_cut) {
                    best = ch;
                    best_cut = cut;
                }
            }
        }
    }
    /* small box: redo the winner (the last trial overwrote it); large box
     * without an exact cut: the hand-out */
    apply_choice(c, box, a, b, order, &best);
    if (memo) {
        memo->used = true;
        for (int i = 0; i < SMP_MAX_DIMS; i++)
            memo->len[i] = i < d ? box->len[i] : 0;
        for (int i = 0; i < LOCAL_NODES; i++)
            memo->cap[i] = i < b - a ? c->cap[a + i] : 0;
        memo->axis = best.axis;
        memo->t = best.t;
        memo->m_off = best.m - a;
    }
}

smp_status smp_place_hyperplane(const smp_grid *grid, const smp_stencil *st, const int32_t *cap,
                                int nnodes, int32_t *node_of_rank, smp_error *err)
{
    int64_t *prefix = malloc(sizeof(int64_t) * ((size_t)nnodes + 1));
    if (!prefix)
        return smp_error_set(err, SMP_ERR_SYSTEM, "hyperplane: out of memory");
    prefix[0] = 0;
    for (int i = 0; i < nnodes; i++)
        prefix[i + 1] = prefix[i] + cap[i];
    struct hp_ctx c = {.grid = grid, .st = st, .prefix = prefix, .cap = cap,
                       .node_of_rank = node_of_rank,
                       .memo = calloc(MEMO_SIZE, sizeof(struct hp_memo))};
    smp_axis_parallelism(st, c.par);
    smp_strides(grid, c.stride);
    smp_box whole = {{0}, {0}};
    for (int i = 0; i < grid->ndims; i++)
        whole.len[i] = grid->dims[i];
    hp_split(&c, &whole, 0, nnodes);
    free(c.memo);
    free(prefix);
    return SMP_OK;
}
