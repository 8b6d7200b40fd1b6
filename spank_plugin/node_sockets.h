/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Socket counts of the step's nodes from slurmctld (plugin only: it needs
 * libslurm, which srun has loaded). */
#ifndef SM_NODE_SOCKETS_H
#define SM_NODE_SOCKETS_H

#include "step.h"

/* An sm_sockets_fn: Slurm's node records, one query for all nodes. */
void sm_node_sockets_slurm(const smp_nodes *nodes, int32_t *sockets, char *note, size_t n);

#endif
