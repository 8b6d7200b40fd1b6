/* SPDX-License-Identifier: GPL-2.0-or-later */
/* --env: what a launcher must pass so that the ranks know the plan (the
 * STENCIL_MAP_* variables of task_env.h), in the launcher's own words.
 *
 *   slurm, cray   export NAME='VALUE' lines, for eval "$(...)": srun hands
 *                 its environment to the tasks
 *   openmpi       -x NAME=VALUE words, for mpirun ... $(...)
 *   mpich         -genv NAME VALUE words, for mpiexec ... $(...)
 *
 * The words are meant for an unquoted $(...), which splits them at spaces
 * and removes no quotes: the values hold letters, digits and , ; . - + _ :
 * / only (dims, lists, offsets, weights in %.17g, names, paths), no space
 * and no character a shell would expand there.  A value with anything else
 * is refused rather than printed in a form the shell would change. */
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "launchers.h"

static bool plain(const char *v)
{
    for (const char *c = v; *c; c++)
        if (!((*c >= '0' && *c <= '9') || (*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') ||
              strchr(",;.-+_:/", *c)))
            return false;
    return *v != '\0';
}

static smp_status check_values(const smp_task_env *env, smp_error *err)
{
    for (int i = 0; i < env->count; i++)
        if (!plain(env->var[i].value))
            return smp_error_set(err, SMP_ERR_INPUT, "--env: %s='%s' is not plain text",
                                 env->var[i].name, env->var[i].value);
    return SMP_OK;
}

static bool exports(FILE *out, const smp_task_env *env)
{
    bool bad = false;
    for (int i = 0; i < env->count && !bad; i++)
        bad = fprintf(out, "export %s='%s'\n", env->var[i].name, env->var[i].value) < 0;
    return bad;
}

/* Cray MPICH reads the order from MPICH_RANK_REORDER_FILE, else from
 * MPICH_RANK_ORDER in the working directory */
static bool cray_lines(FILE *out, const sml_env_opts *o, smp_error *err, smp_status *s)
{
    bool bad = fprintf(out, "export MPICH_RANK_REORDER_METHOD=3\n") < 0;
    if (!o->output || !strcmp(o->output, "-"))
        return bad;
    char abs[PATH_MAX];
    if (!realpath(o->output, abs)) {
        *s =
            smp_error_set(err, SMP_ERR_SYSTEM, "--env: cannot resolve the path of '%s'", o->output);
        return bad;
    }
    if (strchr(abs, '\'') || strchr(abs, '\n')) {
        *s = smp_error_set(err, SMP_ERR_INPUT, "--env: the path '%s' holds a quote or a newline",
                           abs);
        return bad;
    }
    return bad || fprintf(out, "export MPICH_RANK_REORDER_FILE='%s'\n", abs) < 0;
}

smp_status sml_write_env(sml_launcher l, FILE *out, const smp_task_env *env, const sml_env_opts *o,
                         smp_error *err)
{
    smp_status s = check_values(env, err);
    if (s)
        return s;
    bool bad = false;
    switch (l) {
    case SML_SLURM: bad = exports(out, env); break;
    case SML_CRAY: bad = exports(out, env) || cray_lines(out, o, err, &s); break;
    case SML_OPENMPI:
        for (int i = 0; i < env->count && !bad; i++)
            bad = fprintf(out, "%s-x %s=%s", i ? " " : "", env->var[i].name, env->var[i].value) < 0;
        bad = bad || fputc('\n', out) == EOF;
        break;
    case SML_MPICH:
        if (o->in_allocation) {
            if (!o->hydra_srun || !plain(o->hydra_srun))
                return smp_error_set(err, SMP_ERR_INPUT, "--env: no usable path of hydra-srun");
            bad = fprintf(out, "-launcher rsh -launcher-exec %s ", o->hydra_srun) < 0;
        }
        for (int i = 0; i < env->count && !bad; i++)
            bad = fprintf(out, "%s-genv %s %s", i ? " " : "", env->var[i].name, env->var[i].value) <
                  0;
        bad = bad || fputc('\n', out) == EOF;
        break;
    default: return smp_error_set(err, SMP_ERR_INPUT, "--launcher: not a launcher");
    }
    if (s)
        return s;
    if (bad || fflush(out) == EOF)
        return smp_error_set(err, SMP_ERR_SYSTEM, "--env: write failed");
    return SMP_OK;
}
