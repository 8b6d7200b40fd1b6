/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The plugin's site policy (plugstack.conf arguments): objective= and
 * effort= parse to the site defaults, a bad value is refused naming the
 * argument, and a spec's own "objective" and "effort" win over the
 * site's; topology= says where the levels above the nodes come from. */
#include "unit_util.h"

#include "policy.h"

static int parse_args(sm_policy *pol, const char *a, const char *b, char *msg, size_t n)
{
    char *av[2] = {(char *)a, (char *)b};
    return sm_policy_parse(pol, b ? 2 : 1, av, msg, n);
}

static void test_policy_objective(void **state)
{
    (void)state;
    sm_policy pol;
    char msg[300];
    smp_spec spec;
    memset(&spec, 0, sizeof(spec));
    /* nothing given anywhere: the default, max */
    assert_int_equal(parse_args(&pol, "on_error=blocked", NULL, msg, sizeof(msg)), 0);
    assert_false(pol.have_objective);
    assert_int_equal(sm_policy_objective(&pol, &spec), SMP_OBJ_MAX);
    /* the site's default applies to a spec that does not say */
    assert_int_equal(parse_args(&pol, "objective=sum", "bind=none", msg, sizeof(msg)), 0);
    assert_true(pol.have_objective);
    assert_int_equal(sm_policy_objective(&pol, &spec), SMP_OBJ_SUM);
    /* a spec that says wins, either way */
    spec.have_objective = true;
    spec.objective = SMP_OBJ_SUM;
    assert_int_equal(parse_args(&pol, "objective=max", NULL, msg, sizeof(msg)), 0);
    assert_int_equal(sm_policy_objective(&pol, &spec), SMP_OBJ_SUM);
    assert_int_equal(parse_args(&pol, "objective=sum", NULL, msg, sizeof(msg)), 0);
    spec.objective = SMP_OBJ_MAX;
    assert_int_equal(sm_policy_objective(&pol, &spec), SMP_OBJ_MAX);
    /* bad values name the argument */
    assert_int_equal(parse_args(&pol, "objective=mean", NULL, msg, sizeof(msg)), -1);
    assert_non_null(strstr(msg, "objective=mean"));
    assert_non_null(strstr(msg, "'sum' or 'max'"));
    assert_int_equal(parse_args(&pol, "objective=", NULL, msg, sizeof(msg)), -1);
    assert_non_null(strstr(msg, "objective="));
    /* the list of known keys names it */
    assert_int_equal(parse_args(&pol, "objectve=max", NULL, msg, sizeof(msg)), -1);
    assert_non_null(strstr(msg, "objective"));
}

/* algorithm= takes every name of the construction table, the reference
 * orders too; an unknown one is refused with the list, which names them. */
static void test_policy_algorithm(void **state)
{
    (void)state;
    sm_policy pol;
    char msg[400];
    assert_int_equal(parse_args(&pol, "algorithm=cyclic", NULL, msg, sizeof(msg)), 0);
    assert_true(pol.have_algorithm);
    assert_int_equal(pol.algorithm, SMP_ALG_CYCLIC);
    assert_int_equal(parse_args(&pol, "algorithm=random", NULL, msg, sizeof(msg)), 0);
    assert_int_equal(pol.algorithm, SMP_ALG_RANDOM);
    assert_int_equal(parse_args(&pol, "algorithm=roundrobin", NULL, msg, sizeof(msg)), -1);
    assert_non_null(strstr(msg, "algorithm=roundrobin"));
    assert_non_null(strstr(msg, "cyclic, random"));
}

static void test_policy_effort(void **state)
{
    (void)state;
    sm_policy pol;
    char msg[300];
    smp_spec spec;
    memset(&spec, 0, sizeof(spec));
    assert_int_equal(parse_args(&pol, "bind=none", NULL, msg, sizeof(msg)), 0);
    assert_int_equal(sm_policy_effort(&pol, &spec), SMP_EFFORT_DEFAULT);
    assert_int_equal(parse_args(&pol, "effort=8", "objective=sum", msg, sizeof(msg)), 0);
    assert_int_equal(sm_policy_effort(&pol, &spec), 8);
    spec.effort = 3; /* the spec's own wins */
    assert_int_equal(sm_policy_effort(&pol, &spec), 3);
    static const char *const bad[] = {"effort=0", "effort=65", "effort=", "effort=4x", "effort=-1",
                                      "effort=99999999999999999999"};
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        assert_int_equal(parse_args(&pol, bad[i], NULL, msg, sizeof(msg)), -1);
        assert_non_null(strstr(msg, bad[i]));
        assert_non_null(strstr(msg, "1 to 64"));
    }
    assert_int_equal(parse_args(&pol, "efort=2", NULL, msg, sizeof(msg)), -1);
    assert_non_null(strstr(msg, "effort"));
}

/* topology=: Slurm's by default, none, or a site file named by its
 * absolute path (read later, in srun); anything else names the argument */
static void test_policy_topology(void **state)
{
    (void)state;
    sm_policy pol;
    char msg[300];
    assert_int_equal(parse_args(&pol, "bind=none", NULL, msg, sizeof(msg)), 0);
    assert_int_equal(pol.topology, SM_TOPOLOGY_SLURM);
    assert_int_equal(parse_args(&pol, "topology=none", NULL, msg, sizeof(msg)), 0);
    assert_int_equal(pol.topology, SM_TOPOLOGY_NONE);
    assert_int_equal(parse_args(&pol, "topology=none", "topology=slurm", msg, sizeof(msg)), 0);
    assert_int_equal(pol.topology, SM_TOPOLOGY_SLURM); /* the last one wins */
    assert_int_equal(parse_args(&pol, "topology=/etc/slurm/site-topology.conf", NULL, msg,
                                sizeof(msg)), 0);
    assert_int_equal(pol.topology, SM_TOPOLOGY_FILE);
    assert_string_equal(pol.topology_file, "/etc/slurm/site-topology.conf");
    char longpath[1100];
    memset(longpath, 'a', sizeof(longpath));
    memcpy(longpath, "topology=/", 10);
    longpath[sizeof(longpath) - 1] = '\0';
    static const char *const bad[] = {"topology=", "topology=tree", "topology=etc/topo.conf",
                                      "topology=None"};
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        assert_int_equal(parse_args(&pol, bad[i], NULL, msg, sizeof(msg)), -1);
        assert_non_null(strstr(msg, bad[i]));
        assert_non_null(strstr(msg, "absolute path"));
    }
    assert_int_equal(parse_args(&pol, longpath, NULL, msg, sizeof(msg)), -1);
    assert_non_null(strstr(msg, "topology=/aaa"));
    assert_int_equal(parse_args(&pol, "topolgy=none", NULL, msg, sizeof(msg)), -1);
    assert_non_null(strstr(msg, "topology"));
}

/* levels_mode=: best by default, groups-first or nodes-first; anything
 * else names the argument and the three modes */
static void test_policy_levels_mode(void **state)
{
    (void)state;
    sm_policy pol;
    char msg[300];
    assert_int_equal(parse_args(&pol, "topology=none", NULL, msg, sizeof(msg)), 0);
    assert_int_equal(pol.levels_mode, SMP_LEVELS_BEST);
    assert_int_equal(parse_args(&pol, "levels_mode=nodes-first", NULL, msg, sizeof(msg)), 0);
    assert_int_equal(pol.levels_mode, SMP_LEVELS_NODES_FIRST);
    assert_int_equal(parse_args(&pol, "levels_mode=groups-first", NULL, msg, sizeof(msg)), 0);
    assert_int_equal(pol.levels_mode, SMP_LEVELS_GROUPS_FIRST);
    assert_int_equal(parse_args(&pol, "levels_mode=nodes-first", "levels_mode=best", msg,
                                sizeof(msg)), 0);
    assert_int_equal(pol.levels_mode, SMP_LEVELS_BEST); /* the last one wins */
    static const char *const bad[] = {"levels_mode=", "levels_mode=nodes_first",
                                      "levels_mode=Best", "levels_mode=fastest"};
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        assert_int_equal(parse_args(&pol, bad[i], NULL, msg, sizeof(msg)), -1);
        assert_non_null(strstr(msg, bad[i]));
        assert_non_null(strstr(msg, "'best', 'groups-first' or 'nodes-first'"));
    }
}

/* routing=, uplinks= and uplink_speed=: static by default, adaptive; 1 to
 * 4 counts or speeds per level; anything else names the argument */
static void test_policy_links(void **state)
{
    (void)state;
    sm_policy pol;
    char msg[300];
    assert_int_equal(parse_args(&pol, "topology=none", NULL, msg, sizeof(msg)), 0);
    assert_int_equal(pol.routing, SMP_ROUTING_STATIC);
    assert_int_equal(pol.nuplinks, 0);
    assert_int_equal(parse_args(&pol, "routing=adaptive", "uplinks=8,2", msg, sizeof(msg)), 0);
    assert_int_equal(pol.routing, SMP_ROUTING_ADAPTIVE);
    assert_int_equal(pol.nuplinks, 2);
    assert_int_equal(pol.uplinks[0], 8);
    assert_int_equal(pol.uplinks[1], 2);
    assert_int_equal(pol.nspeeds, 0);
    assert_int_equal(parse_args(&pol, "uplink_speed=0.25,2", NULL, msg, sizeof(msg)), 0);
    assert_int_equal(pol.nspeeds, 2);
    assert_true(pol.uplink_speed[0] == 0.25 && pol.uplink_speed[1] == 2.0);
    static const char *const bad[] = {"routing=dmodk", "uplinks=0", "uplinks=8,", "uplinks=1,2,3,4,5",
                                      "uplinks=x", "uplinks=", "uplink_speed=0", "uplink_speed=-1",
                                      "uplink_speed=nan", "uplink_speed=inf", "uplink_speed=1e2",
                                      "uplink_speed=1001", "uplink_speed=0.5,", "uplink_speed=",
                                      "uplink_speed=1,1,1,1,1", "uplink_speed=fast"};
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        assert_int_equal(parse_args(&pol, bad[i], NULL, msg, sizeof(msg)), -1);
        assert_non_null(strstr(msg, bad[i]));
    }
}

/* learned_dir=: an absolute root for the users' stores */
static void test_policy_learned_dir(void **state)
{
    (void)state;
    sm_policy pol;
    char msg[300];
    assert_int_equal(parse_args(&pol, "default=learn", NULL, msg, sizeof(msg)), 0);
    assert_string_equal(pol.learned_dir, "");
    assert_string_equal(pol.default_spec, "learn");
    assert_int_equal(parse_args(&pol, "learned_dir=/var/lib/stencil-map", "default=learn", msg, sizeof(msg)), 0);
    assert_string_equal(pol.learned_dir, "/var/lib/stencil-map");
    assert_int_equal(parse_args(&pol, "learned_dir=relative/dir", NULL, msg, sizeof(msg)), -1);
    assert_non_null(strstr(msg, "learned_dir=relative/dir"));
    assert_non_null(strstr(msg, "absolute path"));
    assert_int_equal(parse_args(&pol, "learned_dir=", NULL, msg, sizeof(msg)), -1);
    assert_int_equal(parse_args(&pol, "learn_dir=/x", NULL, msg, sizeof(msg)), -1);
    assert_non_null(strstr(msg, "learned_dir"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_policy_objective),
        cmocka_unit_test(test_policy_algorithm),
        cmocka_unit_test(test_policy_effort),
        cmocka_unit_test(test_policy_topology),
        cmocka_unit_test(test_policy_levels_mode),
        cmocka_unit_test(test_policy_links),
        cmocka_unit_test(test_policy_learned_dir),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
