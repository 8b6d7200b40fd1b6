/* The audit record: one JSON file per placed (or fallen-back) step in
 * record_dir/<user>/<jobid>.<stepid>.json, written by the user's srun. */
#ifndef SM_RECORD_H
#define SM_RECORD_H

#include <stddef.h>
#include <stdint.h>

#include "policy.h"
#include "step.h"

/* Writes the record; on success st->record holds its path.  Returns 0, or
 * -1 with a message in msg. */
int sm_record_write(sm_step *st, const sm_policy *pol, uint32_t job_id, uint32_t step_id,
                    char *msg, size_t n);

#endif
