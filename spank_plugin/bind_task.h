/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Task side of bind=socket (needs hwloc; plugin only). */
#ifndef SM_BIND_TASK_H
#define SM_BIND_TASK_H

#include <stdint.h>

#include <slurm/spank.h>

/* In the task: STENCIL_MAP_SOCKET from the step's socket map, and binding
 * to that package unless the user gave --cpu-bind.  Problems are warnings;
 * always returns 0 (the task runs, bound or not). */
int sm_task_bind(spank_t sp, uint32_t rank, uint32_t local_id);

#endif
