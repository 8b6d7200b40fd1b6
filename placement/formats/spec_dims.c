/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The spec's weighted dims (seed 003), as read: grid.domain, grid.halo
 * and grid.cost give the weights of grid.dims "weighted" (spec.c's parser
 * calls this; spec_resolve_dims.c chooses the dims from them). */
#include <jansson.h>
#include <string.h>

#include "formats/spec_internal.h"

/* a list of ndims numbers (field in messages) */
static smp_status number_list(const json_t *arr, const char *field, int ndims, double *out,
                              smp_error *err)
{
    if (!json_is_array(arr))
        return smp_error_set(err, SMP_ERR_INPUT, "%s: must be a list of %d numbers, not %s",
                             field, ndims, smp_json_kind(arr));
    if (json_array_size(arr) != (size_t)ndims)
        return smp_error_set(err, SMP_ERR_INPUT,
                             "%s: has %zu entries but the grid has %d dimensions", field,
                             json_array_size(arr), ndims);
    for (int i = 0; i < ndims; i++) {
        json_t *v = json_array_get(arr, (size_t)i);
        if (!json_is_number(v))
            return smp_error_set(err, SMP_ERR_INPUT, "%s[%d]: must be a number, not %s", field,
                                 i, smp_json_kind(v));
        out[i] = json_number_value(v);
    }
    return SMP_OK;
}

smp_status smp_spec_grid_weights(smp_spec *spec, const json_t *g, smp_error *err)
{
    static const char *const names[3] = {"grid.domain", "grid.halo", "grid.cost"};
    double v[3][SMP_MAX_DIMS];
    bool have[3];
    int ndims = spec->grid.ndims;
    smp_status s;
    for (int k = 0; k < 3; k++) {
        json_t *arr = json_object_get(g, names[k] + 5);
        have[k] = arr != NULL;
        if (arr && !spec->dims_weighted)
            return smp_error_set(err, SMP_ERR_INPUT,
                                 "%s: used only with grid.dims \"weighted\"", names[k]);
        if (arr && (s = number_list(arr, names[k], ndims, v[k], err)))
            return s;
    }
    if (!spec->dims_weighted)
        return SMP_OK;
    if (!have[0])
        for (int i = 0; i < ndims; i++)
            v[0][i] = 1.0; /* equal extents: the halos and costs alone */
    return smp_dims_weights(ndims, v[0], have[1] ? v[1] : NULL, have[2] ? v[2] : NULL,
                            spec->dims_w, err);
}
