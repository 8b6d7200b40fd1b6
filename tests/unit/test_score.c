/* SPDX-License-Identifier: GPL-2.0-or-later */
/* J_sum / J_max against a naive reference scorer on random instances. */
#include "unit_util.h"

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

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_score_thesis_example),
        cmocka_unit_test(test_score_wrap_large_offsets),
        cmocka_unit_test(test_score_rejects),
        cmocka_unit_test(test_score_random_vs_brute),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
