/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The link loads of static routing, kept incrementally under exchanges of
 * whole node blocks (link_net.h says why).  The routing is link_load.c's
 * d-mod-k, restated on the block graph: a message from block x to block y
 * goes from the node holding x to the node holding y, so exchanging two
 * blocks takes their messages off the links, swaps the holders, and puts
 * them back; every other message keeps its nodes and its links. */
#include <stdlib.h>
#include <string.h>

#include "model/quotient.h"
#include "network/link_net.h"
#include "network/network.h"

void smp_link_net_free(smp_link_net *n)
{
    for (int l = 0; l < SMP_MAX_LEVELS; l++) {
        free(n->k[l]);
        free(n->base[l]);
        free(n->stride[l]);
        free(n->inv_sp[l]);
    }
    free(n->pos);
    free(n->load);
    free(n->slot_level);
    free(n->slot_group);
    free(n->out_first);
    free(n->in_first);
    free(n->out_to);
    free(n->in_from);
    free(n->out_w);
    free(n->in_w);
    free(n->block_of_node);
    free(n->node_of_block);
    free(n->touched);
    free(n->old);
    free(n->stamp);
    memset(n, 0, sizeof(*n));
}

/* Level l's counts, flat slot bases (from *slots on), speeds and strides;
 * false when out of memory. */
static bool level_init(smp_link_net *n, const smp_levels *lv, const smp_links *lk, int l,
                       int64_t *slots)
{
    int ng = lv->ngroups[l];
    n->grp[l] = lv->group_of_node[l];
    if (!(n->k[l] = malloc(sizeof(int32_t) * (size_t)ng)) ||
        !(n->base[l] = malloc(sizeof(int64_t) * (size_t)ng)) ||
        !(n->inv_sp[l] = malloc(sizeof(double) * (size_t)ng)) ||
        !(n->stride[l] = malloc(sizeof(int64_t) * (size_t)n->nnodes)))
        return false;
    for (int g = 0; g < ng; g++) {
        n->k[l][g] = lk->uplinks[l] ? lk->uplinks[l][g] : 1;
        n->inv_sp[l][g] = 1.0 / (lk->speed[l] ? lk->speed[l][g] : 1.0);
        n->base[l][g] = *slots;
        *slots += n->k[l][g];
    }
    for (int v = 0; v < n->nnodes; v++) { /* as link_load.c's */
        int64_t s = 1;
        for (int m = 0; m < l && s < INT32_MAX; m++)
            s *= n->k[m][n->grp[m][v]];
        n->stride[l][v] = s;
    }
    return true;
}

/* The slots, their loads (zero) and owners, the journal; false when out
 * of memory. */
static bool slots_init(smp_link_net *n, const smp_levels *lv, const smp_links *lk)
{
    int64_t slots = 0;
    for (int l = 0; l < n->nl; l++)
        if (!level_init(n, lv, lk, l, &slots))
            return false;
    n->nslots = slots;
    size_t s2 = (size_t)(2 * slots > 0 ? 2 * slots : 1);
    if (!(n->load = calloc(s2, sizeof(double))) || !(n->touched = malloc(sizeof(int64_t) * s2)) ||
        !(n->old = malloc(sizeof(double) * s2)) || !(n->stamp = calloc(s2, sizeof(uint32_t))) ||
        !(n->slot_level = malloc(sizeof(int32_t) * s2)) ||
        !(n->slot_group = malloc(sizeof(int32_t) * s2)))
        return false;
    for (int l = 0; l < n->nl; l++)
        for (int g = 0; g < lv->ngroups[l]; g++)
            for (int i = 0; i < n->k[l][g]; i++) {
                n->slot_level[n->base[l][g] + i] = l;
                n->slot_group[n->base[l][g] + i] = g;
            }
    return true;
}

/* The block graph: the quotient's pairs, out lists where wout > 0 and in
 * lists where win > 0 (weights are positive: zero says no edge that way),
 * both in neighbour order; false when out of memory. */
static bool graph_init(smp_link_net *n, const smp_quotient *q)
{
    int64_t nout = 0, nin = 0;
    for (int64_t i = 0; i < q->start[q->n]; i++) {
        nout += q->wout[i] > 0;
        nin += q->win[i] > 0;
    }
    size_t nn = (size_t)n->nnodes + 1;
    if (!(n->out_first = calloc(nn, sizeof(int64_t))) || !(n->in_first = calloc(nn, sizeof(int64_t))) ||
        !(n->out_to = malloc(sizeof(int32_t) * (size_t)(nout ? nout : 1))) ||
        !(n->out_w = malloc(sizeof(double) * (size_t)(nout ? nout : 1))) ||
        !(n->in_from = malloc(sizeof(int32_t) * (size_t)(nin ? nin : 1))) ||
        !(n->in_w = malloc(sizeof(double) * (size_t)(nin ? nin : 1))))
        return false;
    int64_t o = 0, j = 0;
    for (int u = 0; u < n->nnodes; u++) {
        for (int64_t i = q->start[u]; i < q->start[u + 1]; i++) {
            if (q->wout[i] > 0) {
                n->out_to[o] = q->nb[i];
                n->out_w[o++] = q->wout[i];
            }
            if (q->win[i] > 0) {
                n->in_from[j] = q->nb[i];
                n->in_w[j++] = q->win[i];
            }
        }
        n->out_first[u + 1] = o;
        n->in_first[u + 1] = j;
    }
    return true;
}

/* w on slot s, journaled the first time a trial touches it. */
static inline void slot_add(smp_link_net *n, int64_t s, double w)
{
    if (n->stamp[s] != n->trial) {
        n->stamp[s] = n->trial;
        n->touched[n->ntouched] = s;
        n->old[n->ntouched++] = n->load[s];
    }
    n->load[s] += w;
}

/* A message of weight w from node a to node b (a != b), d-mod-k. */
static void route(smp_link_net *n, int32_t a, int32_t b, double w)
{
    for (int l = 0; l < n->nl; l++) {
        int32_t ga = n->grp[l][a], gb = n->grp[l][b];
        if (ga == gb)
            break;
        int64_t iu = ((int64_t)n->pos[b] / n->stride[l][a]) % n->k[l][ga];
        int64_t id = ((int64_t)n->pos[b] / n->stride[l][b]) % n->k[l][gb];
        slot_add(n, n->base[l][ga] + iu, w * n->inv_sp[l][ga]);
        slot_add(n, n->nslots + n->base[l][gb] + id, w * n->inv_sp[l][gb]);
    }
}

/* Block x's messages with sign (+1 on, -1 off the links): all it sends,
 * and what it receives from blocks other than skip (skip's own out list
 * carries those). */
static void route_block(smp_link_net *n, int32_t x, int32_t skip, double sign)
{
    int32_t v = n->node_of_block[x];
    for (int64_t i = n->out_first[x]; i < n->out_first[x + 1]; i++)
        route(n, v, n->node_of_block[n->out_to[i]], sign * n->out_w[i]);
    for (int64_t i = n->in_first[x]; i < n->in_first[x + 1]; i++)
        if (n->in_from[i] != skip)
            route(n, n->node_of_block[n->in_from[i]], v, sign * n->in_w[i]);
}

smp_status smp_link_net_init(smp_link_net *n, const smp_grid *grid, const smp_stencil *st,
                             const int32_t *node_of_rank, int nnodes, const smp_levels *lv,
                             const smp_links *lk, smp_error *err)
{
    memset(n, 0, sizeof(*n));
    n->nl = lv->nlevels;
    n->nnodes = nnodes;
    smp_quotient q = {0};
    smp_status s = SMP_OK;
    if (!(n->pos = malloc(sizeof(int32_t) * (size_t)nnodes)) ||
        !(n->block_of_node = malloc(sizeof(int32_t) * (size_t)nnodes)) ||
        !(n->node_of_block = malloc(sizeof(int32_t) * (size_t)nnodes)) || !slots_init(n, lv, lk))
        s = smp_error_set(err, SMP_ERR_SYSTEM, "links: out of memory for %d nodes", nnodes);
    if (!s)
        s = smp_node_positions(lv, nnodes, n->pos, err);
    if (!s)
        s = smp_quotient_build(grid, st, node_of_rank, nnodes, &q, err);
    if (!s && !graph_init(n, &q))
        s = smp_error_set(err, SMP_ERR_SYSTEM, "links: out of memory for the block graph");
    smp_quotient_free(&q);
    for (int v = 0; !s && v < nnodes; v++)
        n->block_of_node[v] = n->node_of_block[v] = v;
    for (int x = 0; !s && x < nnodes; x++) /* trial 0: nothing journaled */
        for (int64_t i = n->out_first[x]; i < n->out_first[x + 1]; i++)
            route(n, x, n->out_to[i], n->out_w[i]);
    return s;
}

void smp_link_net_swap(smp_link_net *n, int32_t a, int32_t b)
{
    if (++n->trial == 0) { /* wrapped: no stamp may look current */
        memset(n->stamp, 0, sizeof(uint32_t) * (size_t)(2 * n->nslots));
        n->trial = 1;
    }
    n->ntouched = 0;
    int32_t xa = n->block_of_node[a], xb = n->block_of_node[b];
    route_block(n, xa, xb, -1);
    route_block(n, xb, xa, -1);
    n->block_of_node[a] = xb;
    n->block_of_node[b] = xa;
    n->node_of_block[xa] = b;
    n->node_of_block[xb] = a;
    route_block(n, xa, xb, 1);
    route_block(n, xb, xa, 1);
}

void smp_link_net_undo(smp_link_net *n, int32_t a, int32_t b)
{
    for (int64_t i = 0; i < n->ntouched; i++)
        n->load[n->touched[i]] = n->old[i];
    n->ntouched = 0;
    int32_t xa = n->block_of_node[a], xb = n->block_of_node[b];
    n->block_of_node[a] = xb;
    n->block_of_node[b] = xa;
    n->node_of_block[xa] = b;
    n->node_of_block[xb] = a;
}

double smp_link_net_max(const smp_link_net *n, int64_t *count, int64_t *at)
{
    double m = 0;
    *count = 0;
    *at = -1;
    for (int64_t s = 0; s < 2 * n->nslots; s++)
        if (n->load[s] > m)
            m = n->load[s];
    for (int64_t s = 0; s < 2 * n->nslots && m > 0; s++)
        if (n->load[s] >= m * (1 - 1e-9)) {
            if (*at < 0)
                *at = s;
            (*count)++;
        }
    return m;
}
