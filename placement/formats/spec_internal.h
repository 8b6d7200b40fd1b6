/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Shared by the spec readers.  Layers, each using only those below it:
 * spec_load.c (what the user gave) -> spec.c (a spec object) ->
 * spec_named.c (the specs directory, named stencils) -> spec_json.c
 * (validators). */
#ifndef STENCILMAP_SPEC_INTERNAL_H
#define STENCILMAP_SPEC_INTERNAL_H

#include <jansson.h>

#include "stencilmap/placement.h"

/* "an object", "an integer", ...: a value's kind in messages. */
const char *smp_json_kind(const json_t *v);
/* Rejects keys of obj that are not in the NULL-terminated list allowed. */
smp_status smp_json_check_keys(const json_t *obj, const char *field, const char *const *allowed,
                               smp_error *err);
/* An array of 1 to maxn integers in [min, max] ("what" in messages). */
smp_status smp_json_int_list(const json_t *arr, const char *field, int64_t min, int64_t max,
                             int64_t *out, int maxn, int *n, const char *what, smp_error *err);
/* A stencil object {"offsets": ..., "weights": ...}; ndims 0 = any. */
smp_status smp_stencil_from_json(smp_stencil *st, const json_t *js, int ndims,
                                 const char *field, smp_error *err);
/* A grid object {"dims": [...], "periods": [...], "order": ...} with fixed
 * dims (no "auto"), as a spec's "grid" and an audit record's. */
smp_status smp_grid_from_json(smp_grid *grid, const json_t *js, smp_error *err);
/* grid.domain, grid.halo and grid.cost of the grid object g into
 * spec->dims_w when grid.dims is "weighted" (refused otherwise);
 * spec->grid.ndims already set (spec_dims.c). */
smp_status smp_spec_grid_weights(smp_spec *spec, const json_t *g, smp_error *err);
/* Reads at most SMP_MAX_SPEC_BYTES of path into a NUL-terminated buffer. */
smp_status smp_read_file(const char *path, const char *what, char **text,
                         size_t *len, smp_error *err);

/* Loads NAME.json from specs_dir as a JSON object; what names it in
 * messages ("spec", "stencil"), ndims narrows the names an unknown one's
 * message lists (0: any). */
smp_status smp_load_named_json(const char *name, const char *specs_dir, const char *what,
                               int ndims, json_t **out, smp_error *err);
/* A spec object, as smp_spec_parse after the JSON text is parsed. */
smp_status smp_spec_from_json(smp_spec *spec, const json_t *root, const char *specs_dir,
                              smp_error *err);

#endif
