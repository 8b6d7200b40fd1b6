/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The network above the nodes as slurmctld knows it, read in srun (the
 * user's own process; never in slurmstepd): the lines `scontrol show
 * topology` prints, for topology/ (smt_parse_printed) to turn into
 * levels.  Plugin only: it needs libslurm, which srun has loaded. */
#ifndef SM_SLURM_TOPOLOGY_H
#define SM_SLURM_TOPOLOGY_H

#include <stddef.h>

/* Asks slurmctld for its topology (one RPC; any user may; from 25.05 the
 * topology of the job's partition, which takes two more: SLURM_JOB_ID's
 * partition, then the partitions' topologies) and prints it as Slurm's own
 * client does.  Returns 0 with *text malloc'd: the printed
 * lines of a tree (SwitchName=) or block (BlockName=/AggregatedBlock=)
 * topology, or NULL when Slurm knows no level above the nodes
 * (topology/none, default or flat, or a plugin whose records are neither
 * switches nor blocks; *plugin then names it when it can be told).
 * *plugin is "topology/tree", "topology/block", or what else was seen
 * ("" when it cannot be told), followed by ", topology NAME of partition
 * P" when the partition picks a topology other than the default.  Returns -1 with a message when slurmctld
 * cannot be asked or its answer cannot be printed. */
int sm_slurm_topology_read(char **text, char *plugin, size_t plugin_len, char *msg, size_t n);

#endif
