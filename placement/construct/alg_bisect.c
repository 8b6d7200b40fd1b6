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
 * place as the splitting goes, so memory is a few words per rank.
 *
 * A staircase is a lexicographic order of the cells (every axis a key),
 * so it depends on the region alone: the search reaches each one from the
 * last by the fewest stable sorts (sorting by x an order keyed (a, b, c)
 * gives (x, then a, b, c without x)), a descending one by reversing the
 * ascending one's layers, and a region starts in its parent's order.  On
 * 1M ranks in groups of 32 nodes this takes the sorts from 39 to about 8
 * per cut, the same cuts found (doc/benchmarks.md, "Plan time").  A part
 * that is a translated copy of one split before takes that one's split,
 * moved, where the search would find exactly it ("translated copies"). */
#include <stdlib.h>
#include <string.h>

#include "construct/order.h"
#include "model/neighbours.h"

#define SPLIT_SPREAD 1 /* node splits tried on each side of the middle */
#define NSPLITS (2 * SPLIT_SPREAD + 1)

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
    const int32_t *part_of_rank;
    struct bs_part *parts; /* per part, for copies (NULL: no copying) */
    int32_t *seen;        /* hash table of the parts bisected so far (-1: empty) */
    size_t seen_mask;
};

/* A part, described before its bisection reorders its ranks: a later
 * part that is a translated copy of it gets its split moved (copy_from). */
struct bs_part {
    uint64_t hash;   /* of its capacities, its cells relative to its corner
                      * and its place along the periodic axes */
    int64_t lo, n;   /* its ranks: perm[lo, lo + n), in rank order */
    int a, nn;       /* its nodes [a, a + nn) */
    int64_t mn[SMP_MAX_DIMS], mx[SMP_MAX_DIMS];
};

/* The keys a region is sorted by, most significant first: axis and
 * direction (a descending axis has desc set); n of them, 0: any order. */
struct bs_order {
    int8_t ax[SMP_MAX_DIMS];
    bool desc[SMP_MAX_DIMS];
    int n;
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

/* The keys after a stable sort by axis x: x, then o's without x. */
static void order_after_sort(struct bs_order *o, int x)
{
    struct bs_order r = {.ax = {(int8_t)x}, .n = 1};
    for (int i = 0; i < o->n; i++)
        if (o->ax[i] != x) {
            r.ax[r.n] = o->ax[i];
            r.desc[r.n++] = o->desc[i];
        }
    *o = r;
}

/* o without the axes the region does not span (a constant key orders
 * nothing). */
static void order_drop_flat(struct bs_order *o, const int64_t *mn, const int64_t *mx)
{
    int n = 0;
    for (int i = 0; i < o->n; i++)
        if (mx[o->ax[i]] > mn[o->ax[i]]) {
            o->ax[n] = o->ax[i];
            o->desc[n++] = o->desc[i];
        }
    o->n = n;
}

/* The keys of the ascending staircase (k, j) into t: k, then j (j == k:
 * no second axis), then the other axes in index order, each only where
 * the region spans it; their count. */
static int staircase_keys(int d, int k, int j, const int64_t *mn, const int64_t *mx, int8_t *t)
{
    int n = 0;
    for (int pass = 0; pass < 3; pass++)
        for (int i = 0; i < d; i++) {
            bool take = pass == 0 ? i == k : pass == 1 ? i == j && j != k : i != k && i != j;
            if (take && mx[i] > mn[i])
                t[n++] = (int8_t)i;
        }
    return n;
}

/* The fewest stable sorts m (by t[m - 1], ..., t[0]) that turn a region
 * keyed o into one keyed t[0, nt) ascending: o's keys without t[0, m)
 * must be t[m, nt), ascending. */
static int sorts_needed(const struct bs_order *o, const int8_t *t, int nt)
{
    for (int m = 0; m < nt; m++) {
        int i = m;
        bool ok = true;
        for (int q = 0; q < o->n && ok; q++) {
            bool gone = false;
            for (int z = 0; z < m; z++)
                gone = gone || o->ax[q] == t[z];
            if (!gone)
                ok = i < nt && o->ax[q] == t[i++] && !o->desc[q];
        }
        if (ok && i == nt)
            return m;
    }
    return nt;
}

/* Puts a[0, n), keyed *o, in the ascending order keyed t[0, nt) by the
 * fewest sorts; *o becomes t.  mn, mx: the region's span. */
static void reach_order(struct bs_ctx *c, int32_t *a, int64_t n, struct bs_order *o,
                        const int8_t *t, int nt, const int64_t *mn, const int64_t *mx)
{
    for (int i = sorts_needed(o, t, nt) - 1; i >= 0; i--) {
        sort_axis(c, a, n, t[i], mn[t[i]], mx[t[i]], false);
        order_after_sort(o, t[i]);
    }
}

/* a[0, n), sorted ascending by axis k first, into out with its layers of
 * k in reverse order, each layer's cells in their order: the descending
 * staircase. */
static void reverse_layers(const struct bs_ctx *c, const int32_t *a, int64_t n, int k,
                           int32_t *out)
{
    int64_t o = 0;
    for (int64_t end = n; end > 0;) {
        int64_t x = coord_of(c, a[end - 1], k), start = end - 1;
        while (start > 0 && coord_of(c, a[start - 1], k) == x)
            start--;
        memcpy(out + o, a + start, sizeof(int32_t) * (size_t)(end - start));
        o += end - start;
        end = start;
    }
}

/* Puts a[0, n), keyed *o, in staircase order (k, j, descending along k or
 * not); mn, mx: the region's span. */
static void staircase(struct bs_ctx *c, int32_t *a, int64_t n, int k, int j, bool descending,
                      const int64_t *mn, const int64_t *mx, struct bs_order *o)
{
    int8_t t[SMP_MAX_DIMS];
    int nt = staircase_keys(c->grid->ndims, k, j, mn, mx, t);
    reach_order(c, a, n, o, t, nt, mn, mx);
    if (descending && nt > 0) {
        reverse_layers(c, a, n, k, c->tmp);
        memcpy(a, c->tmp, sizeof(int32_t) * (size_t)n);
        o->desc[0] = true;
    }
}

/* The band of a cut between a[0, split) and a[split, n): only the layers
 * within reach of the split's layer can hold both ends of a cut edge
 * (without a wrap along k): the first side's cells from *from, the
 * second's up to *to. */
static void cut_band(const struct bs_ctx *c, const int32_t *a, int64_t n, int64_t split, int k,
                     bool descending, int64_t *from, int64_t *to)
{
    *from = 0;
    *to = n;
    if (c->grid->periods[k] || split >= n)
        return;
    int64_t layer = coord_of(c, a[split], k), f = split, t = split;
    while (f > 0) {
        int64_t x = coord_of(c, a[f - 1], k);
        if ((descending ? x - layer : layer - x) > c->reach[k])
            break;
        f--;
    }
    int64_t last = coord_of(c, a[split - 1], k);
    while (t < n) {
        int64_t x = coord_of(c, a[t], k);
        if ((descending ? last - x : x - last) > c->reach[k])
            break;
        t++;
    }
    *from = f;
    *to = t;
}

/* Weight of the stencil edges between a[0, split) and a[split, n). */
static double cut_weight(struct bs_ctx *c, const int32_t *a, int64_t n, int64_t split, int k,
                         bool descending)
{
    int64_t from, to;
    cut_band(c, a, n, split, k, descending, &from, &to);
    uint32_t s2 = ++c->stamp;
    for (int64_t i = split; i < to; i++)
        c->side[a[i]] = s2;
    double w = 0;
    const smp_nbr *nb = &c->nb;
    for (int64_t i = from; i < split; i++) {
        int64_t v = a[i];
        if (nb->interior[v >> 6] >> (v & 63) & 1) { /* smp_nbr_list's list, unwritten */
            for (int e = 0; e < nb->nk; e++)
                if (c->side[v + nb->walk.delta[e]] == s2)
                    w += nb->w[e];
            continue;
        }
        int m = smp_nbr_list(nb, v, c->nt, c->nw);
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
    struct bs_order ord; /* the keys perm[lo, hi) is sorted by */
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

/* A staircase (k, j) the search tries: k spanned, j another spanned axis
 * (j == k: the layer ordered by the other axes in index order, which is
 * what the first other axis j gives: only in 1-D). */
static bool staircase_tried(int d, int k, int j, const int64_t *mn, const int64_t *mx)
{
    return mx[k] > mn[k] && !((j == k && d > 1) || (j != k && mx[j] == mn[j]));
}

/* The cut weight of the node splits around mid into w[] (arr, the region
 * in staircase (k, ., desc) order). */
static void weigh_splits(struct bs_ctx *c, const int32_t *arr, int64_t n, int a, int b, int mid,
                         int k, bool desc, double *w)
{
    for (int m = mid - SPLIT_SPREAD; m <= mid + SPLIT_SPREAD; m++)
        if (m > a && m < b)
            w[m - mid + SPLIT_SPREAD] = cut_weight(c, arr, n, c->prefix[m] - c->prefix[a], k, desc);
}

/* Every staircase's cut weights into w, each staircase reached from the
 * last one by the fewest sorts (reg ends in the last one's order, *o). */
static void weigh_all(struct bs_ctx *c, int32_t *reg, int64_t n, int a, int b, int mid,
                      const int64_t *mn, const int64_t *mx, struct bs_order *o,
                      double (*w)[SMP_MAX_DIMS][2][NSPLITS])
{
    int d = c->grid->ndims;
    bool done[SMP_MAX_DIMS][SMP_MAX_DIMS] = {{false}};
    for (;;) {
        int bk = -1, bj = -1, bm = SMP_MAX_DIMS + 1, bn = 0;
        int8_t t[SMP_MAX_DIMS], bt[SMP_MAX_DIMS];
        for (int k = 0; k < d; k++)
            for (int j = 0; j < d; j++) {
                if (done[k][j] || !staircase_tried(d, k, j, mn, mx))
                    continue;
                int nt = staircase_keys(d, k, j, mn, mx, t), m = sorts_needed(o, t, nt);
                if (m < bm) {
                    bk = k, bj = j, bm = m, bn = nt;
                    memcpy(bt, t, sizeof(t));
                }
            }
        if (bk < 0)
            return;
        done[bk][bj] = true;
        reach_order(c, reg, n, o, bt, bn, mn, mx);
        weigh_splits(c, reg, n, a, b, mid, bk, false, w[bk][bj][0]);
        reverse_layers(c, reg, n, bk, c->tmp);
        weigh_splits(c, c->tmp, n, a, b, mid, bk, true, w[bk][bj][1]);
    }
}

/* Every staircase (k, j) in both directions and the node splits around
 * mid: the one that cuts the least weight, as cheap and nearer the middle
 * on a tie, taken in the order (k, j, direction, split). */
static void search_cut(struct bs_ctx *c, int32_t *reg, int64_t n, int a, int b, int mid,
                       const int64_t *mn, const int64_t *mx, struct bs_order *o,
                       struct bs_cut *cut)
{
    int d = c->grid->ndims;
    double w[SMP_MAX_DIMS][SMP_MAX_DIMS][2][NSPLITS];
    weigh_all(c, reg, n, a, b, mid, mn, mx, o, w);
    for (int k = 0; k < d; k++)
        for (int j = 0; j < d; j++) {
            if (!staircase_tried(d, k, j, mn, mx))
                continue;
            for (int desc = 0; desc < 2; desc++)
                for (int m = mid - SPLIT_SPREAD; m <= mid + SPLIT_SPREAD; m++) {
                    if (m <= a || m >= b)
                        continue;
                    double x = w[k][j][desc][m - mid + SPLIT_SPREAD];
                    /* cheaper cut, or as cheap and nearer the middle */
                    if (cut->best < 0 || x < cut->best ||
                        (x == cut->best && abs(m - mid) < abs(cut->m - mid)))
                        *cut = (struct bs_cut){x, k, j, m, desc};
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
    struct bs_order o = job.ord;
    order_drop_flat(&o, mn, mx);
    struct bs_cut cut = {.best = -1, .k = 0, .j = 0, .m = mid, .desc = false};
    if (c->rcb)
        rcb_cut(c, job.first, mn, mx, &cut);
    else
        search_cut(c, reg, n, a, b, mid, mn, mx, &o, &cut);
    if (cut.best >= 0)
        staircase(c, reg, n, cut.k, cut.j, cut.desc, mn, mx, &o);
    /* else: a single cell per node is left; any order will do */
    int64_t split = c->prefix[cut.m] - c->prefix[a];
    /* each half of an ordered region is in its order */
    jobs[(*njobs)++] = (struct bs_job){lo + split, hi, cut.m, b, false, o};
    jobs[(*njobs)++] = (struct bs_job){lo, lo + split, a, cut.m, false, o};
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
    int32_t x[SMP_MAX_DIMS] = {0}; /* rank r's coordinates, counted up (no divisions) */
    for (int64_t r = 0; r < p; r++) {
        c->perm[r] = (int32_t)r;
        for (int i = 0; i < d; i++)
            c->coord[(size_t)i * (size_t)p + (size_t)r] = x[i];
        for (int i = d - 1; i >= 0 && ++x[i] == grid->dims[i]; i--)
            x[i] = 0;
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
    free(c->parts);
    free(c->seen);
}

/* ---- translated copies -------------------------------------------------
 * Groups first hands bisection hundreds of parts (1M ranks: 489 leaves)
 * most of which are one box shape over the same nodes, translated.  The
 * search sees a part only through its cells' coordinates relative to its
 * span (the sorts count from the span's corner, the staircases and their
 * band are relative, the first order is rank order, which a translation
 * keeps) and the cut weights between its own cells.  An edge between two
 * cells of a part moved by t is an edge of the copy when t is zero along
 * every periodic axis (no wrap changes); without weights every entry
 * weighs 1 or 2, so the sums are exact integers whatever the order of
 * their terms (a cell's copy may take the interior path where it took
 * the list).  So an unweighted part whose cells and capacities are
 * another's moved along non-periodic axes gets the very split the search
 * would find: the other's, moved.  Weighted stencils search every part. */

#define FNV_PRIME 1099511628211u

/* Part q's description (its ranks perm[lo, hi), still in rank order, on
 * nodes [a, b)). */
static void part_describe(struct bs_ctx *c, int q, int64_t lo, int64_t hi, int a, int b)
{
    struct bs_part *pt = &c->parts[q];
    const int32_t *reg = c->perm + lo;
    *pt = (struct bs_part){.lo = lo, .n = hi - lo, .a = a, .nn = b - a};
    region_span(c, reg, pt->n, pt->mn, pt->mx);
    uint64_t h = 14695981039346656037u;
    int64_t corner = 0;
    for (int i = 0; i < c->grid->ndims; i++) {
        corner += pt->mn[i] * c->stride[i];
        /* copies are only taken along non-periodic axes: keep the others
         * apart in the table */
        h = (h ^ (uint64_t)(c->grid->periods[i] ? pt->mn[i] : -1)) * FNV_PRIME;
    }
    for (int i = a; i < b; i++)
        h = (h ^ (uint64_t)c->cap[i]) * FNV_PRIME;
    for (int64_t i = 0; i < pt->n; i++)
        h = (h ^ (uint64_t)(reg[i] - corner)) * FNV_PRIME;
    pt->hash = h;
}

/* If part q is part e moved (the same capacities in order, the same cells
 * moved by a translation zero along the periodic axes), gives q's cells
 * e's nodes moved to q's: true.  e is already split. */
static bool copy_from(struct bs_ctx *c, int q, int e)
{
    const struct bs_part *P = &c->parts[q], *E = &c->parts[e];
    if (P->hash != E->hash || P->n != E->n || P->nn != E->nn ||
        memcmp(c->cap + P->a, c->cap + E->a, sizeof(int32_t) * (size_t)P->nn) != 0)
        return false;
    int64_t delta = 0;
    for (int i = 0; i < c->grid->ndims; i++) {
        int64_t t = P->mn[i] - E->mn[i];
        if (P->mx[i] - P->mn[i] != E->mx[i] - E->mn[i] || (t != 0 && c->grid->periods[i]))
            return false;
        delta += t * c->stride[i];
    }
    /* every cell of q moved back lies in the grid (q's span is e's moved)
     * and must be e's: as many cells, so exactly e's cells */
    const int32_t *reg = c->perm + P->lo;
    for (int64_t i = 0; i < P->n; i++)
        if (c->part_of_rank[reg[i] - delta] != e)
            return false;
    for (int64_t i = 0; i < P->n; i++)
        c->node_of_rank[reg[i]] = c->node_of_rank[reg[i] - delta] - E->a + P->a;
    return true;
}

/* Part q, about to be bisected: split as an earlier copy of it if there is
 * one (true), else remembered for later copies. */
static bool split_as_copy(struct bs_ctx *c, int q)
{
    size_t i = (size_t)c->parts[q].hash & c->seen_mask;
    for (; c->seen[i] >= 0; i = (i + 1) & c->seen_mask)
        if (copy_from(c, q, c->seen[i]))
            return true;
    c->seen[i] = q;
    return false;
}

/* The parts' descriptions and the table, when copies apply (parts, no
 * weights): false when out of memory. */
static bool parts_init(struct bs_ctx *c, const smp_stencil *st, int nparts)
{
    if (!c->part_of_rank || smp_stencil_weighted(st))
        return true;
    size_t size = 2;
    while (size < 2 * (size_t)nparts)
        size *= 2;
    c->parts = malloc(sizeof(struct bs_part) * (size_t)(nparts ? nparts : 1));
    c->seen = malloc(sizeof(int32_t) * size);
    if (!c->parts || !c->seen)
        return false;
    memset(c->seen, -1, sizeof(int32_t) * size);
    c->seen_mask = size - 1;
    return true;
}

/* The first jobs: the whole grid over every node, or each part over its
 * run of groups, its ranks gathered in part order (a stable counting sort:
 * part q's ranks then fill perm[prefix[first[q]], prefix[first[q + 1]])). */
static smp_status bs_seed_jobs(struct bs_ctx *c, int nnodes, const int32_t *part_of_rank,
                               const int32_t *first, int nparts, struct bs_job *jobs, int *njobs,
                               smp_error *err)
{
    /* perm lists each part's ranks in increasing order: keyed by the axes
     * in index order (smp_strides is row-major) */
    struct bs_order ranks = {.n = c->grid->ndims};
    for (int i = 0; i < ranks.n; i++)
        ranks.ax[i] = (int8_t)i;
    if (!part_of_rank) {
        jobs[(*njobs)++] = (struct bs_job){0, c->p, 0, nnodes, true, ranks};
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
        if (first[q + 1] > first[q]) {
            jobs[(*njobs)++] = (struct bs_job){c->prefix[first[q]], c->prefix[first[q + 1]], first[q],
                                               first[q + 1], true, ranks};
            if (c->parts && c->prefix[first[q + 1]] > c->prefix[first[q]])
                part_describe(c, q, c->prefix[first[q]], c->prefix[first[q + 1]], first[q],
                              first[q + 1]);
        }
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
                       .rcb_first = rcb - 2, .part_of_rank = part_of_rank};
    /* a stack of jobs rather than recursion: with very uneven nodes the
     * splits can nest as deep as there are nodes; every split adds one
     * job net, so nnodes + nparts + 1 entries are enough */
    struct bs_job *jobs = NULL;
    int njobs = 0;
    smp_status s = bs_ctx_init(&c, grid, st, nnodes, err);
    if (!s && (!(jobs = malloc(sizeof(struct bs_job) * ((size_t)nnodes + (size_t)nparts + 1))) ||
               !parts_init(&c, st, nparts)))
        s = smp_error_set(err, SMP_ERR_SYSTEM, "bisect: out of memory for %d nodes", nnodes);
    if (!s)
        s = bs_seed_jobs(&c, nnodes, part_of_rank, first, nparts, jobs, &njobs, err);
    while (!s && njobs > 0) {
        struct bs_job job = jobs[--njobs];
        /* depth first: every part popped before this one is split */
        bool copied = c.parts && job.first && job.hi > job.lo &&
                      split_as_copy(&c, c.part_of_rank[c.perm[job.lo]]);
        if (!copied)
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
