/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Rank 0's plan of a grid onto the nodes found in the job, with the
 * placement core srun --stencil-map uses (auto, the default objective, the
 * network levels when the environment names them), turned into the key
 * each process passes to MPI_Comm_split: its rank in the new grid.  A
 * node's processes take the grid ranks the plan gave that node in the
 * order of their ranks in comm, and rank 0 stays 0 when that costs
 * nothing (smx_keep_rank0).  The plan is kept only when it is better
 * than the order comm already has (that order is what MPI_Cart_create
 * without reordering gives), so reordering never makes the grid worse. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mpix_internal.h"

smp_status smx_load_stencil(const smx_request *rq, smp_stencil *st, smp_error *err)
{
    if (!rq->offsets)
        return smp_stencil_family(st, rq->family ? rq->family : "nearest", rq->ndims, err);
    size_t n = (size_t)rq->k * (size_t)rq->ndims;
    int32_t *off = malloc(sizeof(int32_t) * n);
    if (!off)
        return smp_error_set(err, SMP_ERR_SYSTEM, "out of memory");
    for (size_t i = 0; i < n; i++)
        off[i] = rq->offsets[i];
    smp_status s = smp_stencil_init(st, rq->ndims, rq->k, off, rq->weights, "stencil", err);
    free(off);
    return s;
}

smp_status smx_make_grid(const smx_request *rq, smp_grid *g, smp_error *err)
{
    int64_t d[SMP_MAX_DIMS];
    bool p[SMP_MAX_DIMS];
    for (int i = 0; i < rq->ndims; i++) {
        d[i] = rq->dims[i];
        p[i] = rq->periods[i] != 0;
    }
    return smp_grid_init(g, rq->ndims, d, p, err);
}

/* key[old rank] = new rank: each node's old ranks, ascending, take the
 * new ranks planned on that node, ascending.  -1 when a node's count
 * differs from the plan's (never, with exact capacities); -2 out of memory. */
static int keys_from_plan(const smx_nodes *nodes, const int32_t *node_of_rank, int *key)
{
    int size = nodes->size, nn = nodes->nnodes, rc = 0;
    int *next = calloc((size_t)nn + 1, sizeof(int)); /* next[n]: node n's next old rank */
    int *end = malloc(sizeof(int) * ((size_t)nn + 1));
    int *old_by_node = malloc(sizeof(int) * (size_t)size);
    if (!next || !end || !old_by_node) {
        free(next);
        free(end);
        free(old_by_node);
        return -2;
    }
    for (int n = 0; n < nn; n++)
        next[n + 1] = next[n] + nodes->slots[n];
    memcpy(end, next + 1, sizeof(int) * (size_t)nn);
    for (int r = 0; r < size; r++) /* counting sort by node, stable */
        old_by_node[next[nodes->node_of[r]]++] = r;
    for (int n = 0; n < nn; n++)
        next[n] = end[n] - nodes->slots[n];
    for (int c = 0; c < size && !rc; c++) {
        int n = node_of_rank[c];
        if (n < 0 || n >= nn || next[n] >= end[n])
            rc = -1;
        else
            key[old_by_node[next[n]++]] = c;
    }
    free(next);
    free(end);
    free(old_by_node);
    return rc;
}

/* Why rank 0 is kept: codes such as GROMACS (split_communicator in
 * domdec.cpp) abort when MPI_Cart_create(reorder=1) renumbers their rank
 * 0, and many take rank 0 for their I/O master.  Node 0 is comm's rank
 * 0's (smx_nodes numbers nodes in the order of their first rank) and
 * keys_from_plan gives node 0's lowest old rank, rank 0, node 0's lowest
 * planned rank: rank 0 stays 0 exactly when the plan puts grid rank 0 on
 * node 0.  Exchanging the labels of nodes X and 0 in the plan moves no
 * edge: an edge joins two nodes after the exchange iff it did before, so
 * J_sum (weighted too) is the same, and node 0 carries X's former share
 * and X node 0's, so every node's share, hence J_max, is one the plan had
 * (only which node attains it swaps).  It needs X and 0 planned the same
 * number of ranks (each must hold the other's share with its own
 * processes) and, with levels, identical figures between the groups:
 * always so when X and 0 share a group at every level (every group keeps
 * its ranks), else checked by scoring the levels again. */
static int64_t planned_on(const smp_placement *pl, int32_t node)
{
    int64_t n = 0;
    for (int64_t c = 0; c < pl->ranks; c++)
        n += pl->node_of_rank[c] == node;
    return n;
}

static void exchange_nodes(smp_placement *pl, int32_t a, int32_t b)
{
    for (int64_t c = 0; c < pl->ranks; c++)
        if (pl->node_of_rank[c] == a || pl->node_of_rank[c] == b)
            pl->node_of_rank[c] = pl->node_of_rank[c] == a ? b : a;
    if (pl->score.j_max_node == a || pl->score.j_max_node == b)
        pl->score.j_max_node = pl->score.j_max_node == a ? b : a;
    if (pl->link.level < 0 && (pl->link.where == a || pl->link.where == b))
        pl->link.where = pl->link.where == a ? b : a;
}

/* after the exchange: the figures between groups are the plan's */
static bool levels_same(const smp_grid *g, const smp_stencil *st, const smp_levels *lv,
                        smp_placement *pl, int32_t x)
{
    bool shared = true;
    for (int l = 0; l < lv->nlevels; l++)
        shared &= lv->group_of_node[l][x] == lv->group_of_node[l][0];
    if (shared || !lv->nlevels)
        return true;
    if (pl->nlevels < lv->nlevels) /* the plan's own figures unknown: no exchange */
        return false;
    smp_score now[SMP_MAX_LEVELS];
    smp_error err;
    if (smp_levels_score_compute(g, st, pl->node_of_rank, pl->nnodes, lv, now, &err) != SMP_OK)
        return false;
    for (int l = 0; l < lv->nlevels; l++)
        if (now[l].j_sum != pl->level[l].j_sum || now[l].j_max != pl->level[l].j_max ||
            now[l].w_sum != pl->level[l].w_sum || now[l].w_max != pl->level[l].w_max)
            return false;
    for (int l = 0; l < lv->nlevels; l++)
        pl->level[l].j_max_node = now[l].j_max_node;
    return true;
}

int smx_keep_rank0(const smp_grid *g, const smp_stencil *st, const smx_nodes *nodes,
                   const smp_levels *lv, smp_placement *pl, char *why, size_t len)
{
    int32_t x = pl->ranks > 0 ? pl->node_of_rank[0] : 0;
    if (x == 0)
        return 1;
    int64_t on_x = planned_on(pl, x), on_0 = planned_on(pl, 0);
    if (on_x != on_0) {
        snprintf(why, len, "grid rank 0 planned on %s (%lld ranks), rank 0's node %s has %lld",
                 nodes->names[x], (long long)on_x, nodes->names[0], (long long)on_0);
        return 0;
    }
    exchange_nodes(pl, x, 0);
    if (!levels_same(g, st, lv, pl, x)) {
        exchange_nodes(pl, x, 0);
        snprintf(why, len, "grid rank 0 planned on %s, in another network group than %s",
                 nodes->names[x], nodes->names[0]);
        return 0;
    }
    return 1;
}

/* the plan better than comm's own order, by the levels when there are */
static bool plan_better(const smp_grid *g, const smp_stencil *st, const smx_nodes *nodes,
                        const smp_levels *lv, const smp_placement *pl, smx_report *rep)
{
    smp_error err;
    smp_score idl[SMP_MAX_LEVELS];
    if (smp_score_compute(g, st, nodes->node_of, nodes->nnodes, &rep->identity, &err))
        return true; /* cannot score comm's order: the plan is the one known */
    if (lv->nlevels &&
        smp_levels_score_compute(g, st, nodes->node_of, nodes->nnodes, lv, idl, &err) == SMP_OK)
        return smp_levels_better(pl->level, &pl->score, idl, &rep->identity, lv->nlevels,
                                 smp_stencil_weighted(st), SMP_OBJ_DEFAULT);
    return smp_score_better_for(&pl->score, &rep->identity, smp_stencil_weighted(st),
                                SMP_OBJ_DEFAULT);
}

/* the plan's keys, with rank 0 kept when it costs nothing */
static void keys_kept(const smp_grid *g, const smp_stencil *st, const smx_nodes *nodes,
                      const smp_levels *lv, smp_placement *pl, int *key, smx_report *rep)
{
    /* when rank 0 must move, rank0_why says why and the plan stands */
    smx_keep_rank0(g, st, nodes, lv, pl, rep->rank0_why, sizeof(rep->rank0_why));
    int rc = keys_from_plan(nodes, pl->node_of_rank, key);
    if (rc) { /* an optimisation that could not be made: comm's order stays */
        snprintf(rep->why, sizeof(rep->why), "%s",
                 rc == -2 ? "out of memory" : "the plan does not fit the nodes' processes");
        return;
    }
    rep->planned = 1;
    rep->rank0 = key[0];
    rep->plan.j_max_node = pl->score.j_max_node;
}

static int plan_onto(const smx_nodes *nodes, const smp_grid *g,
                     const smp_stencil *st, int *key, smx_report *rep)
{
    smp_levels lv;
    smp_placement pl;
    smp_error err;
    memset(&pl, 0, sizeof(pl));
    smx_levels_from_env(nodes, &lv);
    /* no links: in a job the uplinks are unknown; auto then plans by J */
    smp_plan_opts opts = {SMP_ALG_AUTO, SMP_OBJ_DEFAULT, 0, &lv, SMP_LEVELS_BEST, NULL};
    if (smp_plan_with(g, st, nodes->slots, nodes->nnodes, &opts, &pl, &err) != SMP_OK) {
        /* an optimisation that could not be made: comm's order stays */
        snprintf(rep->why, sizeof(rep->why), "the plan failed: %s", err.msg);
    } else {
        rep->plan = pl.score;
        rep->nlevels = lv.nlevels;
        smp_placement_label(&pl, rep->algorithm, sizeof(rep->algorithm));
        if (!plan_better(g, st, nodes, &lv, &pl, rep))
            snprintf(rep->why, sizeof(rep->why), "the plan is no better than the order it has");
        else
            keys_kept(g, st, nodes, &lv, &pl, key, rep);
    }
    smp_placement_free(&pl);
    smp_levels_free(&lv);
    return MPI_SUCCESS;
}

int smx_plan_keys(const smx_request *rq, const smx_nodes *nodes, int *key, smx_report *rep)
{
    smp_grid g;
    smp_stencil st;
    smp_error err;
    memset(rep, 0, sizeof(*rep));
    memset(&st, 0, sizeof(st));
    rep->nnodes = nodes->nnodes;
    for (int r = 0; r < nodes->size; r++)
        key[r] = r;
    if (smx_make_grid(rq, &g, &err) != SMP_OK || smx_load_stencil(rq, &st, &err) != SMP_OK) {
        snprintf(rep->why, sizeof(rep->why), "%s", err.msg);
        smp_stencil_free(&st);
        return MPI_ERR_ARG;
    }
    int rc = MPI_SUCCESS;
    if (nodes->nnodes == 1) {
        smp_score_compute(&g, &st, nodes->node_of, 1, &rep->identity, &err);
        rep->plan = rep->identity;
        snprintf(rep->why, sizeof(rep->why), "one node");
    } else
        rc = plan_onto(nodes, &g, &st, key, rep);
    if (!rep->planned)
        for (int r = 0; r < nodes->size; r++)
            key[r] = r;
    smp_stencil_free(&st);
    return rc;
}
