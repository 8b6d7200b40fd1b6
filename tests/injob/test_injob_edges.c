/* SPDX-License-Identifier: GPL-2.0-or-later */
/* CMocka: libstencilmap's edge counting (what stencilmap_verify computes from
 * PMIx data) against the placement core's scorer smp_score_compute, on
 * random grids, stencils and placements.  The places are built by formatting
 * a STENCIL_MAP_* environment and parsing it, as a task would. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "stencilmap.h"
#include "stencilmap/placement.h"

static const char *table_get(const char *name, void *arg)
{
    char **t = arg;
    size_t n = strlen(name);
    for (; *t; t++)
        if (!strncmp(*t, name, n) && (*t)[n] == '=')
            return *t + n + 1;
    return NULL;
}

static uint64_t rng_state = 88172645463325252ull;
static uint64_t rnd(void)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return rng_state;
}
static int rnd_in(int lo, int hi) { return lo + (int)(rnd() % (uint64_t)(hi - lo + 1)); }

typedef struct {
    int ndims, count;
    int64_t dims[SMP_MAX_DIMS];
    bool periods[SMP_MAX_DIMS];
    int32_t offsets[64 * SMP_MAX_DIMS];
    double weights[64];
    bool weighted;
    bool column_major; /* STENCIL_MAP_ORDER=column-major, grid.order alike */
} case_t;

static void random_case(case_t *c, int max_dims, int max_extent, int max_off)
{
    memset(c, 0, sizeof(*c));
    c->ndims = rnd_in(1, max_dims);
    for (int i = 0; i < c->ndims; i++) {
        c->dims[i] = rnd_in(1, max_extent);
        c->periods[i] = rnd() & 1;
    }
    int want = rnd_in(1, 24);
    for (int tries = 0; c->count < want && tries < 1000; tries++) {
        int32_t *o = c->offsets + c->count * c->ndims;
        bool zero = true;
        for (int i = 0; i < c->ndims; i++) {
            o[i] = rnd_in(-max_off, max_off);
            zero &= o[i] == 0;
        }
        bool dup = zero;
        for (int k = 0; k < c->count && !dup; k++)
            dup = !memcmp(c->offsets + k * c->ndims, o, sizeof(int32_t) * (size_t)c->ndims);
        if (!dup)
            c->count++;
    }
    if (c->count == 0) { /* e.g. 1-d with max_off 0 cannot happen; keep one */
        c->offsets[0] = 1;
        c->count = 1;
    }
    c->weighted = rnd() % 3 == 0;
    c->column_major = rnd() & 1;
    for (int k = 0; k < c->count; k++)
        c->weights[k] = c->weighted ? rnd_in(1, 8) / 4.0 : 1.0;
}

/* the environment a task of this case would see */
static void case_place(const case_t *c, stencilmap_place *pl, int with_weights)
{
    static char dims[256], per[256], sten[64 * SMP_MAX_DIMS * 12], w[64 * 32];
    size_t a = 0, b = 0, s = 0, x = 0;
    a += (size_t)snprintf(dims + a, sizeof(dims) - a, "STENCIL_MAP_DIMS=");
    b += (size_t)snprintf(per + b, sizeof(per) - b, "STENCIL_MAP_PERIODS=");
    for (int i = 0; i < c->ndims; i++) {
        a += (size_t)snprintf(dims + a, sizeof(dims) - a, "%s%lld", i ? "," : "",
                              (long long)c->dims[i]);
        b += (size_t)snprintf(per + b, sizeof(per) - b, "%s%d", i ? "," : "", c->periods[i] ? 1 : 0);
    }
    s += (size_t)snprintf(sten + s, sizeof(sten) - s, "STENCIL_MAP_STENCIL=");
    x += (size_t)snprintf(w + x, sizeof(w) - x, "STENCIL_MAP_WEIGHTS=");
    for (int k = 0; k < c->count; k++) {
        for (int i = 0; i < c->ndims; i++)
            s += (size_t)snprintf(sten + s, sizeof(sten) - s, "%s%d", i ? "," : (k ? ";" : ""),
                                  c->offsets[k * c->ndims + i]);
        x += (size_t)snprintf(w + x, sizeof(w) - x, "%s%.17g", k ? "," : "", c->weights[k]);
    }
    char order[] = "STENCIL_MAP_ORDER=column-major";
    char *env[] = {dims, per, sten, c->column_major ? order : NULL, NULL, NULL};
    env[c->column_major ? 4 : 3] = with_weights ? w : NULL;
    char msg[STENCILMAP_MSG_LEN];
    stencilmap_status st = stencilmap_place_parse(pl, table_get, env, msg, sizeof(msg));
    if (st != STENCILMAP_OK)
        print_error("parse failed: %s\n%s\n%s\n%s\n", msg, dims, per, sten);
    assert_int_equal(st, STENCILMAP_OK);
}

static void random_placement(int64_t size, int nnodes, int32_t *node_of_rank)
{
    int mode = rnd_in(0, 2);
    for (int64_t r = 0; r < size; r++) {
        if (mode == 0) /* random */
            node_of_rank[r] = (int32_t)(rnd() % (uint64_t)nnodes);
        else if (mode == 1) /* blocked */
            node_of_rank[r] = (int32_t)(r * nnodes / size);
        else /* cyclic */
            node_of_rank[r] = (int32_t)(r % nnodes);
    }
}

static void compare_one(const case_t *c, int nnodes, int iter)
{
    smp_error err;
    smp_grid grid;
    assert_int_equal(smp_grid_init(&grid, c->ndims, c->dims, c->periods, &err), SMP_OK);
    grid.order = c->column_major ? SMP_ORDER_COLUMN_MAJOR : SMP_ORDER_ROW_MAJOR;
    smp_stencil st;
    smp_status s = smp_stencil_init(&st, c->ndims, c->count, c->offsets,
                                    c->weighted ? c->weights : NULL, "stencil", &err);
    if (s != SMP_OK)
        print_error("core rejects the stencil: %s\n", err.msg);
    assert_int_equal(s, SMP_OK);
    stencilmap_place pl;
    case_place(c, &pl, c->weighted);
    assert_int_equal(pl.size, grid.size);

    int32_t *nor = malloc(sizeof(int32_t) * (size_t)grid.size);
    assert_non_null(nor);
    random_placement(grid.size, nnodes, nor);
    smp_score want;
    assert_int_equal(smp_score_compute(&grid, &st, nor, nnodes, &want, &err), SMP_OK);
    stencilmap_edges got;
    assert_int_equal(stencilmap_edges_count(&got, &pl, nor, nnodes), STENCILMAP_OK);
    if (got.jsum != want.j_sum || got.jmax != want.j_max || got.jmax_node != want.j_max_node ||
        fabs(got.wsum - want.w_sum) > 1e-9 * (1 + want.w_sum) ||
        fabs(got.wmax - want.w_max) > 1e-9 * (1 + want.w_max))
        print_error("iteration %d: %d dims, %d offsets, %d nodes: lib J_sum %lld J_max %lld "
                    "(node %d) W %g/%g, core %lld %lld (node %d) W %g/%g\n",
                    iter, c->ndims, c->count, nnodes, (long long)got.jsum, (long long)got.jmax,
                    got.jmax_node, got.wsum, got.wmax, (long long)want.j_sum,
                    (long long)want.j_max, want.j_max_node, want.w_sum, want.w_max);
    assert_int_equal(got.jsum, want.j_sum);
    assert_int_equal(got.jmax, want.j_max);
    assert_int_equal(got.jmax_node, want.j_max_node);
    assert_true(fabs(got.wsum - want.w_sum) <= 1e-9 * (1 + want.w_sum));
    assert_true(fabs(got.wmax - want.w_max) <= 1e-9 * (1 + want.w_max));
    /* per-node counts add up, rank counts add up */
    int64_t sum = 0, ranks = 0;
    for (int n = 0; n < nnodes; n++) {
        sum += got.node_edges[n];
        ranks += got.node_ranks[n];
    }
    assert_int_equal(sum, got.jsum);
    assert_int_equal(ranks, grid.size);
    stencilmap_edges_free(&got);
    free(nor);
    stencilmap_place_free(&pl);
    smp_stencil_free(&st);
}

static void test_random_small(void **state)
{
    (void)state;
    case_t c;
    for (int it = 0; it < 3000; it++) {
        random_case(&c, 3, 5, 2);
        compare_one(&c, rnd_in(1, 6), it);
    }
}

static void test_random_wide(void **state)
{
    (void)state;
    case_t c;
    /* offsets longer than the dims (multiple wraps on periodic dims), more dims */
    for (int it = 0; it < 500; it++) {
        random_case(&c, 5, 4, 7);
        compare_one(&c, rnd_in(1, 9), it);
    }
}

static void test_plans(void **state)
{
    (void)state;
    /* real placements of the core's algorithms, heterogeneous slots */
    static const int32_t slots[] = {8, 8, 6, 4};
    for (int alg = SMP_ALG_HYPERPLANE; alg < SMP_ALG_COUNT; alg++) {
        for (int it = 0; it < 20; it++) {
            case_t c;
            do
                random_case(&c, 3, 6, 2);
            while (c.dims[0] * (c.ndims > 1 ? c.dims[1] : 1) * (c.ndims > 2 ? c.dims[2] : 1) > 26);
            smp_error err;
            smp_grid grid;
            assert_int_equal(smp_grid_init(&grid, c.ndims, c.dims, c.periods, &err), SMP_OK);
            grid.order = c.column_major ? SMP_ORDER_COLUMN_MAJOR : SMP_ORDER_ROW_MAJOR;
            smp_stencil st;
            assert_int_equal(smp_stencil_init(&st, c.ndims, c.count, c.offsets,
                                              c.weighted ? c.weights : NULL, "stencil", &err),
                             SMP_OK);
            smp_placement p;
            if (smp_plan(&grid, &st, slots, 4, (smp_algorithm)alg, &p, &err) == SMP_OK) {
                stencilmap_place pl;
                case_place(&c, &pl, c.weighted);
                stencilmap_edges got;
                assert_int_equal(stencilmap_edges_count(&got, &pl, p.node_of_rank, p.nnodes),
                                 STENCILMAP_OK);
                assert_int_equal(got.jsum, p.score.j_sum);
                assert_int_equal(got.jmax, p.score.j_max);
                stencilmap_edges_free(&got);
                stencilmap_place_free(&pl);
                smp_placement_free(&p);
            }
            smp_stencil_free(&st);
        }
    }
}

static int same_fail(void *arg, int64_t a, int64_t b)
{
    (void)arg;
    (void)a;
    (void)b;
    return -1;
}

static void test_errors(void **state)
{
    (void)state;
    case_t c;
    random_case(&c, 2, 4, 1);
    stencilmap_place pl;
    case_place(&c, &pl, 0);
    int64_t e;
    double w;
    assert_int_equal(stencilmap_rank_out_edges(&pl, -1, same_fail, NULL, &e, &w), STENCILMAP_ERR_ARG);
    assert_int_equal(stencilmap_rank_out_edges(&pl, pl.size, same_fail, NULL, &e, &w),
                     STENCILMAP_ERR_ARG);
    /* a failing lookup (a PMIx_Get) is reported, unless every neighbour is outside */
    stencilmap_status st = stencilmap_rank_out_edges(&pl, 0, same_fail, NULL, &e, &w);
    assert_true(st == STENCILMAP_ERR_PMIX || st == STENCILMAP_OK);
    int32_t bad[1] = {5};
    stencilmap_edges agg;
    int64_t one = 1;
    assert_int_equal(stencilmap_edges_aggregate(&agg, 1, bad, 2, &one, NULL), STENCILMAP_ERR_ARG);
    stencilmap_place_free(&pl);
}

int main(void)
{
    const char *seed = getenv("INJOB_SEED");
    if (seed)
        rng_state = strtoull(seed, NULL, 10) | 1;
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_random_small),
        cmocka_unit_test(test_random_wide),
        cmocka_unit_test(test_plans),
        cmocka_unit_test(test_errors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
