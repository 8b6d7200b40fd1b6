/* SPDX-License-Identifier: GPL-2.0-or-later */
/* What srun of the Slurm release this plugin is built for does with a
 * step given a hostfile.  A SPANK plugin loads only into the release it
 * was built for, so the release is known at compile time. */
#ifndef SM_SRUN_RULES_H
#define SM_SRUN_RULES_H

#include <slurm/slurm_version.h>

#include "alloc.h"

/* 23.11: srun checks --nodes against the arbitrary distribution
 * (_validate_arbitrary in src/common/slurm_opt.c) and reads -c from
 * SLURM_CPUS_PER_TASK again (its env table in src/srun/opt.c). */
#if SLURM_VERSION_NUMBER >= SLURM_VERSION_NUM(23, 11, 0)
#define SM_SRUN_RULES_INIT {.refuses_nodes = true, .inherits_cpus_per_task = true}
#else
#define SM_SRUN_RULES_INIT {.refuses_nodes = false, .inherits_cpus_per_task = false}
#endif

#endif
