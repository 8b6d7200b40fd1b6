/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The reference orders, cyclic and random (issue 39): exact shares on
 * unequal nodes, cyclic as the round-robin deal worked out here on its
 * own, random the same on every run and not blocked, neither better than
 * hyperplane on the thesis's 5-point grid by the reference scorer, and
 * auto never trying either. */
#include "unit_util.h"

#include "construct/construct.h"

/* Round robin the plain way: a cursor walks the nodes in turn and each
 * rank goes to the first node from it that still has room. */
static void deal_round_robin(const int32_t *cap, int n, int64_t p, int32_t *out)
{
    int32_t *given = calloc((size_t)n, sizeof(int32_t));
    assert_non_null(given);
    int at = 0;
    for (int64_t r = 0; r < p; r++) {
        while (given[at] == cap[at])
            at = (at + 1) % n;
        out[r] = at;
        given[at]++;
        at = (at + 1) % n;
    }
    free(given);
}

/* smp_plan with alg on a grid of nd dims, 5-point (or its 1-D kin) */
static void plan_nd(int nd, const int64_t *dims, const int32_t *slots, int n, smp_algorithm alg,
                    smp_placement *pl)
{
    smp_error err;
    smp_grid g;
    smp_stencil st;
    assert_ok(smp_grid_init(&g, nd, dims, NULL, &err), err);
    assert_ok(smp_stencil_family(&st, "nearest", nd, &err), err);
    assert_ok(smp_plan(&g, &st, slots, n, alg, pl, &err), err);
    if (alg != SMP_ALG_AUTO)
        assert_int_equal(pl->algorithm, alg);
    smp_stencil_free(&st);
}

static void plan_alg(const int64_t *dims, const int32_t *slots, int n, smp_algorithm alg,
                     smp_placement *pl)
{
    plan_nd(2, dims, slots, n, alg, pl);
}

/* Every share exact on 16,16,10,6, filled (48 ranks) and not (40). */
static void test_orders_shares(void **state)
{
    (void)state;
    int32_t slots[4] = {16, 16, 10, 6};
    int64_t full[2] = {8, 6}, part[2] = {8, 5};
    smp_algorithm algs[2] = {SMP_ALG_CYCLIC, SMP_ALG_RANDOM};
    for (int a = 0; a < 2; a++)
        for (int k = 0; k < 2; k++) {
            const int64_t *dims = k ? part : full;
            int64_t p = dims[0] * dims[1];
            smp_placement pl;
            plan_alg(dims, slots, 4, algs[a], &pl);
            int32_t *cap = tu_shares_of(slots, 4, p);
            tu_assert_shares(smp_algorithm_name(algs[a]), pl.node_of_rank, p, cap, 4);
            free(cap);
            smp_placement_free(&pl);
        }
}

/* cyclic is the round-robin deal: a small case by hand, then others
 * against deal_round_robin. */
static void test_cyclic_round_robin(void **state)
{
    (void)state;
    smp_error err;
    smp_grid g;
    smp_stencil st;
    int64_t six[1] = {6};
    int32_t cap[3] = {3, 1, 2}, out[6], want[6] = {0, 1, 2, 0, 2, 0};
    assert_ok(smp_grid_init(&g, 1, six, NULL, &err), err);
    assert_ok(smp_stencil_family(&st, "nearest", 1, &err), err);
    assert_ok(smp_place_cyclic(&g, &st, cap, 3, out, &err), err);
    assert_memory_equal(out, want, sizeof(want));
    smp_stencil_free(&st);
    /* filled, and with fewer ranks than slots (then a node may get none) */
    const int32_t cases[][5] = {{16, 16, 10, 6, 0}, {1, 7, 1, 7, 2}, {5, 5, 5, 5, 5}, {9, 1, 1, 1, 1}};
    const int nn[] = {4, 5, 5, 5};
    int32_t ref[48];
    for (int c = 0; c < 4; c++)
        for (int64_t less = 0; less < 4; less += 3) {
            int64_t p = -less;
            for (int i = 0; i < nn[c]; i++)
                p += cases[c][i];
            smp_placement pl;
            plan_nd(1, &p, cases[c], nn[c], SMP_ALG_CYCLIC, &pl);
            int32_t *sh = tu_shares_of(cases[c], nn[c], p);
            deal_round_robin(sh, nn[c], p, ref);
            assert_memory_equal(pl.node_of_rank, ref, sizeof(int32_t) * (size_t)p);
            free(sh);
            smp_placement_free(&pl);
        }
}

/* random: twice the same, not blocked's layout. */
static void test_random_reproducible(void **state)
{
    (void)state;
    int32_t slots[4] = {16, 16, 10, 6};
    int64_t dims[2] = {8, 6};
    smp_placement a, b, blk;
    plan_alg(dims, slots, 4, SMP_ALG_RANDOM, &a);
    plan_alg(dims, slots, 4, SMP_ALG_RANDOM, &b);
    plan_alg(dims, slots, 4, SMP_ALG_BLOCKED, &blk);
    assert_memory_equal(a.node_of_rank, b.node_of_rank, sizeof(int32_t) * 48);
    assert_memory_not_equal(a.node_of_rank, blk.node_of_rank, sizeof(int32_t) * 48);
    smp_placement_free(&a);
    smp_placement_free(&b);
    smp_placement_free(&blk);
}

/* The reference scorer's J_sum of one construction on 8x6 5-point. */
static tu_score scored(const int32_t *slots, int n, smp_algorithm alg)
{
    int64_t dims[2] = {8, 6};
    bool per[2] = {false, false};
    int32_t offs[] = {1, 0, -1, 0, 0, 1, 0, -1};
    smp_placement pl;
    tu_score sc;
    plan_alg(dims, slots, n, alg, &pl);
    tu_brute_score(2, dims, per, 4, offs, NULL, pl.node_of_rank, n, &sc);
    assert_int_equal(sc.j_sum, pl.score.j_sum);
    assert_int_equal(sc.j_max, pl.score.j_max);
    smp_placement_free(&pl);
    return sc;
}

/* On 8x6 5-point neither reference order beats hyperplane; on 4 nodes of
 * 12 cyclic cuts every edge (rank r on node r mod 4, rows of 6): 164. */
static void test_orders_no_better(void **state)
{
    (void)state;
    int32_t hetero[4] = {16, 16, 10, 6}, equal[4] = {12, 12, 12, 12};
    const int32_t *sl[2] = {hetero, equal};
    for (int k = 0; k < 2; k++) {
        tu_score h = scored(sl[k], 4, SMP_ALG_HYPERPLANE);
        tu_score c = scored(sl[k], 4, SMP_ALG_CYCLIC);
        tu_score r = scored(sl[k], 4, SMP_ALG_RANDOM);
        assert_true(c.j_sum >= h.j_sum);
        assert_true(r.j_sum >= h.j_sum);
        if (k == 1)
            assert_int_equal(c.j_sum, 164);
    }
}

/* Reference rows only: auto tries neither at any size, nor chooses them;
 * their names parse. */
static void test_orders_not_auto(void **state)
{
    (void)state;
    smp_algorithm a;
    const int64_t sizes[] = {1, 48, 8192, 1 << 20};
    for (int i = 0; i < 4; i++) {
        assert_false(smp_auto_tries(SMP_ALG_CYCLIC, sizes[i]));
        assert_false(smp_auto_tries(SMP_ALG_RANDOM, sizes[i]));
        assert_true(smp_auto_tries(SMP_ALG_BLOCKED, sizes[i]));
    }
    assert_true(smp_algorithm_from_name("cyclic", &a));
    assert_int_equal(a, SMP_ALG_CYCLIC);
    assert_true(smp_algorithm_from_name("random", &a));
    assert_int_equal(a, SMP_ALG_RANDOM);
    int32_t slots[4] = {16, 16, 10, 6};
    int64_t dims[2] = {8, 6};
    smp_placement pl;
    plan_alg(dims, slots, 4, SMP_ALG_AUTO, &pl);
    assert_true(pl.algorithm != SMP_ALG_CYCLIC && pl.algorithm != SMP_ALG_RANDOM);
    smp_placement_free(&pl);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_orders_shares),
        cmocka_unit_test(test_cyclic_round_robin),
        cmocka_unit_test(test_random_reproducible),
        cmocka_unit_test(test_orders_no_better),
        cmocka_unit_test(test_orders_not_auto),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
