/* SPDX-License-Identifier: GPL-2.0-or-later */
/* bisect and folding: exact shares at any node sizes (including splits as
 * uneven as one huge node among many of one rank), scores the scorer
 * reproduces, cuts that follow the stencil, and folding that reaches the
 * proven optimum of 2-D "component" instances. */
#include "unit_util.h"

#include "construct/construct.h"

/* 1 node of 600 ranks among 400 nodes of 1 and back: deep, uneven splits. */
static void test_bisect_uneven(void **state)
{
    (void)state;
    smp_error err;
    smp_grid g;
    smp_stencil st;
    int64_t dims[2] = {40, 25};
    assert_ok(smp_grid_init(&g, 2, dims, NULL, &err), err);
    assert_ok(smp_stencil_family(&st, "hops", 2, &err), err);
    int n = 401;
    int32_t *cap = malloc(sizeof(int32_t) * (size_t)n), *pl = malloc(sizeof(int32_t) * 1000);
    assert_non_null(cap);
    assert_non_null(pl);
    for (int order = 0; order < 3; order++) {
        for (int i = 0; i < n; i++)
            cap[i] = 1;
        cap[order == 0 ? 0 : order == 1 ? n - 1 : n / 2] = 600;
        assert_ok(smp_place_bisect(&g, &st, cap, n, pl, &err), err);
        tu_assert_shares("bisect uneven", pl, 1000, cap, n);
    }
    free(cap);
    free(pl);
    smp_stencil_free(&st);
}

/* A 12x12 grid on 4 nodes of 36 with 5 points: bisect must find the 6x6
 * quadrants (J_sum 48); with a stencil that only talks along x it must
 * cut only across y (J_sum 0). */
static void test_bisect_follows_stencil(void **state)
{
    (void)state;
    smp_error err;
    smp_grid g;
    smp_stencil st;
    int64_t dims[2] = {12, 12};
    int32_t cap[4] = {36, 36, 36, 36}, pl[144];
    assert_ok(smp_grid_init(&g, 2, dims, NULL, &err), err);
    assert_ok(smp_stencil_family(&st, "nearest", 2, &err), err);
    assert_ok(smp_place_bisect(&g, &st, cap, 4, pl, &err), err);
    tu_assert_shares("bisect 12x12", pl, 144, cap, 4);
    smp_score sc;
    assert_ok(smp_score_compute(&g, &st, pl, 4, &sc, &err), err);
    assert_int_equal(sc.j_sum, 48);
    smp_stencil_free(&st);
    int32_t offs[] = {1, 0, -1, 0};
    assert_ok(smp_stencil_init(&st, 2, 2, offs, NULL, "stencil", &err), err);
    assert_ok(smp_place_bisect(&g, &st, cap, 4, pl, &err), err);
    assert_ok(smp_score_compute(&g, &st, pl, 4, &sc, &err), err);
    assert_int_equal(sc.j_sum, 0);
    smp_stencil_free(&st);
}

static void test_bisect_random(void **state)
{
    (void)state;
    tu_rng rng = {99};
    for (int trial = 0; trial < 1500; trial++) {
        smp_grid g;
        smp_stencil st;
        int32_t *slots;
        int nnodes;
        char what[300];
        smp_error err;
        tu_random_instance(&rng, &g, &st, &slots, &nnodes, what, sizeof(what));
        smp_placement pl;
        assert_ok(smp_plan(&g, &st, slots, nnodes, SMP_ALG_BISECT, &pl, &err), err);
        int32_t *cap = calloc((size_t)nnodes, sizeof(int32_t));
        assert_non_null(cap);
        int64_t left = g.size;
        for (int i = 0; i < nnodes && left > 0; i++) {
            cap[i] = (int32_t)(left < slots[i] ? left : slots[i]);
            left -= cap[i];
        }
        tu_assert_shares(what, pl.node_of_rank, g.size, cap, nnodes);
        tu_score ref;
        tu_brute_score(g.ndims, g.dims, g.periods, st.count, st.offsets, st.weights, pl.node_of_rank, nnodes,
                       &ref);
        assert_int_equal(ref.j_sum, pl.score.j_sum);
        assert_int_equal(ref.j_max, pl.score.j_max);
        /* fold: whenever the stencil leaves an axis out, every construction
         * on every folded grid keeps the shares too */
        bool zero[SMP_MAX_DIMS];
        if (smp_fold_zero_axes(&g, &st, zero) > 0) {
            int32_t *fp = malloc(sizeof(int32_t) * (size_t)g.size);
            int used = 0;
            while (used < nnodes && cap[used] > 0)
                used++;
            assert_non_null(fp);
            for (int ax = 0; ax < g.ndims; ax++) {
                if (zero[ax]) {
                    assert_err(smp_place_folded(smp_place_strips, &g, &st, cap, used, ax, fp, &err),
                               SMP_ERR_INPUT, err, "fold");
                    continue;
                }
                assert_ok(smp_place_folded(smp_place_bisect, &g, &st, cap, used, ax, fp, &err), err);
                tu_assert_shares(what, fp, g.size, cap, used);
                assert_ok(smp_place_folded(smp_place_hyperplane, &g, &st, cap, used, ax, fp, &err), err);
                tu_assert_shares(what, fp, g.size, cap, used);
            }
            free(fp);
        }
        free(cap);
        smp_placement_free(&pl);
        free(slots);
        smp_stencil_free(&st);
    }
}

/* 2-D component (offsets along x only): paths of a = dims[0] ranks.  The
 * optimum is 2 (N - ab / lcm(a, n)) (tests/bench/bench_paper.c has the
 * argument); blocked on the folded grid reaches it and so must auto. */
static void test_fold_component_optimum(void **state)
{
    (void)state;
    smp_error err;
    for (int64_t a = 5; a <= 14; a++)
        for (int64_t b = 2; b <= 9; b++)
            for (int n = 3; n <= 17; n++) {
                if ((a * b) % n)
                    continue;
                int N = (int)(a * b / n);
                smp_grid g;
                smp_stencil st;
                int64_t dims[2] = {a, b};
                assert_ok(smp_grid_init(&g, 2, dims, NULL, &err), err);
                assert_ok(smp_stencil_family(&st, "component", 2, &err), err);
                int32_t *slots = malloc(sizeof(int32_t) * (size_t)N);
                assert_non_null(slots);
                for (int i = 0; i < N; i++)
                    slots[i] = n;
                int64_t x = a, y = n;
                while (y) {
                    int64_t t = x % y;
                    x = y;
                    y = t;
                }
                int64_t opt = 2 * (N - a * b / (a / x * n));
                smp_placement pl;
                assert_ok(smp_plan(&g, &st, slots, N, SMP_ALG_AUTO, &pl, &err), err);
                if (pl.score.j_sum != opt)
                    fail_msg("component %lldx%lld, %d nodes of %d: auto %lld, optimum %lld", (long long)a,
                             (long long)b, N, n, (long long)pl.score.j_sum, (long long)opt);
                smp_placement_free(&pl);
                free(slots);
                smp_stencil_free(&st);
            }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_bisect_uneven),
        cmocka_unit_test(test_bisect_follows_stencil),
        cmocka_unit_test(test_bisect_random),
        cmocka_unit_test(test_fold_component_optimum),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
