/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The plugin's records read back: steps planned by the plugin's own srun
 * side (spank_plugin/step.c, without Slurm), written by its record.c, read
 * by the record module, and compared with what the step holds -- a placed
 * step, one bound to sockets, one srun gave up on (no step id), a failed
 * plan and a fallback to blocked. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "policy.h"
#include "record.h"
#include "smr_record.h"
#include "step.h"

static char dir[4096];

static int setup(void **state)
{
    (void)state;
    const char *t = getenv("TMPDIR");
    snprintf(dir, sizeof(dir), "%s/plugin-record.XXXXXX", t && *t ? t : "/tmp");
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

static void policy(sm_policy *pol, const char *extra)
{
    char arg[4200];
    snprintf(arg, sizeof(arg), "record_dir=%s", dir);
    char *av[] = {arg, (char *)extra, NULL};
    char msg[1024];
    if (sm_policy_parse(pol, extra ? 2 : 1, av, msg, sizeof(msg)))
        fail_msg("policy: %s", msg);
}

/* plans spec for ranks tasks; the return of sm_step_plan */
static int plan(sm_step *st, const sm_policy *pol, const char *spec, long ranks)
{
    sm_srun_args a;
    memset(&a, 0, sizeof(a));
    a.ntasks = ranks;
    const char *t = getenv("TMPDIR");
    int rc = sm_step_plan(st, pol, &a, spec, SM_SRC_OPTION, t && *t ? t : "/tmp", NULL, NULL,
                          NULL);
    sm_step_drop_hostfile(st);
    return rc;
}

/* writes the step's record and reads it back into rec */
static void write_read(sm_step *st, const sm_policy *pol, uint32_t step, bool launched,
                       const char *error, smr_record *rec)
{
    char msg[1024], err[512];
    if (sm_record_write(st, pol, 42, step, launched, error, msg, sizeof(msg)))
        fail_msg("write: %s", msg);
    if (smr_record_read(st->record, rec, err, sizeof(err)))
        fail_msg("read %s: %s", st->record, err);
    assert_int_equal(rec->job_id, 42);
    assert_int_equal(rec->launched, launched);
    assert_string_equal(rec->error, error ? error : "");
    assert_string_equal(rec->spec, st->spec_text);
    assert_string_equal(rec->spec_source, "option");
    assert_int_equal(rec->uid, (int64_t)getuid());
}

static void same_plan(const sm_step *st, const smr_record *rec)
{
    assert_int_equal(rec->kind, SMR_KIND_PLACED);
    assert_int_equal(rec->nodes.count, st->nodes.count);
    for (int i = 0; i < st->nodes.count; i++)
        assert_string_equal(rec->nodes.names[i], st->nodes.names[i]);
    assert_int_equal(rec->ranks, st->pl.ranks);
    assert_memory_equal(rec->node_of_rank, st->pl.node_of_rank,
                        sizeof(int32_t) * (size_t)st->pl.ranks);
    assert_memory_equal(rec->grid.dims, st->spec.grid.dims, sizeof(rec->grid.dims));
    assert_int_equal(rec->stencil.count, st->spec.stencil.count);
    assert_string_equal(rec->alg_used, smp_algorithm_name(st->pl.algorithm));
    assert_string_equal(rec->objective, smp_objective_name(st->objective));
    assert_int_equal(rec->effort, st->effort);
    assert_true(rec->j_sum == st->pl.score.j_sum && rec->j_max == st->pl.score.j_max &&
                rec->blocked_j_sum == st->blocked.score.j_sum &&
                rec->blocked_j_max == st->blocked.score.j_max);
    assert_string_equal(rec->hostfile, st->hostfile);
}

static void test_placed(void **state)
{
    (void)state;
    sm_policy pol;
    policy(&pol, NULL);
    sm_step st;
    assert_int_equal(plan(&st, &pol, "hyperplane:2d:5pt", 32), 0);
    smr_record rec;
    write_read(&st, &pol, 0, true, NULL, &rec);
    assert_non_null(strstr(st.record, "/42.0.json"));
    assert_int_equal(rec.step_id, 0);
    same_plan(&st, &rec);
    assert_false(rec.bound);
    smr_record_free(&rec);
    sm_step_release(&st);
}

static void test_bound(void **state)
{
    (void)state;
    sm_policy pol;
    policy(&pol, "bind=socket");
    char spec[4200];
    snprintf(spec, sizeof(spec), "%s/spec-sockets.json", dir);
    FILE *f = fopen(spec, "w");
    assert_non_null(f);
    fputs("{\"grid\": {\"dims\": [8, 4]}, \"stencil\": \"5pt\", \"algorithm\": \"hyperplane\", "
          "\"sockets\": 2}\n", f);
    fclose(f);
    sm_step st;
    if (plan(&st, &pol, spec, 32))
        fail_msg("plan: %s", st.error);
    if (!st.bind)
        fail_msg("not bound: %s", st.error);
    smr_record rec;
    write_read(&st, &pol, 1, true, NULL, &rec);
    same_plan(&st, &rec);
    assert_true(rec.bound);
    assert_memory_equal(rec.sockets, st.sockets, sizeof(int32_t) * (size_t)st.nodes.count);
    assert_true(rec.socket_j_sum == st.sock.j_sum && rec.naive_socket_j_sum == st.sock_naive.j_sum);
    smr_record_free(&rec);
    sm_step_release(&st);
}

static void test_planned_never_launched(void **state)
{
    (void)state;
    sm_policy pol;
    policy(&pol, NULL);
    sm_step st;
    assert_int_equal(plan(&st, &pol, "hyperplane:2d:5pt", 32), 0);
    smr_record rec;
    write_read(&st, &pol, SM_NO_STEP, false, "srun exited before launching the step", &rec);
    char want[64];
    snprintf(want, sizeof(want), "/42.nostep-%ld.json", (long)getpid());
    assert_non_null(strstr(st.record, want));
    assert_int_equal(rec.step_id, SMR_NO_STEP);
    same_plan(&st, &rec);
    smr_record_free(&rec);
    sm_step_release(&st);
}

static void test_failed_plan(void **state)
{
    (void)state;
    sm_policy pol;
    policy(&pol, NULL);
    sm_step st;
    assert_int_not_equal(plan(&st, &pol, "hyperplane:2d:5pt", 64), 0);
    smr_record rec;
    write_read(&st, &pol, SM_NO_STEP, false, st.error, &rec);
    assert_int_equal(rec.kind, SMR_KIND_NOTHING);
    assert_string_equal(rec.alg_used, "");
    assert_int_equal(rec.ranks, -1);
    smr_record_free(&rec);
    sm_step_release(&st);
}

static void test_fallback(void **state)
{
    (void)state;
    sm_policy pol;
    policy(&pol, "on_error=blocked");
    sm_step st;
    assert_int_equal(plan(&st, &pol, "hyperplane:2d:nosuch", 32), 0);
    assert_true(st.fallback);
    smr_record rec;
    write_read(&st, &pol, 2, true, st.error, &rec);
    assert_int_equal(rec.kind, SMR_KIND_FALLBACK);
    assert_string_equal(rec.alg_used, "blocked");
    assert_string_equal(rec.fallback, st.error);
    smr_record_free(&rec);
    sm_step_release(&st);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_placed),
        cmocka_unit_test(test_bound),
        cmocka_unit_test(test_planned_never_launched),
        cmocka_unit_test(test_failed_plan),
        cmocka_unit_test(test_fallback),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
