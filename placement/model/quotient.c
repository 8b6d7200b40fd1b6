/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The quotient graph of a placement: one vertex per node, an edge between
 * two nodes when stencil edges join their ranks, weighed by those edges in
 * each direction.  improve/relabel.c hands whole nodes to groups on it and
 * network/link_net.c routes node to node on it, so it must be small: a
 * node of a good placement touches a few dozen others.  The
 * pairs are gathered in an open-addressing hash table that grows as
 * needed (a scattered placement just makes it larger), then laid out per
 * node, sorted by neighbour so the result depends only on the input. */
#include <stdlib.h>
#include <string.h>

#include "model/edges.h"
#include "model/quotient.h"

struct pair_table {
    uint64_t *key; /* (a << 32 | b) + 1; 0 marks an empty slot */
    double *w;
    size_t cap, used;
};

static size_t slot_of(uint64_t key, size_t cap)
{
    key ^= key >> 33;
    key *= 0xff51afd7ed558ccdULL;
    key ^= key >> 33;
    return (size_t)key & (cap - 1);
}

/* Doubles t's capacity, or gives an empty t its first: cap0 slots. */
static bool table_grow(struct pair_table *t, size_t cap0)
{
    size_t ncap = t->cap ? t->cap * 2 : cap0;
    uint64_t *nk = calloc(ncap, sizeof(uint64_t));
    double *nw = malloc(sizeof(double) * ncap);
    if (!nk || !nw) {
        free(nk);
        free(nw);
        return false;
    }
    for (size_t i = 0; i < t->cap; i++) {
        if (!t->key[i])
            continue;
        size_t s = slot_of(t->key[i], ncap);
        while (nk[s])
            s = (s + 1) & (ncap - 1);
        nk[s] = t->key[i];
        nw[s] = t->w[i];
    }
    free(t->key);
    free(t->w);
    t->key = nk;
    t->w = nw;
    t->cap = ncap;
    return true;
}

static bool table_add(struct pair_table *t, int32_t a, int32_t b, double w)
{
    if (2 * (t->used + 1) > t->cap && !table_grow(t, 0))
        return false;
    uint64_t key = (((uint64_t)(uint32_t)a << 32) | (uint32_t)b) + 1;
    size_t s = slot_of(key, t->cap);
    while (t->key[s] && t->key[s] != key)
        s = (s + 1) & (t->cap - 1);
    if (!t->key[s]) {
        t->key[s] = key;
        t->w[s] = 0;
        t->used++;
    }
    t->w[s] += w;
    return true;
}

static int cmp_u64(const void *x, const void *y)
{
    uint64_t a = *(const uint64_t *)x, b = *(const uint64_t *)y;
    return (a > b) - (a < b);
}

void smp_quotient_free(smp_quotient *q)
{
    free(q->start);
    free(q->nb);
    free(q->wout);
    free(q->win);
    memset(q, 0, sizeof(*q));
}

/* Finds w(a -> b) in the table, 0 when absent. */
static double table_get(const struct pair_table *t, int32_t a, int32_t b)
{
    uint64_t key = (((uint64_t)(uint32_t)a << 32) | (uint32_t)b) + 1;
    size_t s = slot_of(key, t->cap);
    while (t->key[s]) {
        if (t->key[s] == key)
            return t->w[s];
        s = (s + 1) & (t->cap - 1);
    }
    return 0;
}

/* Rank r's cut edges (r at coordinates c) into t, in entry order; inner:
 * every entry lands at r + delta.  False when out of memory. */
static inline bool quotient_rank(const smp_edge_walk *w, const smp_stencil *st,
                                 const int32_t *node_of_rank, int64_t r, const int64_t *c,
                                 bool inner, struct pair_table *t)
{
    int32_t a = node_of_rank[r];
    for (int o = 0; o < w->count; o++) {
        int64_t x = inner ? r + w->delta[o] : smp_edge_target(w, c, r, o);
        if (x >= 0 && node_of_rank[x] != a &&
            !table_add(t, a, node_of_rank[x], st->weights ? st->weights[o] : 1.0))
            return false;
    }
    return true;
}

/* Every edge in rank, then entry, order (the weights' floating sums keep
 * it), a row of the fastest dimension at a time: its interior ranks are
 * known by one test per row.  False when out of memory. */
static bool quotient_walk(const smp_edge_walk *w, const smp_stencil *st,
                          const int32_t *node_of_rank, struct pair_table *t)
{
    smp_edge_rows it;
    for (smp_edge_rows_first(w, &it); it.r < w->grid->size; smp_edge_rows_next(w, &it))
        for (it.c[it.f] = 0; it.c[it.f] < it.len; it.c[it.f]++)
            if (!quotient_rank(w, st, node_of_rank, it.r + it.c[it.f], it.c,
                               smp_edge_rows_inner(&it), t))
                return false;
    return true;
}

/* Room for each node to send to as many others as the stencil has
 * entries (a blocked layout's node meets about that many), at half load,
 * so that a good placement's table never grows: growing from small had
 * rehashed every pair about twice at a million ranks. */
static size_t first_capacity(const smp_edge_walk *w, int nnodes)
{
    int64_t senders = nnodes < w->grid->size ? nnodes : w->grid->size;
    size_t want = 2 * (size_t)senders * (size_t)(w->count > 0 ? w->count : 1), cap = 1024;
    while (cap < want)
        cap *= 2;
    return cap;
}

smp_status smp_quotient_build(const smp_grid *grid, const smp_stencil *st,
                              const int32_t *node_of_rank, int nnodes, smp_quotient *q,
                              smp_error *err)
{
    memset(q, 0, sizeof(*q));
    struct pair_table t = {0};
    smp_edge_walk w;
    smp_status s = smp_edge_walk_init(&w, grid, st, false, err);
    uint64_t *keys = NULL;
    if (!s && !table_grow(&t, first_capacity(&w, nnodes)))
        s = smp_error_set(err, SMP_ERR_SYSTEM, "node graph: out of memory");
    if (!s && !quotient_walk(&w, st, node_of_rank, &t))
        s = smp_error_set(err, SMP_ERR_SYSTEM, "node graph: out of memory");
    smp_edge_walk_free(&w);
    /* every unordered pair once each way: a -> b and b -> a land in the
     * lists of both ends */
    size_t m = 0;
    if (!s && !(keys = malloc(sizeof(uint64_t) * (2 * t.used + 1))))
        s = smp_error_set(err, SMP_ERR_SYSTEM, "node graph: out of memory");
    for (size_t i = 0; !s && i < t.cap; i++) {
        if (!t.key[i])
            continue;
        uint64_t k = t.key[i] - 1;
        int32_t a = (int32_t)(k >> 32), b = (int32_t)(k & 0xffffffffu);
        keys[m++] = k;
        if (table_get(&t, b, a) == 0) /* b -> a absent: b lists a too */
            keys[m++] = ((uint64_t)(uint32_t)b << 32) | (uint32_t)a;
    }
    if (!s) {
        qsort(keys, m, sizeof(uint64_t), cmp_u64);
        q->n = nnodes;
        q->start = calloc((size_t)nnodes + 1, sizeof(int64_t));
        q->nb = malloc(sizeof(int32_t) * (m + 1));
        q->wout = malloc(sizeof(double) * (m + 1));
        q->win = malloc(sizeof(double) * (m + 1));
        if (!q->start || !q->nb || !q->wout || !q->win)
            s = smp_error_set(err, SMP_ERR_SYSTEM, "node graph: out of memory");
    }
    for (size_t i = 0; !s && i < m; i++) {
        int32_t a = (int32_t)(keys[i] >> 32), b = (int32_t)(keys[i] & 0xffffffffu);
        q->start[a + 1]++;
        q->nb[i] = b;
        q->wout[i] = table_get(&t, a, b);
        q->win[i] = table_get(&t, b, a);
        q->total += q->wout[i];
    }
    for (int u = 0; !s && u < nnodes; u++)
        q->start[u + 1] += q->start[u];
    free(keys);
    free(t.key);
    free(t.w);
    if (s)
        smp_quotient_free(q);
    return s;
}
