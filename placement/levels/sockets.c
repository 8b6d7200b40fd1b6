/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Two levels: once the ranks are on their nodes, split each
 * node's ranks over its sockets (or NUMA domains) so that few stencil
 * edges cross sockets inside a node.  Edges between nodes are fixed by
 * then and do not count here.
 *
 * Every (node, socket) that receives ranks becomes a group with an exact
 * size; the groups of one node are found by the same recursive bisection
 * that places ranks on nodes, run on the node's ranks only, and then
 * improved by the same refinement, restricted to pairs of groups of one
 * node so no rank ever changes node.  The naive split (consecutive ranks
 * per socket), refined the same way, is the fallback: the better of the
 * two is kept, so the result is never worse than the naive split. */
#include <stdlib.h>
#include <string.h>

#include "construct/construct.h"
#include "improve/improve.h"
#include "model/edges.h"

/* Keeps the per-socket counters of the score small enough to allocate. */
#define SMP_MAX_TOTAL_SOCKETS ((int64_t)1 << 26)

int64_t smp_socket_share(int64_t ranks, int sockets, int k)
{
    if (sockets < 1 || k < 0 || k >= sockets || ranks < 0)
        return 0;
    return ranks / sockets + (k < ranks % sockets ? 1 : 0);
}

/* Checks the common arguments; fills count[n] (ranks per node) if given. */
static smp_status check_args(const smp_grid *grid, const int32_t *node_of_rank, int nnodes,
                             const int32_t *sockets, int64_t *count, smp_error *err)
{
    if (nnodes < 1 || nnodes > SMP_MAX_NODES)
        return smp_error_set(err, SMP_ERR_INPUT, "nodes: %d given, need 1 to %d", nnodes,
                             SMP_MAX_NODES);
    if (grid->size > INT32_MAX)
        return smp_error_set(err, SMP_ERR_INPUT, "sockets: at most %d ranks", INT32_MAX);
    int64_t total = 0;
    for (int n = 0; n < nnodes; n++) {
        if (sockets[n] < 1 || sockets[n] > SMP_MAX_SOCKETS)
            return smp_error_set(err, SMP_ERR_INPUT, "sockets[%d]: %d, need 1 to %d", n,
                                 (int)sockets[n], SMP_MAX_SOCKETS);
        total += sockets[n];
    }
    if (total > SMP_MAX_TOTAL_SOCKETS)
        return smp_error_set(err, SMP_ERR_INPUT, "sockets: %lld in all, at most %lld",
                             (long long)total, (long long)SMP_MAX_TOTAL_SOCKETS);
    if (count)
        memset(count, 0, sizeof(int64_t) * (size_t)nnodes);
    for (int64_t r = 0; r < grid->size; r++) {
        int32_t n = node_of_rank[r];
        if (n < 0 || n >= nnodes)
            return smp_error_set(err, SMP_ERR_INPUT, "placement: rank %lld is on node %d of %d",
                                 (long long)r, (int)n, nnodes);
        if (count)
            count[n]++;
    }
    return SMP_OK;
}

smp_status smp_sockets_naive(const smp_grid *grid, const int32_t *node_of_rank, int nnodes,
                             const int32_t *sockets, int32_t *socket_of_rank, smp_error *err)
{
    int64_t *count = malloc(sizeof(int64_t) * (size_t)(nnodes > 0 ? nnodes : 1));
    int64_t *used = calloc((size_t)(nnodes > 0 ? nnodes : 1), sizeof(int64_t));
    int32_t *cur = calloc((size_t)(nnodes > 0 ? nnodes : 1), sizeof(int32_t));
    smp_status s;
    if (!count || !used || !cur) {
        s = smp_error_set(err, SMP_ERR_SYSTEM, "sockets: out of memory for %d nodes", nnodes);
        goto done;
    }
    if ((s = check_args(grid, node_of_rank, nnodes, sockets, count, err)))
        goto done;
    for (int64_t r = 0; r < grid->size; r++) {
        int32_t n = node_of_rank[r];
        /* skip sockets that are full (or get nothing at all) */
        while (used[n] == smp_socket_share(count[n], sockets[n], cur[n])) {
            cur[n]++;
            used[n] = 0;
        }
        socket_of_rank[r] = cur[n];
        used[n]++;
    }
done:
    free(count);
    free(used);
    free(cur);
    return s;
}

/* Per socket (base[node] + socket), the directed edges leaving it for
 * another socket of the same node, counted and weighed. */
static void socket_cut(const smp_edge_walk *w, const smp_stencil *st, const int32_t *node_of_rank,
                       const int32_t *socket_of_rank, const int64_t *base, int64_t *out_cnt,
                       double *out_w)
{
    int64_t c[SMP_MAX_DIMS];
    smp_edge_walk_first(w, c);
    for (int64_t r = 0; r < w->grid->size; r++, smp_edge_walk_next(w, c)) {
        int32_t node = node_of_rank[r], sock = socket_of_rank[r];
        for (int o = 0; o < w->count; o++) {
            int64_t t = smp_edge_target(w, c, r, o);
            if (t < 0 || node_of_rank[t] != node || socket_of_rank[t] == sock)
                continue;
            out_cnt[base[node] + sock]++;
            out_w[base[node] + sock] += st->weights ? st->weights[o] : 1.0;
        }
    }
}

smp_status smp_socket_score_compute(const smp_grid *grid, const smp_stencil *st,
                                    const int32_t *node_of_rank, int nnodes,
                                    const int32_t *sockets, const int32_t *socket_of_rank,
                                    smp_socket_score *score, smp_error *err)
{
    memset(score, 0, sizeof(*score));
    smp_status s = check_args(grid, node_of_rank, nnodes, sockets, NULL, err);
    if (s)
        return s;
    smp_edge_walk w;
    if ((s = smp_edge_walk_init(&w, grid, st, false, err))) {
        smp_edge_walk_free(&w);
        return s;
    }
    int64_t *out_cnt = NULL, *base = malloc(sizeof(int64_t) * ((size_t)nnodes + 1));
    double *out_w = NULL;
    if (!base) {
        s = smp_error_set(err, SMP_ERR_SYSTEM, "sockets: out of memory");
        goto done;
    }
    base[0] = 0;
    for (int n = 0; n < nnodes; n++)
        base[n + 1] = base[n] + sockets[n];
    out_cnt = calloc((size_t)base[nnodes], sizeof(int64_t));
    out_w = calloc((size_t)base[nnodes], sizeof(double));
    if (!out_cnt || !out_w) {
        s = smp_error_set(err, SMP_ERR_SYSTEM, "sockets: out of memory for %lld sockets",
                          (long long)base[nnodes]);
        goto done;
    }
    for (int64_t r = 0; r < grid->size; r++)
        if (socket_of_rank[r] < 0 || socket_of_rank[r] >= sockets[node_of_rank[r]]) {
            s = smp_error_set(err, SMP_ERR_INPUT, "sockets: rank %lld is on socket %d of %d",
                              (long long)r, (int)socket_of_rank[r],
                              (int)sockets[node_of_rank[r]]);
            goto done;
        }
    socket_cut(&w, st, node_of_rank, socket_of_rank, base, out_cnt, out_w);
    for (int64_t g = 0; g < base[nnodes]; g++) {
        score->j_sum += out_cnt[g];
        score->w_sum += out_w[g];
        if (out_cnt[g] > score->j_max)
            score->j_max = out_cnt[g];
        if (out_w[g] > score->w_max)
            score->w_max = out_w[g];
    }
done:
    smp_edge_walk_free(&w);
    free(base);
    free(out_cnt);
    free(out_w);
    return s;
}

static bool socket_better(const smp_socket_score *a, const smp_socket_score *b, bool weighted)
{
    if (weighted ? a->w_sum != b->w_sum : a->j_sum != b->j_sum)
        return weighted ? a->w_sum < b->w_sum : a->j_sum < b->j_sum;
    return weighted ? a->w_max < b->w_max : a->j_max < b->j_max;
}

/* The groups the ranks are split into: every (node, socket) with a share
 * > 0, numbered node by node (node n's are [first[n], first[n + 1])); at
 * most one per rank. */
struct sock_groups {
    int64_t *count;          /* ranks per node */
    int32_t *first;          /* nnodes + 1 */
    int32_t *cap, *parent, *sock; /* per group: share, node, socket */
};

static void groups_free(struct sock_groups *gr)
{
    free(gr->count);
    free(gr->first);
    free(gr->cap);
    free(gr->parent);
    free(gr->sock);
}

static smp_status groups_make(struct sock_groups *gr, const smp_grid *grid, const int32_t *node_of_rank,
                              int nnodes, const int32_t *sockets, smp_error *err)
{
    size_t nn = (size_t)(nnodes > 0 ? nnodes : 1);
    memset(gr, 0, sizeof(*gr));
    gr->count = malloc(sizeof(int64_t) * nn);
    gr->first = malloc(sizeof(int32_t) * (nn + 1));
    if (!gr->count || !gr->first)
        return smp_error_set(err, SMP_ERR_SYSTEM, "sockets: out of memory for %d nodes", nnodes);
    smp_status s = check_args(grid, node_of_rank, nnodes, sockets, gr->count, err);
    if (s)
        return s;
    size_t ng = 0;
    for (int n = 0; n < nnodes; n++)
        ng += (size_t)(gr->count[n] < sockets[n] ? gr->count[n] : sockets[n]);
    size_t gsz = ng ? ng : 1;
    gr->cap = malloc(sizeof(int32_t) * gsz);
    gr->parent = malloc(sizeof(int32_t) * gsz);
    gr->sock = malloc(sizeof(int32_t) * gsz);
    if (!gr->cap || !gr->parent || !gr->sock)
        return smp_error_set(err, SMP_ERR_SYSTEM, "sockets: out of memory for %zu groups", gsz);
    int32_t g = 0;
    for (int n = 0; n < nnodes; n++) {
        gr->first[n] = g;
        for (int k = 0; k < sockets[n]; k++) {
            int64_t share = smp_socket_share(gr->count[n], sockets[n], k);
            if (share == 0)
                break; /* shares never rise with k */
            gr->cap[g] = (int32_t)share;
            gr->parent[g] = n;
            gr->sock[g++] = k;
        }
    }
    gr->first[nnodes] = g;
    return SMP_OK;
}

/* Refines the split label[] (a group per rank) within each node, then
 * writes it as sockets into socket_of_rank and scores it. */
static smp_status refine_split(const smp_grid *grid, const smp_stencil *st, const int32_t *node_of_rank,
                               int nnodes, const int32_t *sockets, const struct sock_groups *gr,
                               int32_t *label, int32_t *socket_of_rank, smp_socket_score *score,
                               smp_error *err)
{
    smp_status s = smp_refine_within(grid, st, label, gr->first[nnodes], gr->parent,
                                      smp_refine_default_budget(grid->size), NULL, err);
    if (s)
        return s;
    for (int64_t r = 0; r < grid->size; r++)
        socket_of_rank[r] = gr->sock[label[r]];
    return smp_socket_score_compute(grid, st, node_of_rank, nnodes, sockets, socket_of_rank, score,
                                    err);
}

smp_status smp_plan_sockets(const smp_grid *grid, const smp_stencil *st,
                            const int32_t *node_of_rank, int nnodes, const int32_t *sockets,
                            int32_t *socket_of_rank, smp_socket_score *score, smp_error *err)
{
    if (grid->order == SMP_ORDER_COLUMN_MAJOR) { /* the same ranks, row-major */
        smp_canon c;
        smp_status s = smp_canon_make(&c, grid, st, err);
        if (!s)
            s = smp_plan_sockets(&c.grid, &c.st, node_of_rank, nnodes, sockets, socket_of_rank,
                                 score, err);
        smp_canon_free(&c);
        return s;
    }
    if (st->ndims != grid->ndims)
        return smp_error_set(err, SMP_ERR_INPUT,
                             "stencil: has %d dimensions but the grid has %d", st->ndims, grid->ndims);
    size_t p = (size_t)grid->size;
    struct sock_groups gr;
    int32_t *label = NULL, *naive = NULL;
    smp_status s = groups_make(&gr, grid, node_of_rank, nnodes, sockets, err);
    if (!s && (!(label = malloc(sizeof(int32_t) * (p ? p : 1))) ||
               !(naive = malloc(sizeof(int32_t) * (p ? p : 1)))))
        s = smp_error_set(err, SMP_ERR_SYSTEM, "sockets: out of memory for %zu ranks", p);
    smp_socket_score best, other;
    /* bisection inside each node, refined */
    if (!s)
        s = smp_bisect_within(grid, st, gr.cap, gr.first[nnodes], node_of_rank, gr.first, nnodes,
                              label, err);
    if (!s)
        s = refine_split(grid, st, node_of_rank, nnodes, sockets, &gr, label, socket_of_rank, &best,
                         err);
    /* the naive split, refined the same way, in case it is better */
    if (!s)
        s = smp_sockets_naive(grid, node_of_rank, nnodes, sockets, naive, err);
    for (size_t r = 0; !s && r < p; r++)
        label[r] = gr.first[node_of_rank[r]] + naive[r];
    if (!s)
        s = refine_split(grid, st, node_of_rank, nnodes, sockets, &gr, label, naive, &other, err);
    if (!s && socket_better(&other, &best, smp_stencil_weighted(st))) {
        memcpy(socket_of_rank, naive, sizeof(int32_t) * p);
        best = other;
    }
    if (!s && score)
        *score = best;
    groups_free(&gr);
    free(label);
    free(naive);
    return s;
}
