/* SPDX-License-Identifier: GPL-2.0-or-later */
/* What the profile of one run of an application teaches: a spec, the
 * verdict that it is no stencil code, or nothing (the profile is not
 * whole).  "No stencil code" means no placement would beat Slurm's own:
 * no MPI, no traffic between ranks, under LEARNED_MIN_SHARE of the bytes
 * on any grid's stencil, a dense exchange, or one dimension only.
 *
 * srun cannot tell how its step ended (slurm_spank_exit runs in an atexit
 * handler, with no spank item available), so the profile must say it:
 * every rank's file present, none marked partial (a signal, or an exit
 * without MPI_Finalize) and no task's exit file with a non-zero status;
 * or, for a program that never called MPI_Init, every task's exit file
 * with status 0.  Anything less stores nothing, and the next run is
 * profiled again. */
#ifndef STENCILMAP_LEARNED_JUDGE_H
#define STENCILMAP_LEARNED_JUDGE_H

#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include "learned_entry.h"

/* below this share of the bytes explained an application is no stencil code */
#define LEARNED_MIN_SHARE 0.9
/* nor is one whose ranks send to at least this share of the others each
 * (an all-to-all fits a periodic ring of P-1 offsets, but no placement
 * shortens it) */
#define LEARNED_DENSE_SHARE 0.9

typedef enum {
    LEARNED_JUDGED_SPEC,        /* e is a spec to store */
    LEARNED_JUDGED_NOT_STENCIL, /* e is a verdict to store */
    LEARNED_JUDGED_FAILED       /* nothing to store; why says so */
} learned_judgement;

/* Judges the profile in dir of a step of ranks tasks at time now.  e
 * comes with key, executable, job and step set; the judge sets the rest
 * (kind, date, ranks, bytes, share, grid source, and the spec, or the
 * reason and expiry).  why gets one line: what was learned, or why
 * nothing was. */
learned_judgement learned_judge(const char *dir, int64_t ranks, time_t now, learned_entry *e,
                                char *why, size_t n);

#endif
