/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* JSON specs: {"grid": ..., "stencil": ..., "algorithm": ...}.  Every key is
 * known; anything else is rejected with the path of the offending field. */
#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "spec_internal.h"

static const char *json_kind(const json_t *v)
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

/* Rejects keys of obj that are not in the NULL-terminated list allowed. */
static smp_status check_keys(const json_t *obj, const char *field,
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

static smp_status parse_int_list(const json_t *arr, const char *field, int64_t min,
                                 int64_t max, int64_t *out, int maxn, int *n,
                                 const char *what, smp_error *err)
{
    if (!json_is_array(arr))
        return smp_error_set(err, SMP_ERR_INPUT, "%s: must be an array, not %s", field,
                             json_kind(arr));
    size_t len = json_array_size(arr);
    if (len < 1 || len > (size_t)maxn)
        return smp_error_set(err, SMP_ERR_INPUT, "%s: must have 1 to %d entries, not %zu",
                             field, maxn, len);
    for (size_t i = 0; i < len; i++) {
        json_t *v = json_array_get(arr, i);
        if (!json_is_integer(v))
            return smp_error_set(err, SMP_ERR_INPUT, "%s[%zu]: must be %s, not %s", field, i,
                                 what, json_kind(v));
        if (json_integer_value(v) < min || json_integer_value(v) > max)
            return smp_error_set(err, SMP_ERR_INPUT, "%s[%zu]: must be %s, not %lld", field, i,
                                 what, (long long)json_integer_value(v));
        out[i] = json_integer_value(v);
    }
    *n = (int)len;
    return SMP_OK;
}

static smp_status parse_grid(smp_spec *spec, const json_t *g, smp_error *err)
{
    static const char *const keys[] = {"dims", "ndims", "periods", "order", NULL};
    if (!json_is_object(g))
        return smp_error_set(err, SMP_ERR_INPUT, "grid: must be an object, not %s", json_kind(g));
    smp_status s = check_keys(g, "grid", keys, err);
    if (s)
        return s;
    json_t *dims = json_object_get(g, "dims"), *nd = json_object_get(g, "ndims"),
           *per = json_object_get(g, "periods");
    int64_t d[SMP_MAX_DIMS];
    int ndims = 0;
    if (nd) {
        if (!json_is_integer(nd) || json_integer_value(nd) < 1 ||
            json_integer_value(nd) > SMP_MAX_DIMS)
            return smp_error_set(err, SMP_ERR_INPUT, "grid.ndims: must be an integer from 1 to %d",
                                 SMP_MAX_DIMS);
        ndims = (int)json_integer_value(nd);
    }
    if (!dims)
        return smp_error_set(err, SMP_ERR_INPUT, "grid.dims: missing (a list of sizes, or \"auto\" with grid.ndims)");
    if (json_is_string(dims)) {
        if (strcmp(json_string_value(dims), "auto") != 0)
            return smp_error_set(err, SMP_ERR_INPUT,
                                 "grid.dims: must be a list of positive integers or \"auto\"");
        if (!nd)
            return smp_error_set(err, SMP_ERR_INPUT, "grid.ndims: required when grid.dims is \"auto\"");
        spec->dims_auto = true;
        for (int i = 0; i < ndims; i++)
            d[i] = 1; /* placeholder until smp_spec_resolve() */
    } else {
        int n;
        s = parse_int_list(dims, "grid.dims", 1, SMP_MAX_RANKS, d, SMP_MAX_DIMS, &n,
                           "a positive integer of at most 2147483647", err);
        if (s)
            return s;
        if (nd && n != ndims)
            return smp_error_set(err, SMP_ERR_INPUT,
                                 "grid.ndims: is %d but grid.dims has %d entries", ndims, n);
        ndims = n;
    }
    bool periods[SMP_MAX_DIMS] = {false};
    if (per) {
        if (json_is_boolean(per)) {
            for (int i = 0; i < ndims; i++)
                periods[i] = json_is_true(per);
        } else if (json_is_array(per)) {
            if (json_array_size(per) != (size_t)ndims)
                return smp_error_set(err, SMP_ERR_INPUT,
                                     "grid.periods: has %zu entries but the grid has %d dimensions",
                                     json_array_size(per), ndims);
            for (int i = 0; i < ndims; i++) {
                json_t *v = json_array_get(per, (size_t)i);
                if (!json_is_boolean(v))
                    return smp_error_set(err, SMP_ERR_INPUT, "grid.periods[%d]: must be true or false", i);
                periods[i] = json_is_true(v);
            }
        } else {
            return smp_error_set(err, SMP_ERR_INPUT,
                                 "grid.periods: must be a list of booleans, not %s", json_kind(per));
        }
    }
    smp_order order = SMP_ORDER_ROW_MAJOR;
    json_t *ord = json_object_get(g, "order");
    if (ord && !json_is_string(ord))
        return smp_error_set(err, SMP_ERR_INPUT,
                             "grid.order: must be \"row-major\" or \"column-major\", not %s",
                             json_kind(ord));
    if (ord && !smp_order_from_name(json_string_value(ord), &order))
        return smp_error_set(err, SMP_ERR_INPUT,
                             "grid.order: unknown '%.64s' (one of row-major: the last dimension "
                             "fastest, as MPI_Cart_create; column-major: the first fastest, as "
                             "PETSc's DMDA)",
                             json_string_value(ord));
    s = smp_grid_init(&spec->grid, ndims, d, periods, err);
    spec->grid.order = order;
    return s;
}

smp_status smp_stencil_from_json(smp_stencil *st, const json_t *js, int ndims,
                                 const char *field, smp_error *err)
{
    static const char *const keys[] = {"offsets", "weights", "ndims", "description", NULL};
    smp_status s = check_keys(js, field, keys, err);
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
        s = parse_int_list(json_array_get(offs, k), f, -SMP_MAX_OFFSET_ABS, SMP_MAX_OFFSET_ABS, v,
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

static smp_status parse_stencil(smp_spec *spec, const json_t *js, const char *specs_dir,
                                smp_error *err)
{
    int ndims = spec->grid.ndims;
    if (json_is_string(js))
        return smp_stencil_named(&spec->stencil, json_string_value(js), ndims, specs_dir, err);
    if (!json_is_object(js))
        return smp_error_set(err, SMP_ERR_INPUT,
                             "stencil: must be a name or an object with offsets, not %s", json_kind(js));
    json_t *name = json_object_get(js, "name");
    if (name) {
        static const char *const keys[] = {"name", NULL};
        smp_status s = check_keys(js, "stencil", keys, err);
        if (s)
            return s;
        if (!json_is_string(name))
            return smp_error_set(err, SMP_ERR_INPUT, "stencil.name: must be a string");
        return smp_stencil_named(&spec->stencil, json_string_value(name), ndims, specs_dir, err);
    }
    return smp_stencil_from_json(&spec->stencil, js, ndims, "stencil", err);
}

static smp_status parse_algorithm(smp_spec *spec, const json_t *js, smp_error *err)
{
    const json_t *name = js;
    if (json_is_object(js)) {
        static const char *const keys[] = {"name", NULL};
        smp_status s = check_keys(js, "algorithm", keys, err);
        if (s)
            return s;
        name = json_object_get(js, "name");
    }
    if (!name || !json_is_string(name))
        return smp_error_set(err, SMP_ERR_INPUT, "algorithm: must be a name (%s)",
                             smp_algorithm_names());
    if (!smp_algorithm_from_name(json_string_value(name), &spec->algorithm))
        return smp_error_set(err, SMP_ERR_INPUT,
                             "algorithm: unknown '%.64s' (one of %s)", json_string_value(name),
                             smp_algorithm_names());
    return SMP_OK;
}

/* "objective": what auto and the refinement minimise first. */
static smp_status parse_objective(smp_spec *spec, const json_t *js, smp_error *err)
{
    const char *name = json_string_value(js);
    if (!name)
        return smp_error_set(err, SMP_ERR_INPUT,
                             "objective: must be \"sum\" or \"max\", not %s", json_kind(js));
    if (!smp_objective_from_name(name, &spec->objective))
        return smp_error_set(err, SMP_ERR_INPUT, "objective: unknown '%.64s' (one of sum, max)",
                             name);
    spec->have_objective = true;
    return SMP_OK;
}

/* "bind" and "sockets": how the plugin binds tasks inside a node, and the
 * socket count per node for when Slurm does not say (the CLI). */
static smp_status parse_binding(smp_spec *spec, const json_t *bind, const json_t *sockets,
                                smp_error *err)
{
    if (bind) {
        const char *b = json_string_value(bind);
        if (!b)
            return smp_error_set(err, SMP_ERR_INPUT, "bind: must be \"none\" or \"socket\", not %s",
                                 json_kind(bind));
        if (!strcmp(b, "none"))
            spec->bind = SMP_BIND_NONE;
        else if (!strcmp(b, "socket"))
            spec->bind = SMP_BIND_SOCKET;
        else
            return smp_error_set(err, SMP_ERR_INPUT,
                                 "bind: unknown '%.64s' (one of none, socket)", b);
    }
    if (sockets) {
        if (!json_is_integer(sockets))
            return smp_error_set(err, SMP_ERR_INPUT, "sockets: must be an integer, not %s",
                                 json_kind(sockets));
        json_int_t n = json_integer_value(sockets);
        if (n < 1 || n > SMP_MAX_SOCKETS)
            return smp_error_set(err, SMP_ERR_INPUT, "sockets: must be 1 to %d, not %lld",
                                 SMP_MAX_SOCKETS, (long long)n);
        spec->sockets = (int)n;
    }
    return SMP_OK;
}

smp_status smp_spec_parse(smp_spec *spec, const char *text, size_t len, const char *specs_dir,
                          smp_error *err)
{
    static const char *const keys[] = {"grid", "stencil", "algorithm", "description",
                                       "bind", "sockets", "objective", NULL};
    memset(spec, 0, sizeof(*spec));
    spec->objective = SMP_OBJ_DEFAULT;
    if (len > SMP_MAX_SPEC_BYTES)
        return smp_error_set(err, SMP_ERR_INPUT, "spec: %zu bytes, above the limit of %d", len,
                             SMP_MAX_SPEC_BYTES);
    json_error_t jerr;
    json_t *root = json_loadb(text, len, JSON_REJECT_DUPLICATES, &jerr);
    if (!root)
        return smp_error_set(err, SMP_ERR_INPUT, "spec: invalid JSON at line %d column %d: %s",
                             jerr.line, jerr.column, jerr.text);
    smp_status s = SMP_OK;
    json_t *grid = json_object_get(root, "grid"), *st = json_object_get(root, "stencil"),
           *alg = json_object_get(root, "algorithm"), *desc = json_object_get(root, "description");
    if (!json_is_object(root))
        s = smp_error_set(err, SMP_ERR_INPUT, "spec: must be a JSON object, not %s", json_kind(root));
    else if ((s = check_keys(root, "spec", keys, err)))
        ;
    else if (desc && !json_is_string(desc))
        s = smp_error_set(err, SMP_ERR_INPUT, "description: must be a string");
    else if (!grid)
        s = smp_error_set(err, SMP_ERR_INPUT, "grid: missing");
    else if (!st)
        s = smp_error_set(err, SMP_ERR_INPUT, "stencil: missing");
    else if ((s = parse_grid(spec, grid, err)) || (s = parse_stencil(spec, st, specs_dir, err)) ||
             (alg && (s = parse_algorithm(spec, alg, err))))
        ;
    else if ((s = parse_binding(spec, json_object_get(root, "bind"),
                                json_object_get(root, "sockets"), err)))
        ;
    else if (json_object_get(root, "objective"))
        s = parse_objective(spec, json_object_get(root, "objective"), err);
    json_decref(root);
    if (s)
        smp_spec_free(spec);
    return s;
}

void smp_spec_free(smp_spec *spec)
{
    smp_stencil_free(&spec->stencil);
}

smp_status smp_spec_resolve(smp_spec *spec, int64_t ntasks, smp_error *err)
{
    if (spec->dims_auto) {
        if (ntasks < 1)
            return smp_error_set(err, SMP_ERR_INPUT,
                                 "grid.dims: \"auto\" needs the task count (give --ranks or -n)");
        int64_t d[SMP_MAX_DIMS];
        bool per[SMP_MAX_DIMS];
        smp_status s = smp_dims_create(ntasks, spec->grid.ndims, d, err);
        if (s)
            return s;
        memcpy(per, spec->grid.periods, sizeof(per));
        smp_order order = spec->grid.order;
        s = smp_grid_init(&spec->grid, spec->grid.ndims, d, per, err);
        if (s)
            return s;
        spec->grid.order = order;
        spec->dims_auto = false;
        return SMP_OK;
    }
    if (ntasks > 0 && ntasks != spec->grid.size)
        return smp_error_set(err, SMP_ERR_INPUT,
                             "grid.dims: the grid holds %lld ranks but the step has %lld tasks",
                             (long long)spec->grid.size, (long long)ntasks);
    return SMP_OK;
}
