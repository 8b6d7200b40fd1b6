/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The network levels in the tasks' environment (STENCIL_MAP_LEVEL_NODES,
 * STENCIL_MAP_LEVELS): what the plugin writes reads back the same, lookups
 * by name find each node's group, a step too large for the environment is
 * refused at writing, and every malformed value is refused at reading with
 * a message naming the variable. */
#include "unit_util.h"

#include "formats/stencil_env.h"

static void test_round_trip(void **state)
{
    (void)state;
    char *names[5] = {"node3", "node1", "n-2.x_y", "node10", "node2"};
    int32_t l0[5] = {1, 0, 2, 1, 0}, l1[5] = {0, 0, 1, 0, 0};
    int32_t *groups[2] = {l0, l1};
    int too_long = 1;
    char *nodes = smp_env_format_level_nodes(names, 5, &too_long);
    assert_non_null(nodes);
    assert_false(too_long);
    assert_string_equal(nodes, "node3,node1,n-2.x_y,node10,node2");
    char *levels = smp_env_format_levels(groups, 2, 5, &too_long);
    assert_non_null(levels);
    assert_string_equal(levels, "1,0,2,1,0;0,0,1,0,0");
    smp_env_levels lv;
    char msg[300];
    assert_int_equal(smp_env_parse_levels(nodes, levels, &lv, msg, sizeof(msg)), 0);
    assert_int_equal(lv.nlevels, 2);
    assert_int_equal(lv.nnodes, 5);
    for (int i = 0; i < 5; i++) {
        assert_string_equal(lv.names[i], names[i]);
        assert_int_equal(smp_env_levels_group(&lv, 0, names[i]), l0[i]);
        assert_int_equal(smp_env_levels_group(&lv, 1, names[i]), l1[i]);
    }
    /* a node that is not the step's, and a level that does not exist */
    assert_int_equal(smp_env_levels_group(&lv, 0, "node4"), -1);
    assert_int_equal(smp_env_levels_group(&lv, 0, "node"), -1);
    assert_int_equal(smp_env_levels_group(&lv, 2, "node1"), -1);
    assert_int_equal(smp_env_levels_group(&lv, -1, "node1"), -1);
    smp_env_levels_free(&lv);
    free(nodes);
    free(levels);
}

/* The writer refuses a step whose levels would not fit in one variable
 * (the plugin then exports none of them), and a large one that fits reads
 * back whole. */
static void test_limits(void **state)
{
    (void)state;
    int n = 7000; /* names "node0000001," take 12 bytes: 84 kB */
    char **names = malloc(sizeof(char *) * (size_t)n);
    int32_t *g = malloc(sizeof(int32_t) * (size_t)n);
    assert_non_null(names);
    assert_non_null(g);
    for (int i = 0; i < n; i++) {
        names[i] = malloc(16);
        snprintf(names[i], 16, "node%07d", i);
        g[i] = i / 16;
    }
    int too_long = 0;
    assert_null(smp_env_format_level_nodes(names, n, &too_long));
    assert_true(too_long);
    /* 5000 names (60 kB) fit; their groups too (one level of up to 4 digits) */
    char *nodes = smp_env_format_level_nodes(names, 5000, &too_long);
    assert_non_null(nodes);
    assert_false(too_long);
    int32_t *levels_of[1] = {g};
    char *levels = smp_env_format_levels(levels_of, 1, 5000, &too_long);
    assert_non_null(levels);
    smp_env_levels lv;
    char msg[300];
    assert_int_equal(smp_env_parse_levels(nodes, levels, &lv, msg, sizeof(msg)), 0);
    assert_int_equal(smp_env_levels_group(&lv, 0, "node0004999"), 4999 / 16);
    assert_int_equal(smp_env_levels_group(&lv, 0, "node0000000"), 0);
    smp_env_levels_free(&lv);
    free(levels);
    /* four levels of 7000 groups of up to 4 digits: over the limit */
    int32_t *four[4] = {g, g, g, g};
    assert_null(smp_env_format_levels(four, 4, n, &too_long));
    assert_true(too_long);
    free(nodes);
    for (int i = 0; i < n; i++)
        free(names[i]);
    free(names);
    free(g);
}

static void expect_bad(const char *nodes, const char *levels, const char *want)
{
    smp_env_levels lv;
    char msg[300] = "";
    assert_int_equal(smp_env_parse_levels(nodes, levels, &lv, msg, sizeof(msg)), -1);
    if (!strstr(msg, want))
        fail_msg("'%s' / '%s': message '%s' lacks '%s'", nodes, levels, msg, want);
    smp_env_levels_free(&lv);
}

static void test_malformed(void **state)
{
    (void)state;
    expect_bad("", "0", "STENCIL_MAP_LEVEL_NODES: empty");
    expect_bad("a,,b", "0,0,0", "STENCIL_MAP_LEVEL_NODES: name 2 is empty");
    expect_bad("a,b,", "0,0,0", "name 3 is empty");
    expect_bad("a,b c", "0,0", "'b c' holds ' '");
    expect_bad("a,../x", "0,0", "holds '/'");
    expect_bad("a,b,a", "0,1,0", "node 'a' is listed twice");
    char longname[300];
    memset(longname, 'x', 299);
    longname[299] = '\0';
    expect_bad(longname, "0", "longer than 255 characters");
    expect_bad("a,b", "", "STENCIL_MAP_LEVELS: level 0, node 1 ('a'): '' is not a group index");
    expect_bad("a,b", "0", "level 0 has fewer groups than the 2 nodes");
    expect_bad("a,b", "0,1,1", "level 0 has more groups than the 2 nodes");
    expect_bad("a,b", "0,2", "'2' is not a group index in [0, 2)");
    expect_bad("a,b", "0,-1", "'-1' is not a group index");
    expect_bad("a,b", "0,01", "'01' is not a group index");
    expect_bad("a,b", "0,+1", "'+1' is not a group index");
    expect_bad("a,b", "0,99999999999999999999", "is not a group index");
    expect_bad("a,b", "0,1;", "level 1, node 1");
    expect_bad("a,b", "0,1;0", "level 1 has fewer groups");
    expect_bad("a,b", "0,1;0,0;0,0;0,0;0,0", "more than 4 levels");
    char *huge = malloc(SMP_ENV_LEVELS_MAX_LEN + 10);
    memset(huge, 'a', SMP_ENV_LEVELS_MAX_LEN + 9);
    huge[SMP_ENV_LEVELS_MAX_LEN + 9] = '\0';
    expect_bad(huge, "0", "STENCIL_MAP_LEVEL_NODES: longer than 65536 bytes");
    expect_bad("a", huge, "STENCIL_MAP_LEVELS: longer than 65536 bytes");
    free(huge);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_round_trip),
        cmocka_unit_test(test_limits),
        cmocka_unit_test(test_malformed),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
