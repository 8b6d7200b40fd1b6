/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The audit record: one JSON file per step the plugin acted on, in
 * record_dir/<user>/<jobid>.<stepid>.json, written by the user's srun:
 * placed, fallen back to blocked, or not launched at all (and why).  Its
 * format, name and atomic write are the record module's (record/). */
#ifndef SM_RECORD_H
#define SM_RECORD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "policy.h"
#include "step.h"

/* No step id: the step was never created (a failed plan, or srun exited
 * before launching); such records are named <jobid>.nostep-<pid>.json. */
#define SM_NO_STEP UINT32_MAX

/* Writes the record; on success st->record holds its path.  launched says
 * whether the step's tasks were launched; error (may be NULL) says why a
 * step failed or was not launched.  Returns 0, or -1 with a message. */
int sm_record_write(sm_step *st, const sm_policy *pol, uint32_t job_id, uint32_t step_id,
                    bool launched, const char *error, char *msg, size_t n);

#endif
