/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The JSON validators every spec reader shares: value kinds in messages,
 * unknown keys, integer lists and stencil objects.  Each message starts
 * with the path of the offending field. */
#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "formats/spec_internal.h"

const char *smp_json_kind(const json_t *v)
{
    switch (json_typeof(v)) {
    case JSON_OBJECT: return "an object";
    case JSON_ARRAY: return "an array";
    case JSON_STRING: return "a string";
    case JSON_INTEGER: return "an integer";
    case JSON_REAL: return "a number";
    case JSON_TRUE: case JSON_FALSE: return "a boolean";
    default: return "null";
    }
}

smp_status smp_json_check_keys(const json_t *obj, const char *field,
                                const char *const *allowed, smp_error *err)
{
    const char *key;
    json_t *val;
    json_object_foreach((json_t *)obj, key, val) {
        bool ok = false;
        for (const char *const *a = allowed; *a && !ok; a++)
            ok = strcmp(key, *a) == 0;
        if (!ok)
            return smp_error_set(err, SMP_ERR_INPUT, "%s%sunknown key '%.64s'", field,
                                 field[0] ? ": " : "", key);
    }
    return SMP_OK;
}

smp_status smp_json_int_list(const json_t *arr, const char *field, int64_t min, int64_t max,
                             int64_t *out, int maxn, int *n, const char *what, smp_error *err)
{
    if (!json_is_array(arr))
        return smp_error_set(err, SMP_ERR_INPUT, "%s: must be an array, not %s", field,
                             smp_json_kind(arr));
    size_t len = json_array_size(arr);
    if (len < 1 || len > (size_t)maxn)
        return smp_error_set(err, SMP_ERR_INPUT, "%s: must have 1 to %d entries, not %zu",
                             field, maxn, len);
    for (size_t i = 0; i < len; i++) {
        json_t *v = json_array_get(arr, i);
        if (!json_is_integer(v))
            return smp_error_set(err, SMP_ERR_INPUT, "%s[%zu]: must be %s, not %s", field, i,
                                 what, smp_json_kind(v));
        if (json_integer_value(v) < min || json_integer_value(v) > max)
            return smp_error_set(err, SMP_ERR_INPUT, "%s[%zu]: must be %s, not %lld", field, i,
                                 what, (long long)json_integer_value(v));
        out[i] = json_integer_value(v);
    }
    *n = (int)len;
    return SMP_OK;
}

smp_status smp_stencil_from_json(smp_stencil *st, const json_t *js, int ndims,
                                 const char *field, smp_error *err)
{
    static const char *const keys[] = {"offsets", "weights", "ndims", "description", NULL};
    smp_status s = smp_json_check_keys(js, field, keys, err);
    if (s)
        return s;
    json_t *offs = json_object_get(js, "offsets"), *w = json_object_get(js, "weights");
    char f[96];
    if (!offs || !json_is_array(offs) || json_array_size(offs) == 0)
        return smp_error_set(err, SMP_ERR_INPUT, "%s.offsets: must be a non-empty list of offset vectors", field);
    size_t count = json_array_size(offs);
    if (count > SMP_MAX_OFFSETS)
        return smp_error_set(err, SMP_ERR_INPUT, "%s.offsets: more than %d offsets", field, SMP_MAX_OFFSETS);
    json_t *first = json_array_get(offs, 0);
    int d = json_is_array(first) ? (int)json_array_size(first) : 0;
    if (ndims > 0 && d != ndims)
        return smp_error_set(err, SMP_ERR_INPUT,
                             "%s.offsets[0]: has %d components but the grid has %d dimensions",
                             field, d, ndims);
    if (d < 1 || d > SMP_MAX_DIMS)
        return smp_error_set(err, SMP_ERR_INPUT, "%s.offsets[0]: must be a list of 1 to %d integers",
                             field, SMP_MAX_DIMS);
    int32_t *o = malloc(sizeof(int32_t) * count * (size_t)d);
    double *wt = NULL;
    if (!o)
        return smp_error_set(err, SMP_ERR_SYSTEM, "%s: out of memory", field);
    for (size_t k = 0; k < count && !s; k++) {
        int64_t v[SMP_MAX_DIMS];
        int n;
        snprintf(f, sizeof(f), "%s.offsets[%zu]", field, k);
        s = smp_json_int_list(json_array_get(offs, k), f, -SMP_MAX_OFFSET_ABS, SMP_MAX_OFFSET_ABS, v,
                           SMP_MAX_DIMS, &n, "an integer of magnitude at most 1000000", err);
        if (!s && n != d)
            s = smp_error_set(err, SMP_ERR_INPUT, "%s: has %d components, offsets[0] has %d", f, n, d);
        for (int i = 0; !s && i < d; i++)
            o[k * (size_t)d + (size_t)i] = (int32_t)v[i];
    }
    if (!s && w) {
        if (!json_is_array(w) || json_array_size(w) != count)
            s = smp_error_set(err, SMP_ERR_INPUT, "%s.weights: must be a list of %zu positive numbers, one per offset",
                              field, count);
        else if (!(wt = malloc(sizeof(double) * count)))
            s = smp_error_set(err, SMP_ERR_SYSTEM, "%s: out of memory", field);
        for (size_t k = 0; !s && k < count; k++) {
            json_t *v = json_array_get(w, k);
            if (!json_is_number(v) || !(json_number_value(v) > 0) || !isfinite(json_number_value(v)))
                s = smp_error_set(err, SMP_ERR_INPUT, "%s.weights[%zu]: must be a positive finite number",
                                  field, k);
            else
                wt[k] = json_number_value(v);
        }
    }
    if (!s)
        s = smp_stencil_init(st, d, (int)count, o, wt, field, err);
    free(o);
    free(wt);
    return s;
}
