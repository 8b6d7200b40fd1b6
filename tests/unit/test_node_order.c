/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Without a topology, auto's node blocks are laid out along the node order
 * (placement/improve/node_order.c): each way only hands whole blocks to
 * other nodes of the same share, so the figures are exactly the input's
 * and every node keeps its share, on equal and unequal nodes; along the
 * grid, blocks a scrambled numbering put far apart in node order come
 * back next to each other (blocked's order); and auto's plan without a
 * topology has the figures of auto's node plan. */
#include "unit_util.h"

#include "improve/improve.h"

static void assert_same_score(const char *what, const smp_score *a, const smp_score *b)
{
    if (a->j_sum != b->j_sum || a->j_max != b->j_max || !tu_close(a->w_sum, b->w_sum) ||
        !tu_close(a->w_max, b->w_max))
        fail_msg("%s: J %lld/%lld became %lld/%lld", what, (long long)a->j_sum,
                 (long long)a->j_max, (long long)b->j_sum, (long long)b->j_max);
}

/* Every rank set of before moved whole to one node of the same share, no
 * two sets to one node. */
static void assert_blocks_moved_whole(const char *what, const int32_t *before,
                                      const int32_t *after, int64_t p, const int32_t *cap,
                                      int nnodes)
{
    int32_t *to = malloc(sizeof(int32_t) * (size_t)nnodes);
    int32_t *from = malloc(sizeof(int32_t) * (size_t)nnodes);
    assert_non_null(to);
    assert_non_null(from);
    for (int v = 0; v < nnodes; v++)
        to[v] = from[v] = -1;
    for (int64_t r = 0; r < p; r++) {
        int32_t u = before[r], v = after[r];
        if ((to[u] >= 0 && to[u] != v) || (from[v] >= 0 && from[v] != u))
            fail_msg("%s: node %d's block split or merged at rank %lld", what, u, (long long)r);
        to[u] = v;
        from[v] = u;
        if (cap[u] != cap[v])
            fail_msg("%s: a block of %d ranks went to a node of share %d", what, cap[u], cap[v]);
    }
    free(to);
    free(from);
}

/* On random instances (equal, dividing and unequal nodes), from a
 * construction's plan, both ways keep the figures and the shares. */
static void test_node_order_keeps_figures(void **state)
{
    (void)state;
    tu_rng rng = {3603};
    smp_error err;
    int unequal = 0;
    for (int it = 0; it < 60; it++) {
        smp_grid g;
        smp_stencil st;
        int32_t *slots;
        int n;
        char what[256];
        tu_random_instance(&rng, &g, &st, &slots, &n, what, sizeof(what));
        int32_t *cap = tu_shares_of(slots, n, g.size);
        int32_t *dense = malloc(sizeof(int32_t) * (size_t)n), *dcap = malloc(sizeof(int32_t) * (size_t)n);
        int32_t *pl = malloc(sizeof(int32_t) * (size_t)g.size);
        int32_t *trial = malloc(sizeof(int32_t) * (size_t)g.size);
        assert_true(dense && dcap && pl && trial);
        int nd = 0;
        for (int v = 0; v < n; v++)
            if (cap[v] > 0) {
                dense[nd] = v;
                dcap[nd++] = cap[v];
                unequal += cap[v] != cap[0];
            }
        tu_start_placement(&rng, &g, &st, slots, n, cap, true, it % 2, pl);
        smp_score before, after;
        assert_ok(smp_score_compute(&g, &st, pl, n, &before, &err), err);
        for (int way = 0; way < SMP_NODE_ORDER_COUNT; way++) {
            memcpy(trial, pl, sizeof(int32_t) * (size_t)g.size);
            smp_objective obj = it % 3 ? SMP_OBJ_MAX : SMP_OBJ_SUM;
            assert_ok(smp_relabel_node_order(&g, &st, dcap, dense, nd, n, obj,
                                             (smp_node_order)way, trial, &err),
                      err);
            assert_ok(smp_score_compute(&g, &st, trial, n, &after, &err), err);
            assert_same_score(what, &before, &after);
            tu_assert_shares(what, trial, g.size, cap, n);
            assert_blocks_moved_whole(what, pl, trial, g.size, cap, n);
        }
        free(cap), free(dense), free(dcap), free(pl), free(trial), free(slots);
        smp_stencil_free(&st);
    }
    assert_true(unequal > 0); /* the instances had unequal nodes */
}

/* Heterogeneous nodes on purpose: 8 x 8 grid, nodes of 8 and 4 ranks
 * alternating (4, 8, 4, ...) in a scrambled plan; every share is kept by both ways. */
static void test_node_order_unequal_shares(void **state)
{
    (void)state;
    smp_error err;
    smp_grid g;
    smp_stencil st;
    int64_t dims[2] = {8, 8};
    assert_ok(smp_grid_init(&g, 2, dims, NULL, &err), err);
    assert_ok(smp_stencil_family(&st, "nearest", 2, &err), err);
    int n = 11; /* 5 x 8 + 6 x 4 = 64 */
    int32_t cap[11], dense[11], pl[64], trial[64];
    for (int v = 0; v < n; v++) {
        cap[v] = v % 2 ? 8 : 4;
        dense[v] = v;
    }
    int64_t r = 0; /* row-major runs of each node, nodes in a scrambled order */
    for (int k = 0; k < n; k++) {
        int v = (k * 7) % n;
        for (int j = 0; j < cap[v]; j++)
            pl[r++] = v;
    }
    assert_int_equal(r, 64);
    smp_score before, after;
    assert_ok(smp_score_compute(&g, &st, pl, n, &before, &err), err);
    for (int way = 0; way < SMP_NODE_ORDER_COUNT; way++) {
        memcpy(trial, pl, sizeof(pl));
        assert_ok(smp_relabel_node_order(&g, &st, cap, dense, n, n, SMP_OBJ_MAX,
                                         (smp_node_order)way, trial, &err),
                  err);
        assert_ok(smp_score_compute(&g, &st, trial, n, &after, &err), err);
        assert_same_score("unequal shares", &before, &after);
        tu_assert_shares("unequal shares", trial, 64, cap, n);
        assert_blocks_moved_whole("unequal shares", pl, trial, 64, cap, n);
    }
    smp_stencil_free(&st);
}

/* The sum over inter-node edges of how far apart the two nodes are in
 * node order. */
static int64_t order_distance(const int32_t *pl, int rows, int cols)
{
    int64_t d = 0;
    for (int i = 0; i < rows; i++)
        for (int j = 0; j < cols; j++) {
            int32_t a = pl[i * cols + j];
            if (j + 1 < cols)
                d += labs((long)a - pl[i * cols + j + 1]);
            if (i + 1 < rows)
                d += labs((long)a - pl[(i + 1) * cols + j]);
        }
    return d;
}

/* 16 x 16 grid, 64 nodes of 2 x 2 blocks numbered 37k mod 64 (neighbours
 * far apart in node order): along the grid they come back in blocked's
 * order, block (I, J) on node 8I + J. */
static void test_node_order_scrambled_blocks(void **state)
{
    (void)state;
    smp_error err;
    smp_grid g;
    smp_stencil st;
    int64_t dims[2] = {16, 16};
    assert_ok(smp_grid_init(&g, 2, dims, NULL, &err), err);
    assert_ok(smp_stencil_family(&st, "nearest", 2, &err), err);
    int n = 64;
    int32_t cap[64], dense[64], pl[256];
    for (int v = 0; v < n; v++) {
        cap[v] = 4;
        dense[v] = v;
    }
    for (int i = 0; i < 16; i++)
        for (int j = 0; j < 16; j++)
            pl[i * 16 + j] = (int32_t)((((i / 2) * 8 + j / 2) * 37) % 64);
    int64_t far = order_distance(pl, 16, 16);
    assert_ok(smp_relabel_node_order(&g, &st, cap, dense, n, n, SMP_OBJ_MAX, SMP_NODE_ORDER_GRID,
                                     pl, &err),
              err);
    for (int i = 0; i < 16; i++)
        for (int j = 0; j < 16; j++)
            if (pl[i * 16 + j] != (i / 2) * 8 + j / 2)
                fail_msg("rank (%d, %d) on node %d, not %d", i, j, pl[i * 16 + j],
                         (i / 2) * 8 + j / 2);
    int64_t near = order_distance(pl, 16, 16);
    assert_true(near * 2 < far);
    smp_stencil_free(&st);
}

/* auto without a topology: shares kept, its figures what scoring its plan
 * gives (j_max_node names the physical node), and the same figures as
 * with levels that put every used node in one leaf. */
static void test_node_order_plan_figures(void **state)
{
    (void)state;
    tu_rng rng = {3604};
    smp_error err;
    for (int it = 0; it < 30; it++) {
        smp_grid g;
        smp_stencil st;
        int32_t *slots;
        int n;
        char what[256];
        tu_random_instance(&rng, &g, &st, &slots, &n, what, sizeof(what));
        smp_plan_opts o = {.algorithm = SMP_ALG_AUTO, .objective = SMP_OBJ_MAX, .effort = 1};
        smp_placement plain, one;
        assert_ok(smp_plan_with(&g, &st, slots, n, &o, &plain, &err), err);
        int32_t *cap = tu_shares_of(slots, n, g.size);
        tu_assert_shares(what, plain.node_of_rank, g.size, cap, n);
        smp_score re;
        assert_ok(smp_score_compute(&g, &st, plain.node_of_rank, n, &re, &err), err);
        assert_same_score(what, &plain.score, &re);
        assert_int_equal(plain.score.j_max_node, re.j_max_node);
        smp_levels lv = {.nlevels = 1, .nnodes = n, .ngroups = {n}};
        lv.group_of_node[0] = malloc(sizeof(int32_t) * (size_t)n);
        assert_non_null(lv.group_of_node[0]);
        for (int v = 0; v < n; v++)
            lv.group_of_node[0][v] = cap[v] > 0 ? 0 : v;
        o.levels = &lv;
        assert_ok(smp_plan_with(&g, &st, slots, n, &o, &one, &err), err);
        assert_same_score(what, &plain.score, &one.score);
        free(lv.group_of_node[0]);
        free(cap);
        free(slots);
        smp_placement_free(&plain);
        smp_placement_free(&one);
        smp_stencil_free(&st);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_node_order_keeps_figures),
        cmocka_unit_test(test_node_order_unequal_shares),
        cmocka_unit_test(test_node_order_scrambled_blocks),
        cmocka_unit_test(test_node_order_plan_figures),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
