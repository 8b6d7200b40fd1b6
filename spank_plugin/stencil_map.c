/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * stencil_map.so: a SPANK plugin that adds --stencil-map=SPEC to srun,
 * sbatch and salloc.
 *
 *  srun (S_CTX_LOCAL)          plans in slurm_spank_init, which srun calls
 *                              before it reads its environment and options,
 *                              for the --stencil-map on its command line,
 *                              else STENCIL_MAP_SPEC (from sbatch or salloc),
 *                              else the site default=; sets SLURM_HOSTFILE so
 *                              srun uses the arbitrary distribution (rank r
 *                              runs on the node of hostfile line r) and the
 *                              task count srun takes.  The option callback
 *                              only plans when the command line could not
 *                              be read.
 *  sbatch/salloc (ALLOCATOR)   validates the spec and exports
 *                              STENCIL_MAP_SPEC to the job's environment.
 *  slurmstepd (S_CTX_REMOTE)   sets STENCIL_MAP_COORDS of every task from
 *                              STENCIL_MAP_DIMS, and with bind=socket
 *                              STENCIL_MAP_SOCKET from the socket map, and
 *                              binds the task to that package; reads no file.
 */
#include <limits.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <slurm/spank.h>

#include "alloc.h"
#include "alloc_check.h"
#include "bind_task.h"
#include "node_sockets.h"
#include "coords.h"
#include "other_launchers.h"
#include "formats/format_numbers.h"
#include "learned_launch.h"
#include "policy.h"
#include "profile_check.h"
#include "profile_launch.h"
#include "record.h"
#include "slurm_topology.h"
#include "srun_rules.h"
#include "formats/stencil_env.h"
#include "step.h"

SPANK_PLUGIN(stencil_map, 1);

#define OPT_NAME "stencil-map"
/* How srun sees an allocator's SPANK option in the job environment:
 * "SLURM_SPANK_" + "_SLURM_SPANK_OPTION_" + plugin + "_" + option, with
 * '-' made '_' (src/common/plugstack.c: _opt_env_name and
 * spank_process_env_options). */
#define FORWARDED_ENV "SLURM_SPANK__SLURM_SPANK_OPTION_stencil_map_stencil_map"

static sm_policy policy;
static sm_srun_args srun_args;
static const sm_srun_rules srun_rules = SM_SRUN_RULES_INIT;
static sm_step step;
static sm_learned learned;    /* --stencil-map=learn: what was decided, what to learn at exit */
static char set_hostfile[1280]; /* SLURM_HOSTFILE value we set, "" if none */
static bool env_applied;        /* slurm_spank_init applied STENCIL_MAP_SPEC */

static int option_cb(int val, const char *optarg, int remote);

static struct spank_option stencil_option = {
    OPT_NAME, "SPEC",
    "[stencil_map] place ranks for a stencil code: SPEC is a JSON spec file, a spec name, "
    "ALGORITHM:<d>d:STENCIL (e.g. auto:2d:5pt), 'none' to opt out, profile:DIR to "
    "launch blocked and profile the traffic into DIR (then: stencil-map learn DIR), or "
    "'learn': place by the spec learned from the program's first run (profiled); "
    "see stencil_map(8)",
    1, 0, option_cb,
};

__attribute__((format(printf, 1, 2))) static void say(const char *fmt, ...)
{
    char line[1200];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof(line), fmt, ap);
    va_end(ap);
    fprintf(stderr, "stencil-map: %s\n", line);
}

static bool record_done; /* the record of the current step is written */

static uint32_t env_job_id(void)
{
    const char *id = getenv("SLURM_JOB_ID");
    char *end;
    unsigned long v = id ? strtoul(id, &end, 10) : 0;
    return (id && *id && !*end && v <= UINT32_MAX) ? (uint32_t)v : 0;
}

/* The audit record of this step, once; a failure to write it is loud but
 * does not stop a launch (the placement itself is sound). */
static void write_record(uint32_t job_id, uint32_t step_id, bool launched, const char *error)
{
    if (record_done || !job_id)
        return;
    record_done = true;
    char msg[600];
    if (sm_record_write(&step, &policy, job_id, step_id, launched, error, msg, sizeof(msg)))
        fprintf(stderr, "stencil-map: WARNING: audit record not written: %s\n", msg);
    else if (step.record[0] && launched)
        setenv(SMP_ENV_RECORD, step.record, 1);
}

/* srun leaves through exit() on its own errors (a bad option, a step that
 * cannot be created, e.g. because a planned node left the job) without
 * calling slurm_spank_exit: record that the step never launched, and
 * remove the private directory.  Signals need nothing of ours: srun blocks
 * SIGINT, SIGTERM, SIGHUP and SIGQUIT before it loads plugins (init_srun)
 * and acts on them only once the step exists. */
__attribute__((destructor)) static void at_exit(void)
{
    if (step.active)
        write_record(env_job_id(), SM_NO_STEP, false,
                     "srun exited before launching the step (see srun's error)");
    sm_step_drop_hostfile(&step);
    sm_learned_release(&learned); /* a profile nobody ran: gone */
}

/* srun takes its task count from SLURM_NTASKS (or SLURM_NPROCS) when -n is
 * not on its command line: inherited from salloc/sbatch -n, it would make
 * srun read that many hostfile lines ("Too few NodeNames in Slurm
 * Hostfile") or fewer than the plan's ranks.  A grid of P ranks means P
 * tasks: srun reads its environment after slurm_spank_init, where we plan,
 * so the plan's count set here is the one srun uses.  The inherited values
 * come back if the plan is undone. */
static const char *const ntasks_vars[] = {"SLURM_NTASKS", "SLURM_NPROCS"};
static char saved_ntasks[2][32];
static bool ntasks_set;

static void restore_task_count(void)
{
    if (!ntasks_set)
        return;
    for (int i = 0; i < 2; i++) {
        if (saved_ntasks[i][0])
            setenv(ntasks_vars[i], saved_ntasks[i], 1);
        else
            unsetenv(ntasks_vars[i]);
    }
    ntasks_set = false;
}

static int set_task_count(int64_t ranks)
{
    if (srun_args.ntasks)
        return 0; /* srun's own -n: checked against the grid by the plan */
    char v[32];
    snprintf(v, sizeof(v), "%lld", (long long)ranks);
    for (int i = 0; i < 2; i++) {
        const char *cur = getenv(ntasks_vars[i]);
        if (!ntasks_set)
            snprintf(saved_ntasks[i], sizeof(saved_ntasks[i]), "%s", cur ? cur : "");
    }
    ntasks_set = true;
    if (setenv("SLURM_NTASKS", v, 1))
        return -1;
    return getenv("SLURM_NPROCS") ? setenv("SLURM_NPROCS", v, 1) : 0;
}

/* Drops whatever an earlier application left in srun's environment. */
static void undo_local(void)
{
    if (set_hostfile[0]) {
        const char *cur = getenv("SLURM_HOSTFILE");
        if (cur && !strcmp(cur, set_hostfile))
            unsetenv("SLURM_HOSTFILE");
        set_hostfile[0] = '\0';
    }
    restore_task_count();
    sm_step_release(&step);
    sm_learned_release(&learned);
}

/* A site default is the site's wish, not the user's: it places only the
 * steps whose user left the layout to Slurm, and that it can place.  Any
 * other step launches exactly as Slurm alone would launch it (no error, no
 * extra line on its standard error, no record), and srun -v says why. */
static char default_note[700];

static const char *default_stands_aside(void)
{
    if (!getenv("SLURM_JOB_NODELIST"))
        return "srun is not inside an allocation";
    if (srun_args.nodelist || srun_args.relative)
        return "the step names its nodes (-w/--nodelist, -F/--nodefile or -r/--relative)";
    if (srun_args.distribution || getenv("SLURM_DISTRIBUTION"))
        return "the step sets its distribution (-m/--distribution or SLURM_DISTRIBUTION)";
    if (getenv("SLURM_HOSTFILE"))
        return "the step has its own SLURM_HOSTFILE";
    if (srun_args.ntasks == 1)
        return "a step of one task has no neighbours to place";
    return NULL;
}

static int default_not_applied(const char *spec, const char *why)
{
    snprintf(default_note, sizeof(default_note), "site default '%s' not applied: %s", spec, why);
    return 0;
}

static const char *tmp_parent(void)
{
    const char *t = getenv("TMPDIR");
    return (t && t[0] == '/') ? t : "/tmp";
}

/* srun side: plan SPEC and export it, or opt out with "none". */
static int apply_local(const char *spec, sm_spec_source src)
{
    if (step.active && !strcmp(step.spec_text, spec) && step.source == src)
        return 0; /* the same value seen twice (environment, then argv) */
    if (sm_learned_seen(&learned, spec, src))
        return 0; /* decided already: profiled or blocked */
    undo_local();
    record_done = false;
    default_note[0] = '\0';
    if (!strcmp(spec, "none")) {
        sm_env_clear();
        return 0;
    }
    if (sm_profile_requested(spec))
        return sm_profile_srun(spec, srun_args.quiet);
    /* the job's or the site's spec is for the application's steps, not for
     * the daemons an MPI launcher starts through srun: they start the
     * ranks where the launcher's own file says (other_launchers.h) */
    if (src != SM_SRC_OPTION && sm_launcher_daemon(srun_args.command))
        return 0;
    const char *aside = src == SM_SRC_DEFAULT ? default_stands_aside() : NULL;
    if (aside)
        return default_not_applied(spec, aside);
    /* learn: a spec from the store, or a blocked launch (profiled to learn) */
    char *json = NULL;
    if (sm_learned_requested(spec) &&
        sm_learned_decide(&learned, &policy, &srun_args, src, &json) != SM_LEARNED_PLACE)
        return 0;
    sm_policy pol = policy;
    if (json)
        pol.on_error = SM_ON_ERROR_BLOCKED; /* a learned spec never fails the user's step */
    int failed = sm_step_plan_json(&step, &pol, &srun_args, spec, json, src, tmp_parent(),
                                   sm_alloc_check_current, sm_node_sockets_slurm,
                                   sm_slurm_topology_read);
    bool learned_spec = json != NULL;
    free(json);
    sm_learned_label(&learned, &step);
    if (src == SM_SRC_DEFAULT && !learned_spec && (failed || step.fallback || step.pl.ranks < 2)) {
        /* a plan the step's own options rule out (srun -N on 23.11+,
         * -O beyond the slots, ...) or a single rank: Slurm's own launch.
         * (A learned spec that cannot be placed says so itself.) */
        char why[sizeof(step.error)];
        snprintf(why, sizeof(why), "%s",
                 failed || step.fallback ? step.error
                                         : "a step of one task has no neighbours to place");
        sm_step_release(&step);
        return default_not_applied(spec, why);
    }
    if (failed) {
        say("%s", step.error);
        write_record(env_job_id(), SM_NO_STEP, false, step.error);
        sm_step_release(&step);
        return -1;
    }
    if (step.have_spec)
        sm_profile_check(&step.spec); /* before export_env clears STENCIL_MAP_* */
    const char *reorder = getenv("MPICH_RANK_REORDER_METHOD");
    if (step.placed && sm_cray_renumbers(reorder))
        say("WARNING: MPICH_RANK_REORDER_METHOD=%s is set: HPE Cray MPICH will renumber the "
            "ranks this plan placed; unset it, or plan for Cray MPICH with stencil-map plan "
            "--launcher cray instead of --stencil-map",
            reorder);
    if (step.fallback) {
        fprintf(stderr,
                "stencil-map: WARNING: %s\n"
                "stencil-map: WARNING: on_error=blocked: launching WITHOUT stencil placement "
                "(Slurm's default block distribution)\n",
                step.error);
    }
    if (sm_step_export_env(&step) || (step.placed && set_task_count(step.pl.ranks))) {
        say("%s", "cannot set the task environment (out of memory?)");
        undo_local();
        return -1;
    }
    if (step.placed)
        snprintf(set_hostfile, sizeof(set_hostfile), "%s", step.hostfile);
    return 0;
}

/* sbatch/salloc side: validate (parse only) and export STENCIL_MAP_SPEC. */
static int apply_allocator(const char *spec)
{
    if (!strcmp(spec, "none"))
        return setenv(SMP_ENV_SPEC, "none", 1) ? -1 : 0;
    if (sm_profile_requested(spec))
        return sm_profile_allocator(spec);
    if (sm_learned_requested(spec))
        return sm_learned_allocator();
    smp_spec parsed;
    smp_error err;
    smp_error_clear(&err);
    smp_status s = smp_spec_load(&parsed, spec, smp_specs_dir(), &err);
    smp_spec_free(&parsed);
    if (s) {
        say("%s", err.msg);
        return -1;
    }
    bool is_path = strchr(spec, '/') || (strlen(spec) > 5 && !strcmp(spec + strlen(spec) - 5, ".json"));
    char abs[PATH_MAX];
    if (is_path && !realpath(spec, abs)) {
        say("spec file '%s': cannot resolve its absolute path", spec);
        return -1;
    }
    return setenv(SMP_ENV_SPEC, is_path ? abs : spec, 1) ? -1 : 0;
}

static int option_cb(int val, const char *optarg, int remote)
{
    (void)val;
    spank_context_t ctx = spank_context();
    if (remote || ctx == S_CTX_REMOTE)
        return 0; /* the user's spec is never parsed on the remote side */
    if (!optarg || !*optarg) {
        say("%s", "--stencil-map needs a SPEC");
        return -1;
    }
    if (ctx == S_CTX_ALLOCATOR)
        return apply_allocator(optarg);
    if (ctx != S_CTX_LOCAL)
        return 0;
    /* srun may call us for an earlier value (a repeated option, or the
     * SLURM_SPANK_* variable through which sbatch/salloc hand their options
     * to the job); only the command line's last value counts. */
    if (srun_args.have_spec)
        return strcmp(optarg, srun_args.spec) ? 0 : apply_local(optarg, SM_SRC_OPTION);
    const char *fwd = getenv(FORWARDED_ENV);
    if (fwd && !strcmp(fwd, optarg)) {
        /* the job's --stencil-map from sbatch/salloc: STENCIL_MAP_SPEC
         * normally carries it (as an absolute path) and slurm_spank_init
         * has applied it already */
        if (env_applied)
            return 0;
        const char *env = getenv(SMP_ENV_SPEC);
        return apply_local(env && *env ? env : optarg, SM_SRC_ENV);
    }
    return apply_local(optarg, SM_SRC_OPTION);
}

int slurm_spank_init(spank_t sp, int ac, char **av)
{
    spank_context_t ctx = spank_context();
    char msg[512];
    if (sm_policy_parse(&policy, ac, av, msg, sizeof(msg))) {
        slurm_error("stencil-map: %s", msg);
        return -1;
    }
    if (ctx != S_CTX_LOCAL && ctx != S_CTX_ALLOCATOR && ctx != S_CTX_REMOTE)
        return 0;
    /* in slurmstepd too: srun forwards the option, and an unknown one makes
     * every placed step log an error on every node */
    if (spank_option_register(sp, &stencil_option) != ESPANK_SUCCESS) {
        slurm_error("stencil-map: cannot register --%s", OPT_NAME);
        return -1;
    }
    if (ctx != S_CTX_LOCAL)
        return 0;
    /* when the command line cannot be read, srun_args stays empty (with
     * the rules) and the option callback plans */
    sm_srun_args_read(&srun_args, &srun_rules);
    /* srun calls slurm_spank_init before it reads its environment and
     * options: plan here, so that SLURM_HOSTFILE and the task count we set
     * are what srun reads.  The option callback then sees the same value. */
    if (srun_args.have_spec)
        return apply_local(srun_args.spec, SM_SRC_OPTION);
    /* No --stencil-map: sbatch/salloc's spec, else the site default.  srun
     * calls slurm_spank_init before it parses options, so SLURM_HOSTFILE
     * set here is still read by its option validation. */
    const char *env = getenv(SMP_ENV_SPEC);
    if (env && *env) {
        env_applied = true;
        return apply_local(env, SM_SRC_ENV);
    }
    if (policy.default_spec[0])
        return apply_local(policy.default_spec, SM_SRC_DEFAULT);
    return 0;
}

int slurm_spank_init_post_opt(spank_t sp, int ac, char **av)
{
    (void)sp;
    (void)ac;
    (void)av;
    if (spank_context() != S_CTX_LOCAL)
        return 0;
    /* srun has read the hostfile into its options (_opt_verify): remove it,
     * and keep its path out of the tasks' environment. */
    if (set_hostfile[0]) {
        const char *cur = getenv("SLURM_HOSTFILE");
        if (cur && !strcmp(cur, set_hostfile))
            unsetenv("SLURM_HOSTFILE");
    }
    sm_step_drop_hostfile(&step);
    return 0;
}

int slurm_spank_local_user_init(spank_t sp, int ac, char **av)
{
    (void)ac;
    (void)av;
    /* srun -v: which plugin this is and the Slurm it was built for (its
     * log level is set by now, unlike in slurm_spank_init) */
    if (spank_context() == S_CTX_LOCAL) {
        slurm_verbose("stencil_map: stencilmap %s, built for Slurm %u.%02u.%u", SM_VERSION,
                      SLURM_VERSION_MAJOR(SLURM_VERSION_NUMBER),
                      SLURM_VERSION_MINOR(SLURM_VERSION_NUMBER),
                      SLURM_VERSION_MICRO(SLURM_VERSION_NUMBER));
        if (default_note[0])
            slurm_verbose("stencil-map: %s", default_note);
    }
    if (spank_context() == S_CTX_LOCAL)
        sm_learned_started(&learned, sp);
    if (spank_context() != S_CTX_LOCAL || !step.active)
        return 0;
    uint32_t job_id = 0, step_id = 0;
    spank_get_item(sp, S_JOB_ID, &job_id);
    spank_get_item(sp, S_JOB_STEPID, &step_id);
    if (step.placed) {
        uint32_t ntasks = 0;
        if (spank_get_item(sp, S_JOB_TOTAL_TASK_COUNT, &ntasks) == ESPANK_SUCCESS && ntasks &&
            (int64_t)ntasks != step.pl.ranks) {
            char msg[160];
            snprintf(msg, sizeof(msg), "the step has %u tasks but the plan has %lld ranks",
                     ntasks, (long long)step.pl.ranks);
            say("%s", msg);
            write_record(job_id, step_id, false, msg);
            return -1;
        }
    }
    write_record(job_id, step_id, true, step.fallback ? step.error : NULL);
    if (!srun_args.quiet)
        sm_step_summary(&step, stderr);
    return 0;
}

/* The task is a launcher's daemon, or a rank Cray MPICH renumbers: its
 * Slurm task id is no grid rank, so it gets no coordinates and no socket
 * (other_launchers.h). */
static bool other_launcher_numbers(spank_t sp)
{
    int argc = 0;
    char **argv = NULL;
    if (spank_get_item(sp, S_JOB_ARGV, &argc, &argv) == ESPANK_SUCCESS && argc > 0 && argv &&
        sm_launcher_daemon(argv[0]))
        return true;
    char method[16];
    return spank_getenv(sp, "MPICH_RANK_REORDER_METHOD", method, sizeof(method)) ==
               ESPANK_SUCCESS &&
           sm_cray_renumbers(method);
}

int slurm_spank_task_init(spank_t sp, int ac, char **av)
{
    (void)ac;
    (void)av;
    if (spank_context() != S_CTX_REMOTE)
        return 0;
    if (sm_profile_task(sp))
        return -1;
    char dims_s[SM_DIMS_MAX_LEN + 2];
    spank_err_t e = spank_getenv(sp, SMP_ENV_DIMS, dims_s, sizeof(dims_s));
    if (e == ESPANK_ENV_NOEXIST || other_launcher_numbers(sp))
        return 0;
    if (e != ESPANK_SUCCESS) {
        slurm_error("stencil-map: " SMP_ENV_DIMS ": unreadable or longer than %d bytes",
                    SM_DIMS_MAX_LEN);
        return -1;
    }
    int64_t dims[SMP_MAX_DIMS], size;
    int nd;
    char msg[160], coords[SMP_ENV_LIST_LEN];
    if (smp_env_parse_dims(dims_s, dims, &nd, &size, msg, sizeof(msg))) {
        slurm_error("stencil-map: %s", msg);
        return -1;
    }
    char order_s[16];
    int column_major = 0;
    e = spank_getenv(sp, SMP_ENV_ORDER, order_s, sizeof(order_s));
    if (e == ESPANK_SUCCESS)
        column_major = smp_env_parse_order(order_s, msg, sizeof(msg));
    else if (e != ESPANK_ENV_NOEXIST)
        column_major = smp_env_parse_order("(unreadable or too long)", msg, sizeof(msg));
    if (column_major < 0) {
        slurm_error("stencil-map: %s", msg);
        return -1;
    }
    uint32_t rank;
    if (spank_get_item(sp, S_TASK_GLOBAL_ID, &rank) != ESPANK_SUCCESS) {
        slurm_error("stencil-map: cannot get the task's global id");
        return -1;
    }
    if (sm_coords_format(dims, nd, rank, column_major, coords, sizeof(coords))) {
        slurm_error("stencil-map: task %u is outside the grid " SMP_ENV_DIMS "=%s", rank, dims_s);
        return -1;
    }
    if (spank_setenv(sp, SMP_ENV_COORDS, coords, 1) != ESPANK_SUCCESS) {
        slurm_error("stencil-map: cannot set " SMP_ENV_COORDS);
        return -1;
    }
    uint32_t local = 0;
    spank_get_item(sp, S_TASK_ID, &local);
    return sm_task_bind(sp, rank, local);
}

int slurm_spank_exit(spank_t sp, int ac, char **av)
{
    (void)sp;
    (void)ac;
    (void)av;
    if (spank_context() == S_CTX_LOCAL) {
        /* srun's step is over (spank_fini runs from srun's atexit handler):
         * learn from its profile, in the user's process only */
        sm_learned_finish(&learned);
        undo_local();
    }
    return 0;
}
