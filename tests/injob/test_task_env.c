/* SPDX-License-Identifier: GPL-2.0-or-later */
/* CMocka: the STENCIL_MAP_* variables that the plugin sets and that
 * `stencil-map plan --env` prints (smp_task_env_build) are what
 * libstencilmap reads back: grid, order, stencil, weights and figures, on
 * named specs (weighted, column-major, 3-D, periodic), and with network
 * levels each node's groups and the planned figures between groups.  No
 * PMIx needed. */
#include <setjmp.h>
#include <stdbool.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "formats/stencil_env.h"
#include "stencilmap.h"
#include "stencilmap/placement.h"
#include "formats/task_env.h"

static const char *env_get(const char *name, void *arg)
{
    const smp_task_env *env = arg;
    for (int i = 0; i < env->count; i++)
        if (!strcmp(env->var[i].name, name))
            return env->var[i].value;
    return NULL;
}

/* spec text -> plan on 4 nodes of 8 -> variables -> the library's place */
static void round_trip(const char *spec_text, int64_t ranks)
{
    smp_error err;
    smp_spec spec;
    smp_nodes nodes;
    assert_int_equal(smp_nodes_parse(&nodes, "n[1-4]", "8", &err), SMP_OK);
    smp_status s = spec_text[0] == '{'
                       ? smp_spec_parse(&spec, spec_text, strlen(spec_text), smp_specs_dir(), &err)
                       : smp_spec_load(&spec, spec_text, smp_specs_dir(), &err);
    if (s || smp_spec_resolve(&spec, ranks, &err))
        fail_msg("%s: %s", spec_text, err.msg);
    smp_placement pl, blk;
    assert_int_equal(
        smp_plan(&spec.grid, &spec.stencil, nodes.slots, nodes.count, spec.algorithm, &pl, &err),
        SMP_OK);
    assert_int_equal(
        smp_plan(&spec.grid, &spec.stencil, nodes.slots, nodes.count, SMP_ALG_BLOCKED, &blk, &err),
        SMP_OK);
    smp_task_env env;
    assert_int_equal(smp_task_env_build(&env, &spec.grid, &spec.stencil, pl.algorithm, &pl.score,
                                        &blk.score, &err),
                     SMP_OK);
    /* COORDS is per rank, never in the shared list */
    assert_null(env_get(SMP_ENV_COORDS, &env));
    assert_int_equal(env_get(SMP_ENV_WEIGHTS, &env) != NULL, smp_stencil_weighted(&spec.stencil));

    stencilmap_place place;
    char msg[STENCILMAP_MSG_LEN];
    stencilmap_status st = stencilmap_place_parse(&place, env_get, &env, msg, sizeof(msg));
    if (st)
        fail_msg("%s: the library refused the variables: %s", spec_text, msg);
    assert_int_equal(place.ndims, spec.grid.ndims);
    for (int i = 0; i < place.ndims; i++) {
        assert_int_equal(place.dims[i], spec.grid.dims[i]);
        assert_int_equal(place.periods[i], spec.grid.periods[i] ? 1 : 0);
    }
    assert_int_equal(place.column_major, spec.grid.order == SMP_ORDER_COLUMN_MAJOR);
    assert_int_equal(place.noffsets, spec.stencil.count);
    assert_memory_equal(place.offsets, spec.stencil.offsets,
                        sizeof(int32_t) * (size_t)spec.stencil.count * (size_t)spec.grid.ndims);
    if (smp_stencil_weighted(&spec.stencil)) {
        assert_non_null(place.weights);
        for (int k = 0; k < spec.stencil.count; k++) /* %.17g: exact */
            assert_true(place.weights[k] == spec.stencil.weights[k]);
    } else {
        assert_null(place.weights);
    }
    assert_string_equal(place.algorithm, smp_algorithm_name(pl.algorithm));
    assert_true(place.has_planned && place.has_blocked);
    assert_int_equal(place.planned_jsum, pl.score.j_sum);
    assert_int_equal(place.planned_jmax, pl.score.j_max);
    assert_int_equal(place.blocked_jsum, blk.score.j_sum);
    assert_int_equal(place.blocked_jmax, blk.score.j_max);
    stencilmap_place_free(&place);
    smp_task_env_free(&env);
    assert_int_equal(env.count, 0);
    smp_placement_free(&pl);
    smp_placement_free(&blk);
    smp_spec_free(&spec);
    smp_nodes_free(&nodes);
}

static void test_named_specs(void **state)
{
    (void)state;
    round_trip("auto:2d:5pt", 32);
    round_trip("hyperplane:3d:7pt", 27);
    round_trip("climate2d", 24); /* periodic in one axis */
    round_trip("lbm3d", 32);
}

static void test_weighted(void **state)
{
    (void)state;
    /* weights that %g would round: %.17g keeps them exact */
    round_trip("{\"grid\": {\"dims\": [6, 4], \"periods\": [false, true]}, \"stencil\": "
               "{\"offsets\": [[1, 0], [-1, 0], [0, 1], [0, -1]], "
               "\"weights\": [2.0000000001, 2.0000000001, 0.1, 0.3]}}",
               0);
}

static void test_column_major(void **state)
{
    (void)state;
    round_trip("{\"grid\": {\"dims\": [8, 4], \"periods\": [true, false], "
               "\"order\": \"column-major\"}, \"stencil\": \"9pt\"}",
               0);
}

/* Two leaf switches of two nodes under one spine, and a leaf level only:
 * what smp_task_env_add_levels hands out is each node's groups and the
 * planned inter-group figures, as the library reads them back. */
static void test_levels(void **state)
{
    (void)state;
    smp_error err;
    smp_spec spec;
    smp_nodes nodes;
    assert_int_equal(smp_nodes_parse(&nodes, "n[1-4]", "8", &err), SMP_OK);
    assert_int_equal(smp_spec_load(&spec, "auto:2d:5pt", smp_specs_dir(), &err), SMP_OK);
    assert_int_equal(smp_spec_resolve(&spec, 32, &err), SMP_OK);
    int32_t leaf[4] = {0, 0, 1, 1};
    smp_levels lv = {.nlevels = 1, .nnodes = 4, .ngroups = {2}};
    lv.group_of_node[0] = leaf;
    smp_plan_opts o = {.algorithm = SMP_ALG_AUTO, .objective = SMP_OBJ_MAX, .effort = 1,
                       .levels = &lv};
    smp_placement pl, blk;
    assert_int_equal(smp_plan_with(&spec.grid, &spec.stencil, nodes.slots, nodes.count, &o, &pl,
                                   &err), SMP_OK);
    assert_int_equal(pl.nlevels, 1);
    assert_int_equal(
        smp_plan(&spec.grid, &spec.stencil, nodes.slots, nodes.count, SMP_ALG_BLOCKED, &blk, &err),
        SMP_OK);
    smp_task_env env;
    bool too_long = true;
    assert_int_equal(smp_task_env_build(&env, &spec.grid, &spec.stencil, pl.algorithm, &pl.score,
                                        &blk.score, &err), SMP_OK);
    int base = env.count;
    /* no levels: nothing added */
    smp_levels none = {0};
    assert_int_equal(smp_task_env_add_levels(&env, nodes.names, nodes.count, &none, pl.level,
                                             &too_long, &err), SMP_OK);
    assert_int_equal(env.count, base);
    assert_false(too_long);
    assert_int_equal(smp_task_env_add_levels(&env, nodes.names, nodes.count, &lv, pl.level,
                                             &too_long, &err), SMP_OK);
    assert_false(too_long);
    assert_int_equal(env.count, base + 4);
    assert_string_equal(env_get(SMP_ENV_LEVEL_NODES, &env), "n1,n2,n3,n4");

    stencilmap_place place;
    char msg[STENCILMAP_MSG_LEN];
    if (stencilmap_place_parse(&place, env_get, &env, msg, sizeof(msg)))
        fail_msg("the library refused the level variables: %s", msg);
    assert_int_equal(place.nlevels, 1);
    assert_true(place.has_level_planned);
    assert_int_equal(place.level_planned_jsum[0], pl.level[0].j_sum);
    assert_int_equal(place.level_planned_jmax[0], pl.level[0].j_max);
    for (int n = 0; n < 4; n++)
        assert_int_equal(stencilmap_node_group(&place, 0, nodes.names[n]), leaf[n]);
    assert_int_equal(stencilmap_node_group(&place, 0, "n5"), -1);
    stencilmap_place_free(&place);
    smp_task_env_free(&env);
    smp_placement_free(&pl);
    smp_placement_free(&blk);
    smp_spec_free(&spec);
    smp_nodes_free(&nodes);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_named_specs),
        cmocka_unit_test(test_weighted),
        cmocka_unit_test(test_column_major),
        cmocka_unit_test(test_levels),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
