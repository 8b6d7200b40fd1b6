#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# One line per task: where it ran and what the plugin told it.
echo "$SLURM_PROCID $SLURMD_NODENAME ${STENCIL_MAP_COORDS:--} ${STENCIL_MAP_DIMS:--} ${STENCIL_MAP_ALGORITHM:--} $SLURM_JOB_NODELIST $SLURM_JOB_CPUS_PER_NODE ${STENCIL_MAP_JSUM:--} ${STENCIL_MAP_RECORD:--} ${SLURM_HOSTFILE:--}"
