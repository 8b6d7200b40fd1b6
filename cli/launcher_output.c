/* SPDX-License-Identifier: GPL-2.0-or-later */
/* plan's launcher options: --launcher NAME, --output FILE (--hostfile FILE
 * is --launcher slurm --output FILE, as it always was) and --env.  The
 * formats themselves are launchers/'s; this checks the combination, opens
 * the file and prints what --env says. */
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "formats/task_env.h"

#ifndef SML_HYDRA_SRUN
#define SML_HYDRA_SRUN "hydra-srun"
#endif

static int refuse(const char *msg)
{
    smp_error err;
    smp_error_set(&err, SMP_ERR_INPUT, "%s", msg);
    return cli_fail(&err);
}

int cli_launcher_options(struct cli_opts *o)
{
    if (o->hostfile && o->output)
        return refuse("--hostfile FILE is --launcher slurm --output FILE: give one of them");
    if (o->hostfile && o->launcher != SML_SLURM)
        return refuse("--hostfile writes Slurm's hostfile; with --launcher, name the file with "
                      "--output");
    if (o->hostfile) {
        o->output = o->hostfile;
        o->output_option = "--hostfile";
    } else {
        o->output_option = "--output";
    }
    if (o->env && o->output && !strcmp(o->output, "-"))
        return refuse("--env and the file cannot both go to standard output: name the file");
    if (o->env && o->json)
        return refuse("--env and --json both print on standard output: give one of them");
    return 0;
}

int cli_launcher_write(const struct cli_opts *o, const smp_spec *spec, const smp_nodes *nodes,
                       const smp_placement *pl, const int32_t *socket_of_rank)
{
    if (!o->output)
        return 0;
    smp_error err;
    FILE *f = strcmp(o->output, "-") ? fopen(o->output, "w") : stdout;
    if (!f) {
        smp_error_set(&err, SMP_ERR_SYSTEM, "%s %s: cannot create: %m", o->output_option,
                      o->output);
        return cli_fail(&err);
    }
    /* the spec names the file in its heading comment, unless a newline in
     * a path would end the comment early */
    const char *title = spec->name[0] ? spec->name : o->spec;
    if (strpbrk(title, "\r\n"))
        title = NULL;
    const sml_plan plan = {nodes, pl, socket_of_rank, title};
    smp_status s = sml_write(o->launcher, f, &plan, &err);
    if (f != stdout && fclose(f) != 0 && !s)
        s = smp_error_set(&err, SMP_ERR_SYSTEM, "%s %s: write failed", o->output_option, o->output);
    if (s && f != stdout)
        remove(o->output); /* no file that says another placement than the one reported */
    return s ? cli_fail(&err) : 0;
}

int cli_launcher_env(const struct cli_opts *o, const smp_spec *spec, const smp_nodes *nodes,
                     const smp_levels *levels, const smp_placement *pl,
                     const smp_placement *blocked)
{
    smp_error err;
    const char *job = getenv("SLURM_JOB_ID");
    bool in_allocation = job && *job;
    if (!o->env) {
        if (o->launcher == SML_MPICH && in_allocation && o->output)
            fprintf(stderr,
                    "stencil-map: inside Slurm, start mpiexec with -launcher rsh "
                    "-launcher-exec %s: Hydra's own Slurm launcher does not keep a "
                    "machine file's order (--env prints it)\n",
                    SML_HYDRA_SRUN);
        return 0;
    }
    smp_task_env env;
    bool too_long = false;
    if (smp_task_env_build(&env, &spec->grid, &spec->stencil, pl->algorithm, &pl->score,
                           &blocked->score, &err) ||
        smp_task_env_add_levels(&env, nodes->names, nodes->count, levels, pl->level, &too_long,
                                &err))
        return cli_fail(&err);
    if (too_long)
        fprintf(stderr, "stencil-map: %d nodes are too many to hand their network levels to the "
                "ranks: the in-job check counts the nodes only\n", nodes->count);
    const sml_env_opts eo = {o->output, in_allocation, SML_HYDRA_SRUN};
    smp_status s = sml_write_env(o->launcher, stdout, &env, &eo, &err);
    smp_task_env_free(&env);
    return s ? cli_fail(&err) : 0;
}
