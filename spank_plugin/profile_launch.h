/* SPDX-License-Identifier: GPL-2.0-or-later */
/* srun --stencil-map=profile:DIR: run the step once, blocked, with
 * libstencilmap-profile.so in every task, for `stencil-map learn DIR`. */
#ifndef SM_PROFILE_LAUNCH_H
#define SM_PROFILE_LAUNCH_H

#include <stdbool.h>
#include <slurm/spank.h>

/* The value asks for a profiling run. */
bool sm_profile_requested(const char *spec);
/* srun: checks DIR (made 0700 if missing; the caller's own, not writable
 * by others), clears our task variables and exports STENCIL_MAP_PROFILE
 * with DIR's absolute path; the step launches blocked.  0 or -1 (said). */
int sm_profile_srun(const char *spec, bool quiet);
/* srun: clears our task variables and exports STENCIL_MAP_PROFILE=abs (a
 * directory already made and checked); the step launches blocked and
 * profiled.  0, or -1 (out of memory). */
int sm_profile_export(const char *abs);
/* sbatch/salloc: the same check; exports STENCIL_MAP_SPEC=profile:<abs>. */
int sm_profile_allocator(const char *spec);
/* slurmstepd, in the task before exec: with STENCIL_MAP_PROFILE in the
 * task's environment, the library goes first into LD_PRELOAD and
 * STENCIL_MAP_PROFILE_DIR names the directory. */
int sm_profile_task(spank_t sp);

#endif
