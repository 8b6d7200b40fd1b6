/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Refinement: improve any placement by moving ranks between
 * pairs of nodes that share cut stencil edges, while every node keeps
 * exactly the number of ranks it had.
 *
 * For each such pair (A, B), one Fiduccia-Mattheyses run: the ranks of A
 * and B that touch the other node are candidates, kept in one max-heap per
 * side by gain (the drop in weighted J_sum if the rank changed sides; ties
 * go to the lower rank).  The balance (moves A->B minus moves B->A) stays
 * within [-SWING, SWING]; within that the better head moves.  A moved rank
 * is locked for the rest of the run, and its unlocked neighbours in A or B
 * are pushed with fresh gains (so ranks inside a node join once the
 * boundary reaches them).  Heap entries are lazy: an entry whose stored
 * gain no longer matches is dropped, because the change that made it stale
 * pushed a fresh one.  The run keeps the prefix of its moves with the
 * highest cumulative gain among those that end balanced, and undoes the
 * rest: capacities stay exact, and a run never loses.
 *
 * A pass visits the pairs in node order; the next pass revisits only pairs
 * with a node that changed.  Passes repeat until one gains nothing or the
 * work budget (counted in neighbour-list evaluations, not in time, so the
 * result depends only on the input) is spent.  Afterwards the placement
 * is rescored from scratch, and if it were worse than the input (rounding
 * of non-integer weights could only make it so by a hair) the input is
 * restored: J_sum never rises.
 *
 * For SMP_OBJ_MAX each node's outgoing cut (weighted) is kept up to date;
 * a move between a and b changes only theirs.  A run then keeps the
 * balanced prefix with the lowest (J_max, nodes at J_max, J_sum), J_max
 * taken over all nodes (the others' from a max tree over the nodes), so a
 * kept run lowers the busiest node's cut without raising J_max anywhere,
 * or failing that keeps J_max and the count at it and lowers J_sum.  The
 * passes repeat while a run changes anything; the final check compares
 * J_max, then J_sum. */
#include <stdlib.h>
#include <string.h>

#include "improve/improve.h"
#include "model/neighbours.h"

/* Work per rank and floor of the default budget: the floor covers every
 * grid up to 100,000 ranks (a few ms for the paper's sizes, where the
 * refinement pays most); above, 2 per rank.  On a million ranks the
 * constructions come within 0.1 % of what a 4x larger budget reaches
 * (strips, 1000x1000 5-point on nodes of 128: 364,778 edges unrefined,
 * 364,732 with 2 per rank, 364,500 with 8), at a quarter of the time. */
#define SMP_REFINE_WORK_PER_RANK 2
#define SMP_REFINE_WORK_MIN 200000
#ifndef STALL_MOVES
#define STALL_MOVES 64 /* moves past the last new best before a run gives up */
#endif
#ifndef SWING
#define SWING 2        /* how far a run may let the two nodes' sizes drift */
#endif

struct heap_ent {
    double gain;
    int32_t v;
};

struct heap {
    struct heap_ent *e;
    size_t n, cap;
};

struct rf_ctx {
    smp_nbr nb;
    int32_t *node;  /* node_of_rank, changed in place */
    uint32_t *lock; /* run id that locked the rank */
    uint32_t run;
    struct heap h[2];
    int32_t *log_v; /* moves of the current run */
    size_t log_cap;
    int64_t work, budget;
    double eps;     /* gains below this are rounding noise */
    int64_t *nt;    /* scratch: one neighbour list */
    double *nw;
    int64_t *mt;    /* scratch: the moved rank's list, kept while nt is reused */
    int64_t moves;
    const int32_t *parent; /* NULL, or: only pairs with the same parent */
    smp_objective obj;
    double *nwo;    /* scratch: the outgoing part of each nw[] */
    double *out;    /* SMP_OBJ_MAX: each node's outgoing cut */
    double *tmx;    /* max tree over out[]: the largest value below a tree node */
    int32_t *tct;   /* and how many nodes hold it */
    int tsz;        /* leaves (a power of two >= nnodes) */
    double *log_oa, *log_ob; /* out[a], out[b] after each move of the run */
    /* the last head each side found valid, and its gain: it stays valid
     * until the rank or a neighbour moves (-1: none) */
    int32_t memo_v[2];
    double memo_g[2];
};

/* ---- the max tree over the nodes' outgoing cuts (SMP_OBJ_MAX) ---------- */

struct mx {
    double m; /* the largest value, -1 when none */
    int32_t n; /* how many hold it */
};

static bool near(double x, double y, double eps)
{
    return x - y <= eps && y - x <= eps;
}

static struct mx mx_join(struct mx x, struct mx y, double eps)
{
    if (near(x.m, y.m, eps))
        return (struct mx){x.m > y.m ? x.m : y.m, x.n + y.n};
    return x.m > y.m ? x : y;
}

static void tree_set(struct rf_ctx *c, int i, double v)
{
    int k = c->tsz + i;
    c->tmx[k] = v;
    c->tct[k] = 1;
    for (k /= 2; k >= 1; k /= 2) {
        struct mx j = mx_join((struct mx){c->tmx[2 * k], c->tct[2 * k]},
                              (struct mx){c->tmx[2 * k + 1], c->tct[2 * k + 1]}, c->eps);
        c->tmx[k] = j.m;
        c->tct[k] = j.n;
    }
}

/* max and count over the nodes in [lo, hi) */
static struct mx tree_range(const struct rf_ctx *c, int lo, int hi)
{
    struct mx r = {-1, 0};
    for (lo += c->tsz, hi += c->tsz; lo < hi; lo /= 2, hi /= 2) {
        if (lo & 1) {
            r = mx_join(r, (struct mx){c->tmx[lo], c->tct[lo]}, c->eps);
            lo++;
        }
        if (hi & 1) {
            hi--;
            r = mx_join(r, (struct mx){c->tmx[hi], c->tct[hi]}, c->eps);
        }
    }
    return r;
}

/* (J_max, nodes at it) with out[a] = oa and out[b] = ob, others as given */
static struct mx with_pair(const struct rf_ctx *c, struct mx others, double oa, double ob)
{
    struct mx r = mx_join(others, (struct mx){oa, 1}, c->eps);
    return mx_join(r, (struct mx){ob, 1}, c->eps);
}

/* x lower than y: J_max, then the count at it, then J_sum (-cum) */
static bool phi_lower(const struct rf_ctx *c, struct mx x, double cx, struct mx y, double cy)
{
    if (!near(x.m, y.m, c->eps))
        return x.m < y.m;
    if (x.n != y.n)
        return x.n < y.n;
    return cx > cy + c->eps;
}

static bool heap_before(const struct heap_ent *a, const struct heap_ent *b)
{
    return a->gain > b->gain || (a->gain == b->gain && a->v < b->v);
}

static bool heap_push(struct heap *h, double gain, int32_t v)
{
    if (h->n == h->cap) {
        size_t nc = h->cap ? 2 * h->cap : 256;
        struct heap_ent *ne = realloc(h->e, nc * sizeof(*ne));
        if (!ne)
            return false;
        h->e = ne;
        h->cap = nc;
    }
    size_t i = h->n++;
    struct heap_ent x = {gain, v};
    while (i > 0) {
        size_t p = (i - 1) / 2;
        if (!heap_before(&x, &h->e[p]))
            break;
        h->e[i] = h->e[p];
        i = p;
    }
    h->e[i] = x;
    return true;
}

static void heap_pop(struct heap *h)
{
    struct heap_ent x = h->e[--h->n];
    size_t i = 0;
    for (;;) {
        size_t c = 2 * i + 1;
        if (c >= h->n)
            break;
        if (c + 1 < h->n && heap_before(&h->e[c + 1], &h->e[c]))
            c++;
        if (!heap_before(&h->e[c], &x))
            break;
        h->e[i] = h->e[c];
        i = c;
    }
    if (h->n)
        h->e[i] = x;
}

static int nlist(struct rf_ctx *c, int64_t v)
{
    c->work++;
    return smp_nbr_list(&c->nb, v, c->nt, c->nw);
}

/* Drop in weighted J_sum if v left its node for node `to`; *touch says
 * whether v has a neighbour on `to`. */
static double gain_of(struct rf_ctx *c, int32_t v, int32_t to, bool *touch)
{
    int32_t from = c->node[v];
    int n = nlist(c, v);
    double g = 0;
    bool t = false;
    for (int i = 0; i < n; i++) {
        int32_t x = c->node[c->nt[i]];
        if (x == to) {
            g += c->nw[i];
            t = true;
        } else if (x == from)
            g -= c->nw[i];
    }
    if (touch)
        *touch = t;
    return g;
}

/* The head of side s that is still a valid candidate, or -1. */
static int32_t heap_head(struct rf_ctx *c, int s, int32_t self, int32_t other, double *gain)
{
    struct heap *h = &c->h[s];
    while (h->n) {
        struct heap_ent e = h->e[0];
        if (c->lock[e.v] == c->run || c->node[e.v] != self) {
            heap_pop(h);
            continue;
        }
        double g;
        if (c->memo_v[s] == e.v && c->memo_g[s] == e.gain) {
            /* the same gain_of would give: nothing around e.v moved since.
             * Counted as the evaluation it stands for, so the budget and
             * therefore the result do not depend on the shortcut. */
            c->work++;
            g = e.gain;
        } else {
            g = gain_of(c, e.v, other, NULL);
        }
        if (g != e.gain) {
            heap_pop(h);
            continue;
        }
        c->memo_v[s] = e.v;
        c->memo_g[s] = g;
        *gain = g;
        return e.v;
    }
    return -1;
}

/* The state of one FM run between nodes side[0] = a and side[1] = b. */
struct fm_run {
    int32_t side[2];
    struct mx others;    /* max: J_max and its count over every node but a and b */
    struct mx best_phi;  /* max: (J_max, count) at the best prefix */
    double oa, ob;       /* max: out[a] and out[b] after the moves so far */
    double cum, best;    /* drop in weighted J_sum so far, and at the best prefix */
    size_t nmoves, best_len;
    int bal;             /* moves a->b minus moves b->a */
};

#define FM_INLINE static inline __attribute__((always_inline))

/* max: the other nodes' J_max from the tree, a's and b's cuts as they are */
FM_INLINE void run_max_init(const struct rf_ctx *c, struct fm_run *r)
{
    int32_t a = r->side[0], b = r->side[1];
    int lo = a < b ? a : b, hi = a < b ? b : a;
    r->others = mx_join(tree_range(c, 0, lo), tree_range(c, lo + 1, hi), c->eps);
    r->others = mx_join(r->others, tree_range(c, hi + 1, c->tsz), c->eps);
    r->oa = c->out[a];
    r->ob = c->out[b];
    r->best_phi = with_pair(c, r->others, r->oa, r->ob);
}

/* Pushes the seeds on a or b that touch the other node; -1 on ENOMEM. */
FM_INLINE int run_seed(struct rf_ctx *c, const struct fm_run *r, const int32_t *seeds,
                       size_t nseeds)
{
    for (size_t i = 0; i < nseeds; i++) {
        int32_t v = seeds[i], x = c->node[v];
        int s = x == r->side[0] ? 0 : x == r->side[1] ? 1 : -1;
        if (s < 0)
            continue;
        bool touch;
        double g = gain_of(c, v, r->side[1 - s], &touch);
        if (touch && !heap_push(&c->h[s], g, v))
            return -1;
    }
    return 0;
}

/* The side whose head moves next (the better gain; on a tie, the move back
 * towards balance), its rank in *v and gain in *g; -1 when neither can. */
FM_INLINE int run_pick(struct rf_ctx *c, const struct fm_run *r, int32_t *v, double *g)
{
    int32_t a = r->side[0], b = r->side[1];
    double g0 = 0, g1 = 0;
    int32_t v0 = r->bal < SWING ? heap_head(c, 0, a, b, &g0) : -1;
    int32_t v1 = r->bal > -SWING ? heap_head(c, 1, b, a, &g1) : -1;
    int s;
    if (v0 >= 0 && v1 >= 0)
        s = g0 != g1 ? g1 > g0 : r->bal > 0;
    else if (v0 >= 0)
        s = 0;
    else if (v1 >= 0)
        s = 1;
    else
        return -1;
    *v = s ? v1 : v0;
    *g = s ? g1 : g0;
    return s;
}

/* Room in the move log (and, for max, the cuts after each move) for one
 * more move; false on ENOMEM. */
FM_INLINE bool run_log_room(struct rf_ctx *c, size_t nmoves, const bool max)
{
    if (nmoves < c->log_cap)
        return true;
    size_t nc = c->log_cap ? 2 * c->log_cap : 256;
    int32_t *nl = realloc(c->log_v, nc * sizeof(int32_t));
    if (!nl)
        return false;
    c->log_v = nl;
    if (max) {
        double *la = realloc(c->log_oa, nc * sizeof(double));
        if (la)
            c->log_oa = la;
        double *lb = la ? realloc(c->log_ob, nc * sizeof(double)) : NULL;
        if (!lb)
            return false;
        c->log_ob = lb;
    }
    c->log_cap = nc;
    return true;
}

/* max, after v (whose list of n entries is in nt/nw/nwo) moved from side
 * s to the other: only a's and b's outgoing cuts change.  v's outgoing
 * edges leave its old node's count and join its new one's, edges into v
 * from its old node now cross, from its new one no more.  Then the prefix
 * is the best so far if it ends balanced with a lower (J_max, count, -J_sum). */
FM_INLINE void run_max_moved(struct rf_ctx *c, struct fm_run *r, int s, int n)
{
    double d_from = 0, d_to = 0;
    int32_t from = r->side[s], to = r->side[1 - s];
    for (int i = 0; i < n; i++) {
        int32_t x = c->node[c->nt[i]];
        double wo = c->nwo[i], wi = c->nw[i] - c->nwo[i];
        if (x != from)
            d_from -= wo;
        else
            d_from += wi;
        if (x != to)
            d_to += wo;
        else
            d_to -= wi;
    }
    r->oa += s ? d_to : d_from;
    r->ob += s ? d_from : d_to;
    c->log_oa[r->nmoves - 1] = r->oa;
    c->log_ob[r->nmoves - 1] = r->ob;
    if (r->bal == 0) {
        struct mx phi = with_pair(c, r->others, r->oa, r->ob);
        if (phi_lower(c, phi, r->cum, r->best_phi, r->best)) {
            r->best_phi = phi;
            r->best = r->cum;
            r->best_len = r->nmoves;
        }
    }
}

/* v's neighbours in a or b (the n entries of mt) get fresh gains. */
FM_INLINE int run_push_neighbours(struct rf_ctx *c, const struct fm_run *r, int n)
{
    for (int i = 0; i < n; i++) {
        int32_t t = (int32_t)c->mt[i], x = c->node[t];
        if (t == c->memo_v[0])
            c->memo_v[0] = -1;
        if (t == c->memo_v[1])
            c->memo_v[1] = -1;
        if (c->lock[t] == c->run || (x != r->side[0] && x != r->side[1]))
            continue;
        int ts = x == r->side[0] ? 0 : 1;
        if (!heap_push(&c->h[ts], gain_of(c, t, r->side[1 - ts], NULL), t))
            return -1;
    }
    return 0;
}

/* Moves the rank at the head of side s to the other side, locks it and
 * logs it, updates the best prefix and the heaps; -1 on ENOMEM. */
FM_INLINE int run_move(struct rf_ctx *c, struct fm_run *r, int s, int32_t v, double g,
                       const bool max)
{
    heap_pop(&c->h[s]);
    c->node[v] = r->side[1 - s];
    c->lock[v] = c->run;
    r->cum += g;
    r->bal += s ? -1 : 1;
    if (!run_log_room(c, r->nmoves, max))
        return -1;
    c->log_v[r->nmoves++] = v;
    /* v's list, taken after the move (it never lists v itself) */
    c->work++;
    int n = max ? smp_nbr_list_dir(&c->nb, v, c->nt, c->nw, c->nwo)
                : smp_nbr_list(&c->nb, v, c->nt, c->nw);
    if (max) {
        run_max_moved(c, r, s, n);
    } else if (r->bal == 0 && r->cum > r->best + c->eps) {
        r->best = r->cum;
        r->best_len = r->nmoves;
    }
    memcpy(c->mt, c->nt, sizeof(int64_t) * (size_t)n);
    return run_push_neighbours(c, r, n);
}

/* Undoes the moves past the best prefix and, for max, keeps a's and b's
 * cuts as they were after it. */
FM_INLINE void run_finish(struct rf_ctx *c, const struct fm_run *r, const bool max)
{
    int32_t a = r->side[0], b = r->side[1];
    for (size_t i = r->nmoves; i > r->best_len; i--) {
        int32_t v = c->log_v[i - 1];
        c->node[v] = c->node[v] == a ? b : a;
    }
    c->moves += (int64_t)r->best_len;
    if (max && r->best_len) {
        c->out[a] = c->log_oa[r->best_len - 1];
        c->out[b] = c->log_ob[r->best_len - 1];
        tree_set(c, a, c->out[a]);
        tree_set(c, b, c->out[b]);
    }
}

/* One FM run between nodes a and b, seeded with the ranks of seeds that
 * sit on the a-b boundary.  Returns 1 if it kept moves, 0 if not, -1 on
 * ENOMEM; *kept is the drop in weighted J_sum of the moves kept. */
FM_INLINE int fm_pair_impl(struct rf_ctx *c, int32_t a, int32_t b, const int32_t *seeds,
                           size_t nseeds, double *kept, const bool max)
{
    struct fm_run r = {.side = {a, b}, .others = {-1, 0}, .best_phi = {0, 0}};
    if (max)
        run_max_init(c, &r);
    c->run++;
    c->h[0].n = c->h[1].n = 0;
    c->memo_v[0] = c->memo_v[1] = -1;
    if (run_seed(c, &r, seeds, nseeds) < 0)
        return -1;
    while (r.nmoves - r.best_len < STALL_MOVES && c->work < c->budget) {
        int32_t v;
        double g;
        int s = run_pick(c, &r, &v, &g);
        if (s < 0)
            break;
        if (run_move(c, &r, s, v, g, max) < 0)
            return -1;
    }
    run_finish(c, &r, max);
    *kept = r.best_len ? r.best : 0;
    return r.best_len > 0;
}

/* the two objectives compiled apart: SMP_OBJ_SUM's runs pay nothing for max */
static int fm_pair(struct rf_ctx *c, int32_t a, int32_t b, const int32_t *seeds, size_t nseeds,
                   double *kept)
{
    if (c->obj == SMP_OBJ_MAX)
        return fm_pair_impl(c, a, b, seeds, nseeds, kept, true);
    return fm_pair_impl(c, a, b, seeds, nseeds, kept, false);
}

/* Ranks with a neighbour on another node, grouped by node (CSR: start has
 * nnodes + 1 entries).  Only nodes flagged in active[] are listed. */
static smp_status boundary_lists(struct rf_ctx *c, int64_t p, int nnodes, const uint8_t *active,
                                 int64_t *start, int32_t **list, smp_error *err)
{
    memset(start, 0, sizeof(int64_t) * ((size_t)nnodes + 1));
    uint32_t mark = ++c->run;
    for (int64_t v = 0; v < p; v++) {
        int32_t me = c->node[v];
        if (!active[me])
            continue;
        int n = nlist(c, v);
        for (int i = 0; i < n; i++)
            if (c->node[c->nt[i]] != me &&
                (!c->parent || c->parent[c->node[c->nt[i]]] == c->parent[me])) {
                c->lock[v] = mark;
                start[me + 1]++;
                break;
            }
    }
    for (int i = 0; i < nnodes; i++)
        start[i + 1] += start[i];
    free(*list);
    *list = malloc(sizeof(int32_t) * (size_t)(start[nnodes] ? start[nnodes] : 1));
    int64_t *fill = malloc(sizeof(int64_t) * (size_t)nnodes);
    if (!*list || !fill) {
        free(fill);
        return smp_error_set(err, SMP_ERR_SYSTEM, "refine: out of memory");
    }
    memcpy(fill, start, sizeof(int64_t) * (size_t)nnodes);
    for (int64_t v = 0; v < p; v++)
        if (c->lock[v] == mark)
            (*list)[fill[c->node[v]]++] = (int32_t)v;
    free(fill);
    return SMP_OK;
}

static int cmp_i32(const void *a, const void *b)
{
    int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;
    return (x > y) - (x < y);
}

/* The scratch of the passes: boundary lists (CSR by node), the pairs of
 * one node, which nodes take part and which changed, the seed buffer. */
struct passes {
    int64_t *start;
    int32_t *list, *seen, *pairs, *seeds;
    uint8_t *active, *changed;
    size_t seeds_cap;
    double gain;
    bool moved;
};

/* The active nodes b > a that a's boundary touches, sorted, in ps->pairs. */
static int pairs_of(struct rf_ctx *c, struct passes *ps, int32_t a)
{
    int np = 0;
    for (int64_t i = ps->start[a]; i < ps->start[a + 1]; i++) {
        int32_t v = ps->list[i];
        if (c->node[v] != a)
            continue;
        int n = nlist(c, v);
        for (int j = 0; j < n; j++) {
            int32_t b = c->node[c->nt[j]];
            if (b > a && ps->active[b] && ps->seen[b] != a &&
                (!c->parent || c->parent[b] == c->parent[a])) {
                ps->seen[b] = a;
                ps->pairs[np++] = b;
            }
        }
    }
    qsort(ps->pairs, (size_t)np, sizeof(int32_t), cmp_i32);
    return np;
}

/* One FM run between a and b, seeded with both boundary lists. */
static smp_status refine_pair(struct rf_ctx *c, struct passes *ps, int32_t a, int32_t b,
                              smp_error *err)
{
    size_t na = (size_t)(ps->start[a + 1] - ps->start[a]);
    size_t nb = (size_t)(ps->start[b + 1] - ps->start[b]);
    if (na + nb > ps->seeds_cap) {
        free(ps->seeds);
        ps->seeds_cap = 2 * (na + nb);
        if (!(ps->seeds = malloc(sizeof(int32_t) * ps->seeds_cap)))
            return smp_error_set(err, SMP_ERR_SYSTEM, "refine: out of memory");
    }
    memcpy(ps->seeds, ps->list + ps->start[a], sizeof(int32_t) * na);
    memcpy(ps->seeds + na, ps->list + ps->start[b], sizeof(int32_t) * nb);
    double g;
    int moved = fm_pair(c, a, b, ps->seeds, na + nb, &g);
    if (moved < 0)
        return smp_error_set(err, SMP_ERR_SYSTEM, "refine: out of memory");
    if (moved) {
        ps->gain += g;
        ps->moved = true;
        ps->changed[a] = ps->changed[b] = 1;
    }
    return SMP_OK;
}

/* The next pass: the changed nodes and their neighbours' pairs with them. */
static void next_active(struct rf_ctx *c, struct passes *ps, int nnodes)
{
    memcpy(ps->active, ps->changed, (size_t)nnodes);
    for (int32_t a = 0; a < nnodes; a++) {
        if (!ps->changed[a])
            continue;
        for (int64_t i = ps->start[a]; i < ps->start[a + 1]; i++) {
            int32_t v = ps->list[i];
            if (c->node[v] != a)
                continue;
            int n = nlist(c, v);
            for (int j = 0; j < n; j++)
                ps->active[c->node[c->nt[j]]] = 1;
        }
    }
}

/* One pass over the active nodes' pairs, while the budget lasts. */
static smp_status one_pass(struct rf_ctx *c, struct passes *ps, int64_t p, int nnodes,
                           smp_error *err)
{
    smp_status s = boundary_lists(c, p, nnodes, ps->active, ps->start, &ps->list, err);
    if (s)
        return s;
    memset(ps->changed, 0, (size_t)nnodes);
    for (int i = 0; i < nnodes; i++)
        ps->seen[i] = -1;
    ps->gain = 0;
    ps->moved = false;
    for (int32_t a = 0; a < nnodes && c->work < c->budget; a++) {
        if (!ps->active[a])
            continue;
        int np = pairs_of(c, ps, a);
        for (int q = 0; q < np && c->work < c->budget; q++)
            if ((s = refine_pair(c, ps, a, ps->pairs[q], err)))
                return s;
    }
    return SMP_OK;
}

/* The passes; node_of_rank is changed in place. */
static smp_status refine_passes(struct rf_ctx *c, int64_t p, int nnodes, smp_refine_stats *stats,
                                smp_error *err)
{
    struct passes ps = {
        .start = malloc(sizeof(int64_t) * ((size_t)nnodes + 1)),
        .seen = malloc(sizeof(int32_t) * (size_t)nnodes),
        .pairs = malloc(sizeof(int32_t) * (size_t)nnodes),
        .active = malloc((size_t)nnodes),
        .changed = malloc((size_t)nnodes),
    };
    smp_status s = SMP_OK;
    if (!ps.start || !ps.seen || !ps.pairs || !ps.active || !ps.changed) {
        s = smp_error_set(err, SMP_ERR_SYSTEM, "refine: out of memory for %d nodes", nnodes);
        goto done;
    }
    memset(ps.active, 1, (size_t)nnodes);
    while (c->work < c->budget) {
        if ((s = one_pass(c, &ps, p, nnodes, err)))
            goto done;
        if (stats) {
            stats->passes++;
            stats->gain += ps.gain;
        }
        if (!ps.moved)
            break;
        next_active(c, &ps, nnodes);
    }
done:
    free(ps.start);
    free(ps.list);
    free(ps.seen);
    free(ps.pairs);
    free(ps.active);
    free(ps.changed);
    free(ps.seeds);
    return s;
}

int64_t smp_refine_default_budget(int64_t ranks)
{
    return SMP_REFINE_WORK_PER_RANK * ranks + SMP_REFINE_WORK_MIN;
}

/* SMP_OBJ_MAX: every node's outgoing cut, and the max tree over them. */
static smp_status out_init(struct rf_ctx *c, int64_t p, int nnodes, smp_error *err)
{
    c->tsz = 1;
    while (c->tsz < nnodes)
        c->tsz *= 2;
    c->out = calloc((size_t)nnodes, sizeof(double));
    c->tmx = malloc(sizeof(double) * 2 * (size_t)c->tsz);
    c->tct = calloc(2 * (size_t)c->tsz, sizeof(int32_t));
    if (!c->out || !c->tmx || !c->tct)
        return smp_error_set(err, SMP_ERR_SYSTEM, "refine: out of memory for %d nodes", nnodes);
    for (int64_t v = 0; v < p; v++) {
        c->work++;
        int n = smp_nbr_list_dir(&c->nb, v, c->nt, c->nw, c->nwo);
        int32_t me = c->node[v];
        for (int i = 0; i < n; i++)
            if (c->node[c->nt[i]] != me)
                c->out[me] += c->nwo[i];
    }
    for (int k = 0; k < 2 * c->tsz; k++)
        c->tmx[k] = -1;
    for (int i = 0; i < nnodes; i++)
        c->tmx[c->tsz + i] = c->out[i], c->tct[c->tsz + i] = 1;
    for (int k = c->tsz - 1; k >= 1; k--) {
        struct mx j = mx_join((struct mx){c->tmx[2 * k], c->tct[2 * k]},
                              (struct mx){c->tmx[2 * k + 1], c->tct[2 * k + 1]}, c->eps);
        c->tmx[k] = j.m;
        c->tct[k] = j.n;
    }
    return SMP_OK;
}

static void ctx_free(struct rf_ctx *c)
{
    smp_nbr_free(&c->nb);
    free(c->nt);
    free(c->mt);
    free(c->nw);
    free(c->nwo);
    free(c->out);
    free(c->tmx);
    free(c->tct);
    free(c->log_oa);
    free(c->log_ob);
    free(c->lock);
    free(c->h[0].e);
    free(c->h[1].e);
    free(c->log_v);
}

/* known: the input's score when the caller has it (else NULL), which
 * spares a scoring pass over every edge. */
static smp_status refine_impl(const smp_grid *grid, const smp_stencil *st, int32_t *node_of_rank,
                              int nnodes, const int32_t *parent, int64_t budget,
                              smp_objective obj, const smp_score *known,
                              smp_refine_stats *stats, smp_error *err)
{
    if (stats)
        memset(stats, 0, sizeof(*stats));
    if (nnodes < 1)
        return smp_error_set(err, SMP_ERR_INPUT, "nodes: none given");
    if (grid->size > INT32_MAX)
        return smp_error_set(err, SMP_ERR_INPUT, "refine: at most %d ranks", INT32_MAX);
    smp_score before, after;
    smp_status s = SMP_OK;
    if (known)
        before = *known;
    else if ((s = smp_score_compute(grid, st, node_of_rank, nnodes, &before, err)))
        return s; /* also rejects ranks on nodes out of range */
    if (budget <= 0)
        budget = smp_refine_default_budget(grid->size);
    struct rf_ctx c = {.node = node_of_rank, .budget = budget, .parent = parent, .obj = obj};
    if ((s = smp_nbr_init(&c.nb, grid, st, err)))
        return s;
    int64_t p = grid->size;
    double wsum = 0;
    for (int k = 0; k < c.nb.nk; k++)
        wsum += c.nb.w[k];
    c.eps = 1e-9 * wsum;
    c.nt = malloc(sizeof(int64_t) * (size_t)c.nb.nk);
    c.mt = malloc(sizeof(int64_t) * (size_t)c.nb.nk);
    c.nw = malloc(sizeof(double) * (size_t)c.nb.nk);
    c.nwo = malloc(sizeof(double) * (size_t)c.nb.nk);
    c.lock = calloc((size_t)p, sizeof(uint32_t));
    int32_t *orig = malloc(sizeof(int32_t) * (size_t)p);
    if (!c.nt || !c.mt || !c.nw || !c.nwo || !c.lock || !orig) {
        s = smp_error_set(err, SMP_ERR_SYSTEM, "refine: out of memory for %lld ranks", (long long)p);
        goto done;
    }
    memcpy(orig, node_of_rank, sizeof(int32_t) * (size_t)p);
    if (obj == SMP_OBJ_MAX && (s = out_init(&c, p, nnodes, err)))
        goto restore;
    if ((s = refine_passes(&c, p, nnodes, stats, err)))
        goto restore;
    if ((s = smp_score_compute(grid, st, node_of_rank, nnodes, &after, err)))
        goto restore;
    bool weighted = smp_stencil_weighted(st);
    /* never worse than the input: under SMP_OBJ_SUM by J_sum alone, as
     * always; under SMP_OBJ_MAX by J_max, then J_sum */
    bool worse = obj == SMP_OBJ_MAX
                     ? smp_score_better_for(&before, &after, weighted, obj)
                     : (weighted ? after.w_sum > before.w_sum : after.j_sum > before.j_sum);
    if (worse)
        memcpy(node_of_rank, orig, sizeof(int32_t) * (size_t)p);
    if (stats) {
        stats->work = c.work;
        stats->moves = c.moves;
        stats->before = before;
        stats->after = worse ? before : after;
    }
    goto done;
restore: /* a failure half-way leaves the input as it was */
    memcpy(node_of_rank, orig, sizeof(int32_t) * (size_t)p);
done:
    ctx_free(&c);
    free(orig);
    return s;
}

smp_status smp_refine(const smp_grid *grid, const smp_stencil *st, int32_t *node_of_rank,
                      int nnodes, int64_t budget, smp_refine_stats *stats, smp_error *err)
{
    return smp_refine_for(grid, st, node_of_rank, nnodes, budget, SMP_OBJ_SUM, stats, err);
}

smp_status smp_refine_for(const smp_grid *grid, const smp_stencil *st, int32_t *node_of_rank,
                          int nnodes, int64_t budget, smp_objective obj,
                          smp_refine_stats *stats, smp_error *err)
{
    if (obj != SMP_OBJ_SUM && obj != SMP_OBJ_MAX)
        return smp_error_set(err, SMP_ERR_INPUT, "objective: unknown");
    if (grid->order == SMP_ORDER_COLUMN_MAJOR) { /* the same ranks, row-major */
        smp_canon c;
        smp_status s = smp_canon_make(&c, grid, st, err);
        if (!s)
            s = refine_impl(&c.grid, &c.st, node_of_rank, nnodes, NULL, budget, obj, NULL, stats, err);
        smp_canon_free(&c);
        return s;
    }
    return refine_impl(grid, st, node_of_rank, nnodes, NULL, budget, obj, NULL, stats, err);
}

smp_status smp_refine_known(const smp_grid *grid, const smp_stencil *st, int32_t *node_of_rank,
                            int nnodes, int64_t budget, smp_objective obj, const smp_score *known,
                            smp_refine_stats *stats, smp_error *err)
{
    if (obj != SMP_OBJ_SUM && obj != SMP_OBJ_MAX)
        return smp_error_set(err, SMP_ERR_INPUT, "objective: unknown");
    if (grid->order == SMP_ORDER_COLUMN_MAJOR) /* auto plans on the row-major twin */
        return smp_refine_for(grid, st, node_of_rank, nnodes, budget, obj, stats, err);
    return refine_impl(grid, st, node_of_rank, nnodes, NULL, budget, obj, known, stats, err);
}

smp_status smp_refine_within(const smp_grid *grid, const smp_stencil *st, int32_t *label,
                             int nlabels, const int32_t *parent, int64_t budget,
                             smp_refine_stats *stats, smp_error *err)
{
    return refine_impl(grid, st, label, nlabels, parent, budget, SMP_OBJ_SUM, NULL, stats, err);
}

smp_status smp_refine_within_for(const smp_grid *grid, const smp_stencil *st, int32_t *label,
                                 int nlabels, const int32_t *parent, int64_t budget,
                                 smp_objective obj, smp_refine_stats *stats, smp_error *err)
{
    if (obj != SMP_OBJ_SUM && obj != SMP_OBJ_MAX)
        return smp_error_set(err, SMP_ERR_INPUT, "objective: unknown");
    return refine_impl(grid, st, label, nlabels, parent, budget, obj, NULL, stats, err);
}
