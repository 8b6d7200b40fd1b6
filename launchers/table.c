/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The launcher table: every format's name, what it is, where an
 * allocation's slots come from for it, its writer, its reader and how
 * --env speaks to it.  The CLI's options, usage texts and messages read it
 * from here, so a new launcher is one row and one file. */
#include <string.h>

#include "launchers.h"

typedef smp_status (*sml_write_fn)(FILE *out, const sml_plan *p, smp_error *err);
typedef smp_status (*sml_read_fn)(FILE *in, const smp_nodes *given, sml_read_result *r,
                                  smp_error *err);

typedef struct {
    const char *name;
    const char *what;
    const char *slots_variable;
    sml_write_fn write;
    sml_read_fn read;
} launcher;

/* Each name spelled once, here: the table and the listing below use it. */
#define N_SLURM "slurm"
#define N_OPENMPI "openmpi"
#define N_MPICH "mpich"
#define N_CRAY "cray"

static const launcher table[SML_COUNT] = {
    [SML_SLURM] = {N_SLURM, "Slurm hostfile", "SLURM_JOB_CPUS_PER_NODE", sml_write_hostfile,
                   sml_read_hostfile},
    [SML_OPENMPI] = {N_OPENMPI, "Open MPI rankfile", "SLURM_TASKS_PER_NODE", sml_write_rankfile,
                     sml_read_rankfile},
    [SML_MPICH] = {N_MPICH, "MPICH Hydra machine file", "SLURM_JOB_CPUS_PER_NODE",
                   sml_write_machinefile, sml_read_machinefile},
    [SML_CRAY] = {N_CRAY, "HPE Cray MPICH rank order file", "SLURM_TASKS_PER_NODE",
                  sml_write_rank_order, sml_read_rank_order},
};

static const char listed[] = N_SLURM ", " N_OPENMPI ", " N_MPICH ", " N_CRAY;

static bool valid(sml_launcher l) { return l >= 0 && l < SML_COUNT; }

bool sml_from_name(const char *name, sml_launcher *l)
{
    for (int i = 0; i < SML_COUNT; i++)
        if (name && !strcmp(name, table[i].name)) {
            *l = (sml_launcher)i;
            return true;
        }
    return false;
}

const char *sml_name(sml_launcher l) { return valid(l) ? table[l].name : "unknown"; }
const char *sml_names(void) { return listed; }
const char *sml_what(sml_launcher l) { return valid(l) ? table[l].what : "unknown"; }

const char *sml_slots_variable(sml_launcher l)
{
    return valid(l) ? table[l].slots_variable : "SLURM_JOB_CPUS_PER_NODE";
}

smp_status sml_write(sml_launcher l, FILE *out, const sml_plan *p, smp_error *err)
{
    if (!valid(l))
        return smp_error_set(err, SMP_ERR_INPUT, "--launcher: not a launcher");
    smp_status s = table[l].write(out, p, err);
    if (!s && fflush(out) == EOF)
        s = smp_error_set(err, SMP_ERR_SYSTEM, "%s: write failed", table[l].what);
    return s;
}

smp_status sml_read(sml_launcher l, FILE *in, const smp_nodes *given, sml_read_result *r,
                    smp_error *err)
{
    memset(r, 0, sizeof(*r));
    if (!valid(l))
        return smp_error_set(err, SMP_ERR_INPUT, "--launcher: not a launcher");
    smp_status s = table[l].read(in, given, r, err);
    if (s)
        sml_read_result_free(r);
    return s;
}
