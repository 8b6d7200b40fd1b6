/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Between the record reader's two files (not installed). */
#ifndef SMR_RECORD_READ_H
#define SMR_RECORD_READ_H

#include <jansson.h>

#include "smr_record.h"

/* "placement": node names into rec->node_of_rank (rec->nodes read). */
int smr_parse_placement(json_t *j, smr_record *rec, char *err, size_t n);
/* "topology" (optional) into rec->levels and the per-level figures
 * (rec->nodes read); smr_record_levels.c writes it too. */
int smr_parse_levels(json_t *j, smr_record *rec, char *err, size_t n);
json_t *smr_levels_json(const smr_record *rec);

#endif
