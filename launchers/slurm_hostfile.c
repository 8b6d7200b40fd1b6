/* SPDX-License-Identifier: GPL-2.0-or-later */
/* slurm: Slurm's hostfile, line r = node of rank r, as srun's arbitrary
 * distribution reads SLURM_HOSTFILE.  The placement core owns the format
 * (the plugin writes it there too); this is its row in the table. */
#include "launchers.h"

smp_status sml_write_hostfile(FILE *out, const sml_plan *p, smp_error *err)
{
    return smp_hostfile_write(out, p->nodes, p->pl, err);
}

smp_status sml_read_hostfile(FILE *in, const smp_nodes *given, sml_read_result *r, smp_error *err)
{
    (void)given;
    return smp_hostfile_read(in, &r->nodes, &r->node_of_rank, &r->ranks, err);
}
