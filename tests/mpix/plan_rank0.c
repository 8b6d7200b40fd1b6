/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * make check's test of rank 0 kept by the in-job reordering
 * (smx_keep_rank0 in libstencilmap/mpix/mpix_plan.c), on nodes made up
 * here: the node structure smx_nodes_find would gather, so no launcher
 * and no second machine are needed, and any node sizes can be had.
 *
 *   plan_rank0            the cases of main, "ok ..." / "FAIL ..." lines,
 *                         exit 1 on any failure
 *   plan_rank0 explore    lists grids whose plan (before the exchange)
 *                         puts grid rank 0 off rank 0's node
 *
 * Each case first asserts that the planner itself puts grid rank 0 on
 * another node (else the case would test nothing), then that
 * smx_plan_keys gives a permutation whose inter-node edges score exactly
 * the plan's, and where comm's rank 0 went; other_switch calls
 * smx_keep_rank0 itself where the network forbids the exchange.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mpix_internal.h"

static int failed;

static void check(int ok, const char *what)
{
    printf("%s %s\n", ok ? "ok" : "FAIL", what);
    failed |= !ok;
}

/* made-up nodes: slots[n] processes each, rank r on node order[r] */
static void make_nodes(smx_nodes *nodes, int nnodes, const int *slots, int cyclic)
{
    int size = 0;
    for (int n = 0; n < nnodes; n++)
        size += slots[n];
    nodes->size = size;
    nodes->nnodes = nnodes;
    nodes->node_of = malloc(sizeof(int32_t) * (size_t)size);
    nodes->slots = malloc(sizeof(int32_t) * (size_t)nnodes);
    nodes->names = malloc(sizeof(char *) * (size_t)nnodes);
    int left[64], r = 0;
    for (int n = 0; n < nnodes; n++) {
        nodes->slots[n] = slots[n];
        left[n] = slots[n];
        nodes->names[n] = malloc(16);
        snprintf(nodes->names[n], 16, "node%d", n + 1);
    }
    while (r < size) /* blocked: fill each node in turn; cyclic: one each */
        for (int n = 0; n < nnodes && r < size; n++)
            while (left[n] > 0 && r < size) {
                nodes->node_of[r++] = n;
                left[n]--;
                if (cyclic)
                    break;
            }
}

static smx_request request(int ndims, const int *dims, const int *periods)
{
    smx_request rq = {ndims, dims, periods, NULL, 0, "nearest", "test", NULL};
    return rq;
}

/* the planner's own node of grid rank 0, before any exchange; score[0]
 * its nodes' figures, score[1 + l] those between the groups of level l
 * (*nlevels of them, with STENCIL_MAP_LEVELS) */
static int raw_node_of_0(const smx_request *rq, const smx_nodes *nodes, smp_score *score,
                         int *nlevels)
{
    smp_grid g;
    smp_stencil st;
    smp_levels lv;
    smp_placement pl;
    smp_error err;
    int64_t d[SMP_MAX_DIMS];
    bool p[SMP_MAX_DIMS];
    for (int i = 0; i < rq->ndims; i++) {
        d[i] = rq->dims[i];
        p[i] = rq->periods[i] != 0;
    }
    memset(&pl, 0, sizeof(pl));
    memset(&st, 0, sizeof(st));
    smx_levels_from_env(nodes, &lv);
    smp_plan_opts opts = {SMP_ALG_AUTO, SMP_OBJ_DEFAULT, 0, &lv, SMP_LEVELS_BEST, NULL};
    int n = -1;
    if (smp_grid_init(&g, rq->ndims, d, p, &err) == SMP_OK &&
        smp_stencil_family(&st, "nearest", rq->ndims, &err) == SMP_OK &&
        smp_plan_with(&g, &st, nodes->slots, nodes->nnodes, &opts, &pl, &err) == SMP_OK) {
        n = pl.node_of_rank[0];
        score[0] = pl.score;
        *nlevels = pl.nlevels;
        for (int l = 0; l < pl.nlevels; l++)
            score[1 + l] = pl.level[l];
    }
    smp_placement_free(&pl);
    smp_levels_free(&lv);
    smp_stencil_free(&st);
    return n;
}

/* the score of where the new ranks sit: new rank key[r] on old rank r's
 * node; s[0] the nodes', s[1 + l] level l's as raw_node_of_0 */
static int score_of_keys(const smx_request *rq, const smx_nodes *nodes, const int *key,
                         smp_score *s)
{
    smp_levels lv;
    smp_grid g;
    smp_stencil st;
    smp_error err;
    int64_t d[SMP_MAX_DIMS];
    bool p[SMP_MAX_DIMS];
    int32_t *on = malloc(sizeof(int32_t) * (size_t)nodes->size);
    int ok = on != NULL;
    for (int i = 0; i < rq->ndims; i++) {
        d[i] = rq->dims[i];
        p[i] = rq->periods[i] != 0;
    }
    memset(&st, 0, sizeof(st));
    for (int r = 0; ok && r < nodes->size; r++)
        on[key[r]] = nodes->node_of[r];
    ok = ok && smp_grid_init(&g, rq->ndims, d, p, &err) == SMP_OK &&
         smp_stencil_family(&st, "nearest", rq->ndims, &err) == SMP_OK &&
         smp_score_compute(&g, &st, on, nodes->nnodes, s, &err) == SMP_OK;
    smx_levels_from_env(nodes, &lv);
    ok = ok && (!lv.nlevels || smp_levels_score_compute(&g, &st, on, nodes->nnodes, &lv, s + 1,
                                                        &err) == SMP_OK);
    smp_levels_free(&lv);
    smp_stencil_free(&st);
    free(on);
    return ok;
}

static int permutation(const int *key, int size)
{
    char *seen = calloc((size_t)size, 1);
    int ok = seen != NULL;
    for (int r = 0; ok && r < size; r++) {
        ok = key[r] >= 0 && key[r] < size && !seen[key[r]];
        if (ok)
            seen[key[r]] = 1;
    }
    free(seen);
    return ok;
}

/* one case: NAME, the grid, the nodes, whether rank 0 can stay */
static void run_case(const char *name, int ndims, const int *dims, const int *periods,
                     int nnodes, const int *slots, int cyclic, int kept)
{
    smx_nodes nodes;
    smx_report rep;
    smp_score raw[1 + SMP_MAX_LEVELS], got[1 + SMP_MAX_LEVELS];
    int nlevels = 0;
    char what[1024];
    make_nodes(&nodes, nnodes, slots, cyclic);
    smx_request rq = request(ndims, dims, periods);
    int *key = malloc(sizeof(int) * (size_t)nodes.size);
    int x = raw_node_of_0(&rq, &nodes, raw, &nlevels);
    snprintf(what, sizeof(what), "%s: the planner puts grid rank 0 on node %d, not rank 0's", name,
             x);
    check(x > 0, what);
    int rc = smx_plan_keys(&rq, &nodes, key, &rep);
    snprintf(what, sizeof(what), "%s: planned (%s), a permutation", name,
             rep.planned ? rep.algorithm : rep.why);
    check(rc == MPI_SUCCESS && rep.planned && permutation(key, nodes.size), what);
    int scored = score_of_keys(&rq, &nodes, key, got);
    for (int l = 0; l <= nlevels; l++) { /* l == 0: nodes; else level l - 1 */
        char where[32] = "inter-node";
        if (l)
            snprintf(where, sizeof(where), "level %d", l - 1);
        snprintf(what, sizeof(what), "%s: %s edges J_sum %lld J_max %lld, the plan's %lld %lld",
                 name, where, (long long)got[l].j_sum,
                 (long long)got[l].j_max, (long long)raw[l].j_sum, (long long)raw[l].j_max);
        check(scored && got[l].j_sum == raw[l].j_sum && got[l].j_max == raw[l].j_max &&
                  got[l].w_sum == raw[l].w_sum && got[l].w_max == raw[l].w_max,
              what);
    }
    check(rep.plan.j_sum == raw[0].j_sum && rep.plan.j_max == raw[0].j_max,
          "... the report's figures are the plan's");
    if (kept) {
        snprintf(what, sizeof(what), "%s: comm's rank 0 is the grid's rank 0 (key %d)", name,
                 key[0]);
        check(key[0] == 0 && rep.rank0 == 0 && !rep.rank0_why[0], what);
    } else {
        snprintf(what, sizeof(what), "%s: rank 0 renumbered to %d, said: %s", name, rep.rank0,
                 rep.rank0_why);
        check(key[0] != 0 && rep.rank0 == key[0] && strstr(rep.rank0_why, "grid rank 0 planned on"),
              what);
    }
    free(key);
    smx_nodes_free(&nodes);
}

static void explore(void)
{
    static const int shapes[][3] = {{4, 8, 0}, {8, 4, 0}, {6, 4, 0}, {4, 6, 0}, {12, 2, 0},
                                    {3, 8, 0}, {16, 2, 0}, {6, 6, 0}, {2, 3, 4}, {4, 4, 2},
                                    {4, 2, 4}, {3, 4, 2}, {2, 2, 6}, {6, 2, 2},
                                    {2, 12, 0}, {3, 8, 0}, {8, 3, 0}, {24, 1, 0}, {2, 4, 3},
                                    {3, 2, 4}, {4, 3, 2}, {2, 6, 2}, {2, 2, 6}, {3, 3, 0}};
    static const int sizes[][5] = {{8, 8, 8, 8, 4}, {6, 6, 6, 6, 4}, {8, 8, 6, 2, 4},
                                   {2, 6, 8, 8, 4}, {6, 2, 8, 8, 4}, {12, 12, 0, 0, 2},
                                   {4, 4, 4, 4, 4}, {16, 8, 8, 0, 3}, {8, 16, 8, 0, 3},
                                   {8, 6, 8, 2, 4}, {8, 2, 6, 8, 4}, {6, 8, 8, 2, 4}};
    int per[3] = {0, 0, 0};
    for (size_t s = 0; s < sizeof(shapes) / sizeof(shapes[0]); s++)
        for (size_t z = 0; z < sizeof(sizes) / sizeof(sizes[0]); z++)
            for (int cyclic = 0; cyclic < 2; cyclic++) {
                int nd = shapes[s][2] ? 3 : 2, n = sizes[z][4], tot = 0, cells = 1;
                for (int i = 0; i < n; i++)
                    tot += sizes[z][i];
                for (int i = 0; i < nd; i++)
                    cells *= shapes[s][i];
                if (tot != cells)
                    continue;
                smx_nodes nodes;
                smx_report rep;
                smp_score raw[1 + SMP_MAX_LEVELS];
                make_nodes(&nodes, n, sizes[z], cyclic);
                smx_request rq = request(nd, shapes[s], per);
                int key[256];
                int nlv = 0;
                int x = raw_node_of_0(&rq, &nodes, raw, &nlv);
                smx_plan_keys(&rq, &nodes, key, &rep);
                if (x > 0 && rep.planned)
                    printf("dims %dx%dx%d slots %d,%d,%d,%d %s: raw node %d, key[0] %d %s\n",
                           shapes[s][0], shapes[s][1], shapes[s][2], sizes[z][0], sizes[z][1],
                           sizes[z][2], sizes[z][3], cyclic ? "cyclic" : "blocked", x, key[0],
                           rep.rank0_why);
                smx_nodes_free(&nodes);
            }
}

/* smx_keep_rank0 itself on a 4-rank line, one rank a node, nodes 1 and 3
 * under one switch and 2 and 4 under another: the plan puts grid rank 0
 * on node 2, under the other switch, and exchanging nodes 1 and 2 would
 * change the edges between the switches (2 to 3): rank 0 must move */
static void other_switch(void)
{
    static const int one[] = {1, 1, 1, 1};
    smx_nodes nodes;
    smp_grid g;
    smp_stencil st;
    smp_levels lv;
    smp_placement pl;
    smp_error err;
    int64_t d = 4;
    bool p = false;
    int32_t plan[4] = {1, 0, 2, 3}, group[4] = {0, 1, 0, 1};
    char why[160] = "";
    make_nodes(&nodes, 4, one, 0);
    memset(&st, 0, sizeof(st));
    memset(&pl, 0, sizeof(pl));
    memset(&lv, 0, sizeof(lv));
    lv.nlevels = 1;
    lv.nnodes = 4;
    lv.ngroups[0] = 2;
    lv.group_of_node[0] = group;
    pl.ranks = 4;
    pl.nnodes = 4;
    pl.node_of_rank = plan;
    pl.nlevels = 1;
    int ok = smp_grid_init(&g, 1, &d, &p, &err) == SMP_OK &&
             smp_stencil_family(&st, "nearest", 1, &err) == SMP_OK &&
             smp_levels_score_compute(&g, &st, plan, 4, &lv, pl.level, &err) == SMP_OK;
    int kept = ok && smx_keep_rank0(&g, &st, &nodes, &lv, &pl, why, sizeof(why));
    char what[400];
    snprintf(what, sizeof(what),
             "a line of 4 nodes, grid rank 0 under the other switch: rank 0 moves, the plan "
             "untouched (%d %d %d %d), said: %s", plan[0], plan[1], plan[2], plan[3], why);
    check(ok && !kept && plan[0] == 1 && plan[1] == 0 && plan[2] == 2 && plan[3] == 3 &&
              strstr(why, "another network group"), what);
    smp_stencil_free(&st);
    smx_nodes_free(&nodes);
}

int main(int argc, char **argv)
{
    if (argc == 2 && !strcmp(argv[1], "explore")) {
        explore();
        return 0;
    }
    static const int six[] = {6, 6, 6, 6}, hetero[] = {8, 8, 6, 2}, small0[] = {6, 8, 8, 2};
    static const int d622[] = {6, 2, 2}, d64[] = {6, 4}, d38[] = {3, 8}, per[] = {0, 0, 0};
    run_case("6x2x2 on 4 nodes of 6, blocked", 3, d622, per, 4, six, 0, 1);
    run_case("6x2x2 on 4 nodes of 6, round-robin", 3, d622, per, 4, six, 1, 1);
    run_case("6x4 on nodes of 8,8,6,2, blocked", 2, d64, per, 4, hetero, 0, 1);
    run_case("3x8 on nodes of 6,8,8,2, blocked (rank 0's node smaller)", 2, d38, per, 4, small0, 0, 0);
    /* levels: node1 and node2 under one switch, node3 and node4 under another */
    setenv("STENCIL_MAP_LEVEL_NODES", "node1,node2,node3,node4", 1);
    setenv("STENCIL_MAP_LEVELS", "0,0,1,1", 1);
    run_case("6x2x2 on 4 nodes of 6 under 2 switches, blocked", 3, d622, per, 4, six, 0, 1);
    setenv("STENCIL_MAP_LEVELS", "0,1,0,1", 1);
    run_case("6x2x2 on 4 nodes of 6, rank 0's switch mate third, blocked", 3, d622, per, 4, six, 0, 1);
    other_switch();
    return failed;
}
