/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The network levels above the nodes in the placement core: their checks,
 * the scores between groups against the reference scorer, and planning on
 * them (every share kept, the reported scores the reference's, the
 * group figures never worse than the plan without levels, no change at
 * all without levels). */
#include "unit_util.h"

/* Random levels over n nodes: level 0 any grouping (consecutive or
 * scattered, uneven), each level above merging the groups below. */
static void random_levels(tu_rng *rng, int n, smp_levels *lv)
{
    memset(lv, 0, sizeof(*lv));
    lv->nnodes = n;
    lv->nlevels = (int)tu_range(rng, 1, 3);
    int32_t *remap = NULL;
    for (int l = 0; l < lv->nlevels; l++) {
        int below = l ? lv->ngroups[l - 1] : n;
        free(remap);
        remap = malloc(sizeof(int32_t) * (size_t)below);
        assert_non_null(remap);
        int k = (int)tu_range(rng, 1, below);
        int32_t *up = malloc(sizeof(int32_t) * (size_t)below);
        assert_non_null(up);
        bool consecutive = tu_range(rng, 0, 1);
        for (int i = 0; i < below; i++)
            up[i] = consecutive ? (int32_t)((int64_t)i * k / below) : (int32_t)tu_range(rng, 0, k - 1);
        /* groups numbered densely, in order of first use */
        for (int i = 0; i < k; i++)
            remap[i] = -1;
        int used = 0;
        for (int i = 0; i < below; i++) {
            if (remap[up[i]] < 0)
                remap[up[i]] = used++;
            up[i] = remap[up[i]];
        }
        /* sometimes group numbers no node uses (the levels allow them):
         * the used ones spread out, the others left empty */
        int spare = tu_range(rng, 0, 3) == 0 ? (int)tu_range(rng, 1, 3) : 0;
        if (used * (spare + 1) > n) /* smp_levels_check: at most a group per node */
            spare = 0;
        if (spare)
            for (int i = 0; i < below; i++)
                up[i] = up[i] * (spare + 1);
        lv->ngroups[l] = spare ? used * (spare + 1) : used;
        lv->group_of_node[l] = malloc(sizeof(int32_t) * (size_t)n);
        assert_non_null(lv->group_of_node[l]);
        for (int v = 0; v < n; v++)
            lv->group_of_node[l][v] = up[l ? lv->group_of_node[l - 1][v] : v];
        free(up);
    }
    free(remap);
}

/* Groups of `size` consecutive nodes, one level. */
static void consecutive_levels(int n, int size, smp_levels *lv)
{
    memset(lv, 0, sizeof(*lv));
    lv->nnodes = n;
    lv->nlevels = 1;
    lv->ngroups[0] = (n + size - 1) / size;
    lv->group_of_node[0] = malloc(sizeof(int32_t) * (size_t)n);
    assert_non_null(lv->group_of_node[0]);
    for (int v = 0; v < n; v++)
        lv->group_of_node[0][v] = v / size;
}

/* The reference: the groups of level l as nodes of the naive scorer. */
static void brute_level(const smp_grid *g, const smp_stencil *st, const int32_t *pl,
                        const smp_levels *lv, int l, tu_score *out)
{
    int32_t *gr = malloc(sizeof(int32_t) * (size_t)g->size);
    assert_non_null(gr);
    for (int64_t r = 0; r < g->size; r++)
        gr[r] = lv->group_of_node[l][pl[r]];
    tu_brute_score(g->ndims, g->dims, g->periods, st->count, st->offsets, st->weights, gr,
                   lv->ngroups[l], out);
    free(gr);
}

static void assert_same_score(const char *what, const smp_score *got, const tu_score *want)
{
    if (got->j_sum != want->j_sum || got->j_max != want->j_max ||
        !tu_close(got->w_sum, want->w_sum) || !tu_close(got->w_max, want->w_max))
        fail_msg("%s: scored %lld/%lld (%g/%g), the reference %lld/%lld (%g/%g)", what,
                 (long long)got->j_sum, (long long)got->j_max, got->w_sum, got->w_max,
                 (long long)want->j_sum, (long long)want->j_max, want->w_sum, want->w_max);
}

static void test_levels_score_reference(void **state)
{
    (void)state;
    tu_rng rng = {101};
    smp_error err;
    for (int it = 0; it < 150; it++) {
        smp_grid g;
        smp_stencil st;
        int32_t *slots;
        int n;
        char what[256];
        tu_random_instance(&rng, &g, &st, &slots, &n, what, sizeof(what));
        int32_t *cap = tu_shares_of(slots, n, g.size);
        int32_t *pl = malloc(sizeof(int32_t) * (size_t)g.size);
        assert_non_null(pl);
        tu_random_placement(&rng, cap, n, g.size, pl);
        smp_levels lv;
        random_levels(&rng, n, &lv);
        smp_score sc[SMP_MAX_LEVELS];
        assert_ok(smp_levels_score_compute(&g, &st, pl, n, &lv, sc, &err), err);
        for (int l = 0; l < lv.nlevels; l++) {
            tu_score want;
            brute_level(&g, &st, pl, &lv, l, &want);
            assert_same_score(what, &sc[l], &want);
        }
        smp_levels_free(&lv);
        free(pl);
        free(cap);
        free(slots);
        smp_stencil_free(&st);
    }
}

static void test_levels_check(void **state)
{
    (void)state;
    smp_error err;
    int32_t l0[4] = {0, 0, 1, 1}, l1[4] = {0, 1, 1, 1}, bad[4] = {0, 0, 2, 1};
    smp_levels lv = {.nlevels = 2, .nnodes = 4, .ngroups = {2, 2}, .group_of_node = {l0, l1}};
    assert_err(smp_levels_check(&lv, 4, &err), SMP_ERR_INPUT, err,
               "levels[0]: group 0 lies in groups 0 and 1 of level 1 (node 1)");
    lv.nlevels = 1;
    assert_ok(smp_levels_check(&lv, 4, &err), err);
    assert_err(smp_levels_check(&lv, 5, &err), SMP_ERR_INPUT, err,
               "levels: made for 4 nodes, the step has 5");
    lv.group_of_node[0] = bad;
    assert_err(smp_levels_check(&lv, 4, &err), SMP_ERR_INPUT, err, "levels[0]: node 2 in group 2 of 2");
    lv.nlevels = SMP_MAX_LEVELS + 1;
    assert_err(smp_levels_check(&lv, 4, &err), SMP_ERR_INPUT, err, "levels: 5 given, at most 4");
    /* planning refuses them the same way */
    lv.nlevels = 1;
    smp_grid g;
    smp_stencil st;
    int64_t dims[1] = {8};
    bool per[1] = {false};
    assert_ok(smp_grid_init(&g, 1, dims, per, &err), err);
    assert_ok(smp_stencil_family(&st, "nearest", 1, &err), err);
    int32_t slots[4] = {2, 2, 2, 2};
    smp_plan_opts o = {.algorithm = SMP_ALG_AUTO, .objective = SMP_OBJ_MAX, .levels = &lv};
    smp_placement pl;
    assert_err(smp_plan_with(&g, &st, slots, 4, &o, &pl, &err), SMP_ERR_INPUT, err,
               "levels[0]: node 2 in group 2 of 2");
    lv.group_of_node[0] = l0;
    o.levels_mode = SMP_LEVELS_MODE_COUNT;
    assert_err(smp_plan_with(&g, &st, slots, 4, &o, &pl, &err), SMP_ERR_INPUT, err,
               "levels mode: unknown");
    smp_stencil_free(&st);
}

/* Without levels (NULL or none) the plan is byte for byte the old one. */
static void test_no_levels_identical(void **state)
{
    (void)state;
    tu_rng rng = {202};
    smp_error err;
    smp_levels none = {0};
    for (int it = 0; it < 120; it++) {
        smp_grid g;
        smp_stencil st;
        int32_t *slots;
        int n;
        char what[256];
        tu_random_instance(&rng, &g, &st, &slots, &n, what, sizeof(what));
        if (tu_range(&rng, 0, 3) == 0)
            g.order = SMP_ORDER_COLUMN_MAJOR;
        smp_objective obj = tu_range(&rng, 0, 1) ? SMP_OBJ_MAX : SMP_OBJ_SUM;
        smp_algorithm alg = tu_range(&rng, 0, 2) ? SMP_ALG_AUTO
                                                 : (smp_algorithm)tu_range(&rng, 1, SMP_ALG_COUNT - 1);
        smp_plan_opts a = {.algorithm = alg, .objective = obj, .effort = 1};
        smp_plan_opts b = a, c = a;
        b.levels = &none;
        c.levels = &none;
        c.levels_mode = SMP_LEVELS_GROUPS_FIRST;
        smp_placement pa, pb, pc;
        smp_status sa = smp_plan_with(&g, &st, slots, n, &a, &pa, &err);
        smp_status sb = smp_plan_with(&g, &st, slots, n, &b, &pb, &err);
        smp_status sc = smp_plan_with(&g, &st, slots, n, &c, &pc, &err);
        if (sa != sb || sa != sc)
            fail_msg("%s: status %d without levels, %d/%d with none", what, sa, sb, sc);
        if (!sa) {
            if (memcmp(pa.node_of_rank, pb.node_of_rank, sizeof(int32_t) * (size_t)g.size) ||
                memcmp(pa.node_of_rank, pc.node_of_rank, sizeof(int32_t) * (size_t)g.size))
                fail_msg("%s: the plan changed with an empty set of levels", what);
            if (pb.nlevels != 0 || pa.score.j_sum != pb.score.j_sum)
                fail_msg("%s: reported %d levels", what, pb.nlevels);
            smp_placement_free(&pa);
            smp_placement_free(&pb);
            smp_placement_free(&pc);
        }
        free(slots);
        smp_stencil_free(&st);
    }
}

/* Plans on random levels in every mode: exact shares, scores equal to the
 * reference's, nodes-first's node figures equal to the plan without
 * levels, and the levelled figures never worse than that plan's. */
static void test_levelled_plan_sound(void **state)
{
    (void)state;
    tu_rng rng = {303};
    smp_error err;
    for (int it = 0; it < 120; it++) {
        smp_grid g;
        smp_stencil st;
        int32_t *slots;
        int n;
        char what[300];
        tu_random_instance(&rng, &g, &st, &slots, &n, what, sizeof(what));
        int32_t *cap = tu_shares_of(slots, n, g.size);
        smp_levels lv;
        random_levels(&rng, n, &lv);
        smp_objective obj = tu_range(&rng, 0, 1) ? SMP_OBJ_MAX : SMP_OBJ_SUM;
        bool weighted = smp_stencil_weighted(&st);
        smp_plan_opts o = {.algorithm = SMP_ALG_AUTO, .objective = obj, .effort = 1};
        smp_placement plain;
        assert_ok(smp_plan_with(&g, &st, slots, n, &o, &plain, &err), err);
        smp_score plain_lv[SMP_MAX_LEVELS];
        assert_ok(smp_levels_score_compute(&g, &st, plain.node_of_rank, n, &lv, plain_lv, &err), err);
        o.levels = &lv;
        for (int m = 0; m < SMP_LEVELS_MODE_COUNT; m++) {
            o.levels_mode = (smp_levels_mode)m;
            smp_placement pl;
            assert_ok(smp_plan_with(&g, &st, slots, n, &o, &pl, &err), err);
            char w2[400];
            snprintf(w2, sizeof(w2), "%s, %d levels, mode %s, %s", what, lv.nlevels,
                     smp_levels_mode_name(o.levels_mode), smp_objective_name(obj));
            tu_assert_shares(w2, pl.node_of_rank, g.size, cap, n);
            tu_score ref;
            tu_brute_score(g.ndims, g.dims, g.periods, st.count, st.offsets, st.weights,
                           pl.node_of_rank, n, &ref);
            assert_same_score(w2, &pl.score, &ref);
            assert_int_equal(pl.nlevels, lv.nlevels);
            for (int l = 0; l < lv.nlevels; l++) {
                brute_level(&g, &st, pl.node_of_rank, &lv, l, &ref);
                assert_same_score(w2, &pl.level[l], &ref);
            }
            if (o.levels_mode == SMP_LEVELS_NODES_FIRST &&
                (pl.score.j_sum != plain.score.j_sum || pl.score.j_max != plain.score.j_max ||
                 !tu_close(pl.score.w_sum, plain.score.w_sum) ||
                 !tu_close(pl.score.w_max, plain.score.w_max)))
                fail_msg("%s: node figures %lld/%lld, without levels %lld/%lld", w2,
                         (long long)pl.score.j_sum, (long long)pl.score.j_max,
                         (long long)plain.score.j_sum, (long long)plain.score.j_max);
            if (o.levels_mode != SMP_LEVELS_GROUPS_FIRST &&
                smp_levels_better(plain_lv, &plain.score, pl.level, &pl.score, lv.nlevels,
                                  weighted, obj))
                fail_msg("%s: the levelled figures are worse than without levels", w2);
            if (o.levels_mode != SMP_LEVELS_GROUPS_FIRST) {
                /* the groups' figures, level by level from the top, never worse */
                smp_score same = pl.score;
                if (smp_levels_better(plain_lv, &same, pl.level, &same, lv.nlevels, weighted, obj))
                    fail_msg("%s: group figures worse than the plan without levels (level 0: "
                             "%lld/%lld against %lld/%lld)",
                             w2, (long long)pl.level[0].j_sum, (long long)pl.level[0].j_max,
                             (long long)plain_lv[0].j_sum, (long long)plain_lv[0].j_max);
            }
            smp_placement_free(&pl);
        }
        smp_placement_free(&plain);
        smp_levels_free(&lv);
        free(cap);
        free(slots);
        smp_stencil_free(&st);
    }
}

/* A column-major grid plans on levels as its row-major twin does. */
static void test_levels_column_major(void **state)
{
    (void)state;
    smp_error err;
    int64_t dims[3] = {6, 5, 4}, rdims[3] = {4, 5, 6};
    bool per[3] = {true, false, false}, rper[3] = {false, false, true};
    smp_grid cm, rm;
    assert_ok(smp_grid_init(&cm, 3, dims, per, &err), err);
    assert_ok(smp_grid_init(&rm, 3, rdims, rper, &err), err);
    cm.order = SMP_ORDER_COLUMN_MAJOR;
    int32_t offs[3 * 3] = {1, 0, 0, 0, 2, 0, 0, 0, -1}, roffs[3 * 3] = {0, 0, 1, 0, 2, 0, -1, 0, 0};
    double w[3] = {1, 2, 0.5};
    smp_stencil st, rst;
    assert_ok(smp_stencil_init(&st, 3, 3, offs, w, "stencil", &err), err);
    assert_ok(smp_stencil_init(&rst, 3, 3, roffs, w, "stencil", &err), err);
    int32_t slots[12];
    for (int i = 0; i < 12; i++)
        slots[i] = 10;
    smp_levels lv;
    consecutive_levels(12, 3, &lv);
    smp_plan_opts o = {.algorithm = SMP_ALG_AUTO, .objective = SMP_OBJ_MAX, .levels = &lv};
    smp_placement a, b;
    assert_ok(smp_plan_with(&cm, &st, slots, 12, &o, &a, &err), err);
    assert_ok(smp_plan_with(&rm, &rst, slots, 12, &o, &b, &err), err);
    assert_memory_equal(a.node_of_rank, b.node_of_rank, sizeof(int32_t) * 120);
    assert_int_equal(a.level[0].j_sum, b.level[0].j_sum);
    smp_score direct;
    assert_ok(smp_levels_score_compute(&cm, &st, a.node_of_rank, 12, &lv, &direct, &err), err);
    assert_int_equal(direct.j_sum, a.level[0].j_sum);
    assert_int_equal(direct.j_max, a.level[0].j_max);
    smp_placement_free(&a);
    smp_placement_free(&b);
    smp_levels_free(&lv);
    smp_stencil_free(&st);
    smp_stencil_free(&rst);
}

/* A chain of 16 ranks on 4 nodes of 4 whose switches pair nodes 0 with 2
 * and 1 with 3: the plan without levels cuts the chain between switches
 * three times, on levels once (each switch holds one half). */
static void test_levels_interleaved_switches(void **state)
{
    (void)state;
    smp_error err;
    int64_t dims[1] = {16};
    bool per[1] = {false};
    smp_grid g;
    smp_stencil st;
    assert_ok(smp_grid_init(&g, 1, dims, per, &err), err);
    assert_ok(smp_stencil_family(&st, "nearest", 1, &err), err);
    int32_t slots[4] = {4, 4, 4, 4}, sw[4] = {0, 1, 0, 1};
    smp_levels lv = {.nlevels = 1, .nnodes = 4, .ngroups = {2}, .group_of_node = {sw}};
    for (int m = 0; m < SMP_LEVELS_MODE_COUNT; m++) {
        smp_plan_opts o = {.algorithm = SMP_ALG_AUTO, .objective = SMP_OBJ_MAX, .levels = &lv,
                           .levels_mode = (smp_levels_mode)m};
        smp_placement pl;
        assert_ok(smp_plan_with(&g, &st, slots, 4, &o, &pl, &err), err);
        assert_int_equal(pl.level[0].j_sum, 2);
        assert_int_equal(pl.level[0].j_max, 1);
        assert_int_equal(pl.score.j_sum, 6); /* three node boundaries, both ways */
        smp_placement_free(&pl);
    }
    /* blocked is placed as without levels, and scored on them */
    smp_plan_opts o = {.algorithm = SMP_ALG_BLOCKED, .objective = SMP_OBJ_MAX, .levels = &lv};
    smp_placement pl;
    assert_ok(smp_plan_with(&g, &st, slots, 4, &o, &pl, &err), err);
    for (int r = 0; r < 16; r++)
        assert_int_equal(pl.node_of_rank[r], r / 4);
    assert_int_equal(pl.nlevels, 1);
    assert_int_equal(pl.level[0].j_sum, 6);
    smp_placement_free(&pl);
    smp_stencil_free(&st);
}

/* Groups first on a grid that tiles: 16x16 5-point on 16 nodes of 16 in
 * 4 switches of 4 nodes puts each switch on an 8x8 quarter. */
static void test_levels_groups_tile(void **state)
{
    (void)state;
    smp_error err;
    int64_t dims[2] = {16, 16};
    bool per[2] = {false, false};
    smp_grid g;
    smp_stencil st;
    assert_ok(smp_grid_init(&g, 2, dims, per, &err), err);
    assert_ok(smp_stencil_family(&st, "nearest", 2, &err), err);
    int32_t slots[16];
    for (int i = 0; i < 16; i++)
        slots[i] = 16;
    smp_levels lv;
    consecutive_levels(16, 4, &lv);
    smp_plan_opts o = {.algorithm = SMP_ALG_AUTO, .objective = SMP_OBJ_MAX, .levels = &lv};
    smp_placement pl;
    assert_ok(smp_plan_with(&g, &st, slots, 16, &o, &pl, &err), err);
    /* four 8x8 quarters: 2 x 16 edges cut, each way */
    assert_int_equal(pl.level[0].j_sum, 64);
    assert_int_equal(pl.level[0].j_max, 16);
    /* and 4x4 nodes inside them: 24 node boundaries of 4 edges, both ways */
    assert_int_equal(pl.score.j_sum, 192);
    assert_int_equal(pl.score.j_max, 16);
    smp_placement_free(&pl);
    smp_levels_free(&lv);
    smp_stencil_free(&st);
}

/* Ranks that all land in one group plan exactly as without levels, in
 * every mode, even where the levels split nodes that get no rank. */
static void test_levels_one_group(void **state)
{
    (void)state;
    tu_rng rng = {404};
    smp_error err;
    for (int it = 0; it < 40; it++) {
        smp_grid g;
        smp_stencil st;
        int32_t *slots;
        int n;
        char what[256];
        tu_random_instance(&rng, &g, &st, &slots, &n, what, sizeof(what));
        int32_t *cap = tu_shares_of(slots, n, g.size);
        smp_levels lv;
        consecutive_levels(n, 1, &lv); /* a group per node ... */
        for (int v = 0; v < n; v++)    /* ... but every node with ranks in group 0 */
            lv.group_of_node[0][v] = cap[v] > 0 ? 0 : v;
        smp_plan_opts o = {.algorithm = SMP_ALG_AUTO, .objective = SMP_OBJ_MAX, .effort = 1};
        smp_placement plain;
        assert_ok(smp_plan_with(&g, &st, slots, n, &o, &plain, &err), err);
        o.levels = &lv;
        for (int m = 0; m < SMP_LEVELS_MODE_COUNT; m++) {
            o.levels_mode = (smp_levels_mode)m;
            smp_placement pl;
            assert_ok(smp_plan_with(&g, &st, slots, n, &o, &pl, &err), err);
            if (memcmp(pl.node_of_rank, plain.node_of_rank, sizeof(int32_t) * (size_t)g.size))
                fail_msg("%s: the ranks fill one group, yet the plan changed (mode %d)", what, m);
            assert_int_equal(pl.level[0].j_sum, 0);
            smp_placement_free(&pl);
        }
        smp_placement_free(&plain);
        smp_levels_free(&lv);
        free(cap);
        free(slots);
        smp_stencil_free(&st);
    }
}

static void test_levels_mode_names(void **state)
{
    (void)state;
    for (int m = 0; m < SMP_LEVELS_MODE_COUNT; m++) {
        smp_levels_mode back;
        assert_true(smp_levels_mode_from_name(smp_levels_mode_name((smp_levels_mode)m), &back));
        assert_int_equal(back, m);
    }
    smp_levels_mode x;
    assert_false(smp_levels_mode_from_name("switches", &x));
    assert_false(smp_levels_mode_from_name(NULL, &x));
    assert_string_equal(smp_levels_mode_name(SMP_LEVELS_BEST), "best");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_levels_score_reference),
        cmocka_unit_test(test_levels_check),
        cmocka_unit_test(test_no_levels_identical),
        cmocka_unit_test(test_levelled_plan_sound),
        cmocka_unit_test(test_levels_column_major),
        cmocka_unit_test(test_levels_interleaved_switches),
        cmocka_unit_test(test_levels_groups_tile),
        cmocka_unit_test(test_levels_one_group),
        cmocka_unit_test(test_levels_mode_names),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
