/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The plugin's reading of srun's command line and of the allocation
 * (spank_plugin/alloc.c): every srun option of 22.05 to 26.05 in front of
 * -n, abbreviations, options it does not know, and the rules of srun
 * 23.11 and later (-N refused, -c inherited). */
#include "unit_util.h"

#include <stdlib.h>
#include <string.h>

#include "alloc.h"
#include "other_launchers.h"
#include "srun_options.h"

static const sm_srun_rules old_srun = {false, false};
static const sm_srun_rules new_srun = {true, true};

/* Parses a NULL-terminated word list as srun's argv. */
static void parse(sm_srun_args *a, const sm_srun_rules *r, const char *const *words)
{
    char *argv[64];
    int argc = 0;
    for (; words[argc]; argc++) {
        assert_true(argc < 63);
        argv[argc] = (char *)words[argc];
    }
    argv[argc] = NULL;
    sm_srun_args_parse(a, argc, argv, r);
}

#define PARSE(a, ...)                                                    \
    do {                                                                 \
        const char *const w_[] = {"srun", __VA_ARGS__, NULL};            \
        parse((a), &old_srun, w_);                                       \
    } while (0)

/* options that set what the plan depends on: not "in front of -n" */
static bool counted(const char *name)
{
    static const char *const c[] = {"ntasks", "nodes", "cpus-per-task", "ntasks-per-node",
                                    "tasks-per-node", "nodelist", "nodefile", NULL};
    for (int i = 0; c[i]; i++)
        if (!strcmp(c[i], name))
            return true;
    return false;
}

static void test_every_long_option_before_n(void **state)
{
    (void)state;
    int seen = 0;
    for (int i = 0; sm_srun_long_with_arg[i]; i++) {
        const char *o = sm_srun_long_with_arg[i];
        if (counted(o))
            continue;
        char opt[80];
        snprintf(opt, sizeof(opt), "--%s", o);
        sm_srun_args a;
        PARSE(&a, opt, "value", "-n", "7", "--stencil-map=jacobi2d", "./app", "-n", "3");
        if (a.ntasks != 7 || !a.have_spec || a.bad[0])
            fail_msg("%s value -n 7: ntasks %lld, bad '%s'", opt, (long long)a.ntasks, a.bad);
        snprintf(opt, sizeof(opt), "--%s=value", o);
        PARSE(&a, opt, "-n7", "./app");
        assert_int_equal(a.ntasks, 7);
        seen++;
    }
    for (int i = 0; sm_srun_long_without_arg[i]; i++) {
        const char *o = sm_srun_long_without_arg[i];
        char opt[80];
        snprintf(opt, sizeof(opt), "--%s", o);
        sm_srun_args a;
        PARSE(&a, opt, "-n", "7", "./app");
        if (a.ntasks != 7 || a.bad[0])
            fail_msg("%s -n 7: ntasks %lld, bad '%s'", opt, (long long)a.ntasks, a.bad);
        seen++;
    }
    /* the options the issue found missing from the old table */
    const char *const newer[] = {"tres-per-task", "extra", "container-id", "autocomplete",
                                 "tres-bind", "treewidth", "segment", "resources", NULL};
    for (int i = 0; newer[i]; i++) {
        char opt[80];
        snprintf(opt, sizeof(opt), "--%s", newer[i]);
        sm_srun_args a;
        PARSE(&a, opt, "x", "-n", "9", "./app");
        assert_int_equal(a.ntasks, 9);
        assert_string_equal(a.bad, "");
    }
    assert_true(seen > 140);
}

static void test_every_short_option_before_n(void **state)
{
    (void)state;
    for (const char *c = sm_srun_short_with_arg; *c; c++) {
        if (strchr("nNcwF", *c))
            continue;
        char opt[3] = {'-', *c, '\0'};
        sm_srun_args a;
        PARSE(&a, opt, "value", "-n", "5", "./app");
        if (a.ntasks != 5)
            fail_msg("%s value -n 5: ntasks %lld", opt, (long long)a.ntasks);
    }
    sm_srun_args a;
    PARSE(&a, "-Ql", "-n4", "./app");
    assert_true(a.quiet);
    assert_int_equal(a.ntasks, 4);
    PARSE(&a, "-lvN2", "-c", "3", "./app");
    assert_int_equal(a.nnodes, 2);
    assert_int_equal(a.cpus_per_task, 3);
}

static void test_counts_and_abbreviations(void **state)
{
    (void)state;
    sm_srun_args a;
    /* an abbreviation that fits one option is that option (getopt_long) */
    PARSE(&a, "--ntasks=6", "--cpus-per-t=2", "--quie", "--stencil-map", "auto:2d:5pt", "./app");
    assert_int_equal(a.ntasks, 6);
    assert_int_equal(a.cpus_per_task, 2);
    assert_true(a.quiet);
    assert_true(a.have_spec);
    assert_string_equal(a.spec, "auto:2d:5pt");
    /* "--nodes" is exact though "--nodefile"/"--nodelist" share its start */
    PARSE(&a, "--nodes", "3", "--ntasks-per-node", "4", "./app");
    assert_int_equal(a.nnodes, 3);
    assert_int_equal(a.ntasks_per_node, 4);
    /* -N min-max: the minimum */
    PARSE(&a, "-N", "2-4", "./app");
    assert_int_equal(a.nnodes, 2);
    /* the command's own options are not srun's */
    PARSE(&a, "./app", "-n", "3");
    assert_int_equal(a.ntasks, 0);
    PARSE(&a, "-n", "2", "--", "-n", "3");
    assert_int_equal(a.ntasks, 2);
    /* the last --stencil-map counts */
    PARSE(&a, "--stencil-map=a", "--stencil-map=b", "./app");
    assert_string_equal(a.spec, "b");
    PARSE(&a, "-n", "0", "./app");
    assert_non_null(strstr(a.bad, "-n/--ntasks 0"));
}

static void test_unknown_options(void **state)
{
    (void)state;
    sm_srun_args a;
    /* written with '=': no doubt */
    PARSE(&a, "--container-image=ubuntu", "-n", "4", "./app");
    assert_int_equal(a.ntasks, 4);
    assert_string_equal(a.bad, "");
    /* a value or the command: the readings agree, nothing follows */
    PARSE(&a, "-n", "4", "--container-image", "ubuntu", "./app");
    assert_int_equal(a.ntasks, 4);
    assert_string_equal(a.bad, "");
    /* they disagree on -n: refused, naming the option */
    PARSE(&a, "--container-image", "ubuntu", "-n", "4", "./app");
    assert_non_null(strstr(a.bad, "--container-image"));
    assert_non_null(strstr(a.bad, "--container-image=VALUE"));
    PARSE(&a, "--some-flag", "./app", "-n", "3");
    assert_non_null(strstr(a.bad, "--some-flag"));
    /* a flag before -n: as a value it would swallow "-n" */
    PARSE(&a, "--new-flag", "-n", "4", "./app");
    assert_non_null(strstr(a.bad, "--new-flag"));
    /* bounded */
    PARSE(&a, "--u1", "--u2", "--u3", "--u4", "--u5", "--u6", "--u7", "--u8", "--u9", "--u10",
          "./app");
    assert_string_not_equal(a.bad, "");
}

static void put_alloc(void)
{
    setenv("SLURM_JOB_NODELIST", "n[1-3]", 1);
    setenv("SLURM_JOB_CPUS_PER_NODE", "8(x2),6", 1);
    setenv("SLURM_NTASKS", "22", 1);
    unsetenv("SLURM_NPROCS");
    unsetenv("SLURM_CPUS_PER_TASK");
}

static void test_nodes_refused_on_new_srun(void **state)
{
    (void)state;
    put_alloc();
    const char *const w[] = {"srun", "-N", "2", "--stencil-map=x", "./app", NULL};
    sm_srun_args a;
    smp_nodes nodes;
    int64_t job_ntasks;
    smp_error err;
    parse(&a, &old_srun, w);
    assert_int_equal(sm_alloc_read(&a, &nodes, &job_ntasks, &err), SMP_OK);
    assert_int_equal(nodes.count, 2);
    assert_int_equal(nodes.total_slots, 16);
    assert_int_equal(job_ntasks, 22);
    smp_nodes_free(&nodes);
    parse(&a, &new_srun, w);
    assert_int_equal(sm_alloc_read(&a, &nodes, &job_ntasks, &err), SMP_ERR_INPUT);
    assert_non_null(strstr(err.msg, "-N/--nodes 2"));
    assert_non_null(strstr(err.msg, "salloc -N2"));
}

static void test_cpus_per_task_inherited(void **state)
{
    (void)state;
    put_alloc();
    setenv("SLURM_CPUS_PER_TASK", "2", 1);
    const char *const w[] = {"srun", "--stencil-map=x", "./app", NULL};
    sm_srun_args a;
    smp_nodes nodes;
    int64_t job_ntasks;
    smp_error err;
    /* 22.05's srun ignores the allocation's -c */
    parse(&a, &old_srun, w);
    assert_int_equal(sm_alloc_read(&a, &nodes, &job_ntasks, &err), SMP_OK);
    assert_int_equal(nodes.total_slots, 22);
    smp_nodes_free(&nodes);
    /* 23.11+ inherits it: 4, 4, 3 */
    parse(&a, &new_srun, w);
    assert_int_equal(sm_alloc_read(&a, &nodes, &job_ntasks, &err), SMP_OK);
    assert_int_equal(nodes.total_slots, 11);
    assert_int_equal(nodes.slots[2], 3);
    smp_nodes_free(&nodes);
    /* srun's own -c wins */
    const char *const w3[] = {"srun", "-c", "4", "--stencil-map=x", "./app", NULL};
    parse(&a, &new_srun, w3);
    assert_int_equal(sm_alloc_read(&a, &nodes, &job_ntasks, &err), SMP_OK);
    assert_int_equal(nodes.total_slots, 5);
    smp_nodes_free(&nodes);
    setenv("SLURM_CPUS_PER_TASK", "two", 1);
    parse(&a, &new_srun, w);
    assert_int_equal(sm_alloc_read(&a, &nodes, &job_ntasks, &err), SMP_ERR_INPUT);
    assert_non_null(strstr(err.msg, "SLURM_CPUS_PER_TASK"));
    unsetenv("SLURM_CPUS_PER_TASK");
}

static void test_task_count(void **state)
{
    (void)state;
    put_alloc();
    sm_srun_args a;
    smp_nodes nodes;
    int64_t job_ntasks;
    smp_error err;
    const char *const w[] = {"srun", "--stencil-map=x", "./app", NULL};
    parse(&a, &old_srun, w);
    assert_int_equal(sm_alloc_read(&a, &nodes, &job_ntasks, &err), SMP_OK);
    /* a fixed grid wins over the inherited SLURM_NTASKS */
    assert_int_equal(sm_alloc_ntasks(&a, 12, job_ntasks, &nodes), 12);
    /* an automatic grid takes the job's task count */
    assert_int_equal(sm_alloc_ntasks(&a, 0, job_ntasks, &nodes), 22);
    const char *const w2[] = {"srun", "-n", "10", "--stencil-map=x", "./app", NULL};
    parse(&a, &old_srun, w2);
    assert_int_equal(sm_alloc_ntasks(&a, 12, job_ntasks, &nodes), 10);
    smp_nodes_free(&nodes);
}

/* the program the step runs: for --stencil-map=learn, and what tells a
 * launcher's daemon step from the application's (other_launchers.h) */
static void test_command(void **state)
{
    (void)state;
    sm_srun_args a;
    PARSE(&a, "-n", "4", "--mpi=pmix", "./halo", "-i", "5");
    assert_string_equal(a.command, "./halo");
    assert_false(a.command_unsure);
    PARSE(&a, "-D", "/work/run", "--stencil-map", "learn", "--", "lmp", "-in", "x");
    assert_string_equal(a.command, "lmp");
    assert_string_equal(a.chdir, "/work/run");
    PARSE(&a, "--chdir=sub", "-Qn4", "app");
    assert_string_equal(a.chdir, "sub");
    assert_string_equal(a.command, "app");
    PARSE(&a, "-n", "2", "--multi-prog", "conf.txt");
    assert_true(a.multi_prog);
    assert_string_equal(a.command, "conf.txt");
    PARSE(&a, "-n", "2");
    assert_string_equal(a.command, "");
    /* an unknown option: its value or the command? */
    PARSE(&a, "-n", "4", "--container-image", "ubuntu", "./app");
    assert_true(a.command_unsure);
    PARSE(&a, "-n", "4", "--container-image=ubuntu", "./app");
    assert_false(a.command_unsure);
    assert_string_equal(a.command, "./app");
    /* Open MPI 4.1's mpirun (plm_slurm), on a subset of the nodes */
    PARSE(&a, "--ntasks-per-node=1", "--kill-on-bad-exit", "--mpi=none", "--nodes=3",
          "--nodelist=node1,node2,node4", "--ntasks=3", "orted", "-mca", "ess", "slurm");
    assert_string_equal(a.command, "orted");
    assert_true(a.nodelist);
    assert_true(sm_launcher_daemon(a.command));
    /* MPICH's Hydra through hydra-srun, and its own Slurm launcher */
    PARSE(&a, "--nodes=1", "--ntasks=1", "--nodelist=node2", "--overlap", "--mpi=none",
          "--cpu-bind=none", "--input=none", "--kill-on-bad-exit=1", "/usr/bin/hydra_pmi_proxy",
          "--control-port", "vm:4321", "--proxy-id", "3");
    assert_string_equal(a.command, "/usr/bin/hydra_pmi_proxy");
    assert_true(sm_launcher_daemon(a.command));
    PARSE(&a, "-N", "4", "-n", "4", "--input", "none", "/usr/bin/hydra_pmi_proxy", "-1");
    assert_string_equal(a.command, "/usr/bin/hydra_pmi_proxy");
    assert_int_equal(a.ntasks, 4);
    PARSE(&a, "--ntasks-per-node=1", "--", "/opt/ompi5/bin/prted", "--prtemca", "x");
    assert_string_equal(a.command, "/opt/ompi5/bin/prted");
    assert_true(sm_launcher_daemon(a.command));
    /* applications, tools and wrappers are not daemons */
    PARSE(&a, "-n", "8", "--stencil-map=auto:2d:5pt", "./solver", "orted");
    assert_string_equal(a.command, "./solver");
    assert_false(sm_launcher_daemon(a.command));
    PARSE(&a, "-n8", "sh", "-c", "orted");
    assert_false(sm_launcher_daemon(a.command));
    assert_false(sm_launcher_daemon("orted-wrapper"));
    assert_false(sm_launcher_daemon("/usr/bin/orted/x"));
    assert_false(sm_launcher_daemon(NULL));
    /* ranks Cray MPICH renumbers */
    assert_false(sm_cray_renumbers(NULL));
    assert_false(sm_cray_renumbers(""));
    assert_false(sm_cray_renumbers("1"));
    assert_true(sm_cray_renumbers("3"));
    assert_true(sm_cray_renumbers("0"));
    assert_true(sm_cray_renumbers("2"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_long_option_before_n),
        cmocka_unit_test(test_every_short_option_before_n),
        cmocka_unit_test(test_counts_and_abbreviations),
        cmocka_unit_test(test_unknown_options),
        cmocka_unit_test(test_nodes_refused_on_new_srun),
        cmocka_unit_test(test_cpus_per_task_inherited),
        cmocka_unit_test(test_task_count),
        cmocka_unit_test(test_command),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
