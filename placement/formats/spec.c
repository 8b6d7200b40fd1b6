/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* JSON specs: {"grid": ..., "stencil": ..., "algorithm": ...}.  Every key is
 * known; anything else is rejected with the path of the offending field.
 * grid.dims "weighted" and its weights: spec_dims.c. */
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "formats/spec_internal.h"

/* grid.dims "auto" or "weighted": chosen by smp_spec_resolve() */
static smp_status dims_word(smp_spec *spec, const char *how, bool have_ndims, int ndims,
                            int64_t *d, smp_error *err)
{
    if (strcmp(how, "auto") != 0 && strcmp(how, "weighted") != 0)
        return smp_error_set(err, SMP_ERR_INPUT,
                             "grid.dims: must be a list of positive integers, \"auto\" or "
                             "\"weighted\"");
    if (!have_ndims)
        return smp_error_set(err, SMP_ERR_INPUT,
                             "grid.ndims: required when grid.dims is \"%s\"", how);
    spec->dims_auto = true;
    spec->dims_weighted = !strcmp(how, "weighted");
    for (int i = 0; i < ndims; i++)
        d[i] = 1; /* placeholder until smp_spec_resolve() */
    return SMP_OK;
}

static smp_status parse_grid(smp_spec *spec, const json_t *g, smp_error *err)
{
    static const char *const keys[] = {"dims", "ndims", "periods", "order",
                                       "domain", "halo", "cost", NULL};
    if (!json_is_object(g))
        return smp_error_set(err, SMP_ERR_INPUT, "grid: must be an object, not %s", smp_json_kind(g));
    smp_status s = smp_json_check_keys(g, "grid", keys, err);
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
        if ((s = dims_word(spec, json_string_value(dims), nd != NULL, ndims, d, err)))
            return s;
    } else {
        int n;
        s = smp_json_int_list(dims, "grid.dims", 1, SMP_MAX_RANKS, d, SMP_MAX_DIMS, &n,
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
                                 "grid.periods: must be a list of booleans, not %s", smp_json_kind(per));
        }
    }
    smp_order order = SMP_ORDER_ROW_MAJOR;
    json_t *ord = json_object_get(g, "order");
    if (ord && !json_is_string(ord))
        return smp_error_set(err, SMP_ERR_INPUT,
                             "grid.order: must be \"row-major\" or \"column-major\", not %s",
                             smp_json_kind(ord));
    if (ord && !smp_order_from_name(json_string_value(ord), &order))
        return smp_error_set(err, SMP_ERR_INPUT,
                             "grid.order: unknown '%.64s' (one of row-major: the last dimension "
                             "fastest, as MPI_Cart_create; column-major: the first fastest, as "
                             "PETSc's DMDA)",
                             json_string_value(ord));
    s = smp_grid_init(&spec->grid, ndims, d, periods, err);
    spec->grid.order = order;
    return s ? s : smp_spec_grid_weights(spec, g, err);
}

smp_status smp_grid_from_json(smp_grid *grid, const json_t *js, smp_error *err)
{
    smp_spec spec;
    memset(&spec, 0, sizeof(spec));
    smp_status s = parse_grid(&spec, js, err);
    if (!s && spec.dims_auto)
        s = smp_error_set(err, SMP_ERR_INPUT, "grid.dims: must be a list of positive integers");
    if (!s)
        *grid = spec.grid;
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
                             "stencil: must be a name or an object with offsets, not %s", smp_json_kind(js));
    json_t *name = json_object_get(js, "name");
    if (name) {
        static const char *const keys[] = {"name", NULL};
        smp_status s = smp_json_check_keys(js, "stencil", keys, err);
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
        smp_status s = smp_json_check_keys(js, "algorithm", keys, err);
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
                             "objective: must be \"sum\" or \"max\", not %s", smp_json_kind(js));
    if (!smp_objective_from_name(name, &spec->objective))
        return smp_error_set(err, SMP_ERR_INPUT, "objective: unknown '%.64s' (one of sum, max)",
                             name);
    spec->have_objective = true;
    return SMP_OK;
}

/* "effort": how long auto may search, a multiple of its default work. */
static smp_status parse_effort(smp_spec *spec, const json_t *js, smp_error *err)
{
    if (!json_is_integer(js))
        return smp_error_set(err, SMP_ERR_INPUT, "effort: must be an integer 1 to %d, not %s",
                             SMP_MAX_EFFORT, smp_json_kind(js));
    json_int_t n = json_integer_value(js);
    if (n < 1 || n > SMP_MAX_EFFORT)
        return smp_error_set(err, SMP_ERR_INPUT, "effort: must be 1 to %d, not %lld",
                             SMP_MAX_EFFORT, (long long)n);
    spec->effort = (int)n;
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
                                 smp_json_kind(bind));
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
                                 smp_json_kind(sockets));
        json_int_t n = json_integer_value(sockets);
        if (n < 1 || n > SMP_MAX_SOCKETS)
            return smp_error_set(err, SMP_ERR_INPUT, "sockets: must be 1 to %d, not %lld",
                                 SMP_MAX_SOCKETS, (long long)n);
        spec->sockets = (int)n;
    }
    return SMP_OK;
}

smp_status smp_spec_from_json(smp_spec *spec, const json_t *root, const char *specs_dir,
                              smp_error *err)
{
    static const char *const keys[] = {"grid", "stencil", "algorithm", "description",
                                       "bind", "sockets", "objective", "effort", NULL};
    memset(spec, 0, sizeof(*spec));
    spec->objective = SMP_OBJ_DEFAULT;
    smp_status s = SMP_OK;
    json_t *grid = json_object_get(root, "grid"), *st = json_object_get(root, "stencil"),
           *alg = json_object_get(root, "algorithm"), *desc = json_object_get(root, "description");
    if (!json_is_object(root))
        s = smp_error_set(err, SMP_ERR_INPUT, "spec: must be a JSON object, not %s", smp_json_kind(root));
    else if ((s = smp_json_check_keys(root, "spec", keys, err)))
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
    else if (json_object_get(root, "objective") &&
             (s = parse_objective(spec, json_object_get(root, "objective"), err)))
        ;
    else if (json_object_get(root, "effort"))
        s = parse_effort(spec, json_object_get(root, "effort"), err);
    if (s)
        smp_spec_free(spec);
    return s;
}

smp_status smp_spec_parse(smp_spec *spec, const char *text, size_t len, const char *specs_dir,
                          smp_error *err)
{
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
    smp_status s = smp_spec_from_json(spec, root, specs_dir, err);
    json_decref(root);
    return s;
}

void smp_spec_free(smp_spec *spec)
{
    smp_stencil_free(&spec->stencil);
}
