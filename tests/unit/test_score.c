/* SPDX-License-Identifier: GPL-2.0-or-later */
/* J_sum / J_max against a naive reference scorer on random instances;
 * the scores off the quotient graph against the walks'. */
#include "unit_util.h"
#include "model/quotient.h"

/* A random stencil of count offsets in d dims with components in
 * [-amax, amax], no zero vector, no duplicates. */
static int random_offsets(tu_rng *rng, int d, int count, int amax, int32_t *offs)
{
    int n = 0;
    for (int tries = 0; n < count && tries < 1000; tries++) {
        int32_t *o = offs + n * d;
        bool zero = true;
        for (int i = 0; i < d; i++) {
            o[i] = (int32_t)tu_range(rng, -amax, amax);
            zero = zero && o[i] == 0;
        }
        bool dup = false;
        for (int j = 0; j < n && !dup; j++)
            dup = memcmp(o, offs + j * d, sizeof(int32_t) * (size_t)d) == 0;
        if (!zero && !dup)
            n++;
    }
    return n;
}

static void test_score_thesis_example(void **state)
{
    (void)state;
    /* 4x3 grid, 5-point stencil, 3 nodes of 4: blocked is 16 / 8 */
    smp_error err;
    smp_grid g;
    smp_stencil st;
    int64_t dims[2] = {4, 3};
    assert_ok(smp_grid_init(&g, 2, dims, NULL, &err), err);
    assert_ok(smp_stencil_family(&st, "nearest", 2, &err), err);
    int32_t blocked[12] = {0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2};
    smp_score sc;
    assert_ok(smp_score_compute(&g, &st, blocked, 3, &sc, &err), err);
    assert_int_equal(sc.j_sum, 16);
    assert_int_equal(sc.j_max, 8);
    assert_int_equal(sc.j_max_node, 1);
    assert_true(sc.w_sum == 16.0);
    assert_true(sc.w_max == 8.0);
    /* one column per node */
    int32_t cols[12] = {0, 1, 2, 0, 1, 2, 0, 1, 2, 0, 1, 2};
    assert_ok(smp_score_compute(&g, &st, cols, 3, &sc, &err), err);
    assert_int_equal(sc.j_sum, 16); /* 2 vertical cuts of 4 edges, both ways */
    assert_int_equal(sc.j_max, 8);  /* the middle column */
    assert_int_equal(sc.j_max_node, 1);
    /* everything on one node: nothing crosses */
    int32_t one[12] = {0};
    assert_ok(smp_score_compute(&g, &st, one, 1, &sc, &err), err);
    assert_int_equal(sc.j_sum, 0);
    assert_int_equal(sc.j_max, 0);
    /* periodic in both dims, every rank its own node: 4 edges each */
    bool per[2] = {true, true};
    assert_ok(smp_grid_init(&g, 2, dims, per, &err), err);
    int32_t own[12];
    for (int r = 0; r < 12; r++)
        own[r] = r;
    assert_ok(smp_score_compute(&g, &st, own, 12, &sc, &err), err);
    assert_int_equal(sc.j_sum, 48);
    assert_int_equal(sc.j_max, 4);
    smp_stencil_free(&st);
}

static void test_score_wrap_large_offsets(void **state)
{
    (void)state;
    /* 1-D periodic ring of 5, offsets +7 (== +2) and -5 (== self) */
    smp_error err;
    smp_grid g;
    smp_stencil st;
    int64_t dims[1] = {5};
    bool per[1] = {true};
    int32_t offs[2] = {7, -5};
    double w[2] = {2.0, 3.0};
    assert_ok(smp_grid_init(&g, 1, dims, per, &err), err);
    assert_ok(smp_stencil_init(&st, 1, 2, offs, w, "stencil", &err), err);
    int32_t place[5] = {0, 0, 1, 1, 1};
    smp_score sc;
    assert_ok(smp_score_compute(&g, &st, place, 2, &sc, &err), err);
    /* +2 edges: 0->2 x, 1->3 x, 2->4 ., 3->0 x, 4->1 x; -5 are self edges */
    assert_int_equal(sc.j_sum, 4);
    assert_int_equal(sc.j_max, 2);
    assert_true(tu_close(sc.w_sum, 8.0));
    assert_true(tu_close(sc.w_max, 4.0));
    /* not periodic: only 0->2, 1->3 remain; nothing else fits */
    assert_ok(smp_grid_init(&g, 1, dims, NULL, &err), err);
    assert_ok(smp_score_compute(&g, &st, place, 2, &sc, &err), err);
    assert_int_equal(sc.j_sum, 0); /* +7 never lands inside a grid of 5 */
    smp_stencil_free(&st);
}

static void test_score_rejects(void **state)
{
    (void)state;
    smp_error err;
    smp_grid g;
    smp_stencil st;
    int64_t dims[2] = {2, 2};
    assert_ok(smp_grid_init(&g, 2, dims, NULL, &err), err);
    assert_ok(smp_stencil_family(&st, "nearest", 2, &err), err);
    smp_score sc;
    int32_t bad[4] = {0, 1, 2, 0}, neg[4] = {0, -1, 0, 0};
    assert_err(smp_score_compute(&g, &st, bad, 2, &sc, &err), SMP_ERR_INPUT, err, "rank 2");
    assert_err(smp_score_compute(&g, &st, neg, 2, &sc, &err), SMP_ERR_INPUT, err, "rank 1");
    smp_stencil_free(&st);
    assert_ok(smp_stencil_family(&st, "nearest", 3, &err), err);
    int32_t ok[4] = {0};
    assert_err(smp_score_compute(&g, &st, ok, 1, &sc, &err), SMP_ERR_INPUT, err, "stencil");
    smp_stencil_free(&st);
}

static void test_score_random_vs_brute(void **state)
{
    (void)state;
    tu_rng rng = {20240601};
    int checked = 0;
    for (int trial = 0; trial < 3000; trial++) {
        smp_error err;
        smp_grid g;
        smp_stencil st;
        int d = (int)tu_range(&rng, 1, 4);
        int64_t dims[SMP_MAX_DIMS], size = 1;
        bool per[SMP_MAX_DIMS];
        int64_t maxside = d == 1 ? 40 : d == 2 ? 12 : d == 3 ? 6 : 4;
        for (int i = 0; i < d; i++) {
            dims[i] = tu_range(&rng, 1, maxside);
            per[i] = tu_range(&rng, 0, 1);
            size *= dims[i];
        }
        assert_ok(smp_grid_init(&g, d, dims, per, &err), err);
        /* offsets up to twice the largest side, so some exceed the dims */
        int amax = (int)tu_range(&rng, 1, (int)(2 * maxside));
        int want = (int)tu_range(&rng, 1, 12);
        int32_t offs[12 * 4];
        double w[12];
        int count = random_offsets(&rng, d, want, amax, offs);
        bool weighted = tu_range(&rng, 0, 1);
        for (int k = 0; k < count; k++)
            w[k] = (double)tu_range(&rng, 1, 1000) / 64.0;
        assert_ok(smp_stencil_init(&st, d, count, offs, weighted ? w : NULL, "stencil", &err), err);
        int nnodes = (int)tu_range(&rng, 1, (int)(size < 9 ? size : 9));
        int32_t *place = malloc(sizeof(int32_t) * (size_t)size);
        assert_non_null(place);
        int mode = (int)tu_range(&rng, 0, 2);
        for (int64_t r = 0; r < size; r++) /* random, contiguous or striped */
            place[r] = mode == 0   ? (int32_t)tu_range(&rng, 0, nnodes - 1)
                       : mode == 1 ? (int32_t)(r * nnodes / size)
                                   : (int32_t)(r % nnodes);
        smp_score sc;
        tu_score ref;
        assert_ok(smp_score_compute(&g, &st, place, nnodes, &sc, &err), err);
        tu_brute_score(d, dims, per, count, offs, weighted ? w : NULL, place, nnodes, &ref);
        if (sc.j_sum != ref.j_sum || sc.j_max != ref.j_max || !tu_close(sc.w_sum, ref.w_sum) ||
            !tu_close(sc.w_max, ref.w_max))
            fail_msg("trial %d (d=%d dims %lld,%lld,%lld,%lld periods %d%d%d%d, %d offsets "
                     "amax %d, %d nodes): got %lld/%lld %g/%g, want %lld/%lld %g/%g",
                     trial, d, (long long)dims[0], (long long)(d > 1 ? dims[1] : 0),
                     (long long)(d > 2 ? dims[2] : 0), (long long)(d > 3 ? dims[3] : 0), per[0],
                     d > 1 && per[1], d > 2 && per[2], d > 3 && per[3], count, amax, nnodes,
                     (long long)sc.j_sum, (long long)sc.j_max, sc.w_sum, sc.w_max,
                     (long long)ref.j_sum, (long long)ref.j_max, ref.w_sum, ref.w_max);
        /* j_max_node attains j_max: count its out-edges directly */
        if (sc.j_max > 0) {
            assert_true(sc.j_max_node >= 0 && sc.j_max_node < nnodes);
            int64_t cnt = 0;
            for (int64_t r = 0; r < size; r++) {
                if (place[r] != sc.j_max_node)
                    continue;
                int64_t c[SMP_MAX_DIMS], rest = r;
                for (int i = d - 1; i >= 0; i--) {
                    c[i] = rest % dims[i];
                    rest /= dims[i];
                }
                for (int k = 0; k < count; k++) {
                    int64_t t = 0;
                    bool in = true;
                    for (int i = 0; i < d && in; i++) {
                        int64_t x = c[i] + offs[k * d + i];
                        if (x < 0 || x >= dims[i]) {
                            if (!per[i])
                                in = false;
                            x = ((x % dims[i]) + dims[i]) % dims[i];
                        }
                        t = t * dims[i] + x;
                    }
                    if (in && place[t] != sc.j_max_node)
                        cnt++;
                }
            }
            assert_int_equal(cnt, sc.j_max);
        }
        checked++;
        free(place);
        smp_stencil_free(&st);
    }
    assert_int_equal(checked, 3000);
}

/* Whether a and b are the same figures, to the bit and the node named. */
static bool same_figures(const smp_score *a, const smp_score *b)
{
    return a->j_sum == b->j_sum && a->j_max == b->j_max && a->j_max_node == b->j_max_node &&
           a->w_sum == b->w_sum && a->w_max == b->w_max;
}

/* Without weights, the node and level figures off the quotient graph,
 * with the nodes relabelled or not, are the walks' exactly: the planner
 * takes them in place of a walk (improve/relabel.c), so a plan depends on
 * it.  Random grids, stencils, placements, one or two levels of groups and
 * a random relabelling. */
static void test_score_quotient_vs_walk(void **state)
{
    (void)state;
    tu_rng rng = {20261207};
    for (int trial = 0; trial < 600; trial++) {
        smp_error err;
        smp_grid g;
        smp_stencil st;
        int d = (int)tu_range(&rng, 1, 3);
        int64_t dims[SMP_MAX_DIMS], size = 1;
        bool per[SMP_MAX_DIMS];
        for (int i = 0; i < d; i++) {
            dims[i] = tu_range(&rng, 1, d == 1 ? 60 : d == 2 ? 14 : 6);
            per[i] = tu_range(&rng, 0, 1);
            size *= dims[i];
        }
        assert_ok(smp_grid_init(&g, d, dims, per, &err), err);
        int32_t offs[12 * 3];
        int count = random_offsets(&rng, d, (int)tu_range(&rng, 1, 12), 3, offs);
        assert_ok(smp_stencil_init(&st, d, count, offs, NULL, "stencil", &err), err);
        int nnodes = (int)tu_range(&rng, 1, (int)(size < 24 ? size : 24));
        int32_t *place = malloc(sizeof(int32_t) * (size_t)size);
        int32_t *moved = malloc(sizeof(int32_t) * (size_t)size);
        int32_t *phys = malloc(sizeof(int32_t) * (size_t)nnodes);
        assert_true(place && moved && phys);
        int mode = (int)tu_range(&rng, 0, 2);
        for (int64_t r = 0; r < size; r++)
            place[r] = mode == 0   ? (int32_t)tu_range(&rng, 0, nnodes - 1)
                       : mode == 1 ? (int32_t)(r * nnodes / size)
                                   : (int32_t)(r % nnodes);
        tu_random_permutation(&rng, nnodes, phys);
        for (int64_t r = 0; r < size; r++)
            moved[r] = phys[place[r]];
        smp_levels lv = {.nlevels = (int)tu_range(&rng, 1, 2), .nnodes = nnodes};
        int leaf = (int)tu_range(&rng, 1, 4), top = leaf * (int)tu_range(&rng, 1, 3);
        for (int l = 0; l < lv.nlevels; l++) {
            int per_group = l == 0 ? leaf : top;
            lv.ngroups[l] = (nnodes + per_group - 1) / per_group;
            lv.group_of_node[l] = malloc(sizeof(int32_t) * (size_t)nnodes);
            assert_non_null(lv.group_of_node[l]);
            for (int v = 0; v < nnodes; v++)
                lv.group_of_node[l][v] = v / per_group;
        }
        smp_quotient q;
        assert_ok(smp_quotient_build(&g, &st, place, nnodes, &q, &err), err);
        for (int relabel = 0; relabel < 2; relabel++) {
            const int32_t *map = relabel ? moved : place;
            smp_score walk, off, wl[SMP_MAX_LEVELS], ql[SMP_MAX_LEVELS];
            assert_ok(smp_score_compute(&g, &st, map, nnodes, &walk, &err), err);
            assert_ok(smp_score_quotient(&q, relabel ? phys : NULL, &off, &err), err);
            if (!same_figures(&walk, &off))
                fail_msg("trial %d relabel %d: nodes %lld/%lld on %d, quotient %lld/%lld on %d",
                         trial, relabel, (long long)walk.j_sum, (long long)walk.j_max,
                         walk.j_max_node, (long long)off.j_sum, (long long)off.j_max,
                         off.j_max_node);
            assert_ok(smp_levels_score_compute(&g, &st, map, nnodes, &lv, wl, &err), err);
            assert_ok(smp_levels_score_quotient(&q, relabel ? phys : NULL, &lv, ql, &err), err);
            for (int l = 0; l < lv.nlevels; l++)
                if (!same_figures(&wl[l], &ql[l]))
                    fail_msg("trial %d relabel %d level %d: walk %lld/%lld, quotient %lld/%lld",
                             trial, relabel, l, (long long)wl[l].j_sum, (long long)wl[l].j_max,
                             (long long)ql[l].j_sum, (long long)ql[l].j_max);
        }
        smp_quotient_free(&q);
        smp_levels_free(&lv);
        free(place);
        free(moved);
        free(phys);
        smp_stencil_free(&st);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_score_thesis_example),
        cmocka_unit_test(test_score_wrap_large_offsets),
        cmocka_unit_test(test_score_rejects),
        cmocka_unit_test(test_score_random_vs_brute),
        cmocka_unit_test(test_score_quotient_vs_walk),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
