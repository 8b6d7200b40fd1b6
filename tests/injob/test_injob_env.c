/* SPDX-License-Identifier: GPL-2.0-or-later */
/* CMocka: libstencilmap's strict parsing of the STENCIL_MAP_* task
 * environment, and its grid arithmetic.  No PMIx needed. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "stencilmap.h"

/* An environment as a NULL-terminated list of "NAME=value". */
static const char *table_get(const char *name, void *arg)
{
    const char **t = arg;
    size_t n = strlen(name);
    for (; *t; t++)
        if (!strncmp(*t, name, n) && (*t)[n] == '=')
            return *t + n + 1;
    return NULL;
}

static stencilmap_place pl;
static char msg[STENCILMAP_MSG_LEN];

static stencilmap_status parse(const char **env)
{
    return stencilmap_place_parse(&pl, table_get, (void *)env, msg, sizeof(msg));
}

#define BASE "STENCIL_MAP_DIMS=4,3", "STENCIL_MAP_PERIODS=0,1", "STENCIL_MAP_STENCIL=1,0;-1,0;0,1;0,-1"

/* parse env and expect an ENV error whose message contains want */
static void expect_env_error(const char **env, const char *want)
{
    stencilmap_status st = parse(env);
    if (st != STENCILMAP_ERR_ENV || !strstr(msg, want))
        print_error("expected ENV error with '%s', got status %d: '%s'\n", want, (int)st, msg);
    assert_int_equal(st, STENCILMAP_ERR_ENV);
    assert_non_null(strstr(msg, want));
    assert_null(pl.offsets);
    assert_null(pl.weights);
}

static void test_full(void **state)
{
    (void)state;
    const char *env[] = {BASE, "STENCIL_MAP_COORDS=1,2", "STENCIL_MAP_WEIGHTS=1,1,2.5,2",
                         "STENCIL_MAP_ALGORITHM=hyperplane", "STENCIL_MAP_JSUM=12",
                         "STENCIL_MAP_JMAX=4", "STENCIL_MAP_BLOCKED_JSUM=16",
                         "STENCIL_MAP_BLOCKED_JMAX=8", NULL};
    assert_int_equal(parse(env), STENCILMAP_OK);
    assert_string_equal(msg, "");
    assert_int_equal(pl.ndims, 2);
    assert_int_equal(pl.dims[0], 4);
    assert_int_equal(pl.dims[1], 3);
    assert_int_equal(pl.size, 12);
    assert_int_equal(pl.periods[0], 0);
    assert_int_equal(pl.periods[1], 1);
    assert_true(pl.has_coords);
    assert_int_equal(pl.coords[0], 1);
    assert_int_equal(pl.coords[1], 2);
    assert_int_equal(pl.noffsets, 4);
    int32_t off[] = {1, 0, -1, 0, 0, 1, 0, -1};
    assert_memory_equal(pl.offsets, off, sizeof(off));
    assert_non_null(pl.weights);
    assert_true(pl.weights[2] == 2.5);
    assert_string_equal(pl.algorithm, "hyperplane");
    assert_true(pl.has_planned);
    assert_int_equal(pl.planned_jsum, 12);
    assert_int_equal(pl.planned_jmax, 4);
    assert_true(pl.has_blocked);
    assert_int_equal(pl.blocked_jsum, 16);
    assert_int_equal(pl.blocked_jmax, 8);
    stencilmap_place_free(&pl);
    assert_null(pl.offsets);
}

static void test_minimal(void **state)
{
    (void)state;
    const char *env[] = {BASE, NULL};
    assert_int_equal(parse(env), STENCILMAP_OK);
    assert_false(pl.has_coords);
    assert_false(pl.has_planned);
    assert_false(pl.has_blocked);
    assert_null(pl.weights);
    assert_string_equal(pl.algorithm, "");
    stencilmap_place_free(&pl);
}

static void test_noenv(void **state)
{
    (void)state;
    const char *none[] = {"PATH=/bin", NULL};
    assert_int_equal(parse(none), STENCILMAP_ERR_NOENV);
    assert_non_null(strstr(msg, "STENCIL_MAP_DIMS"));
    const char *fell[] = {"STENCIL_MAP_ALGORITHM=blocked", NULL};
    assert_int_equal(parse(fell), STENCILMAP_ERR_NOENV);
    assert_non_null(strstr(msg, "fell back"));
    /* NULL message buffer and NULL arguments are fine */
    assert_int_equal(stencilmap_place_parse(&pl, table_get, (void *)none, NULL, 0),
                     STENCILMAP_ERR_NOENV);
    assert_int_equal(stencilmap_place_parse(NULL, table_get, NULL, msg, sizeof(msg)),
                     STENCILMAP_ERR_ARG);
}

static void test_bad_dims(void **state)
{
    (void)state;
    static const char *bad[] = {"",   "4,,3", "4,x", "0,3",  "+4,3", " 4,3", "04,3", "4,3,",
                                ",4", "-4,3", "4.0", "1,1,1,1,1,1,1,1,1", "99999999999999999999"};
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        char d[64];
        snprintf(d, sizeof(d), "STENCIL_MAP_DIMS=%s", bad[i]);
        const char *env[] = {d, "STENCIL_MAP_PERIODS=0,1", "STENCIL_MAP_STENCIL=1,0", NULL};
        expect_env_error(env, "STENCIL_MAP_DIMS");
    }
    const char *big[] = {"STENCIL_MAP_DIMS=65536,65536", "STENCIL_MAP_PERIODS=0,0",
                         "STENCIL_MAP_STENCIL=1,0", NULL};
    expect_env_error(big, "more than");
}

static void test_bad_periods(void **state)
{
    (void)state;
    const char *missing[] = {"STENCIL_MAP_DIMS=4,3", "STENCIL_MAP_STENCIL=1,0", NULL};
    expect_env_error(missing, "STENCIL_MAP_PERIODS is not set");
    const char *count[] = {"STENCIL_MAP_DIMS=4,3", "STENCIL_MAP_PERIODS=0",
                           "STENCIL_MAP_STENCIL=1,0", NULL};
    expect_env_error(count, "STENCIL_MAP_PERIODS=0 has 1 entries");
    const char *two[] = {"STENCIL_MAP_DIMS=4,3", "STENCIL_MAP_PERIODS=0,2",
                         "STENCIL_MAP_STENCIL=1,0", NULL};
    expect_env_error(two, "STENCIL_MAP_PERIODS");
}

static void test_bad_coords(void **state)
{
    (void)state;
    const char *out[] = {BASE, "STENCIL_MAP_COORDS=4,0", NULL};
    expect_env_error(out, "outside STENCIL_MAP_DIMS");
    const char *count[] = {BASE, "STENCIL_MAP_COORDS=1", NULL};
    expect_env_error(count, "STENCIL_MAP_COORDS=1 has 1 entries");
    const char *neg[] = {BASE, "STENCIL_MAP_COORDS=-1,0", NULL};
    expect_env_error(neg, "STENCIL_MAP_COORDS");
}

static void test_bad_stencil(void **state)
{
    (void)state;
    const char *missing[] = {"STENCIL_MAP_DIMS=4,3", "STENCIL_MAP_PERIODS=0,1", NULL};
    expect_env_error(missing, "STENCIL_MAP_STENCIL is not set");
    static const struct { const char *v, *want; } bad[] = {
        {"", "empty"},
        {"1,0;", "offset 2"},
        {"1,0;;0,1", "offset 2"},
        {"0,0", "zero vector"},
        {"1,0;0,1;1,0", "offsets 1 and 3 are equal"},
        {"1,0,0", "has 3 entries"},
        {"1", "has 1 entries"},
        {"1,a", "offset 1"},
        {"2000000,0", "offset 1"},
    };
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        char s[64];
        snprintf(s, sizeof(s), "STENCIL_MAP_STENCIL=%s", bad[i].v);
        const char *env[] = {"STENCIL_MAP_DIMS=4,3", "STENCIL_MAP_PERIODS=0,1", s, NULL};
        expect_env_error(env, bad[i].want);
    }
}

static void test_bad_weights(void **state)
{
    (void)state;
    static const struct { const char *v, *want; } bad[] = {
        {"1,1,1", "has 3 entries"},   {"1,1,1,1,1", "more entries"}, {"1,1,-1,1", "entry 3"},
        {"1,1,0,1", "entry 3"},       {"1,nan,1,1", "entry 2"},      {"1,inf,1,1", "entry 2"},
        {"1,,1,1", "entry 2"},        {"1,1,1,1x", "entry 4"},       {"", "entry 1"},
    };
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        char w[64];
        snprintf(w, sizeof(w), "STENCIL_MAP_WEIGHTS=%s", bad[i].v);
        const char *env[] = {BASE, w, NULL};
        expect_env_error(env, "STENCIL_MAP_WEIGHTS");
        assert_non_null(strstr(msg, bad[i].want));
    }
}

static void test_bad_figures(void **state)
{
    (void)state;
    const char *half[] = {BASE, "STENCIL_MAP_JSUM=12", NULL};
    expect_env_error(half, "STENCIL_MAP_JSUM is set but STENCIL_MAP_JMAX is not");
    const char *half2[] = {BASE, "STENCIL_MAP_JMAX=12", NULL};
    expect_env_error(half2, "STENCIL_MAP_JMAX is set but STENCIL_MAP_JSUM is not");
    const char *order[] = {BASE, "STENCIL_MAP_JSUM=3", "STENCIL_MAP_JMAX=4", NULL};
    expect_env_error(order, "larger than");
    const char *neg[] = {BASE, "STENCIL_MAP_JSUM=-3", "STENCIL_MAP_JMAX=0", NULL};
    expect_env_error(neg, "STENCIL_MAP_JSUM='-3'");
    const char *junk[] = {BASE, "STENCIL_MAP_JSUM=12", "STENCIL_MAP_JMAX=4 ", NULL};
    expect_env_error(junk, "STENCIL_MAP_JMAX");
    const char *blk[] = {BASE, "STENCIL_MAP_BLOCKED_JSUM=1", NULL};
    expect_env_error(blk, "STENCIL_MAP_BLOCKED_JMAX is not");
    const char *alg[] = {BASE, "STENCIL_MAP_ALGORITHM=Hyper plane", NULL};
    expect_env_error(alg, "STENCIL_MAP_ALGORITHM");
    const char *alg2[] = {BASE, "STENCIL_MAP_ALGORITHM=", NULL};
    expect_env_error(alg2, "STENCIL_MAP_ALGORITHM");
}

static void test_grid(void **state)
{
    (void)state;
    const char *env[] = {"STENCIL_MAP_DIMS=4,3", "STENCIL_MAP_PERIODS=0,1",
                         "STENCIL_MAP_STENCIL=1,0;-1,0;0,1;0,-1;2,2", NULL};
    assert_int_equal(parse(env), STENCILMAP_OK);
    int64_t c[2];
    stencilmap_rank_coords(&pl, 5, c); /* row-major, last fastest */
    assert_int_equal(c[0], 1);
    assert_int_equal(c[1], 2);
    assert_int_equal(stencilmap_coords_rank(&pl, c), 5);
    /* rank 5 = (1,2): +1,0 -> (2,2)=8; -1,0 -> (0,2)=2; 0,+1 wraps -> (1,0)=3;
     * 0,-1 -> (1,1)=4; 2,2 -> (3,1)=10 */
    assert_int_equal(stencilmap_neighbor(&pl, 5, 0), 8);
    assert_int_equal(stencilmap_neighbor(&pl, 5, 1), 2);
    assert_int_equal(stencilmap_neighbor(&pl, 5, 2), 3);
    assert_int_equal(stencilmap_neighbor(&pl, 5, 3), 4);
    assert_int_equal(stencilmap_neighbor(&pl, 5, 4), 10);
    /* non-periodic first dimension: leaving the grid gives -1 */
    assert_int_equal(stencilmap_neighbor(&pl, 0, 1), -1);
    assert_int_equal(stencilmap_neighbor(&pl, 9, 0), -1);
    assert_int_equal(stencilmap_neighbor_from(&pl, 5, 4), -1); /* (-1,0) */
    assert_int_equal(stencilmap_neighbor_from(&pl, 10, 4), 5);
    /* bad rank / offset */
    assert_int_equal(stencilmap_neighbor(&pl, 12, 0), -1);
    assert_int_equal(stencilmap_neighbor(&pl, 0, 5), -1);
    for (int64_t r = 0; r < pl.size; r++)
        for (int k = 0; k < pl.noffsets; k++) {
            int64_t t = stencilmap_neighbor(&pl, r, k);
            if (t >= 0)
                assert_int_equal(stencilmap_neighbor_from(&pl, t, k), r);
        }
    stencilmap_place_free(&pl);
}

/* STENCIL_MAP_ORDER=column-major: the first dimension fastest (PETSc DMDA:
 * rank = i + m*j), coordinates and offsets in the grid's own axis order. */
static void test_grid_column_major(void **state)
{
    (void)state;
    const char *env[] = {"STENCIL_MAP_DIMS=4,3", "STENCIL_MAP_PERIODS=0,1",
                         "STENCIL_MAP_ORDER=column-major",
                         "STENCIL_MAP_STENCIL=1,0;-1,0;0,1;0,-1;2,2", NULL};
    assert_int_equal(parse(env), STENCILMAP_OK);
    assert_int_equal(pl.column_major, 1);
    int64_t c[2];
    for (int64_t r = 0; r < 12; r++) {
        stencilmap_rank_coords(&pl, r, c);
        assert_int_equal(c[0], r % 4);
        assert_int_equal(c[1], r / 4);
        assert_int_equal(stencilmap_coords_rank(&pl, c), r);
    }
    /* rank 5 = (1,1): +1,0 -> (2,1)=6; -1,0 -> (0,1)=4; 0,+1 -> (1,2)=9;
     * 0,-1 -> (1,0)=1; 2,2 -> (3,0) wrapping on the periodic axis = 3 */
    assert_int_equal(stencilmap_neighbor(&pl, 5, 0), 6);
    assert_int_equal(stencilmap_neighbor(&pl, 5, 1), 4);
    assert_int_equal(stencilmap_neighbor(&pl, 5, 2), 9);
    assert_int_equal(stencilmap_neighbor(&pl, 5, 3), 1);
    assert_int_equal(stencilmap_neighbor(&pl, 5, 4), 3);
    assert_int_equal(stencilmap_neighbor(&pl, 3, 0), -1); /* (3,0) + (1,0) leaves */
    stencilmap_place_free(&pl);
    const char *rm[] = {BASE, "STENCIL_MAP_ORDER=row-major", NULL};
    assert_int_equal(parse(rm), STENCILMAP_OK);
    assert_int_equal(pl.column_major, 0);
    stencilmap_place_free(&pl);
    const char *bad[] = {BASE, "STENCIL_MAP_ORDER=fortran", NULL};
    expect_env_error(bad, "STENCIL_MAP_ORDER='fortran'");
    /* coordinates the plugin set must be the column-major ones */
    const char *coords[] = {BASE, "STENCIL_MAP_ORDER=column-major", "STENCIL_MAP_COORDS=1,1", NULL};
    assert_int_equal(parse(coords), STENCILMAP_OK);
    stencilmap_rank_coords(&pl, 5, c);
    assert_int_equal(c[0], pl.coords[0]);
    assert_int_equal(c[1], pl.coords[1]);
    stencilmap_place_free(&pl);
}

/* The network levels (STENCIL_MAP_LEVEL_*): all four or none, one group
 * per node, one figure per level; stencilmap_node_group looks nodes up */
static void test_levels(void **state)
{
    (void)state;
    const char *env[] = {BASE, "STENCIL_MAP_LEVEL_NODES=node1,node2,node3,node4",
                         "STENCIL_MAP_LEVELS=0,0,1,1;0,0,0,1", "STENCIL_MAP_LEVEL_JSUM=8,2",
                         "STENCIL_MAP_LEVEL_JMAX=4,2", NULL};
    assert_int_equal(parse(env), STENCILMAP_OK);
    assert_int_equal(pl.nlevels, 2);
    assert_true(pl.has_level_planned);
    assert_int_equal(pl.level_planned_jsum[0], 8);
    assert_int_equal(pl.level_planned_jmax[1], 2);
    assert_int_equal(stencilmap_node_group(&pl, 0, "node3"), 1);
    assert_int_equal(stencilmap_node_group(&pl, 1, "node3"), 0);
    assert_int_equal(stencilmap_node_group(&pl, 1, "node4"), 1);
    assert_int_equal(stencilmap_node_group(&pl, 0, "node5"), -1);
    assert_int_equal(stencilmap_node_group(&pl, 2, "node1"), -1);
    stencilmap_place_free(&pl);
    assert_null(pl.levels);
    assert_int_equal(stencilmap_node_group(&pl, 0, "node1"), -1);
    /* without them: no levels */
    const char *none[] = {BASE, NULL};
    assert_int_equal(parse(none), STENCILMAP_OK);
    assert_int_equal(pl.nlevels, 0);
    stencilmap_place_free(&pl);

    const char *partial[] = {BASE, "STENCIL_MAP_LEVELS=0,1", "STENCIL_MAP_LEVEL_JSUM=2",
                             "STENCIL_MAP_LEVEL_JMAX=2", NULL};
    expect_env_error(partial, "STENCIL_MAP_LEVELS is set but STENCIL_MAP_LEVEL_NODES is not");
    const char *fewer[] = {BASE, "STENCIL_MAP_LEVEL_NODES=a,b,c", "STENCIL_MAP_LEVELS=0,1",
                           "STENCIL_MAP_LEVEL_JSUM=2", "STENCIL_MAP_LEVEL_JMAX=2", NULL};
    expect_env_error(fewer, "level 0 has fewer groups than the 3 nodes");
    const char *counts[] = {BASE, "STENCIL_MAP_LEVEL_NODES=a,b", "STENCIL_MAP_LEVELS=0,1",
                            "STENCIL_MAP_LEVEL_JSUM=2,1", "STENCIL_MAP_LEVEL_JMAX=2", NULL};
    expect_env_error(counts, "STENCIL_MAP_LEVEL_JSUM=2,1 has 2 entries, STENCIL_MAP_LEVELS has 1");
    const char *order[] = {BASE, "STENCIL_MAP_LEVEL_NODES=a,b", "STENCIL_MAP_LEVELS=0,1",
                           "STENCIL_MAP_LEVEL_JSUM=2", "STENCIL_MAP_LEVEL_JMAX=3", NULL};
    expect_env_error(order, "level 0's J_max is larger than its J_sum");
    const char *name[] = {BASE, "STENCIL_MAP_LEVEL_NODES=a,b/c", "STENCIL_MAP_LEVELS=0,1",
                          "STENCIL_MAP_LEVEL_JSUM=2", "STENCIL_MAP_LEVEL_JMAX=2", NULL};
    expect_env_error(name, "STENCIL_MAP_LEVEL_NODES: name 2 'b/c' holds '/'");
    assert_null(pl.levels);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_full),        cmocka_unit_test(test_minimal),
        cmocka_unit_test(test_noenv),       cmocka_unit_test(test_bad_dims),
        cmocka_unit_test(test_bad_periods), cmocka_unit_test(test_bad_coords),
        cmocka_unit_test(test_bad_stencil), cmocka_unit_test(test_bad_weights),
        cmocka_unit_test(test_bad_figures), cmocka_unit_test(test_grid),
        cmocka_unit_test(test_grid_column_major), cmocka_unit_test(test_levels),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
