/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* L_max: the load of the busiest directed link when every rank sends one
 * message along each stencil edge, under the network's routing.
 *
 * The network is the levels' tree of groups: a node's link up and down,
 * and at each level every group's uplinks (k of them, each of a speed
 * relative to a node link) and as many downlinks.  A message between
 * nodes a and b loads a's link up and b's link down, and at every level l
 * where a and b lie in different groups one uplink of a's group and one
 * downlink of b's group (groups nest: once they share a group they share
 * every coarser one).  Adaptive routing spreads a group's traffic evenly
 * over its links; static routing takes, at level l, link
 * (position of b / stride) mod k up and down, stride being the product of
 * the uplink counts of the groups below l on the sender's (up) or the
 * receiver's (down) side: d-mod-k.  Loads are in stencil messages
 * (weighted by the stencil's weights) per node-link capacity.
 *
 * Direct routing (pair_load.c) has no tree above a level: the groups under
 * one parent (or all of the level's groups at the top) are joined
 * pairwise, each ordered pair (A, B) by k links of A's count and speed.  A
 * message between nodes a and b loads, besides the node links, only the
 * links of the pair (A, B) where A and B are a's and b's groups at the
 * finest level whose groups share a parent (the coarsest level where a
 * and b differ): load / (k x speed) on each of them.  It ignores the hops
 * a real dragonfly adds inside A and B to reach the router that holds the
 * (A, B) links (SimGrid's minimal routing: a router link to the gateway
 * router, the group links, a router link from the gateway to b's router);
 * with many routers per group those hops carry one router's share of the
 * traffic while the group links carry the whole group's.
 *
 * The bound: max(the busiest node link, every group's traffic out and in
 * divided by its k links and their speed).  It holds under any routing of
 * this placement on the tree: a node has one link, and the busiest of a
 * group's k links carries at least their mean.  Adaptive routing's L_max
 * equals it; static routing's may lie above it, and the gap is load a
 * better spread over the positions (moving whole node blocks) could take
 * off.  Under direct routing the bound is max(the busiest node link, every
 * pair's traffic over its k links and their speed), which is its L_max:
 * on a fabric whose sibling groups are joined pairwise and routed
 * minimally, every message from a node under A to a node under B (A and B
 * siblings, as above) crosses one of the (A, B) links, since a minimal
 * route between two siblings takes the one hop that joins them; so those k
 * links carry at least the pair's traffic and the busiest of them at least
 * its mean, and every message loads its two node links.  Hops the model
 * ignores only add load, so the bound stays below the fabric's busiest
 * link (non-minimal routes, e.g. Valiant's, are outside it).  SimGrid's
 * cross-traffic (5 % of every flow back along its route) is the bench's,
 * not the model's (contrib/bench/scale/linkload.py). */
#include <stdlib.h>
#include <string.h>

#include "model/edges.h"
#include "network/network.h"

/* The network as the walk needs it: per level the groups' link counts,
 * where each group's links start in the load arrays, and per node its
 * group and d-mod-k stride at every level. */
struct net {
    int nl, nnodes;
    bool adaptive, direct;
    const int32_t *grp[SMP_MAX_LEVELS];
    int ngroups[SMP_MAX_LEVELS];
    int32_t *k[SMP_MAX_LEVELS];     /* uplinks per group */
    int64_t *base[SMP_MAX_LEVELS];  /* first link slot of each group */
    int64_t *stride[SMP_MAX_LEVELS]; /* per node */
    int64_t *dslot[SMP_MAX_LEVELS];  /* per node: the slot of its group's downlink to it */
    double *up[SMP_MAX_LEVELS], *down[SMP_MAX_LEVELS]; /* per link slot */
    smp_pair_loads pair[SMP_MAX_LEVELS]; /* direct routing: per ordered pair */
    bool out_of_memory;
    int32_t *pos;
    double *node_out, *node_in;
};

static void net_free(struct net *n)
{
    for (int l = 0; l < SMP_MAX_LEVELS; l++) {
        free(n->k[l]);
        free(n->base[l]);
        free(n->stride[l]);
        free(n->dslot[l]);
        free(n->up[l]);
        free(n->down[l]);
        smp_pair_loads_free(&n->pair[l]);
    }
    free(n->pos);
    free(n->node_out);
    free(n->node_in);
}

/* Level l's link counts and slots; false when out of memory. */
static bool net_level(struct net *n, const smp_links *lk, int l)
{
    int ng = n->ngroups[l];
    if (!(n->k[l] = malloc(sizeof(int32_t) * (size_t)ng)) ||
        !(n->base[l] = malloc(sizeof(int64_t) * (size_t)ng)) ||
        !(n->stride[l] = malloc(sizeof(int64_t) * (size_t)n->nnodes)) ||
        !(n->dslot[l] = malloc(sizeof(int64_t) * (size_t)n->nnodes)))
        return false;
    int64_t slots = 0;
    for (int g = 0; g < ng; g++) {
        n->k[l][g] = lk && lk->uplinks[l] ? lk->uplinks[l][g] : 1;
        n->base[l][g] = slots;
        slots += n->adaptive ? 1 : n->k[l][g];
    }
    for (int v = 0; v < n->nnodes; v++) {
        int64_t s = 1;
        for (int m = 0; m < l && s < INT32_MAX; m++)
            s *= n->k[m][n->grp[m][v]];
        n->stride[l][v] = s;
    }
    return (n->up[l] = calloc((size_t)slots, sizeof(double))) &&
           (n->down[l] = calloc((size_t)slots, sizeof(double)));
}

/* Level l's downlink slot of every node: it depends on the receiver
 * alone, so it is found once per node rather than once per message. */
static void net_down_slots(struct net *n, int l)
{
    for (int v = 0; v < n->nnodes; v++) {
        int32_t g = n->grp[l][v];
        int64_t id = n->adaptive ? 0 : ((int64_t)n->pos[v] / n->stride[l][v]) % n->k[l][g];
        n->dslot[l][v] = n->base[l][g] + id;
    }
}

static smp_status net_init(struct net *n, const smp_levels *lv, const smp_links *lk, int nnodes,
                           smp_error *err)
{
    memset(n, 0, sizeof(*n));
    n->nl = lv ? lv->nlevels : 0;
    n->nnodes = nnodes;
    n->adaptive = lk && lk->routing == SMP_ROUTING_ADAPTIVE;
    n->direct = lk && lk->routing == SMP_ROUTING_DIRECT;
    bool ok = (n->pos = malloc(sizeof(int32_t) * (size_t)nnodes)) &&
              (n->node_out = calloc((size_t)nnodes, sizeof(double))) &&
              (n->node_in = calloc((size_t)nnodes, sizeof(double)));
    for (int l = 0; ok && l < n->nl; l++) {
        n->grp[l] = lv->group_of_node[l];
        n->ngroups[l] = lv->ngroups[l];
        ok = net_level(n, lk, l) && (!n->direct || smp_pair_loads_init(&n->pair[l]));
    }
    if (!ok)
        return smp_error_set(err, SMP_ERR_SYSTEM, "links: out of memory for %d nodes", nnodes);
    smp_status s = smp_node_positions(lv, nnodes, n->pos, err);
    for (int l = 0; !s && l < n->nl; l++)
        net_down_slots(n, l);
    return s;
}

/* One message of weight w from node a to node b (a != b). */
static inline void net_route(struct net *n, int32_t a, int32_t b, double w)
{
    n->node_out[a] += w;
    n->node_in[b] += w;
    if (n->direct) {
        int l = 0; /* the coarsest level where a and b differ */
        while (l + 1 < n->nl && n->grp[l + 1][a] != n->grp[l + 1][b])
            l++;
        if (l < n->nl && n->grp[l][a] != n->grp[l][b] &&
            !smp_pair_loads_add(&n->pair[l], n->grp[l][a], n->grp[l][b], w))
            n->out_of_memory = true;
        return;
    }
    for (int l = 0; l < n->nl; l++) {
        int32_t ga = n->grp[l][a], gb = n->grp[l][b];
        if (ga == gb)
            break;
        int64_t iu = 0;
        if (!n->adaptive)
            iu = ((int64_t)n->pos[b] / n->stride[l][a]) % n->k[l][ga];
        n->up[l][n->base[l][ga] + iu] += w;
        n->down[l][n->dslot[l][b]] += w;
    }
}

/* Rank r's edges (r on node me, at coordinates c) routed in entry order;
 * inner: every entry lands at r + delta, no wrap nor edge to test. */
static inline void walk_rank(struct net *n, const smp_edge_walk *w, const int64_t *c, int64_t r,
                             bool inner, const int32_t *node_of_rank, const double *wt)
{
    int32_t me = node_of_rank[r];
    for (int o = 0; o < w->count; o++) {
        int64_t t = inner ? r + w->delta[o] : smp_edge_target(w, c, r, o);
        if (t >= 0 && node_of_rank[t] != me)
            net_route(n, me, node_of_rank[t], wt ? wt[o] : 1.0);
    }
}

/* Every edge in rank order, then entry order (the loads are floating sums:
 * that order keeps them, and the figures printed, the same), a row of the
 * fastest dimension at a time: its interior ranks are known by one test. */
static smp_status walk_edges(struct net *n, const smp_grid *grid, const smp_stencil *st,
                             const int32_t *node_of_rank, smp_error *err)
{
    smp_edge_walk w;
    smp_status s = smp_edge_walk_init(&w, grid, st, false, err);
    if (!s) {
        smp_edge_rows it;
        for (smp_edge_rows_first(&w, &it); it.r < grid->size; smp_edge_rows_next(&w, &it))
            for (it.c[it.f] = 0; it.c[it.f] < it.len; it.c[it.f]++)
                walk_rank(n, &w, it.c, it.r + it.c[it.f], smp_edge_rows_inner(&it), node_of_rank,
                          st->weights);
    }
    smp_edge_walk_free(&w);
    if (!s && n->out_of_memory)
        s = smp_error_set(err, SMP_ERR_SYSTEM, "links: out of memory for the group pairs");
    return s;
}

/* A link's load v at (level, where, down): kept when above out's. */
static void consider(smp_link_score *out, double v, int level, int32_t where, bool down)
{
    if (level >= 0 && v > out->up_max)
        out->up_max = v;
    if (v > out->l_max) {
        out->l_max = v;
        out->level = level;
        out->where = where;
        out->down = down;
    }
}

/* Direct routing: every pair's load over its links, L_max and the bound
 * alike (the top comment). */
static void net_result_direct(const struct net *n, const smp_links *lk, smp_link_score *out)
{
    for (int l = 0; l < n->nl; l++)
        for (int64_t i = 0; i < n->pair[l].cap; i++) {
            int32_t a, b;
            double w;
            if (!smp_pair_loads_at(&n->pair[l], i, &a, &b, &w))
                continue;
            double sp = lk && lk->speed[l] ? lk->speed[l][a] : 1.0, v = w / (n->k[l][a] * sp);
            if (v > out->l_max)
                out->to = b;
            consider(out, v, l, a, false);
        }
    out->bound = out->l_max;
}

/* L_max and the bound from the loads the walk left. */
static void net_result(const struct net *n, const smp_links *lk, smp_link_score *out)
{
    memset(out, 0, sizeof(*out));
    out->level = -1;
    out->to = -1;
    for (int v = 0; v < n->nnodes; v++) {
        consider(out, n->node_out[v], -1, v, false);
        consider(out, n->node_in[v], -1, v, true);
    }
    out->node_max = out->bound = out->l_max;
    if (n->direct) {
        net_result_direct(n, lk, out);
        return;
    }
    for (int l = 0; l < n->nl; l++)
        for (int g = 0; g < n->ngroups[l]; g++) {
            double sp = lk && lk->speed[l] ? lk->speed[l][g] : 1.0;
            int k = n->k[l][g], slots = n->adaptive ? 1 : k;
            double tu = 0, td = 0;
            for (int i = 0; i < slots; i++) {
                double u = n->up[l][n->base[l][g] + i], d = n->down[l][n->base[l][g] + i];
                tu += u;
                td += d;
                if (!n->adaptive) {
                    consider(out, u / sp, l, g, false);
                    consider(out, d / sp, l, g, true);
                }
            }
            double mu = tu / (k * sp), md = td / (k * sp);
            if (n->adaptive) {
                consider(out, mu, l, g, false);
                consider(out, md, l, g, true);
            }
            out->bound = mu > out->bound ? mu : out->bound;
            out->bound = md > out->bound ? md : out->bound;
        }
}

smp_status smp_link_score_compute(const smp_grid *grid, const smp_stencil *st,
                                  const int32_t *node_of_rank, int nnodes, const smp_levels *lv,
                                  const smp_links *lk, smp_link_score *out, smp_error *err)
{
    memset(out, 0, sizeof(*out));
    out->to = -1;
    if (nnodes < 1)
        return smp_error_set(err, SMP_ERR_INPUT, "nodes: none given");
    if (st->ndims != grid->ndims)
        return smp_error_set(err, SMP_ERR_INPUT, "stencil: has %d dimensions but the grid has %d",
                             st->ndims, grid->ndims);
    smp_status s = lv ? smp_levels_check(lv, nnodes, err) : SMP_OK;
    if (!s)
        s = smp_links_check(lk, lv, err);
    for (int64_t r = 0; !s && r < grid->size; r++)
        if (node_of_rank[r] < 0 || node_of_rank[r] >= nnodes)
            s = smp_error_set(err, SMP_ERR_INPUT, "placement: rank %lld is on node %d of %d",
                              (long long)r, node_of_rank[r], nnodes);
    if (s)
        return s;
    struct net n;
    s = net_init(&n, lv, lk, nnodes, err);
    if (!s)
        s = walk_edges(&n, grid, st, node_of_rank, err);
    if (!s)
        net_result(&n, lk, out);
    net_free(&n);
    return s;
}

smp_status smp_link_score_quotient(const smp_quotient *q, const int32_t *phys,
                                   const smp_levels *lv, const smp_links *lk,
                                   smp_link_score *out, smp_error *err)
{
    memset(out, 0, sizeof(*out));
    out->to = -1;
    if (lk && lk->routing == SMP_ROUTING_DIRECT)
        return smp_error_set(err, SMP_ERR_INPUT, "links: direct routing is scored on the edges");
    struct net n;
    smp_status s = net_init(&n, lv, lk, q->n, err);
    for (int u = 0; !s && u < q->n; u++)
        for (int64_t i = q->start[u]; i < q->start[u + 1]; i++)
            if (q->wout[i] > 0)
                net_route(&n, phys ? phys[u] : u, phys ? phys[q->nb[i]] : q->nb[i], q->wout[i]);
    if (!s)
        net_result(&n, lk, out);
    net_free(&n);
    return s;
}
