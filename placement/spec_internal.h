/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Shared between the spec parser and the loader of named stencils. */
#ifndef STENCILMAP_SPEC_INTERNAL_H
#define STENCILMAP_SPEC_INTERNAL_H

#include <jansson.h>

#include "stencilmap/placement.h"

/* A stencil object {"offsets": ..., "weights": ...}; ndims 0 = any. */
smp_status smp_stencil_from_json(smp_stencil *st, const json_t *js, int ndims,
                                 const char *field, smp_error *err);
/* A grid object {"dims": [...], "periods": [...], "order": ...} with fixed
 * dims (no "auto"), as a spec's "grid" and an audit record's. */
smp_status smp_grid_from_json(smp_grid *grid, const json_t *js, smp_error *err);
/* Reads at most SMP_MAX_SPEC_BYTES of path into a NUL-terminated buffer. */
smp_status smp_read_file(const char *path, const char *what, char **text,
                         size_t *len, smp_error *err);

#endif
