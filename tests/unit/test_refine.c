/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Refinement: on random grids, stencils (weighted, asymmetric, periodic)
 * and node mixes, from random and constructed placements, every node keeps
 * exactly its ranks, J_sum (weighted when weighted) never rises, the
 * reported score is the naive scorer's, and the result is deterministic.
 * Also: it finds the optimum of a small case it must find, respects a tiny
 * budget, and names the field of bad input. */
#include "unit_util.h"

static void test_refine_random(void **state)
{
    (void)state;
    tu_rng rng = {2024};
    int improved = 0, weighted_runs = 0, periodic_runs = 0, runs = 0;
    for (int trial = 0; trial < 1500; trial++) {
        smp_grid g;
        smp_stencil st;
        int32_t *slots;
        int nnodes;
        char what[300];
        smp_error err;
        tu_random_instance(&rng, &g, &st, &slots, &nnodes, what, sizeof(what));
        int64_t p = g.size;
        int32_t *cap = tu_shares_of(slots, nnodes, p);
        int32_t *pl = malloc(sizeof(int32_t) * (size_t)p), *again = malloc(sizeof(int32_t) * (size_t)p);
        assert_non_null(pl);
        assert_non_null(again);
        /* half from a random placement, half from a construction */
        tu_start_placement(&rng, &g, &st, slots, nnodes, cap, trial % 2 != 0, false, pl);
        memcpy(again, pl, sizeof(int32_t) * (size_t)p);
        tu_score before;
        tu_brute_score(g.ndims, g.dims, g.periods, st.count, st.offsets, st.weights, pl, nnodes, &before);
        int64_t budget = trial % 7 == 0 ? tu_range(&rng, 1, 4 * p) : 0;
        smp_refine_stats rs;
        assert_ok(smp_refine(&g, &st, pl, nnodes, budget, &rs, &err), err);
        tu_assert_shares(what, pl, p, cap, nnodes);
        tu_score after;
        tu_brute_score(g.ndims, g.dims, g.periods, st.count, st.offsets, st.weights, pl, nnodes, &after);
        bool weighted = smp_stencil_weighted(&st);
        if (weighted ? after.w_sum > before.w_sum + 1e-9 : after.j_sum > before.j_sum)
            fail_msg("%s: refinement made it worse: %lld (%g) -> %lld (%g)", what, (long long)before.j_sum,
                     before.w_sum, (long long)after.j_sum, after.w_sum);
        /* the stats are the scores of the input and of the result */
        if (rs.before.j_sum != before.j_sum || rs.after.j_sum != after.j_sum ||
            rs.after.j_max != after.j_max || !tu_close(rs.after.w_sum, after.w_sum))
            fail_msg("%s: stats say %lld -> %lld/%lld, the scorer %lld -> %lld/%lld", what,
                     (long long)rs.before.j_sum, (long long)rs.after.j_sum, (long long)rs.after.j_max,
                     (long long)before.j_sum, (long long)after.j_sum, (long long)after.j_max);
        /* deterministic: the same input gives the same placement */
        smp_refine_stats rs2;
        assert_ok(smp_refine(&g, &st, again, nnodes, budget, &rs2, &err), err);
        if (memcmp(pl, again, sizeof(int32_t) * (size_t)p) != 0)
            fail_msg("%s: two runs on the same input differ", what);
        assert_int_equal(rs.work, rs2.work);
        improved += weighted ? after.w_sum < before.w_sum : after.j_sum < before.j_sum;
        weighted_runs += weighted;
        periodic_runs += g.periods[0];
        runs++;
        free(pl);
        free(again);
        free(cap);
        free(slots);
        smp_stencil_free(&st);
    }
    /* the generator covered what it should, and refinement did something */
    assert_true(weighted_runs > 100);
    assert_true(periodic_runs > 300);
    assert_true(improved > runs / 4);
}

/* Objective max: on the same random instances, every node keeps its
 * ranks, (J_max, J_sum) never rises, the stats are the scorer's, runs are
 * deterministic, and J_max comes down on a fair share of the runs. */
static void test_refine_max_random(void **state)
{
    (void)state;
    tu_rng rng = {1717};
    int lowered = 0, runs = 0, weighted_runs = 0;
    for (int trial = 0; trial < 1200; trial++) {
        smp_grid g;
        smp_stencil st;
        int32_t *slots;
        int nnodes;
        char what[300];
        smp_error err;
        tu_random_instance(&rng, &g, &st, &slots, &nnodes, what, sizeof(what));
        int64_t p = g.size;
        int32_t *cap = tu_shares_of(slots, nnodes, p);
        int32_t *pl = malloc(sizeof(int32_t) * (size_t)p), *again = malloc(sizeof(int32_t) * (size_t)p);
        assert_non_null(pl);
        assert_non_null(again);
        tu_start_placement(&rng, &g, &st, slots, nnodes, cap, trial % 2 != 0, false, pl);
        memcpy(again, pl, sizeof(int32_t) * (size_t)p);
        tu_score before, after;
        tu_brute_score(g.ndims, g.dims, g.periods, st.count, st.offsets, st.weights, pl, nnodes, &before);
        int64_t budget = trial % 7 == 0 ? tu_range(&rng, 1, 4 * p) : 0;
        smp_refine_stats rs;
        assert_ok(smp_refine_for(&g, &st, pl, nnodes, budget, SMP_OBJ_MAX, &rs, &err), err);
        tu_assert_shares(what, pl, p, cap, nnodes);
        tu_brute_score(g.ndims, g.dims, g.periods, st.count, st.offsets, st.weights, pl, nnodes, &after);
        bool weighted = smp_stencil_weighted(&st);
        if (tu_worse_for(&after, &before, weighted, SMP_OBJ_MAX))
            fail_msg("%s: max refinement made it worse: J_max %lld (%g) J_sum %lld (%g) -> %lld (%g) %lld (%g)",
                     what, (long long)before.j_max, before.w_max, (long long)before.j_sum, before.w_sum,
                     (long long)after.j_max, after.w_max, (long long)after.j_sum, after.w_sum);
        if (rs.after.j_sum != after.j_sum || rs.after.j_max != after.j_max ||
            !tu_close(rs.after.w_max, after.w_max))
            fail_msg("%s: stats say %lld/%lld, the scorer %lld/%lld", what, (long long)rs.after.j_sum,
                     (long long)rs.after.j_max, (long long)after.j_sum, (long long)after.j_max);
        smp_refine_stats rs2;
        assert_ok(smp_refine_for(&g, &st, again, nnodes, budget, SMP_OBJ_MAX, &rs2, &err), err);
        if (memcmp(pl, again, sizeof(int32_t) * (size_t)p) != 0)
            fail_msg("%s: two runs on the same input differ", what);
        lowered += weighted ? after.w_max < before.w_max - 1e-9 : after.j_max < before.j_max;
        weighted_runs += weighted;
        runs++;
        free(pl);
        free(again);
        free(cap);
        free(slots);
        smp_stencil_free(&st);
    }
    assert_true(weighted_runs > 100);
    assert_true(lowered > runs / 5);
}

/* Two nodes of 8 on a 4x4 grid, 5-point: the two halves with one pair of
 * cells swapped across the middle.  Swapping them back gives the straight
 * cut (4 edges each way), the optimum of J_max and of J_sum; objective max
 * must find it, and an unknown objective is refused. */
static void test_refine_max_small(void **state)
{
    (void)state;
    smp_grid g;
    smp_stencil st;
    smp_error err;
    int64_t dims[2] = {4, 4};
    assert_ok(smp_grid_init(&g, 2, dims, NULL, &err), err);
    assert_ok(smp_stencil_family(&st, "nearest", 2, &err), err);
    int32_t pl[16];
    for (int r = 0; r < 16; r++)
        pl[r] = (r % 4) < 2 ? 0 : 1;
    pl[5] = 1; /* (1,1) */
    pl[6] = 0; /* (1,2) */
    smp_score sc;
    assert_ok(smp_score_compute(&g, &st, pl, 2, &sc, &err), err);
    assert_true(sc.j_max > 4);
    smp_refine_stats rs;
    assert_ok(smp_refine_for(&g, &st, pl, 2, 0, SMP_OBJ_MAX, &rs, &err), err);
    assert_ok(smp_score_compute(&g, &st, pl, 2, &sc, &err), err);
    assert_int_equal(sc.j_max, 4);
    assert_int_equal(sc.j_sum, 8);
    assert_err(smp_refine_for(&g, &st, pl, 2, 0, (smp_objective)7, &rs, &err), SMP_ERR_INPUT, err,
               "objective");
    smp_stencil_free(&st);
}

/* 8x2 grid, 5-point, two nodes of 8: the optimum cuts the two edges
 * across the middle, 4 directed edges.  Start from it with two cells
 * swapped across the cut; refinement must find the optimum again. */
static void test_refine_finds_optimum(void **state)
{
    (void)state;
    smp_error err;
    smp_grid g;
    smp_stencil st;
    int64_t dims[2] = {8, 2};
    assert_ok(smp_grid_init(&g, 2, dims, NULL, &err), err);
    assert_ok(smp_stencil_family(&st, "nearest", 2, &err), err);
    int32_t pl[16];
    for (int r = 0; r < 16; r++)
        pl[r] = r < 8 ? 0 : 1;
    pl[0] = 1; /* row 0 of node 0 swaps a cell with row 7 of node 1 */
    pl[15] = 0;
    smp_score sc;
    assert_ok(smp_score_compute(&g, &st, pl, 2, &sc, &err), err);
    assert_true(sc.j_sum > 4);
    smp_refine_stats rs;
    assert_ok(smp_refine(&g, &st, pl, 2, 0, &rs, &err), err);
    assert_int_equal(rs.after.j_sum, 4);
    assert_ok(smp_score_compute(&g, &st, pl, 2, &sc, &err), err);
    assert_int_equal(sc.j_sum, 4);
    int n0 = 0;
    for (int r = 0; r < 16; r++)
        n0 += pl[r] == 0;
    assert_int_equal(n0, 8);
    smp_stencil_free(&st);
}

/* Weights steer the result: with the cut across x costing 10 times a cut
 * across y, a 4x4 grid on two nodes must end split across y (two 4x2
 * halves side by side in y), whatever it started from. */
static void test_refine_weights(void **state)
{
    (void)state;
    smp_error err;
    smp_grid g;
    smp_stencil st;
    int64_t dims[2] = {4, 4};
    int32_t offs[] = {1, 0, -1, 0, 0, 1, 0, -1};
    double w[] = {10, 10, 1, 1};
    assert_ok(smp_grid_init(&g, 2, dims, NULL, &err), err);
    assert_ok(smp_stencil_init(&st, 2, 4, offs, w, "stencil", &err), err);
    int32_t pl[16];
    for (int r = 0; r < 16; r++)
        pl[r] = r < 8 ? 0 : 1; /* rows 0-1 vs 2-3: cuts the heavy x edges */
    smp_refine_stats rs;
    assert_ok(smp_refine(&g, &st, pl, 2, 0, &rs, &err), err);
    /* best: columns 0-1 vs 2-3, cutting 4 light edges each way: w_sum 8 */
    assert_true(tu_close(rs.before.w_sum, 80));
    if (!tu_close(rs.after.w_sum, 8))
        fail_msg("weighted refinement ended at w_sum %g, optimum is 8", rs.after.w_sum);
    smp_stencil_free(&st);
}

/* A budget too small for one look at every rank changes nothing. */
static void test_refine_tiny_budget(void **state)
{
    (void)state;
    smp_error err;
    smp_grid g;
    smp_stencil st;
    int64_t dims[2] = {6, 6};
    assert_ok(smp_grid_init(&g, 2, dims, NULL, &err), err);
    assert_ok(smp_stencil_family(&st, "nearest", 2, &err), err);
    tu_rng rng = {5};
    int32_t cap[4] = {9, 9, 9, 9}, pl[36], orig[36];
    tu_random_placement(&rng, cap, 4, 36, pl);
    memcpy(orig, pl, sizeof(pl));
    smp_refine_stats rs;
    assert_ok(smp_refine(&g, &st, pl, 4, 1, &rs, &err), err);
    assert_memory_equal(pl, orig, sizeof(pl));
    assert_int_equal(rs.moves, 0);
    /* while the default budget improves the same random start */
    assert_ok(smp_refine(&g, &st, pl, 4, 0, &rs, &err), err);
    assert_true(rs.after.j_sum < rs.before.j_sum);
    smp_stencil_free(&st);
}

static void test_refine_bad_input(void **state)
{
    (void)state;
    smp_error err;
    smp_grid g;
    smp_stencil st;
    int64_t dims[2] = {2, 2};
    assert_ok(smp_grid_init(&g, 2, dims, NULL, &err), err);
    assert_ok(smp_stencil_family(&st, "nearest", 2, &err), err);
    int32_t pl[4] = {0, 0, 1, 5};
    assert_err(smp_refine(&g, &st, pl, 2, 0, NULL, &err), SMP_ERR_INPUT, err, "placement: rank 3");
    assert_err(smp_refine(&g, &st, pl, 0, 0, NULL, &err), SMP_ERR_INPUT, err, "nodes");
    smp_stencil st3;
    assert_ok(smp_stencil_family(&st3, "nearest", 3, &err), err);
    pl[3] = 1;
    assert_err(smp_refine(&g, &st3, pl, 2, 0, NULL, &err), SMP_ERR_INPUT, err, "stencil");
    smp_stencil_free(&st);
    smp_stencil_free(&st3);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_refine_random),        cmocka_unit_test(test_refine_finds_optimum),
        cmocka_unit_test(test_refine_weights),       cmocka_unit_test(test_refine_tiny_budget),
        cmocka_unit_test(test_refine_bad_input),
        cmocka_unit_test(test_refine_max_random),    cmocka_unit_test(test_refine_max_small),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
