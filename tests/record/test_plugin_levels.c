/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The plugin's srun side on network levels (spank_plugin/step.c,
 * step_levels.c, record.c), without Slurm: Slurm's topology comes from a
 * stand-in for slurm_topology.c that returns what scontrol prints.
 *
 *  - with levels, the plan, its summary, the tasks' variables and the
 *    record carry the figures between groups, and they are the placement
 *    core's own score of the launched placement;
 *  - without (topology=none, a flat topology, a step inside one switch),
 *    the hostfile, the summary and the record are exactly those of a step
 *    planned with no topology at all;
 *  - bad topologies (Slurm unreachable, a file that cannot be read, an
 *    unknown or doubly placed node, a loop, a topology naming none of the
 *    step's nodes) fail the plan naming the problem, or fall back to
 *    blocked under on_error=blocked: never a placement other than the one
 *    reported. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "policy.h"
#include "record.h"
#include "smr_record.h"
#include "formats/stencil_env.h"
#include "step.h"

static char dir[4096];

static const char *tree_text = "SwitchName=leaf1 Level=0 LinkSpeed=1 Nodes=node[1-2]\n"
                               "SwitchName=leaf2 Level=0 LinkSpeed=1 Nodes=node[3-4]\n"
                               "SwitchName=root Level=1 LinkSpeed=1 Nodes=node[1-4] "
                               "Switches=leaf[1-2]\n";
static const char *block_text = "BlockName=b1 BlockIndex=0 Nodes=node[1-2] BlockSize=2\n"
                                "BlockName=b2 BlockIndex=1 Nodes=node[3-4] BlockSize=2\n"
                                "AggregatedBlock=b[1-2] BlockIndex=2 Nodes=node[1-4] "
                                "BlockSize=4\n";
/* what the stand-in answers next: text (NULL: no level above nodes), or
 * fail with a message */
static const char *answer;
static int answer_fails;
static int asked;

static int fake_slurm(char **text, char *plugin, size_t plugin_len, char *msg, size_t n)
{
    asked++;
    *text = NULL;
    snprintf(plugin, plugin_len, "%s", answer ? "topology/tree" : "topology/flat");
    if (answer_fails) {
        snprintf(msg, n, "cannot ask slurmctld for the network topology: Connection refused");
        return -1;
    }
    if (answer && !(*text = strdup(answer)))
        return -1;
    return 0;
}

static int setup(void **state)
{
    (void)state;
    const char *t = getenv("TMPDIR");
    snprintf(dir, sizeof(dir), "%s/plugin-levels.XXXXXX", t && *t ? t : "/tmp");
    if (!mkdtemp(dir))
        return -1;
    setenv("SLURM_JOB_NODELIST", "node[1-4]", 1);
    setenv("SLURM_JOB_CPUS_PER_NODE", "8(x4)", 1);
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    char cmd[4200];
    snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
    return system(cmd);
}

/* "topology_strict=yes" while the strict cases run, else NULL */
static const char *strict_arg;

static void policy(sm_policy *pol, const char *a, const char *b)
{
    char arg[4200];
    snprintf(arg, sizeof(arg), "record_dir=%s", dir);
    char *av[4] = {arg, NULL, NULL, NULL};
    int ac = 1;
    if (strict_arg)
        av[ac++] = (char *)strict_arg;
    if (a)
        av[ac++] = (char *)a;
    if (b)
        av[ac++] = (char *)b;
    char msg[1024];
    if (sm_policy_parse(pol, ac, av, msg, sizeof(msg)))
        fail_msg("policy: %s", msg);
}

static char *write_file(const char *name, const char *text)
{
    static char path[4200];
    snprintf(path, sizeof(path), "%s/%s", dir, name);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
    return path;
}

/* plans spec for 32 tasks; the hostfile's text into hosts (may be NULL) */
static int plan(sm_step *st, const sm_policy *pol, const char *spec, sm_slurm_topology_fn slurm,
                char *hosts, size_t hn)
{
    sm_srun_args a;
    memset(&a, 0, sizeof(a));
    a.ntasks = 32;
    const char *t = getenv("TMPDIR");
    int rc = sm_step_plan(st, pol, &a, spec, SM_SRC_OPTION, t && *t ? t : "/tmp", NULL, NULL,
                          slurm);
    if (hosts) {
        hosts[0] = '\0';
        FILE *f = st->placed ? fopen(st->hostfile, "r") : NULL;
        if (f) {
            size_t got = fread(hosts, 1, hn - 1, f);
            hosts[got] = '\0';
            fclose(f);
        }
    }
    sm_step_drop_hostfile(st);
    return rc;
}

static void summary(const sm_step *st, char *buf, size_t n)
{
    FILE *f = fmemopen(buf, n, "w");
    assert_non_null(f);
    sm_step_summary(st, f);
    fclose(f);
}

/* the record's JSON text without its time and ids (what differs between
 * two writes of one plan) */
static char *record_text(sm_step *st, const sm_policy *pol, uint32_t step)
{
    char msg[1024];
    if (sm_record_write(st, pol, 7, step, true, NULL, msg, sizeof(msg)))
        fail_msg("write: %s", msg);
    FILE *f = fopen(st->record, "r");
    assert_non_null(f);
    static char buf[1 << 16];
    size_t got = fread(buf, 1, sizeof(buf) - 1, f);
    buf[got] = '\0';
    fclose(f);
    char *out = strdup(buf), *w = out;
    for (char *line = strtok(buf, "\n"); line; line = strtok(NULL, "\n"))
        if (!strstr(line, "\"time\"") && !strstr(line, "\"step_id\"") &&
            !strstr(line, "\"plugin_ms\"") && !strstr(line, "\"plugin_cpu_ms\"") &&
            !strstr(line, "\"alloc_check_ms\"") && !strstr(line, "\"hostfile\"") &&
            !strstr(line, "\"topology_source\""))
            w += sprintf(w, "%s\n", line);
    return out;
}

static void test_tree(void **state)
{
    (void)state;
    sm_policy pol;
    policy(&pol, NULL, NULL);
    answer = tree_text;
    answer_fails = 0;
    sm_step st;
    if (plan(&st, &pol, "auto:2d:5pt", fake_slurm, NULL, 0))
        fail_msg("plan: %s", st.error);
    assert_int_equal(st.levels.nlevels, 1); /* root drops out: it holds every node */
    assert_int_equal(st.pl.nlevels, 1);
    assert_string_equal(st.levels.source, "slurm (topology/tree)");
    assert_string_equal(st.levels_kind, "topology/tree");
    int32_t want_groups[4] = {0, 0, 1, 1};
    assert_memory_equal(st.levels.group_of_node[0], want_groups, sizeof(want_groups));
    /* the figures are the core's score of the placements */
    smp_score lp, lb;
    smp_error err;
    smp_error_clear(&err);
    assert_int_equal(smp_levels_score_compute(&st.spec.grid, &st.spec.stencil,
                                              st.pl.node_of_rank, 4, &st.levels, &lp, &err), 0);
    assert_int_equal(smp_levels_score_compute(&st.spec.grid, &st.spec.stencil,
                                              st.blocked.node_of_rank, 4, &st.levels, &lb, &err),
                     0);
    assert_int_equal(st.pl.level[0].j_sum, lp.j_sum);
    assert_int_equal(st.blocked.level[0].j_sum, lb.j_sum);
    assert_true(lp.j_sum <= lb.j_sum);
    /* the busiest link: the core's score on the step's links (static
     * routing, one uplink a leaf: the root is each leaf's one parent) */
    smp_link_score ls;
    assert_int_equal(smp_link_score_compute(&st.spec.grid, &st.spec.stencil, st.pl.node_of_rank,
                                            4, &st.levels, &st.links, &ls, &err), 0);
    assert_true(ls.l_max > 0 && ls.bound > 0 && ls.bound <= ls.l_max);
    assert_true(ls.l_max == st.pl.link.l_max && ls.bound == st.pl.link.bound);
    char line[512], want[512];
    summary(&st, line, sizeof(line));
    snprintf(want, sizeof(want),
             "stencil-map: %s, 32 ranks on 4 nodes, inter-node edges %lld (blocked %lld), "
             "between switches %lld (blocked %lld), busiest link %.4g (bound %.4g)\n",
             smp_algorithm_name(st.pl.algorithm), (long long)st.pl.score.j_sum,
             (long long)st.blocked.score.j_sum, (long long)lp.j_sum, (long long)lb.j_sum,
             ls.l_max, ls.bound);
    assert_string_equal(line, want);
    /* the tasks' variables */
    assert_int_equal(sm_step_export_env(&st), 0);
    assert_string_equal(getenv(SMP_ENV_LEVEL_NODES), "node1,node2,node3,node4");
    assert_string_equal(getenv(SMP_ENV_LEVELS), "0,0,1,1");
    char js[32];
    snprintf(js, sizeof(js), "%lld", (long long)lp.j_sum);
    assert_string_equal(getenv(SMP_ENV_LEVEL_JSUM), js);
    snprintf(js, sizeof(js), "%lld", (long long)lp.j_max);
    assert_string_equal(getenv(SMP_ENV_LEVEL_JMAX), js);
    /* the record */
    char msg[1024], rerr[512];
    assert_int_equal(sm_record_write(&st, &pol, 42, 3, true, NULL, msg, sizeof(msg)), 0);
    smr_record rec;
    if (smr_record_read(st.record, &rec, rerr, sizeof(rerr)))
        fail_msg("read: %s", rerr);
    assert_int_equal(rec.levels.nlevels, 1);
    assert_string_equal(rec.levels.source, "slurm (topology/tree)");
    assert_string_equal(rec.topology_kind, "topology/tree");
    assert_memory_equal(rec.levels.group_of_node[0], want_groups, sizeof(want_groups));
    assert_int_equal(rec.levels.ngroups[0], 2);
    assert_non_null(rec.levels.group_names[0]);
    assert_string_equal(rec.levels.group_names[0][0], "leaf1");
    assert_string_equal(rec.levels.group_names[0][1], "leaf2");
    assert_int_equal(rec.level_planned[0].j_sum, lp.j_sum);
    assert_int_equal(rec.level_planned[0].j_max, lp.j_max);
    assert_int_equal(rec.level_blocked[0].j_sum, lb.j_sum);
    assert_int_equal(rec.level_blocked[0].j_max, lb.j_max);
    assert_true(rec.link_l_max == ls.l_max && rec.link_bound == ls.bound);
    assert_string_equal(rec.link_routing, "static");
    assert_int_equal(rec.link_uplinks_min[0], 1);
    assert_int_equal(rec.link_uplinks_max[0], 1);
    smr_record_free(&rec);
    sm_env_clear();
    unsetenv("SLURM_HOSTFILE");
    sm_step_release(&st);
}

/* Two levels: leaf switches of two nodes, two spine switches above them,
 * a root above all (dropped: it holds every node).  The line names both,
 * the tasks and the record get both. */
static void test_two_levels(void **state)
{
    (void)state;
    setenv("SLURM_JOB_NODELIST", "node[1-8]", 1);
    setenv("SLURM_JOB_CPUS_PER_NODE", "8(x8)", 1);
    sm_policy pol;
    policy(&pol, NULL, NULL);
    answer = "SwitchName=a Level=0 LinkSpeed=1 Nodes=node[1-2]\n"
             "SwitchName=b Level=0 LinkSpeed=1 Nodes=node[3-4]\n"
             "SwitchName=c Level=0 LinkSpeed=1 Nodes=node[5-6]\n"
             "SwitchName=d Level=0 LinkSpeed=1 Nodes=node[7-8]\n"
             "SwitchName=x Level=1 LinkSpeed=1 Nodes=node[1-4] Switches=a,b\n"
             "SwitchName=y Level=1 LinkSpeed=1 Nodes=node[5-8] Switches=c,d\n"
             "SwitchName=root Level=2 LinkSpeed=1 Nodes=node[1-8] Switches=x,y\n";
    answer_fails = 0;
    sm_srun_args a;
    memset(&a, 0, sizeof(a));
    a.ntasks = 64;
    const char *t = getenv("TMPDIR");
    sm_step st;
    if (sm_step_plan(&st, &pol, &a, "auto:2d:5pt", SM_SRC_OPTION, t && *t ? t : "/tmp", NULL, NULL,
                     fake_slurm))
        fail_msg("plan: %s", st.error);
    sm_step_drop_hostfile(&st);
    assert_int_equal(st.levels.nlevels, 2);
    assert_int_equal(st.pl.nlevels, 2);
    char line[512], want[512];
    summary(&st, line, sizeof(line));
    snprintf(want, sizeof(want),
             ", between switches %lld (blocked %lld), between level-1 switches %lld (blocked "
             "%lld), busiest link %.4g (bound %.4g)\n",
             (long long)st.pl.level[0].j_sum, (long long)st.blocked.level[0].j_sum,
             (long long)st.pl.level[1].j_sum, (long long)st.blocked.level[1].j_sum,
             st.pl.link.l_max, st.pl.link.bound);
    if (!strstr(line, want))
        fail_msg("line '%s' lacks '%s'", line, want);
    /* a coarser level is crossed by at most the edges of the finer one */
    assert_true(st.pl.level[1].j_sum <= st.pl.level[0].j_sum);
    assert_true(st.pl.level[0].j_sum <= st.pl.score.j_sum);
    assert_int_equal(sm_step_export_env(&st), 0);
    assert_string_equal(getenv(SMP_ENV_LEVELS), "0,0,1,1,2,2,3,3;0,0,0,0,1,1,1,1");
    char msg[1024], rerr[512];
    assert_int_equal(sm_record_write(&st, &pol, 43, 1, true, NULL, msg, sizeof(msg)), 0);
    smr_record rec;
    if (smr_record_read(st.record, &rec, rerr, sizeof(rerr)))
        fail_msg("read: %s", rerr);
    assert_int_equal(rec.levels.nlevels, 2);
    assert_int_equal(rec.levels.ngroups[1], 2);
    assert_string_equal(rec.levels.group_names[1][1], "y");
    assert_int_equal(rec.level_planned[1].j_sum, st.pl.level[1].j_sum);
    assert_true(rec.link_l_max == st.pl.link.l_max && rec.link_bound == st.pl.link.bound);
    smr_record_free(&rec);
    sm_env_clear();
    unsetenv("SLURM_HOSTFILE");
    sm_step_release(&st);
    setenv("SLURM_JOB_NODELIST", "node[1-4]", 1);
    setenv("SLURM_JOB_CPUS_PER_NODE", "8(x4)", 1);
}

static void test_block_and_file(void **state)
{
    (void)state;
    sm_policy pol;
    policy(&pol, NULL, NULL);
    answer = block_text;
    answer_fails = 0;
    sm_step st;
    if (plan(&st, &pol, "auto:2d:5pt", fake_slurm, NULL, 0))
        fail_msg("plan: %s", st.error);
    assert_int_equal(st.levels.nlevels, 1);
    assert_string_equal(st.levels_kind, "topology/block");
    char line[512];
    summary(&st, line, sizeof(line));
    assert_non_null(strstr(line, ", between blocks "));
    sm_step_release(&st);
    /* a site file: Slurm is not asked, the file's groups are used */
    char *path = write_file("site.conf", "SwitchName=a Nodes=node[1,3]\n"
                                         "SwitchName=b Nodes=node[2,4]\n"
                                         "SwitchName=top Switches=a,b\n");
    char arg[4300];
    snprintf(arg, sizeof(arg), "topology=%s", path);
    policy(&pol, arg, NULL);
    asked = 0;
    if (plan(&st, &pol, "auto:2d:5pt", fake_slurm, NULL, 0))
        fail_msg("plan: %s", st.error);
    assert_int_equal(asked, 0);
    char want[4400];
    snprintf(want, sizeof(want), "file %s", path);
    assert_string_equal(st.levels.source, want);
    int32_t want_groups[4] = {0, 1, 0, 1};
    assert_memory_equal(st.levels.group_of_node[0], want_groups, sizeof(want_groups));
    sm_step_release(&st);
}

/* No levels, four ways: what srun prints, launches and records is the
 * plan of a cluster without a topology, to the byte. */
static void test_without_levels(void **state)
{
    (void)state;
    sm_policy base, none;
    policy(&base, NULL, NULL);
    policy(&none, "topology=none", NULL);
    sm_step st;
    static char hosts0[4096], hosts[4096];
    char sum0[512], sum[512];
    assert_int_equal(plan(&st, &base, "auto:2d:5pt", NULL, hosts0, sizeof(hosts0)), 0);
    summary(&st, sum0, sizeof(sum0));
    assert_string_equal(st.levels.source, "none"); /* no Slurm to ask */
    char *rec0 = record_text(&st, &base, 10);
    sm_step_release(&st);
    assert_null(strstr(rec0, "topology"));
    /* the record still says where the (absent) levels came from */
    struct {
        const sm_policy *pol;
        const char *answer;
        const char *spec;
        const char *source;
    } cases[] = {
        /* the site turned levels off: Slurm not asked */
        {&none, tree_text, "auto:2d:5pt", "none"},
        /* topology/flat: nothing printed */
        {&base, NULL, "auto:2d:5pt", "slurm (topology/flat)"},
        /* an empty answer */
        {&base, "", "auto:2d:5pt", "slurm (topology/tree)"},
        /* one switch over every node */
        {&base, "SwitchName=s Level=0 LinkSpeed=1 Nodes=node[1-4]\n", "auto:2d:5pt",
         "slurm (topology/tree)"},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        answer = cases[i].answer;
        answer_fails = 0;
        asked = 0;
        if (plan(&st, cases[i].pol, cases[i].spec, fake_slurm, hosts, sizeof(hosts)))
            fail_msg("case %zu: %s", i, st.error);
        assert_int_equal(st.levels.nlevels, 0);
        if (strcmp(st.levels.source, cases[i].source))
            fail_msg("case %zu: source '%s', not '%s'", i, st.levels.source, cases[i].source);
        assert_int_equal(asked, i == 0 ? 0 : 1);
        assert_string_equal(hosts, hosts0);
        summary(&st, sum, sizeof(sum));
        assert_string_equal(sum, sum0);
        assert_int_equal(sm_step_export_env(&st), 0);
        assert_null(getenv(SMP_ENV_LEVELS));
        assert_null(getenv(SMP_ENV_LEVEL_NODES));
        char *rec = record_text(&st, cases[i].pol, (uint32_t)(11 + i));
        assert_string_equal(rec, rec0);
        smr_record back;
        char why[512];
        if (smr_record_read(st.record, &back, why, sizeof(why)))
            fail_msg("case %zu: reading the record back: %s", i, why);
        assert_string_equal(back.levels.source, cases[i].source);
        assert_int_equal(back.levels.nlevels, 0);
        smr_record_free(&back);
        free(rec);
        sm_env_clear();
        unsetenv("SLURM_HOSTFILE");
        sm_step_release(&st);
    }
    free(rec0);
}

/* A bad topology fails the plan naming the problem; under on_error=blocked
 * the step falls back with the same message and nothing placed. */
static void expect_fails(const char *topology_arg, const char *slurm_answer, int slurm_fails,
                         const char *want)
{
    sm_policy pol;
    sm_step st;
    for (int blocked = 0; blocked < 2; blocked++) {
        policy(&pol, topology_arg, blocked ? "on_error=blocked" : NULL);
        answer = slurm_answer;
        answer_fails = slurm_fails;
        int rc = plan(&st, &pol, "auto:2d:5pt", fake_slurm, NULL, 0);
        if (!strstr(st.error, want))
            fail_msg("%s / %s: error '%s' lacks '%s'", topology_arg ? topology_arg : "slurm",
                     slurm_answer ? slurm_answer : "-", st.error, want);
        assert_false(st.placed);
        assert_int_equal(st.levels.nlevels, 0);
        if (blocked) {
            assert_int_equal(rc, 0);
            assert_true(st.fallback);
            assert_int_equal(sm_step_export_env(&st), 0);
            assert_string_equal(getenv(SMP_ENV_ALGORITHM), "blocked");
            assert_null(getenv("SLURM_HOSTFILE"));
            assert_null(getenv(SMP_ENV_LEVELS));
            sm_env_clear();
        } else {
            assert_int_equal(rc, -1);
            assert_false(st.fallback);
        }
        sm_step_release(&st);
    }
}

static void test_bad_topologies(void **state)
{
    (void)state;
    char arg[4300];
    expect_fails(NULL, NULL, 1, "cannot ask slurmctld for the network topology");
    expect_fails(NULL, "RingName=r Nodes=node[1-4] RingSize=4\n", 0, "RingName");
    snprintf(arg, sizeof(arg), "topology=%s/absent.conf", dir);
    expect_fails(arg, NULL, 0, "absent.conf': cannot open");
    char *p = write_file("unreadable.conf", "SwitchName=s Nodes=node[1-4]\n");
    if (geteuid() != 0) { /* root reads it anyway */
        chmod(p, 0);
        snprintf(arg, sizeof(arg), "topology=%s", p);
        expect_fails(arg, NULL, 0, "Permission denied");
    }
    /* what Slurm accepts is repaired, and refused with topology_strict=yes */
    strict_arg = "topology_strict=yes";
    p = write_file("twice.conf", "SwitchName=a Nodes=node[1-3]\nSwitchName=b Nodes=node[3-4]\n"
                                 "SwitchName=t Switches=a,b\n");
    snprintf(arg, sizeof(arg), "topology=%s", p);
    expect_fails(arg, NULL, 0, "node3 is in both");
    p = write_file("partial.conf", "SwitchName=a Nodes=node[1-2]\nSwitchName=b Nodes=node3\n");
    snprintf(arg, sizeof(arg), "topology=%s", p);
    expect_fails(arg, NULL, 0, "node node4 is in no switch");
    expect_fails(NULL,
                 "SwitchName=a Level=0 LinkSpeed=1 Nodes=node[1-3]\n"
                 "SwitchName=b Level=0 LinkSpeed=1 Nodes=node[3-4]\n",
                 0, "node3 is in both");
    strict_arg = NULL;
    p = write_file("loop.conf", "SwitchName=a Nodes=node[1-2]\nSwitchName=b Nodes=node[3-4]\n"
                                "SwitchName=x Switches=a,y\nSwitchName=y Switches=b,x\n");
    snprintf(arg, sizeof(arg), "topology=%s", p);
    expect_fails(arg, NULL, 0, "loop");
    p = write_file("foreign.conf", "SwitchName=a Nodes=cn[1-2]\nSwitchName=b Nodes=cn[3-4]\n");
    snprintf(arg, sizeof(arg), "topology=%s", p);
    expect_fails(arg, NULL, 0, "names none of the step's nodes");
    p = write_file("garbage.conf", "SwitchName=a Nodes=node[1-2\n");
    snprintf(arg, sizeof(arg), "topology=%s", p);
    expect_fails(arg, NULL, 0, "garbage.conf");
}

/* Without topology_strict, a node under two leaves and one in none are
 * repaired: the step is placed on three groups (a, a+b, node4). */
static void test_repaired_topology(void **state)
{
    (void)state;
    sm_policy pol;
    sm_step st;
    char arg[4300];
    char *p = write_file("repaired.conf", "SwitchName=a Nodes=node[1-3]\nSwitchName=b Nodes=node3\n");
    snprintf(arg, sizeof(arg), "topology=%s", p);
    policy(&pol, arg, NULL);
    answer = NULL;
    answer_fails = 0;
    assert_int_equal(plan(&st, &pol, "auto:2d:5pt", fake_slurm, NULL, 0), 0);
    assert_true(st.placed);
    assert_int_equal(st.levels.nlevels, 1);
    assert_int_equal(st.levels.ngroups[0], 3);
    sm_step_release(&st);
}

/* The repairs and the links reach the summary and the record, and come
 * back from it: a node under two leaves (LinkSpeed 100 and 200) and one in
 * no switch, both leaves under one spine. */
static void test_repairs_recorded(void **state)
{
    (void)state;
    sm_policy pol;
    sm_step st;
    char arg[4300], line[512], msg[1024], rerr[512];
    char *p = write_file("noted.conf", "SwitchName=a LinkSpeed=100 Nodes=node[1-3]\n"
                                       "SwitchName=b LinkSpeed=200 Nodes=node3\n"
                                       "SwitchName=top Switches=a,b\n");
    snprintf(arg, sizeof(arg), "topology=%s", p);
    policy(&pol, arg, NULL);
    answer = NULL;
    answer_fails = 0;
    assert_int_equal(plan(&st, &pol, "auto:2d:5pt", fake_slurm, NULL, 0), 0);
    assert_int_equal(sm_level_notes_count(&st.level_notes), 2);
    summary(&st, line, sizeof(line));
    if (!strstr(line, ", topology repaired 2 times\n"))
        fail_msg("summary: %s", line);
    assert_int_equal(sm_record_write(&st, &pol, 42, 9, true, NULL, msg, sizeof(msg)), 0);
    smr_record rec;
    if (smr_record_read(st.record, &rec, rerr, sizeof(rerr)))
        fail_msg("read: %s", rerr);
    assert_non_null(rec.topology_warnings);
    if (!strstr(rec.topology_warnings, "node node3 is under 2 leaf switches (rails)") ||
        !strstr(rec.topology_warnings, "in no switch: "))
        fail_msg("recorded warnings: %s", rec.topology_warnings);
    assert_string_equal(rec.topology_warnings, st.level_notes.warnings);
    assert_int_equal(rec.levels.nlevels, st.levels.nlevels);
    /* level 0: a (1 uplink, 100) and a+b (2 uplinks, the slower 100);
     * node4 is no switch */
    assert_int_equal(rec.links[0].groups, 2);
    assert_int_equal(rec.links[0].uplinks_min, 1);
    assert_int_equal(rec.links[0].uplinks_max, 2);
    assert_int_equal(rec.links[0].speed_min, 100);
    assert_int_equal(rec.links[0].speed_max, 100);
    /* the busiest link's uplinks: unequal (1 and 2), so each group's
     * count is recorded, in the level's group order, as the plan used it */
    assert_true(rec.link_l_max >= 0);
    assert_int_equal(rec.link_uplinks_min[0], 1);
    assert_int_equal(rec.link_uplinks_max[0], 2);
    assert_non_null(st.links.uplinks[0]);
    assert_non_null(rec.link_uplinks_per_group[0]);
    assert_memory_equal(rec.link_uplinks_per_group[0], st.links.uplinks[0],
                        sizeof(int32_t) * (size_t)rec.levels.ngroups[0]);
    /* ... and re-scoring the recorded placement with them, as the audit
     * does, gives the recorded L_max */
    smp_links lk = {.uplinks = {rec.link_uplinks_per_group[0]}};
    assert_true(smp_routing_from_name(rec.link_routing, &lk.routing));
    smp_link_score ls;
    smp_error err;
    smp_error_clear(&err);
    assert_int_equal(smp_link_score_compute(&rec.grid, &rec.stencil, rec.node_of_rank,
                                            rec.nodes.count, &rec.levels, &lk, &ls, &err), 0);
    assert_true(ls.l_max == rec.link_l_max && ls.bound == rec.link_bound);
    smr_record_free(&rec);
    sm_step_release(&st);
}

/* plugstack uplink_speed=: the plan scores the leaves' uplinks at that
 * speed, the record keeps it, and re-scoring with it (as the audit does)
 * gives the recorded L_max, while the same placement at a node link's
 * speed loads its busiest uplink 4 times less */
static void test_speed_recorded(void **state)
{
    (void)state;
    sm_policy pol;
    sm_step st;
    char arg[4300], msg[1024], rerr[512];
    char *p = write_file("speed.conf", "SwitchName=a Nodes=node[1-2]\n"
                                       "SwitchName=b Nodes=node[3-4]\n"
                                       "SwitchName=top Switches=a,b\n");
    snprintf(arg, sizeof(arg), "topology=%s", p);
    policy(&pol, arg, "uplink_speed=0.25");
    answer = NULL;
    answer_fails = 0;
    assert_int_equal(plan(&st, &pol, "auto:2d:5pt", fake_slurm, NULL, 0), 0);
    assert_int_equal(st.levels.nlevels, 1);
    assert_non_null(st.links.speed[0]);
    for (int g = 0; g < st.levels.ngroups[0]; g++)
        assert_true(st.links.speed[0][g] == 0.25);
    assert_int_equal(sm_record_write(&st, &pol, 43, 1, true, NULL, msg, sizeof(msg)), 0);
    smr_record rec;
    if (smr_record_read(st.record, &rec, rerr, sizeof(rerr)))
        fail_msg("read: %s", rerr);
    assert_true(rec.link_speed[0] == 0.25);
    smp_links lk = {.uplinks = {st.links.uplinks[0]}, .speed = {st.links.speed[0]}};
    assert_true(smp_routing_from_name(rec.link_routing, &lk.routing));
    smp_link_score ls, full;
    smp_error err;
    smp_error_clear(&err);
    assert_int_equal(smp_link_score_compute(&rec.grid, &rec.stencil, rec.node_of_rank,
                                            rec.nodes.count, &rec.levels, &lk, &ls, &err), 0);
    assert_true(ls.l_max == rec.link_l_max && ls.bound == rec.link_bound);
    lk.speed[0] = NULL;
    assert_int_equal(smp_link_score_compute(&rec.grid, &rec.stencil, rec.node_of_rank,
                                            rec.nodes.count, &rec.levels, &lk, &full, &err), 0);
    if (!(fabs(4 * full.up_max - ls.up_max) <= 1e-9 * ls.up_max) || !(ls.up_max > 0))
        fail_msg("busiest uplink %g at a quarter speed, %g at a node link's", ls.up_max,
                 full.up_max);
    smr_record_free(&rec);
    sm_step_release(&st);
}

/* plugstack topology=FILE with `scontrol show topology` saved in FILE
 * (24.11's blocks): planned on them, the file named as the source. */
static void test_saved_output_file(void **state)
{
    (void)state;
    sm_policy pol;
    sm_step st;
    char arg[4300];
    setenv("SLURM_JOB_NODELIST", "node[1-4]", 1);
    setenv("SLURM_JOB_CPUS_PER_NODE", "8(x4)", 1);
    char *p = write_file("saved-topology.txt", block_text);
    snprintf(arg, sizeof(arg), "topology=%s", p);
    policy(&pol, arg, NULL);
    answer = NULL;
    answer_fails = 0;
    asked = 0;
    assert_int_equal(plan(&st, &pol, "auto:2d:5pt", fake_slurm, NULL, 0), 0);
    assert_int_equal(asked, 0); /* the file, not Slurm */
    assert_int_equal(st.levels.nlevels, 1);
    assert_string_equal(st.levels_kind, "topology/block");
    char want[4400];
    snprintf(want, sizeof(want), "file %s", p);
    assert_string_equal(st.levels.source, want);
    int32_t want_groups[4] = {0, 0, 1, 1};
    assert_memory_equal(st.levels.group_of_node[0], want_groups, sizeof(want_groups));
    assert_null(st.level_notes.warnings);
    sm_step_release(&st);
}

/* Slurm's own topology lists none of the step's nodes (26.05 gives a
 * one-node job a node in no switch): not another cluster's file but nodes
 * in no switch, planned on nodes only with one warning, recorded; refused
 * with topology_strict=yes.  A file that names none stays an error
 * (test_bad_topologies). */
static void test_slurm_lists_none(void **state)
{
    (void)state;
    sm_policy pol;
    sm_step st;
    char line[512];
    policy(&pol, NULL, NULL);
    answer = "SwitchName=a Level=0 LinkSpeed=1 Nodes=node[5-6]\n";
    answer_fails = 0;
    assert_int_equal(plan(&st, &pol, "auto:2d:5pt", fake_slurm, NULL, 0), 0);
    assert_true(st.placed);
    assert_int_equal(st.levels.nlevels, 0);
    assert_string_equal(st.levels.source, "slurm (topology/tree)");
    assert_int_equal(sm_level_notes_count(&st.level_notes), 1);
    if (!strstr(st.level_notes.warnings,
                "nodes node1, node2, node3, node4 are in no switch: each a group of its own"))
        fail_msg("warnings: %s", st.level_notes.warnings);
    summary(&st, line, sizeof(line));
    if (!strstr(line, ", topology repaired 1 time\n") || strstr(line, "between"))
        fail_msg("summary: %s", line);
    sm_step_release(&st);
    strict_arg = "topology_strict=yes";
    expect_fails(NULL, answer, 0, "node node1 is in no switch");
    strict_arg = NULL;
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_tree),
        cmocka_unit_test(test_two_levels),
        cmocka_unit_test(test_block_and_file),
        cmocka_unit_test(test_without_levels),
        cmocka_unit_test(test_bad_topologies),
        cmocka_unit_test(test_repaired_topology),
        cmocka_unit_test(test_repairs_recorded),
        cmocka_unit_test(test_speed_recorded),
        cmocka_unit_test(test_saved_output_file),
        cmocka_unit_test(test_slurm_lists_none),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
