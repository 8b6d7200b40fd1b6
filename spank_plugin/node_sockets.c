/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Socket counts from Slurm's node records.  In Slurm 22.05 a node record's
 * `sockets` is already the node's total (slurm.h: "total number of sockets
 * per node"): a node configured Boards=2 SocketsPerBoard=1 reports
 * sockets 2, boards 2 (checked on the minicluster with scontrol show node),
 * so it is used as it is; multiplying by boards would count twice.  Nodes
 * Slurm does not answer for stay 0 (unknown). */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <slurm/slurm.h>
#include <slurm/slurm_errno.h>

#include "node_sockets.h"

void sm_node_sockets_slurm(const smp_nodes *nodes, int32_t *sockets, char *note, size_t n)
{
    node_info_msg_t *info = NULL;
    note[0] = '\0';
    if (slurm_load_node((time_t)0, &info, SHOW_ALL) != SLURM_SUCCESS || !info) {
        int e = errno; /* libslurm's error, as in alloc_check.c */
        snprintf(note, n, "cannot read the nodes' socket counts from slurmctld (%s)",
                 slurm_strerror(e));
        return;
    }
    int missing = 0;
    for (int i = 0; i < nodes->count; i++) {
        sockets[i] = 0;
        for (uint32_t k = 0; k < info->record_count; k++) {
            const node_info_t *nd = &info->node_array[k];
            if (nd->name && !strcmp(nd->name, nodes->names[i])) {
                sockets[i] = nd->sockets;
                break;
            }
        }
        missing += sockets[i] < 1;
    }
    if (missing)
        snprintf(note, n, "slurmctld gave no socket count for %d of the %d nodes", missing,
                 nodes->count);
    slurm_free_node_info_msg(info);
}
