/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Nodes first: a placement's nodes keep their rank sets, but which
 * physical node gets which set is chosen so that few edges cross the
 * groups of each level (leaf switches, blocks).  Only sets of equal size
 * trade places (every node's share is fixed), so the node figures do not
 * move at all.
 *
 * It works on the quotient graph (model/quotient.c), top down: under each group
 * of level l + 1 (the whole step at the top) the node sets that group
 * holds are dealt to its groups of level l, two ways:
 *   - in order: by node index, each to the first group that still needs a
 *     node of its share.  Constructions number nodes along the grid
 *     (blocked, strips, the k-d tree's leaves), so this keeps neighbours
 *     together and is exactly the input when nothing moved above;
 *   - greedily: a group grows from the set most attached to those already
 *     dealt, taking the set most connected to it that it still has room
 *     for, until full;
 *   - geometrically: recursive bisection of the sets' centres in the grid
 *     against halves of the groups (deal_rcb).
 * The best of the three by the objective (per parent) stays, then swaps
 * of two sets of equal share between groups of one parent lower the
 * level's (J_max, J_sum) (or (J_sum, J_max) under "sum") while a work
 * budget lasts; only a swap that lowers them is kept.  Finally each
 * group of level 0 hands its sets to its own nodes of the same share.
 * If the levelled figures ended worse than the input's (they should not),
 * the input is kept. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "improve/improve.h"
#include "model/quotient.h"

#define RELABEL_PASSES 16          /* swap passes per level at most */
#define RELABEL_WORK_PER_ENTRY 64 /* swap budget per quotient-graph entry */
#define RELABEL_WORK_MIN 1000000
#define RELABEL_GREEDY_MAX ((int64_t)100000000) /* seed scans: sets x groups */

struct keyed {
    double key;
    int32_t set;
};

struct heap_ent {
    double key;
    int64_t seq; /* pushed when: among equals the oldest first, so a group
                  * grows around its seed (breadth first), not along the
                  * node numbering */
    int32_t u;
};

struct rl {
    const smp_quotient *q;
    int n;
    const int32_t *cap;
    int32_t *cls; /* share class of each node, -1 unused */
    int ncls;
    smp_objective obj;
    double eps;
    int32_t *bin;     /* set -> group of the level being dealt */
    int32_t *above;   /* set -> group of the level above (0 at the top) */
    int32_t *binpar;  /* group -> its group of the level above */
    double *out;      /* group -> outgoing cut */
    int nbins;
    double jsum;
    double top[3];
    int32_t topg[3];
    int64_t work, budget;
    double *centre;   /* set -> the mean coordinates of its ranks (ndims each) */
    struct keyed *keyed; /* scratch of the geometric dealing */
    int ndims;
    /* greedy scratch */
    double *conn, *attach;
    int32_t *dealt;
    struct heap_ent *heap;
    size_t hn, hcap;
    int64_t seq;
};

static bool lower(const struct rl *c, double m1, double s1, double m2, double s2)
{
    double a1 = m1, b1 = s1, a2 = m2, b2 = s2;
    if (c->obj != SMP_OBJ_MAX) {
        a1 = s1, b1 = m1, a2 = s2, b2 = m2;
    }
    if (a1 < a2 - c->eps)
        return true;
    if (a1 > a2 + c->eps)
        return false;
    return b1 < b2 - c->eps;
}

/* ---- the heap of the greedy growth (max by key, then lowest set) ------ */
static bool ent_before(const struct heap_ent *a, const struct heap_ent *b)
{
    return a->key > b->key || (a->key == b->key && a->seq < b->seq);
}

static bool heap_push(struct rl *c, double key, int32_t u)
{
    if (c->hn == c->hcap) {
        size_t ncap = c->hcap ? 2 * c->hcap : 256;
        struct heap_ent *e = realloc(c->heap, sizeof(*e) * ncap);
        if (!e)
            return false;
        c->heap = e;
        c->hcap = ncap;
    }
    size_t i = c->hn++;
    c->heap[i] = (struct heap_ent){key, c->seq++, u};
    while (i > 0 && ent_before(&c->heap[i], &c->heap[(i - 1) / 2])) {
        struct heap_ent t = c->heap[i];
        c->heap[i] = c->heap[(i - 1) / 2];
        c->heap[(i - 1) / 2] = t;
        i = (i - 1) / 2;
    }
    return true;
}

static struct heap_ent heap_pop(struct rl *c)
{
    struct heap_ent top = c->heap[0];
    c->heap[0] = c->heap[--c->hn];
    size_t i = 0;
    for (;;) {
        size_t l = 2 * i + 1, r = l + 1, m = i;
        if (l < c->hn && ent_before(&c->heap[l], &c->heap[m]))
            m = l;
        if (r < c->hn && ent_before(&c->heap[r], &c->heap[m]))
            m = r;
        if (m == i)
            break;
        struct heap_ent t = c->heap[i];
        c->heap[i] = c->heap[m];
        c->heap[m] = t;
        i = m;
    }
    return top;
}

/* ---- dealing the sets under one parent ------------------------------- */
/* The parent's groups' cut (J_max, J_sum) when set u is in group g[u]:
 * edges to sets under another parent are cut whatever happens there. */
static void parent_cut(const struct rl *c, const int32_t *sets, int ns, int32_t parent,
                       const int32_t *g, const int32_t *groups, int ng, double *jmax,
                       double *jsum)
{
    const smp_quotient *q = c->q;
    for (int i = 0; i < ng; i++)
        c->out[groups[i]] = 0;
    for (int i = 0; i < ns; i++) {
        int32_t u = sets[i];
        for (int64_t k = q->start[u]; k < q->start[u + 1]; k++) {
            int32_t v = q->nb[k];
            if (c->above[v] != parent || g[v] != g[u])
                c->out[g[u]] += q->wout[k];
        }
    }
    *jmax = *jsum = 0;
    for (int i = 0; i < ng; i++) {
        *jsum += c->out[groups[i]];
        if (c->out[groups[i]] > *jmax)
            *jmax = c->out[groups[i]];
    }
}

/* In order: each set to the first of the parent's groups that still needs
 * one of its share. */
static void deal_in_order(struct rl *c, const int32_t *sets, int ns, const int32_t *groups,
                          int ng, int32_t *need, int32_t *cursor, int32_t *g)
{
    size_t K = (size_t)c->ncls;
    memset(cursor, 0, sizeof(int32_t) * K); /* per share: the first group with room */
    for (int i = 0; i < ns; i++) {
        int32_t u = sets[i], k = c->cls[u];
        while (cursor[k] < ng && need[(size_t)groups[cursor[k]] * K + (size_t)k] == 0)
            cursor[k]++;
        if (cursor[k] == ng)
            continue; /* cannot happen: the shares add up */
        need[(size_t)groups[cursor[k]] * K + (size_t)k]--;
        g[u] = groups[cursor[k]];
    }
}

/* Greedy growth of each group in turn; false on ENOMEM. */
static bool deal_greedy(struct rl *c, const int32_t *sets, int ns, int32_t parent,
                        const int32_t *groups, int ng, int32_t *need, int32_t *g)
{
    const smp_quotient *q = c->q;
    size_t K = (size_t)c->ncls;
    for (int i = 0; i < ns; i++) {
        c->dealt[sets[i]] = -1;
        c->conn[sets[i]] = 0;
        c->attach[sets[i]] = 0;
    }
    for (int j = 0; j < ng; j++) {
        int32_t b = groups[j];
        int64_t left = 0;
        for (size_t k = 0; k < K; k++)
            left += need[(size_t)b * K + k];
        c->hn = 0;
        while (left > 0) {
            int32_t u = -1;
            while (c->hn > 0 && u < 0) {
                struct heap_ent e = heap_pop(c);
                if (c->dealt[e.u] < 0 && e.key == c->conn[e.u] &&
                    need[(size_t)b * K + (size_t)c->cls[e.u]] > 0)
                    u = e.u;
            }
            if (u < 0) { /* a seed: the set most attached to those dealt */
                double best = -1;
                for (int i = 0; i < ns; i++) {
                    int32_t x = sets[i];
                    if (c->dealt[x] < 0 && need[(size_t)b * K + (size_t)c->cls[x]] > 0 &&
                        c->attach[x] > best) {
                        best = c->attach[x];
                        u = x;
                    }
                }
            }
            if (u < 0)
                break; /* cannot happen: the shares add up */
            c->dealt[u] = b;
            g[u] = b;
            need[(size_t)b * K + (size_t)c->cls[u]]--;
            left--;
            for (int64_t k = q->start[u]; k < q->start[u + 1]; k++) {
                int32_t v = q->nb[k];
                if (c->above[v] != parent || c->dealt[v] >= 0)
                    continue;
                double w = q->wout[k] + q->win[k];
                c->attach[v] += w;
                c->conn[v] += w;
                if (!heap_push(c, c->conn[v], v))
                    return false;
            }
        }
        for (int i = 0; i < ns; i++) /* the next group grows from nothing */
            c->conn[sets[i]] = 0;
    }
    return true;
}

/* Geometrically: the parent's groups in two halves of about equal node
 * counts, the sets sorted along the axis where their centres spread most,
 * the first ones (as many of each share as the first half needs) to the
 * first half; recursively.  Sets of nodes laid out along the grid, as the
 * constructions lay them, give groups that are compact boxes of nodes. */
static int cmp_keyed(const void *x, const void *y)
{
    const struct keyed *a = x, *b = y;
    return a->key < b->key ? -1 : a->key > b->key ? 1 : (a->set > b->set) - (a->set < b->set);
}

static void deal_rcb(struct rl *c, int32_t *sets, int ns, const int32_t *groups, int ng,
                     const int32_t *need, int32_t *half_need, struct keyed *tmp, int32_t *g)
{
    size_t K = (size_t)c->ncls;
    if (ng == 1) {
        for (int i = 0; i < ns; i++)
            g[sets[i]] = groups[0];
        return;
    }
    if (ns == 0)
        return;
    /* the halves of the groups by node count */
    int64_t total = 0, acc = 0;
    for (int j = 0; j < ng; j++)
        for (size_t k = 0; k < K; k++)
            total += need[(size_t)groups[j] * K + k];
    int h = 1;
    for (int j = 0; j < ng - 1; j++) {
        for (size_t k = 0; k < K; k++)
            acc += need[(size_t)groups[j] * K + k];
        h = j + 1;
        if (2 * acc >= total)
            break;
    }
    /* the axis of widest spread */
    int axis = 0;
    double best = -1;
    for (int d = 0; d < c->ndims; d++) {
        double lo = 1e300, hi = -1e300;
        for (int i = 0; i < ns; i++) {
            double x = c->centre[(size_t)sets[i] * c->ndims + d];
            lo = x < lo ? x : lo;
            hi = x > hi ? x : hi;
        }
        if (hi - lo > best) {
            best = hi - lo;
            axis = d;
        }
    }
    for (int i = 0; i < ns; i++)
        tmp[i] = (struct keyed){c->centre[(size_t)sets[i] * c->ndims + axis], sets[i]};
    qsort(tmp, (size_t)ns, sizeof(*tmp), cmp_keyed);
    for (int i = 0; i < ns; i++)
        sets[i] = tmp[i].set;
    memset(half_need, 0, sizeof(int32_t) * K);
    for (int j = 0; j < h; j++)
        for (size_t k = 0; k < K; k++)
            half_need[k] += need[(size_t)groups[j] * K + k];
    int n1 = 0, n2 = 0;
    for (int i = 0; i < ns; i++) { /* first half first, keeping the order */
        int32_t k = c->cls[sets[i]];
        if (half_need[k] > 0) {
            half_need[k]--;
            sets[n1++] = sets[i];
        } else {
            tmp[n2++].set = sets[i];
        }
    }
    for (int i = 0; i < n2; i++)
        sets[n1 + i] = tmp[i].set;
    deal_rcb(c, sets, n1, groups, h, need, half_need, tmp, g);
    deal_rcb(c, sets + n1, n2, groups + h, ng - h, need, half_need, tmp, g);
}

/* ---- swaps ---------------------------------------------------------- */
/* Moves set z from group f to group t, keeping out[] and jsum. */
static void move_set(struct rl *c, int32_t z, int32_t f, int32_t t)
{
    const smp_quotient *q = c->q;
    for (int64_t k = q->start[z]; k < q->start[z + 1]; k++) {
        int32_t y = c->bin[q->nb[k]];
        double wo = q->wout[k], wi = q->win[k];
        if (y != f)
            c->out[f] -= wo, c->jsum -= wo;
        else
            c->out[f] += wi, c->jsum += wi;
        if (y != t)
            c->out[t] += wo, c->jsum += wo;
        else
            c->out[t] -= wi, c->jsum -= wi;
    }
    c->work += q->start[z + 1] - q->start[z];
    c->bin[z] = t;
}

static void top_scan(struct rl *c)
{
    for (int i = 0; i < 3; i++)
        c->top[i] = 0, c->topg[i] = -1;
    for (int32_t g = 0; g < c->nbins; g++) {
        double v = c->out[g];
        for (int i = 0; i < 3; i++)
            if (c->topg[i] < 0 || v > c->top[i]) {
                for (int j = 2; j > i; j--)
                    c->top[j] = c->top[j - 1], c->topg[j] = c->topg[j - 1];
                c->top[i] = v;
                c->topg[i] = g;
                break;
            }
    }
}

static double max_other(const struct rl *c, int32_t a, int32_t b)
{
    for (int i = 0; i < 3; i++)
        if (c->topg[i] >= 0 && c->topg[i] != a && c->topg[i] != b)
            return c->top[i];
    return 0;
}

/* The level's (J_max, J_sum) if u and v traded groups. */
static void swap_eval(struct rl *c, int32_t u, int32_t v, double *jmax, double *jsum)
{
    int32_t a = c->bin[u], b = c->bin[v];
    double oa = c->out[a], ob = c->out[b], js = c->jsum;
    move_set(c, u, a, b);
    move_set(c, v, b, a);
    *jsum = c->jsum;
    double m = max_other(c, a, b);
    *jmax = c->out[a] > m ? c->out[a] : m;
    if (c->out[b] > *jmax)
        *jmax = c->out[b];
    c->bin[u] = a; /* undo exactly: no rounding drift */
    c->bin[v] = b;
    c->out[a] = oa;
    c->out[b] = ob;
    c->jsum = js;
}

/* The best swap of u with a set of equal share in a group of the same
 * parent that u touches (the neighbours there and their neighbours);
 * applies it if it lowers the level's figures. */
static bool try_swaps(struct rl *c, int32_t u)
{
    const smp_quotient *q = c->q;
    int32_t a = c->bin[u], best_v = -1;
    double bmax = c->top[0], bsum = c->jsum;
    for (int64_t k = q->start[u]; k < q->start[u + 1] && c->work < c->budget; k++) {
        int32_t x = q->nb[k], b = c->bin[x];
        if (b == a || c->binpar[b] != c->binpar[a])
            continue;
        for (int64_t j = q->start[x] - 1; j < q->start[x + 1]; j++) {
            int32_t v = j < q->start[x] ? x : q->nb[j];
            if (v == u || c->bin[v] != b || c->cls[v] != c->cls[u])
                continue;
            double m, s;
            swap_eval(c, u, v, &m, &s);
            if (lower(c, m, s, bmax, bsum)) {
                bmax = m;
                bsum = s;
                best_v = v;
            }
        }
    }
    if (best_v < 0)
        return false;
    int32_t b = c->bin[best_v];
    move_set(c, u, a, b);
    move_set(c, best_v, b, a);
    top_scan(c);
    return true;
}

static void swap_level(struct rl *c)
{
    const smp_quotient *q = c->q;
    memset(c->out, 0, sizeof(double) * (size_t)c->nbins);
    c->jsum = 0;
    for (int32_t u = 0; u < c->n; u++)
        for (int64_t k = q->start[u]; k < q->start[u + 1]; k++)
            if (c->bin[q->nb[k]] != c->bin[u]) {
                c->out[c->bin[u]] += q->wout[k];
                c->jsum += q->wout[k];
            }
    top_scan(c);
    for (int pass = 0; pass < RELABEL_PASSES && c->work < c->budget; pass++) {
        bool any = false;
        for (int32_t u = 0; u < c->n && c->work < c->budget; u++)
            if (c->cls[u] >= 0 && try_swaps(c, u))
                any = true;
        if (!any)
            break;
    }
}

/* ---- one level, top down -------------------------------------------- */
static int cmp_i32(const void *x, const void *y)
{
    int32_t a = *(const int32_t *)x, b = *(const int32_t *)y;
    return (a > b) - (a < b);
}

/* The scratch of one level's dealing: per (group, share) the nodes each
 * group needs, the sets and groups listed by parent, two trial dealings. */
struct level_bufs {
    int32_t *need, *need2; /* need2: need, as one dealing consumes it */
    int32_t *pstart, *gstart; /* per parent (shifted by one): first set, first group */
    int32_t *sets, *groups;
    int32_t *g1, *g2; /* set -> group: in order, then greedy or geometric */
    int32_t *cursor;
};

/* Frees a level's scratch (what level_bufs_alloc got of it). */
static void level_bufs_free(struct level_bufs *b)
{
    free(b->need);
    free(b->need2);
    free(b->pstart);
    free(b->gstart);
    free(b->sets);
    free(b->groups);
    free(b->g1);
    free(b->g2);
    free(b->cursor);
}

/* Allocates the scratch for n sets, nb groups, K shares and npar parents;
 * false (with what it got allocated, for level_bufs_free) on ENOMEM. */
static bool level_bufs_alloc(struct level_bufs *b, int n, size_t nb, size_t K, int npar)
{
    b->need = calloc(nb * K, sizeof(int32_t));
    b->need2 = malloc(sizeof(int32_t) * nb * K);
    b->pstart = calloc((size_t)npar + 2, sizeof(int32_t));
    b->gstart = calloc((size_t)npar + 2, sizeof(int32_t));
    b->sets = malloc(sizeof(int32_t) * (size_t)n);
    b->groups = malloc(sizeof(int32_t) * nb);
    b->g1 = malloc(sizeof(int32_t) * (size_t)n);
    b->g2 = malloc(sizeof(int32_t) * (size_t)n);
    b->cursor = malloc(sizeof(int32_t) * K);
    return b->cursor && b->need && b->need2 && b->pstart && b->gstart && b->sets && b->groups &&
           b->g1 && b->g2;
}

/* Each group's parent and its need per share, then the sets and groups
 * listed by parent, in index order. */
static void list_by_parent(struct rl *c, const smp_levels *lv, int l, int top, int npar,
                           struct level_bufs *b)
{
    int n = c->n;
    size_t K = (size_t)c->ncls, nb = (size_t)c->nbins;
    for (size_t g = 0; g < nb; g++) /* a group without nodes: any parent, it needs none */
        c->binpar[g] = 0;
    for (int v = 0; v < n; v++) {
        int32_t g = lv->group_of_node[l][v];
        c->binpar[g] = top ? 0 : lv->group_of_node[l + 1][v];
        if (c->cls[v] >= 0)
            b->need[(size_t)g * K + (size_t)c->cls[v]]++;
    }
    for (int v = 0; v < n; v++)
        if (c->cls[v] >= 0)
            b->pstart[c->above[v] + 2]++;
    for (size_t g = 0; g < nb; g++)
        b->gstart[c->binpar[g] + 2]++;
    for (int p = 0; p < npar; p++) {
        b->pstart[p + 2] += b->pstart[p + 1];
        b->gstart[p + 2] += b->gstart[p + 1];
    }
    for (int v = 0; v < n; v++)
        if (c->cls[v] >= 0)
            b->sets[b->pstart[c->above[v] + 1]++] = v;
    for (int32_t g = 0; g < (int32_t)nb; g++)
        b->groups[b->gstart[c->binpar[g] + 1]++] = g;
}

/* Deals parent p's sets to its groups in order and greedily, keeps the
 * better in c->bin, then the geometric dealing where it is better still;
 * false on ENOMEM. */
static bool deal_parent(struct rl *c, int p, struct level_bufs *b)
{
    size_t bytes = sizeof(int32_t) * (size_t)c->nbins * (size_t)c->ncls;
    const int32_t *ps = b->sets + b->pstart[p], *pg = b->groups + b->gstart[p];
    int ns = b->pstart[p + 1] - b->pstart[p], ng = b->gstart[p + 1] - b->gstart[p];
    memcpy(b->need2, b->need, bytes);
    deal_in_order(c, ps, ns, pg, ng, b->need2, b->cursor, b->g1);
    double m1, s1, m2, s2;
    parent_cut(c, ps, ns, p, b->g1, pg, ng, &m1, &s1);
    bool greedy = ng > 1 && (int64_t)ns * ng <= RELABEL_GREEDY_MAX;
    if (greedy) {
        memcpy(b->need2, b->need, bytes);
        if (!deal_greedy(c, ps, ns, p, pg, ng, b->need2, b->g2))
            return false;
        parent_cut(c, ps, ns, p, b->g2, pg, ng, &m2, &s2);
    }
    const int32_t *pick = greedy && lower(c, m2, s2, m1, s1) ? b->g2 : b->g1;
    for (int i = 0; i < ns; i++)
        c->bin[ps[i]] = pick[ps[i]];
    if (c->centre && ng > 1) { /* and geometrically */
        double m3, s3;
        int32_t *order = c->dealt; /* scratch: the greedy dealing is done */
        memcpy(order, ps, sizeof(int32_t) * (size_t)ns);
        deal_rcb(c, order, ns, pg, ng, b->need, b->need2, c->keyed, b->g2);
        parent_cut(c, ps, ns, p, b->g2, pg, ng, &m3, &s3);
        double mb, sb;
        parent_cut(c, ps, ns, p, c->bin, pg, ng, &mb, &sb);
        if (lower(c, m3, s3, mb, sb))
            for (int i = 0; i < ns; i++)
                c->bin[ps[i]] = b->g2[ps[i]];
    }
    return true;
}

/* Deals the sets to the groups of level l under each group of level
 * l + 1 (c->above), then swaps; leaves the result in c->bin. */
static smp_status deal_level(struct rl *c, const smp_levels *lv, int l, smp_error *err)
{
    int n = c->n, top = l == lv->nlevels - 1;
    int npar = top ? 1 : lv->ngroups[l + 1];
    c->nbins = lv->ngroups[l];
    struct level_bufs b;
    smp_status s = SMP_OK;
    if (!level_bufs_alloc(&b, n, (size_t)c->nbins, (size_t)c->ncls, npar)) {
        s = smp_error_set(err, SMP_ERR_SYSTEM, "levels: out of memory");
        goto done;
    }
    list_by_parent(c, lv, l, top, npar, &b);
    for (int v = 0; v < n; v++)
        c->bin[v] = b.g1[v] = b.g2[v] = -1;
    for (int p = 0; p < npar && !s; p++) {
        if (b.pstart[p + 1] == b.pstart[p])
            continue;
        if (!deal_parent(c, p, &b)) {
            s = smp_error_set(err, SMP_ERR_SYSTEM, "levels: out of memory");
            break;
        }
    }
    if (!s)
        swap_level(c);
done:
    level_bufs_free(&b);
    return s;
}

/* The distinct positive shares of cap, sorted, into caps; their count. */
static int distinct_shares(const int32_t *cap, int nnodes, int32_t *caps)
{
    int m = 0;
    for (int v = 0; v < nnodes; v++)
        if (cap[v] > 0)
            caps[m++] = cap[v];
    qsort(caps, (size_t)m, sizeof(int32_t), cmp_i32);
    int k = 0;
    for (int i = 0; i < m; i++)
        if (i == 0 || caps[i] != caps[i - 1])
            caps[k++] = caps[i];
    return k;
}

/* Each set's share class (its share's place among the k in caps, -1
 * unused), all under the one group above the top level. */
static void classify(struct rl *c, const int32_t *cap, const int32_t *caps, int k)
{
    for (int v = 0; v < c->n; v++) {
        c->cls[v] = -1;
        if (cap[v] > 0) {
            int32_t *f = bsearch(&cap[v], caps, (size_t)k, sizeof(int32_t), cmp_i32);
            c->cls[v] = (int32_t)(f - caps);
        }
        c->above[v] = 0;
    }
}

/* Each set's centre, in the grid's row-major coordinates. */
static void set_centres(struct rl *c, const smp_grid *grid, const int32_t *node_of_rank,
                        const int32_t *cap)
{
    int64_t x[SMP_MAX_DIMS] = {0};
    for (int64_t r = 0; r < grid->size; r++) {
        double *ce = c->centre + (size_t)node_of_rank[r] * (size_t)c->ndims;
        for (int d = 0; d < c->ndims; d++)
            ce[d] += (double)x[d];
        for (int d = c->ndims - 1; d >= 0 && ++x[d] == grid->dims[d]; d--)
            x[d] = 0;
    }
    for (int v = 0; v < c->n; v++)
        for (int d = 0; d < c->ndims && cap[v] > 0; d++)
            c->centre[(size_t)v * c->ndims + d] /= cap[v];
}

/* Each group of level 0 hands its sets to its nodes of equal share, in
 * index order: phys[set] = node. */
static smp_status hand_to_nodes(struct rl *c, const smp_levels *lv, int k, int32_t *phys,
                                smp_error *err)
{
    size_t nk = (size_t)lv->ngroups[0] * (size_t)k;
    const int32_t *grp = lv->group_of_node[0];
    int32_t *cursor = malloc(sizeof(int32_t) * nk);
    if (!cursor)
        return smp_error_set(err, SMP_ERR_SYSTEM, "levels: out of memory");
    /* nodes listed by (group, class): cursor walks each list */
    int32_t *order = c->dealt; /* reused scratch: n entries */
    int64_t *cnt = calloc(nk + 1, sizeof(int64_t));
    if (!cnt) {
        free(cursor);
        return smp_error_set(err, SMP_ERR_SYSTEM, "levels: out of memory");
    }
    for (int v = 0; v < c->n; v++)
        if (c->cls[v] >= 0)
            cnt[(size_t)grp[v] * (size_t)k + (size_t)c->cls[v] + 1]++;
    for (size_t i = 1; i <= nk; i++)
        cnt[i] += cnt[i - 1];
    for (size_t i = 0; i < nk; i++)
        cursor[i] = (int32_t)cnt[i];
    for (int v = 0; v < c->n; v++)
        if (c->cls[v] >= 0)
            order[cursor[(size_t)grp[v] * (size_t)k + (size_t)c->cls[v]]++] = v;
    for (size_t i = 0; i < nk; i++)
        cursor[i] = (int32_t)cnt[i];
    for (int u = 0; u < c->n; u++) {
        phys[u] = u;
        if (c->cls[u] >= 0)
            phys[u] = order[cursor[(size_t)c->bin[u] * (size_t)k + (size_t)c->cls[u]]++];
    }
    free(cursor);
    free(cnt);
    return SMP_OK;
}

/* Moves the ranks to phys[their node], unless that is worse than the input
 * by the levelled figures (or cannot be scored); before: scratch of the
 * grid's size.  Without weights both are scored on the quotient q, which
 * gives the walk's figures exactly and costs no walk; weighted, the walk
 * keeps the floating sums in its order. */
static smp_status apply_unless_worse(const smp_grid *grid, const smp_stencil *st, int nnodes,
                                     const smp_levels *lv, smp_objective obj,
                                     const smp_quotient *q, const int32_t *phys,
                                     int32_t *before, int32_t *node_of_rank, bool *applied,
                                     smp_error *err)
{
    smp_score lb[SMP_MAX_LEVELS], la[SMP_MAX_LEVELS], none = {0};
    smp_status s;
    *applied = false;
    if (!st->weights) {
        if ((s = smp_levels_score_quotient(q, NULL, lv, lb, err)) ||
            (s = smp_levels_score_quotient(q, phys, lv, la, err)))
            return s;
        *applied = !smp_levels_better(lb, &none, la, &none, lv->nlevels, false, obj);
        for (int64_t r = 0; *applied && r < grid->size; r++)
            node_of_rank[r] = phys[node_of_rank[r]];
        return SMP_OK;
    }
    memcpy(before, node_of_rank, sizeof(int32_t) * (size_t)grid->size);
    if ((s = smp_levels_score_compute(grid, st, node_of_rank, nnodes, lv, lb, err)))
        return s;
    for (int64_t r = 0; r < grid->size; r++)
        node_of_rank[r] = phys[node_of_rank[r]];
    *applied = true;
    if ((s = smp_levels_score_compute(grid, st, node_of_rank, nnodes, lv, la, err)) ||
        smp_levels_better(lb, &none, la, &none, lv->nlevels, smp_stencil_weighted(st), obj)) {
        memcpy(node_of_rank, before, sizeof(int32_t) * (size_t)grid->size);
        *applied = false;
    }
    return s;
}

/* The node and level figures of the relabelling's result into nodes and
 * levels (nodes NULL: not asked): without weights from the quotient q of
 * the input (NULL: none built), its node u now phys[u] (phys NULL: not
 * moved), exact and without a walk; else by the walks. */
static smp_status result_scores(const smp_grid *grid, const smp_stencil *st, int nnodes,
                                const smp_levels *lv, const smp_quotient *q, const int32_t *phys,
                                const int32_t *node_of_rank, smp_score *nodes, smp_score *levels,
                                smp_error *err)
{
    smp_status s;
    if (!nodes)
        return SMP_OK;
    if (q && !st->weights)
        return (s = smp_score_quotient(q, phys, nodes, err)) ? s
                                                             : smp_levels_score_quotient(q, phys, lv, levels, err);
    s = smp_score_compute(grid, st, node_of_rank, nnodes, nodes, err);
    return s ? s : smp_levels_score_compute(grid, st, node_of_rank, nnodes, lv, levels, err);
}

/* Allocates the relabelling's per-set and per-group arrays (maxg: the
 * most groups of a level); false on ENOMEM, rl_free frees what it got. */
static bool rl_alloc(struct rl *c, size_t n, int maxg, int ndims)
{
    c->cls = malloc(sizeof(int32_t) * n);
    c->bin = malloc(sizeof(int32_t) * n);
    c->above = malloc(sizeof(int32_t) * n);
    c->binpar = malloc(sizeof(int32_t) * (size_t)maxg);
    c->out = malloc(sizeof(double) * (size_t)maxg);
    c->conn = malloc(sizeof(double) * n);
    c->attach = malloc(sizeof(double) * n);
    c->dealt = malloc(sizeof(int32_t) * n);
    c->ndims = ndims;
    c->centre = calloc(n * (size_t)ndims, sizeof(double));
    c->keyed = malloc(sizeof(struct keyed) * n);
    return c->cls && c->bin && c->above && c->binpar && c->out && c->conn && c->attach &&
           c->dealt && c->centre && c->keyed;
}

/* Frees what rl_alloc got, and the greedy growth's heap. */
static void rl_free(struct rl *c)
{
    free(c->cls);
    free(c->bin);
    free(c->above);
    free(c->binpar);
    free(c->out);
    free(c->conn);
    free(c->attach);
    free(c->dealt);
    free(c->centre);
    free(c->keyed);
    free(c->heap);
}

smp_status smp_relabel_levels(const smp_grid *grid, const smp_stencil *st, const int32_t *cap,
                              int nnodes, const smp_levels *lv, smp_objective obj,
                              int32_t *node_of_rank, smp_score *nodes, smp_score *levels,
                              smp_error *err)
{
    if (lv->nlevels < 1)
        return result_scores(grid, st, nnodes, lv, NULL, NULL, node_of_rank, nodes, levels, err);
    smp_quotient q;
    bool applied = false;
    smp_status s = smp_quotient_build(grid, st, node_of_rank, nnodes, &q, err);
    if (s)
        return s;
    struct rl c = {.q = &q, .n = nnodes, .cap = cap, .obj = obj};
    size_t n = (size_t)nnodes;
    int maxg = 1;
    for (int l = 0; l < lv->nlevels; l++)
        if (lv->ngroups[l] > maxg)
            maxg = lv->ngroups[l];
    int32_t *caps = malloc(sizeof(int32_t) * n), *phys = malloc(sizeof(int32_t) * n);
    int32_t *before = malloc(sizeof(int32_t) * (size_t)grid->size);
    if (!rl_alloc(&c, n, maxg, grid->ndims) || !caps || !phys || !before) {
        s = smp_error_set(err, SMP_ERR_SYSTEM, "levels: out of memory for %d nodes", nnodes);
        goto done;
    }
    int k = distinct_shares(cap, nnodes, caps);
    c.ncls = k;
    if ((int64_t)k * maxg > ((int64_t)1 << 26)) /* shares too varied to trade */
        goto done;
    classify(&c, cap, caps, k);
    c.eps = 1e-9 * (q.total > 1 ? q.total : 1);
    set_centres(&c, grid, node_of_rank, cap);
    c.budget = RELABEL_WORK_PER_ENTRY * q.start[nnodes] + RELABEL_WORK_MIN;
    for (int l = lv->nlevels - 1; l >= 0 && !s; l--) {
        s = deal_level(&c, lv, l, err);
        memcpy(c.above, c.bin, sizeof(int32_t) * n);
    }
    if (!s)
        s = hand_to_nodes(&c, lv, k, phys, err);
    if (!s) /* never worse than the input by the levelled figures */
        s = apply_unless_worse(grid, st, nnodes, lv, obj, &q, phys, before, node_of_rank,
                               &applied, err);
done:
    if (!s)
        s = result_scores(grid, st, nnodes, lv, &q, applied ? phys : NULL, node_of_rank, nodes,
                          levels, err);
    smp_quotient_free(&q);
    free(caps);
    free(phys);
    free(before);
    rl_free(&c);
    return s;
}
