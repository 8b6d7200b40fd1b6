/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Steps and tasks whose ranks another launcher numbers, where the plugin
 * must keep out:
 *
 *  - the daemons an MPI launcher starts through srun inside an allocation
 *    (Open MPI's mpirun: orted, or prted from Open MPI 5; MPICH's and Intel
 *    MPI's Hydra: hydra_pmi_proxy, pmi_proxy).  They start the ranks
 *    themselves, where the launcher's own file says; placing the daemon
 *    step as if it were the grid (the job's --stencil-map, the site's
 *    default=) would move the daemons, refuse the step when the launcher
 *    names its nodes, and hand the daemons STENCIL_MAP_* values that their
 *    ranks inherit;
 *  - tasks that HPE Cray MPICH renumbers (MPICH_RANK_REORDER_METHOD other
 *    than 1, its default): their MPI rank is not the Slurm task id, so
 *    coordinates or a socket taken from the task id would be another
 *    rank's. */
#ifndef SM_OTHER_LAUNCHERS_H
#define SM_OTHER_LAUNCHERS_H

#include <stdbool.h>

/* program: what srun runs (argv[0] of the step, a path or a name). */
bool sm_launcher_daemon(const char *program);
/* method: the task's MPICH_RANK_REORDER_METHOD, or NULL when unset. */
bool sm_cray_renumbers(const char *method);

#endif
