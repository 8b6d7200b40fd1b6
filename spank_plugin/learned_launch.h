/* SPDX-License-Identifier: GPL-2.0-or-later */
/* srun --stencil-map=learn (and the site's default=learn): no spec at all.
 *
 * For the program srun launches (learning/store/learned_key.h) the user's store
 * (learning/store/learned_store.h) is asked:
 *   - a spec learned on this many ranks, or on another count when the
 *     application got its grid from MPI_Dims_create (recomputed for this
 *     count): the step is placed by it, and srun's summary line says
 *     which run it was learned from and on what grid;
 *   - nothing yet (or an expired verdict, or a grid of its own learned on
 *     another count): the step launches blocked with the profile library
 *     (as profile:DIR, into a directory of the store), and when srun ends
 *     (slurm_spank_exit, in the user's srun only) the profile is judged
 *     (learning/store/learned_judge.h) and a spec or a verdict stored;
 *   - a standing "not a stencil code" verdict, or a stored file that
 *     cannot be read: the step launches blocked, with one line saying why.
 * Learning never fails the user's step and never changes its exit status:
 * every problem launches blocked with a message.  The nodes' side
 * (slurmstepd, root) reads nothing of the store. */
#ifndef SM_LEARNED_LAUNCH_H
#define SM_LEARNED_LAUNCH_H

#include <limits.h>
#include <stdbool.h>
#include <stdint.h>

#include <slurm/spank.h>

#include "alloc.h"
#include "learned_key.h"
#include "policy.h"
#include "step.h"

typedef enum {
    SM_LEARNED_BLOCKED = 0, /* launch blocked, nothing to learn (a note was said) */
    SM_LEARNED_PROFILE,     /* launch blocked and profiled: learn when srun ends */
    SM_LEARNED_PLACE        /* plan the spec handed back */
} sm_learned_action;

typedef struct {
    bool active;                 /* this srun runs under "learn" */
    sm_spec_source source;
    bool quiet;
    sm_learned_action action;
    char site_root[1024];        /* learned_dir= */
    char exe[PATH_MAX];          /* the executable's real path */
    char key[LEARNED_KEY_MAX];
    char profile_dir[PATH_MAX];  /* SM_LEARNED_PROFILE: where the tasks write */
    int64_t predicted;           /* the step's task count as known before launch, 0 unknown */
    bool replace_verdict;        /* an expired verdict to drop when the new entry is stored */
    /* SM_LEARNED_PLACE: where the spec came from, for the summary line */
    int64_t from_job, from_step, from_ranks;
    char from_date[16];
    char from_source[32];
    bool regridded;
    /* the step, once srun created it */
    bool started;
    uint32_t job, step, ntasks;
} sm_learned;

/* The value asks for learning. */
bool sm_learned_requested(const char *spec);
/* true when this value from this source was decided already (srun shows
 * it twice: slurm_spank_init, then the option callback). */
bool sm_learned_seen(const sm_learned *L, const char *spec, sm_spec_source src);

/* srun, in slurm_spank_init: decides for the program of srun's command
 * line; exports the profile's environment for SM_LEARNED_PROFILE, clears
 * ours for SM_LEARNED_BLOCKED, and hands back the spec's JSON text
 * (malloc'd) for SM_LEARNED_PLACE. */
sm_learned_action sm_learned_decide(sm_learned *L, const sm_policy *pol, const sm_srun_args *a,
                                    sm_spec_source src, char **json);
/* After a learned spec was planned: the summary line's beginning. */
void sm_learned_label(const sm_learned *L, sm_step *st);
/* srun, in slurm_spank_local_user_init: the step's ids and task count. */
void sm_learned_started(sm_learned *L, spank_t sp);
/* srun, in slurm_spank_exit: judges the profile and stores what it
 * taught; says what happened.  Never fails. */
void sm_learned_finish(sm_learned *L);
/* Removes a profile directory left unjudged (srun ended before the step
 * existed) and forgets the decision. */
void sm_learned_release(sm_learned *L);

/* sbatch/salloc: exports STENCIL_MAP_SPEC=learn for every srun of the job. */
int sm_learned_allocator(void);

#endif
