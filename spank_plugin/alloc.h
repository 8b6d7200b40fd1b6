/* SPDX-License-Identifier: GPL-2.0-or-later */
/* What a step is placed on: the job's allocation from the environment,
 * narrowed by srun's own options, which are read from srun's command line
 * because the SPANK option callback may run before srun has parsed them. */
#ifndef SM_ALLOC_H
#define SM_ALLOC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <stencilmap/placement.h>

/* How srun of the Slurm release the plugin was built for treats a step
 * with a hostfile (srun_rules.h fills it in from the release). */
typedef struct {
    bool refuses_nodes;          /* 23.11+: -N on the command line with SLURM_HOSTFILE is an
                                  * error ("--nodes is incompatible with
                                  * --distribution=arbitrary", _validate_arbitrary) */
    bool inherits_cpus_per_task; /* 23.11+: srun takes -c from SLURM_CPUS_PER_TASK */
} sm_srun_rules;

typedef struct {
    int64_t ntasks;           /* -n/--ntasks, 0 when not given */
    int64_t nnodes;           /* -N/--nodes (minimum of a range), 0 when not given */
    int64_t ntasks_per_node;  /* --ntasks-per-node, 0 when not given */
    int64_t cpus_per_task;    /* -c/--cpus-per-task, 0 when not given */
    bool nodelist;            /* -w/--nodelist or -F/--nodefile given */
    bool distribution;        /* -m/--distribution given */
    bool relative;            /* -r/--relative given */
    bool quiet;               /* -Q/--quiet */
    bool have_spec;           /* --stencil-map given on the command line */
    char spec[1024];          /* its last value */
    char bad[300];            /* "" or why srun's options cannot be read safely */
    sm_srun_rules rules;      /* of the srun that runs us */
    /* the program the step runs: for --stencil-map=learn, and to tell a
     * launcher's daemon step from the application's (other_launchers.h) */
    char command[4096];       /* the command's first word, "" when there is none */
    char chdir[4096];         /* -D/--chdir, "" when not given */
    bool multi_prog;          /* --multi-prog: the command is srun's configuration file */
    bool command_unsure;      /* an option srun_options.c does not know leaves it unsure */
} sm_srun_args;

/* Scans srun's options (argv[0] is the program) up to the command, as
 * srun's getopt_long does (abbreviations included).  An option unknown to
 * srun_options.c (another SPANK plugin's, or one of a newer srun) written
 * "--name value" may or may not take that value: both readings are
 * scanned, and if they disagree on a count the plan depends on, a->bad
 * says so, rather than planning for a task count srun will not use. */
void sm_srun_args_parse(sm_srun_args *a, int argc, char **argv, const sm_srun_rules *rules);
/* The same on /proc/self/cmdline; returns -1 when it cannot be read, and
 * *a is then empty but for the rules. */
int sm_srun_args_read(sm_srun_args *a, const sm_srun_rules *rules);

/* The nodes and slots the step may use: SLURM_JOB_NODELIST and
 * SLURM_JOB_CPUS_PER_NODE, the first -N nodes, slots divided by -c (or by
 * SLURM_CPUS_PER_TASK where srun inherits it) and capped by
 * --ntasks-per-node.  *job_ntasks gets SLURM_NTASKS (0 if unset).  -N is
 * refused where srun refuses it with a hostfile. */
smp_status sm_alloc_read(const sm_srun_args *a, smp_nodes *nodes, int64_t *job_ntasks,
                         smp_error *err);

/* The step's task count: srun -n, else the fixed grid size (fixed_size > 0),
 * else the job's SLURM_NTASKS (when -N was not given), else all slots. */
int64_t sm_alloc_ntasks(const sm_srun_args *a, int64_t fixed_size, int64_t job_ntasks,
                        const smp_nodes *nodes);

#endif
