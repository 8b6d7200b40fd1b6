/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The plugin's reading of the allocation (spank_plugin/alloc.c): the nodes
 * and slot counts from SLURM_JOB_NODELIST and SLURM_JOB_CPUS_PER_NODE,
 * heterogeneous nodes narrowed by srun's -N, -c and --ntasks-per-node, the
 * job's task count, and the input it must refuse with a message. */
#include "unit_util.h"

#include <stdlib.h>
#include <string.h>

#include "alloc.h"

static const sm_srun_rules old_srun = {false, false};

/* srun's argv from a NULL-terminated word list, read as 22.05 reads it. */
static void parse(sm_srun_args *a, const char *const *words)
{
    char *argv[32];
    int argc = 0;
    for (; words[argc]; argc++) {
        assert_true(argc < 31);
        argv[argc] = (char *)words[argc];
    }
    argv[argc] = NULL;
    sm_srun_args_parse(a, argc, argv, &old_srun);
}

/* Three nodes of two kinds: a1 and a2 with 16 CPUs, b7 with 6. */
static void put_alloc(void)
{
    setenv("SLURM_JOB_NODELIST", "a[1-2],b7", 1);
    setenv("SLURM_JOB_CPUS_PER_NODE", "16(x2),6", 1);
    setenv("SLURM_NTASKS", "30", 1);
    unsetenv("SLURM_NPROCS");
    unsetenv("SLURM_CPUS_PER_TASK");
}

/* Reads the allocation under srun WORDS...; returns its status. */
static smp_status read_alloc(const char *const *words, smp_nodes *nodes, int64_t *job_ntasks,
                             smp_error *err)
{
    sm_srun_args a;
    parse(&a, words);
    return sm_alloc_read(&a, nodes, job_ntasks, err);
}

static void test_heterogeneous_nodes(void **state)
{
    (void)state;
    put_alloc();
    const char *const w[] = {"srun", "--stencil-map=x", "./app", NULL};
    smp_nodes nodes;
    int64_t job_ntasks;
    smp_error err;
    assert_int_equal(read_alloc(w, &nodes, &job_ntasks, &err), SMP_OK);
    assert_int_equal(nodes.count, 3);
    assert_string_equal(nodes.names[0], "a1");
    assert_string_equal(nodes.names[1], "a2");
    assert_string_equal(nodes.names[2], "b7");
    assert_int_equal(nodes.slots[0], 16);
    assert_int_equal(nodes.slots[2], 6);
    assert_int_equal(nodes.total_slots, 38);
    assert_int_equal(job_ntasks, 30);
    smp_nodes_free(&nodes);
}

/* Slots per node after srun's options: -c divides (rounding down),
 * --ntasks-per-node caps, -N keeps the first nodes. */
static void test_slot_counts(void **state)
{
    (void)state;
    put_alloc();
    static const struct {
        const char *w[8];
        int count;
        int32_t s0, s2;
        int64_t total;
    } cases[] = {
        {{"srun", "-c", "4", "./app", NULL}, 3, 4, 1, 9},
        {{"srun", "--ntasks-per-node=5", "./app", NULL}, 3, 5, 5, 15},
        {{"srun", "-c", "2", "--ntasks-per-node", "7", "./app", NULL}, 3, 7, 3, 17},
        {{"srun", "-N", "2", "./app", NULL}, 2, 16, 0, 32},
        {{"srun", "-N1-3", "-c", "3", "./app", NULL}, 1, 5, 0, 5},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        smp_nodes nodes;
        int64_t job_ntasks;
        smp_error err;
        assert_int_equal(read_alloc(cases[i].w, &nodes, &job_ntasks, &err), SMP_OK);
        assert_int_equal(nodes.count, cases[i].count);
        assert_int_equal(nodes.slots[0], cases[i].s0);
        if (nodes.count > 2)
            assert_int_equal(nodes.slots[2], cases[i].s2);
        assert_int_equal(nodes.total_slots, cases[i].total);
        smp_nodes_free(&nodes);
    }
}

/* SLURM_NTASKS, else SLURM_NPROCS; a value that is not a task count is
 * ignored (the step then takes the slots), not trusted. */
static void test_job_task_count(void **state)
{
    (void)state;
    put_alloc();
    const char *const w[] = {"srun", "./app", NULL};
    smp_nodes nodes;
    int64_t job_ntasks;
    smp_error err;
    unsetenv("SLURM_NTASKS");
    setenv("SLURM_NPROCS", "12", 1);
    assert_int_equal(read_alloc(w, &nodes, &job_ntasks, &err), SMP_OK);
    assert_int_equal(job_ntasks, 12);
    smp_nodes_free(&nodes);
    const char *bad[] = {"abc", "0", "-4", "12x", "", "99999999999"};
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        setenv("SLURM_NTASKS", bad[i], 1);
        assert_int_equal(read_alloc(w, &nodes, &job_ntasks, &err), SMP_OK);
        assert_int_equal(job_ntasks, 0);
        sm_srun_args a;
        parse(&a, w);
        assert_int_equal(sm_alloc_ntasks(&a, 0, job_ntasks, &nodes), 38);
        smp_nodes_free(&nodes);
    }
}

/* Refusals name what is wrong. */
static void test_bad_input(void **state)
{
    (void)state;
    const char *const plain[] = {"srun", "./app", NULL};
    smp_nodes nodes;
    int64_t job_ntasks;
    smp_error err;
    put_alloc();
    unsetenv("SLURM_JOB_NODELIST");
    assert_int_equal(read_alloc(plain, &nodes, &job_ntasks, &err), SMP_ERR_INPUT);
    assert_non_null(strstr(err.msg, "SLURM_JOB_NODELIST"));
    put_alloc();
    setenv("SLURM_JOB_CPUS_PER_NODE", "", 1);
    assert_int_equal(read_alloc(plain, &nodes, &job_ntasks, &err), SMP_ERR_INPUT);
    assert_non_null(strstr(err.msg, "SLURM_JOB_CPUS_PER_NODE"));
    static const char *const cpus[] = {"16(x2", "16,x", "16(x2),6,4", "0(x3)"};
    for (size_t i = 0; i < sizeof(cpus) / sizeof(cpus[0]); i++) {
        put_alloc();
        setenv("SLURM_JOB_CPUS_PER_NODE", cpus[i], 1);
        assert_int_not_equal(read_alloc(plain, &nodes, &job_ntasks, &err), SMP_OK);
        assert_true(err.msg[0] != '\0');
    }
    put_alloc();
    setenv("SLURM_JOB_NODELIST", "a[1-", 1);
    assert_int_not_equal(read_alloc(plain, &nodes, &job_ntasks, &err), SMP_OK);
    put_alloc();
    const char *const w[] = {"srun", "-w", "a1", "./app", NULL};
    assert_int_equal(read_alloc(w, &nodes, &job_ntasks, &err), SMP_ERR_INPUT);
    assert_non_null(strstr(err.msg, "-w/--nodelist"));
    const char *const r[] = {"srun", "-r", "1", "./app", NULL};
    assert_int_equal(read_alloc(r, &nodes, &job_ntasks, &err), SMP_ERR_INPUT);
    assert_non_null(strstr(err.msg, "-r/--relative cannot be combined"));
    const char *const n4[] = {"srun", "-N", "4", "./app", NULL};
    assert_int_equal(read_alloc(n4, &nodes, &job_ntasks, &err), SMP_ERR_INFEASIBLE);
    assert_non_null(strstr(err.msg, "4 nodes requested but the allocation has 3"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_heterogeneous_nodes),
        cmocka_unit_test(test_slot_counts),
        cmocka_unit_test(test_job_task_count),
        cmocka_unit_test(test_bad_input),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
