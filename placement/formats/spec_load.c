/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Loading a spec by what the user gave: a path to a JSON file, a name in
 * the specs directory (a full spec, or a stencil of fixed dimensions), or
 * the compact ALGORITHM:<d>d:STENCIL form.  Each builds the spec through
 * the same validators as a spec file (spec.c, spec_named.c). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "formats/spec_internal.h"

/* A spec of automatic dims: ndims dimensions, the named stencil, alg. */
static smp_status auto_dims_spec(smp_spec *spec, smp_algorithm alg, int ndims, const char *stencil,
                                 const char *specs_dir, smp_error *err)
{
    memset(spec, 0, sizeof(*spec));
    spec->objective = SMP_OBJ_DEFAULT;
    spec->algorithm = alg;
    if (ndims < 1 || ndims > SMP_MAX_DIMS)
        return smp_error_set(err, SMP_ERR_INPUT, "grid.ndims: must be from 1 to %d, not %d",
                             SMP_MAX_DIMS, ndims);
    int64_t ones[SMP_MAX_DIMS] = {1, 1, 1, 1, 1, 1, 1, 1};
    smp_status s = smp_grid_init(&spec->grid, ndims, ones, NULL, err);
    if (s)
        return s;
    spec->dims_auto = true;
    return smp_stencil_named(&spec->stencil, stencil, ndims, specs_dir, err);
}

/* ALGORITHM:<d>d:STENCIL, e.g. auto:2d:5pt or hyperplane:3d:hops. */
static smp_status load_compact(smp_spec *spec, const char *arg, const char *specs_dir,
                               smp_error *err)
{
    char alg[32], stencil[64];
    int ndims = 0, used = 0;
    if (sscanf(arg, "%31[^:]:%dd:%63[^:]%n", alg, &ndims, stencil, &used) != 3 ||
        arg[used] != '\0')
        return smp_error_set(err, SMP_ERR_INPUT,
                             "spec '%.100s': expected ALGORITHM:<d>d:STENCIL, e.g. auto:2d:5pt", arg);
    smp_algorithm a;
    if (!smp_algorithm_from_name(alg, &a))
        return smp_error_set(err, SMP_ERR_INPUT, "algorithm: unknown '%s' (one of %s)", alg,
                             smp_algorithm_names());
    return auto_dims_spec(spec, a, ndims, stencil, specs_dir, err);
}

/* A named spec: a full spec file, or a stencil file of fixed ndims, which
 * means auto with automatic dims. */
static smp_status load_named(smp_spec *spec, const char *arg, const char *specs_dir,
                             smp_error *err)
{
    json_t *js;
    smp_status s = smp_load_named_json(arg, specs_dir, "spec", 0, &js, err);
    if (s)
        return s;
    json_t *nd = json_object_get(js, "ndims");
    if (json_object_get(js, "grid"))
        s = smp_spec_from_json(spec, js, specs_dir, err);
    else if (!json_is_integer(nd))
        s = smp_error_set(err, SMP_ERR_INPUT,
                          "spec '%s': a stencil without fixed ndims; use e.g. auto:2d:%s", arg, arg);
    else
        s = auto_dims_spec(spec, SMP_ALG_AUTO, (int)json_integer_value(nd), arg, specs_dir, err);
    json_decref(js);
    if (s == SMP_OK)
        snprintf(spec->name, sizeof(spec->name), "%s", arg);
    return s;
}

smp_status smp_spec_load(smp_spec *spec, const char *arg, const char *specs_dir, smp_error *err)
{
    memset(spec, 0, sizeof(*spec));
    spec->objective = SMP_OBJ_DEFAULT;
    if (!arg || !*arg)
        return smp_error_set(err, SMP_ERR_INPUT, "spec: empty");
    bool is_path = strchr(arg, '/') || (strlen(arg) > 5 && !strcmp(arg + strlen(arg) - 5, ".json"));
    if (!is_path && strchr(arg, ':'))
        return load_compact(spec, arg, specs_dir, err);
    if (!is_path)
        return load_named(spec, arg, specs_dir, err);
    char *text;
    size_t len;
    smp_status s = smp_read_file(arg, "spec file", &text, &len, err);
    if (s)
        return s;
    s = smp_spec_parse(spec, text, len, specs_dir, err);
    free(text);
    return s;
}
