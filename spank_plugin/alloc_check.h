/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Is the allocation srun sees in its environment still the job's?  A node
 * that failed in a --no-kill job leaves the job, but SLURM_JOB_NODELIST
 * keeps naming it; a plan on it could not be launched. */
#ifndef SM_ALLOC_CHECK_H
#define SM_ALLOC_CHECK_H

#include <stddef.h>

#include <stencilmap/placement.h>

/* Asks slurmctld for the job's current node list (one RPC) and compares it
 * with nodes.  Returns 0 when they agree, or -1 with a message naming the
 * nodes that left the job or why slurmctld could not be asked. */
int sm_alloc_check_current(const smp_nodes *nodes, char *msg, size_t n);

/* The partition the job runs in, from the same lookup (one RPC): 0 with
 * its name in *part (malloc'd: free it), or -1 with a message. */
int sm_alloc_partition(char **part, char *msg, size_t n);

#endif
