/* SPDX-License-Identifier: GPL-2.0-or-later */
/* See learn_spec.h. */
#include <inttypes.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "learn_spec.h"

static void dims_text(const smp_grid *g, char *buf, size_t len)
{
    size_t at = 0;
    buf[0] = '\0';
    for (int d = 0; d < g->ndims && at < len; d++)
        at += (size_t)snprintf(buf + at, len - at, "%s%" PRId64, d ? "x" : "", g->dims[d]);
}

/* JSON text of a string: a directory or program name may hold anything */
static void put_json_string(FILE *out, const char *text)
{
    json_t *j = json_string(text);
    char *t = j ? json_dumps(j, JSON_ENCODE_ANY) : NULL;
    fputs(t ? t : "\"\"", out);
    free(t);
    json_decref(j);
}

int learn_spec_write(FILE *out, const learn_result *r, const char *who, double share)
{
    int nd = r->grid.ndims;
    double *w = malloc(sizeof(double) * (size_t)(r->nincluded ? r->nincluded : 1));
    if (!w)
        return -1;
    learn_weights(r, w);
    bool weighted = false;
    for (int i = 0; i < r->nincluded; i++)
        weighted = weighted || w[i] != 1.0;
    char desc[1024], dt[256];
    dims_text(&r->grid, dt, sizeof(dt));
    snprintf(desc, sizeof(desc), "learned by %s: %.1f %% of bytes by %d offsets on %s (%s)", who,
             100 * share, r->nincluded, dt, r->source);
    fputs("{\n  \"description\": ", out);
    put_json_string(out, desc);
    fputs(",\n  \"grid\": { \"dims\": [", out);
    for (int d = 0; d < nd; d++)
        fprintf(out, "%s%" PRId64, d ? ", " : "", r->grid.dims[d]);
    fputs("], \"periods\": [", out);
    for (int d = 0; d < nd; d++)
        fprintf(out, "%s%s", d ? ", " : "", r->grid.periods[d] ? "true" : "false");
    fputs("] },\n  \"stencil\": {\n    \"offsets\": [", out);
    for (int i = 0; i < r->nincluded; i++) {
        fprintf(out, "%s\n      [", i ? "," : "");
        for (int d = 0; d < nd; d++)
            fprintf(out, "%s%d", d ? ", " : "", r->offsets[i].off[d]);
        fputc(']', out);
    }
    fputs("\n    ]", out);
    if (weighted) {
        fputs(",\n    \"weights\": [", out);
        for (int i = 0; i < r->nincluded; i++)
            fprintf(out, "%s%.4g", i ? ", " : "", w[i]);
        fputc(']', out);
    }
    fputs("\n  },\n  \"algorithm\": \"auto\"\n}\n", out);
    free(w);
    return ferror(out) ? -1 : 0;
}

const char *learn_grid_source(const learn_profile *p, const learn_result *r)
{
    if (!r->source || strcmp(r->source, "MPI_Cart_create"))
        return "inferred";
    int nd = r->grid.ndims;
    int64_t free_dims[SMP_MAX_DIMS];
    smp_error err;
    if (p->dc_ndims != nd || smp_dims_create(p->ranks, nd, free_dims, &err))
        return "MPI_Cart_create";
    for (int d = 0; d < nd; d++)
        if (p->dc_dims[d] != r->grid.dims[d] || free_dims[d] != r->grid.dims[d])
            return "MPI_Cart_create";
    return "MPI_Dims_create";
}
