/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Recursive bisection with a per-cut search.
 *
 * A region of the grid (at first the whole grid) and a run of nodes are
 * split in two: the nodes into a prefix and the rest, near half of the
 * capacity; the region into the first C cells of an order and the rest,
 * C being the prefix's capacity, so every cut is exact and no node size is
 * ever a problem.  The orders are "staircases": cells sorted by one axis k,
 * then within a layer of k by a second axis j, then by the others; taking
 * the first C cells cuts whole layers of k plus part of one layer, which
 * is itself cut across j.  Every pair (k, j), in both directions, and a
 * few node splits around the middle are tried, and the one that cuts the
 * least stencil weight is kept.  Unlike hyperplane, the cut need not fall
 * between layers, so it can follow the stencil's shape at any node size.
 *
 * The cut is measured only in the band of layers the stencil can reach
 * across it (unless axis k is periodic): every other edge stays on one
 * side.  Regions are slices of one permutation of the ranks, reordered in
 * place as the splitting goes, so memory is a few words per rank. */
#include <stdlib.h>
#include <string.h>

#include "construct/order.h"
#include "model/neighbours.h"

#define SPLIT_SPREAD 1 /* node splits tried on each side of the middle */

struct bs_ctx {
    const smp_grid *grid;
    smp_nbr nb;
    const int32_t *cap;
    int64_t *prefix;      /* prefix[i]: capacity of nodes [0, i) */
    int32_t *node_of_rank;
    int32_t *perm;        /* the ranks; a region is a slice of it */
    int32_t *tmp;         /* scratch for the counting sorts */
    int64_t *count;       /* scratch: one counter per coordinate value */
    uint32_t *side;       /* per rank: stamp of the side it is on */
    uint32_t stamp;
    int reach[SMP_MAX_DIMS]; /* the most any offset moves along each axis */
    int64_t *nt;
    double *nw;
    int64_t stride[SMP_MAX_DIMS];
    int32_t *coord;       /* coord[axis * p + r]: divisions done once */
    int64_t p;
    bool rcb;             /* no search: across the widest axis, at the middle */
    int rcb_first;        /* rcb: the axis of each part's first cut (-1: widest) */
};

static inline int64_t coord_of(const struct bs_ctx *c, int32_t r, int axis)
{
    return c->coord[(size_t)axis * (size_t)c->p + (size_t)r];
}

/* Stable counting sort of a[0, n) by the coordinate along axis, into a;
 * the coordinates lie in [lo, hi] (the region's span: counting over the
 * span, not the whole axis, keeps small regions of a long grid cheap). */
static void sort_axis(struct bs_ctx *c, int32_t *a, int64_t n, int axis, int64_t lo, int64_t hi,
                      bool descending)
{
    int64_t len = hi - lo + 1;
    memset(c->count, 0, sizeof(int64_t) * (size_t)(len + 1));
    for (int64_t i = 0; i < n; i++) {
        int64_t x = coord_of(c, a[i], axis) - lo;
        c->count[(descending ? len - 1 - x : x) + 1]++;
    }
    for (int64_t x = 0; x < len; x++)
        c->count[x + 1] += c->count[x];
    for (int64_t i = 0; i < n; i++) {
        int64_t x = coord_of(c, a[i], axis) - lo;
        c->tmp[c->count[descending ? len - 1 - x : x]++] = a[i];
    }
    memcpy(a, c->tmp, sizeof(int32_t) * (size_t)n);
}

/* Puts a[0, n) in staircase order: by k, then j (j == k: no second axis),
 * then the other axes in index order; mn, mx: the region's span. */
static void staircase(struct bs_ctx *c, int32_t *a, int64_t n, int k, int j, bool descending,
                      const int64_t *mn, const int64_t *mx)
{
    int d = c->grid->ndims;
    for (int i = d - 1; i >= 0; i--) /* least significant key first */
        if (i != k && i != j)
            sort_axis(c, a, n, i, mn[i], mx[i], false);
    if (j != k)
        sort_axis(c, a, n, j, mn[j], mx[j], false);
    sort_axis(c, a, n, k, mn[k], mx[k], descending);
}

/* Weight of the stencil edges between a[0, split) and a[split, n). */
static double cut_weight(struct bs_ctx *c, const int32_t *a, int64_t n, int64_t split, int k,
                         bool descending)
{
    /* only the band of layers within reach of the split's layer can hold
     * both ends of a cut edge (without a wrap along k): the first side's
     * cells from `from`, the second's up to `to` */
    int64_t from = 0, to = n;
    if (!c->grid->periods[k] && split < n) {
        int64_t layer = coord_of(c, a[split], k);
        from = split;
        while (from > 0) {
            int64_t x = coord_of(c, a[from - 1], k);
            if ((descending ? x - layer : layer - x) > c->reach[k])
                break;
            from--;
        }
        int64_t last = coord_of(c, a[split - 1], k);
        to = split;
        while (to < n) {
            int64_t x = coord_of(c, a[to], k);
            if ((descending ? last - x : x - last) > c->reach[k])
                break;
            to++;
        }
    }
    uint32_t s2 = ++c->stamp;
    for (int64_t i = split; i < to; i++)
        c->side[a[i]] = s2;
    double w = 0;
    for (int64_t i = from; i < split; i++) {
        int m = smp_nbr_list(&c->nb, a[i], c->nt, c->nw);
        for (int e = 0; e < m; e++)
            if (c->side[c->nt[e]] == s2)
                w += c->nw[e];
    }
    return w;
}

struct bs_job {
    int64_t lo, hi; /* the region: perm[lo, hi) */
    int a, b;       /* its nodes [a, b) */
    bool first;     /* a whole part (or the grid), not yet cut */
};

/* The node split of [a, b) whose capacity is nearest half. */
static int middle_split(const struct bs_ctx *c, int a, int b)
{
    int mid = a + 1;
    int64_t half2 = c->prefix[a] + c->prefix[b]; /* twice the middle */
    for (int m = a + 1; m < b; m++)
        if (llabs(2 * c->prefix[m] - half2) < llabs(2 * c->prefix[mid] - half2))
            mid = m;
    return mid;
}

/* The region's span along each axis: mn[ax] to mx[ax]. */
static void region_span(const struct bs_ctx *c, const int32_t *reg, int64_t n, int64_t *mn,
                        int64_t *mx)
{
    int d = c->grid->ndims;
    for (int i = 0; i < d; i++) {
        mn[i] = INT64_MAX;
        mx[i] = -1;
    }
    for (int64_t i = 0; i < n; i++)
        for (int ax = 0; ax < d; ax++) {
            int64_t x = coord_of(c, reg[i], ax);
            if (x < mn[ax])
                mn[ax] = x;
            if (x > mx[ax])
                mx[ax] = x;
        }
}

/* A cut: the staircase (k, j, descending) and node split m, and its
 * weight (-1: none found). */
struct bs_cut {
    double best;
    int k, j, m;
    bool desc;
};

/* rcb: the widest axis (or the part's first axis on its first cut), then
 * the next widest; none when the region is a cell. */
static void rcb_cut(const struct bs_ctx *c, bool first, const int64_t *mn, const int64_t *mx,
                    struct bs_cut *cut)
{
    int d = c->grid->ndims, bk = 0;
    for (int k = 0; k < d; k++)
        if (mx[k] - mn[k] > mx[bk] - mn[bk])
            bk = k;
    if (first && c->rcb_first >= 0 && mx[c->rcb_first] > mn[c->rcb_first])
        bk = c->rcb_first;
    int bj = bk;
    for (int j = 0; j < d; j++)
        if (j != bk && mx[j] > mn[j] && (bj == bk || mx[j] - mn[j] > mx[bj] - mn[bj]))
            bj = j;
    cut->k = bk;
    cut->j = bj;
    cut->best = mx[bk] > mn[bk] ? 0 : -1;
}

/* Every staircase (k, j) in both directions and the node splits around
 * mid: the one that cuts the least weight, as cheap and nearer the middle
 * on a tie. */
static void search_cut(struct bs_ctx *c, int32_t *reg, int64_t n, int a, int b, int mid,
                       const int64_t *mn, const int64_t *mx, struct bs_cut *cut)
{
    int d = c->grid->ndims;
    for (int k = 0; k < d; k++) {
        if (mx[k] == mn[k])
            continue;
        for (int j = 0; j < d; j++) {
            /* j == k orders the layer by the other axes in index order,
             * which is what the first other axis j gives: only in 1-D */
            if ((j == k && d > 1) || (j != k && mx[j] == mn[j]))
                continue;
            for (int desc = 0; desc < 2; desc++) {
                staircase(c, reg, n, k, j, desc, mn, mx);
                for (int m = mid - SPLIT_SPREAD; m <= mid + SPLIT_SPREAD; m++) {
                    if (m <= a || m >= b)
                        continue;
                    double w = cut_weight(c, reg, n, c->prefix[m] - c->prefix[a], k, desc);
                    /* cheaper cut, or as cheap and nearer the middle */
                    if (cut->best < 0 || w < cut->best ||
                        (w == cut->best && abs(m - mid) < abs(cut->m - mid)))
                        *cut = (struct bs_cut){w, k, j, m, desc};
                }
            }
        }
    }
}

/* Splits job j in two; pushes the halves onto jobs (room for both). */
static void bisect(struct bs_ctx *c, struct bs_job job, struct bs_job *jobs, int *njobs)
{
    int64_t lo = job.lo, hi = job.hi;
    int a = job.a, b = job.b;
    int32_t *reg = c->perm + lo;
    int64_t n = hi - lo;
    if (b - a == 1) {
        for (int64_t i = 0; i < n; i++)
            c->node_of_rank[reg[i]] = a;
        return;
    }
    /* the node split whose capacity is nearest half, and its neighbours */
    int mid = middle_split(c, a, b);
    /* which axes the region spans */
    int64_t mn[SMP_MAX_DIMS], mx[SMP_MAX_DIMS];
    region_span(c, reg, n, mn, mx);
    struct bs_cut cut = {.best = -1, .k = 0, .j = 0, .m = mid, .desc = false};
    if (c->rcb)
        rcb_cut(c, job.first, mn, mx, &cut);
    else
        search_cut(c, reg, n, a, b, mid, mn, mx, &cut);
    if (cut.best >= 0)
        staircase(c, reg, n, cut.k, cut.j, cut.desc, mn, mx);
    /* else: a single cell per node is left; any order will do */
    int64_t split = c->prefix[cut.m] - c->prefix[a];
    jobs[(*njobs)++] = (struct bs_job){lo + split, hi, cut.m, b, false};
    jobs[(*njobs)++] = (struct bs_job){lo, lo + split, a, cut.m, false};
}

/* The context's tables: node prefixes, the rank permutation and its
 * scratch, per-rank coordinates (dimension-major), the neighbour lists. */
static smp_status bs_ctx_init(struct bs_ctx *c, const smp_grid *grid, const smp_stencil *st,
                              int nnodes, smp_error *err)
{
    smp_status s = smp_nbr_init(&c->nb, grid, st, err);
    if (s)
        return s;
    int64_t p = grid->size, maxlen = 1;
    int d = grid->ndims;
    for (int i = 0; i < d; i++)
        if (grid->dims[i] > maxlen)
            maxlen = grid->dims[i];
    smp_strides(grid, c->stride);
    for (int i = 0; i < d; i++) {
        c->reach[i] = 0;
        for (int k = 0; k < st->count; k++) {
            int x = abs(st->offsets[k * d + i]);
            if (x > c->reach[i])
                c->reach[i] = x;
        }
    }
    c->prefix = malloc(sizeof(int64_t) * ((size_t)nnodes + 1));
    c->perm = malloc(sizeof(int32_t) * (size_t)p);
    c->tmp = malloc(sizeof(int32_t) * (size_t)p);
    c->count = malloc(sizeof(int64_t) * (size_t)(maxlen + 1));
    c->side = calloc((size_t)p, sizeof(uint32_t));
    c->nt = malloc(sizeof(int64_t) * (size_t)c->nb.nk);
    c->nw = malloc(sizeof(double) * (size_t)c->nb.nk);
    c->p = p;
    c->coord = malloc(sizeof(int32_t) * (size_t)p * (size_t)d);
    if (!c->prefix || !c->perm || !c->tmp || !c->count || !c->side || !c->nt || !c->nw || !c->coord)
        return smp_error_set(err, SMP_ERR_SYSTEM, "bisect: out of memory for %lld ranks", (long long)p);
    c->prefix[0] = 0;
    for (int i = 0; i < nnodes; i++)
        c->prefix[i + 1] = c->prefix[i] + c->cap[i];
    for (int64_t r = 0; r < p; r++) {
        c->perm[r] = (int32_t)r;
        for (int i = 0; i < d; i++)
            c->coord[(size_t)i * (size_t)p + (size_t)r] = (int32_t)((r / c->stride[i]) % grid->dims[i]);
    }
    return SMP_OK;
}

static void bs_ctx_free(struct bs_ctx *c)
{
    smp_nbr_free(&c->nb);
    free(c->prefix);
    free(c->perm);
    free(c->tmp);
    free(c->count);
    free(c->side);
    free(c->nt);
    free(c->nw);
    free(c->coord);
}

/* The first jobs: the whole grid over every node, or each part over its
 * run of groups, its ranks gathered in part order (a stable counting sort:
 * part q's ranks then fill perm[prefix[first[q]], prefix[first[q + 1]])). */
static smp_status bs_seed_jobs(struct bs_ctx *c, int nnodes, const int32_t *part_of_rank,
                               const int32_t *first, int nparts, struct bs_job *jobs, int *njobs,
                               smp_error *err)
{
    if (!part_of_rank) {
        jobs[(*njobs)++] = (struct bs_job){0, c->p, 0, nnodes, true};
        return SMP_OK;
    }
    int64_t *fill = malloc(sizeof(int64_t) * ((size_t)nparts + 1));
    if (!fill)
        return smp_error_set(err, SMP_ERR_SYSTEM, "bisect: out of memory for %d parts", nparts);
    for (int q = 0; q < nparts; q++)
        fill[q] = c->prefix[first[q]];
    for (int64_t r = 0; r < c->p; r++)
        c->perm[fill[part_of_rank[r]]++] = (int32_t)r;
    free(fill);
    for (int q = 0; q < nparts; q++)
        if (first[q + 1] > first[q])
            jobs[(*njobs)++] = (struct bs_job){c->prefix[first[q]], c->prefix[first[q + 1]], first[q],
                                               first[q + 1], true};
    return SMP_OK;
}

/* Bisects every part of the grid into its run of groups: with parts NULL
 * the whole grid into groups [0, nnodes); otherwise part_of_rank[r] names
 * rank r's part, part q owns groups [first[q], first[q + 1]), and its
 * ranks (as many as those groups' capacities) are split among them only.
 * A region is any set of cells, so each part is split on its own. */
static smp_status bisect_parts(const smp_grid *grid, const smp_stencil *st, const int32_t *cap,
                               int nnodes, const int32_t *part_of_rank, const int32_t *first,
                               int nparts, int rcb, int32_t *node_of_rank, smp_error *err)
{
    struct bs_ctx c = {.grid = grid, .cap = cap, .node_of_rank = node_of_rank, .rcb = rcb > 0,
                       .rcb_first = rcb - 2};
    /* a stack of jobs rather than recursion: with very uneven nodes the
     * splits can nest as deep as there are nodes; every split adds one
     * job net, so nnodes + nparts + 1 entries are enough */
    struct bs_job *jobs = NULL;
    int njobs = 0;
    smp_status s = bs_ctx_init(&c, grid, st, nnodes, err);
    if (!s && !(jobs = malloc(sizeof(struct bs_job) * ((size_t)nnodes + (size_t)nparts + 1))))
        s = smp_error_set(err, SMP_ERR_SYSTEM, "bisect: out of memory for %d nodes", nnodes);
    if (!s)
        s = bs_seed_jobs(&c, nnodes, part_of_rank, first, nparts, jobs, &njobs, err);
    while (!s && njobs > 0) {
        struct bs_job job = jobs[--njobs];
        bisect(&c, job, jobs, &njobs);
    }
    bs_ctx_free(&c);
    free(jobs);
    return s;
}

smp_status smp_place_bisect(const smp_grid *grid, const smp_stencil *st, const int32_t *cap,
                            int nnodes, int32_t *node_of_rank, smp_error *err)
{
    return bisect_parts(grid, st, cap, nnodes, NULL, NULL, 0, 0, node_of_rank, err);
}

smp_status smp_bisect_within(const smp_grid *grid, const smp_stencil *st, const int32_t *cap,
                             int ngroups, const int32_t *part_of_rank, const int32_t *first,
                             int nparts, int32_t *group_of_rank, smp_error *err)
{
    return bisect_parts(grid, st, cap, ngroups, part_of_rank, first, nparts, 0, group_of_rank,
                        err);
}

smp_status smp_rcb_within(const smp_grid *grid, const smp_stencil *st, const int32_t *cap,
                          int ngroups, const int32_t *part_of_rank, const int32_t *first,
                          int nparts, int first_axis, int32_t *group_of_rank, smp_error *err)
{
    /* bisect_parts' rcb: 0 none, 1 widest first, 2 + axis that axis first */
    return bisect_parts(grid, st, cap, ngroups, part_of_rank, first, nparts,
                        first_axis < 0 ? 1 : 2 + first_axis, group_of_rank, err);
}
