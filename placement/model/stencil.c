/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Stencils: validated lists of relative neighbour offsets, with the named
 * families of paper 001 and thesis 000 generated for any number of
 * dimensions. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "stencilmap/placement.h"

smp_status smp_stencil_init(smp_stencil *st, int ndims, int count,
                            const int32_t *offsets, const double *weights,
                            const char *field, smp_error *err)
{
    memset(st, 0, sizeof(*st));
    if (ndims < 1 || ndims > SMP_MAX_DIMS)
        return smp_error_set(err, SMP_ERR_INPUT, "%s: offsets must have 1 to %d components, not %d",
                             field, SMP_MAX_DIMS, ndims);
    if (count < 1 || count > SMP_MAX_OFFSETS)
        return smp_error_set(err, SMP_ERR_INPUT, "%s.offsets: must hold 1 to %d offsets, not %d",
                             field, SMP_MAX_OFFSETS, count);
    for (int k = 0; k < count; k++) {
        const int32_t *o = offsets + (size_t)k * ndims;
        bool zero = true;
        for (int i = 0; i < ndims; i++) {
            if (o[i] > SMP_MAX_OFFSET_ABS || o[i] < -SMP_MAX_OFFSET_ABS)
                return smp_error_set(err, SMP_ERR_INPUT,
                                     "%s.offsets[%d][%d]: magnitude above the limit of %d",
                                     field, k, i, SMP_MAX_OFFSET_ABS);
            zero = zero && o[i] == 0;
        }
        if (zero)
            return smp_error_set(err, SMP_ERR_INPUT,
                                 "%s.offsets[%d]: the zero vector is not a neighbour", field, k);
        for (int j = 0; j < k; j++)
            if (memcmp(o, offsets + (size_t)j * ndims, sizeof(int32_t) * ndims) == 0)
                return smp_error_set(err, SMP_ERR_INPUT,
                                     "%s.offsets[%d]: duplicates offsets[%d]", field, k, j);
        if (weights && !(isfinite(weights[k]) && weights[k] > 0))
            return smp_error_set(err, SMP_ERR_INPUT,
                                 "%s.weights[%d]: must be a positive finite number", field, k);
    }
    st->offsets = malloc(sizeof(int32_t) * (size_t)count * ndims);
    st->weights = weights ? malloc(sizeof(double) * (size_t)count) : NULL;
    if (!st->offsets || (weights && !st->weights)) {
        smp_stencil_free(st);
        return smp_error_set(err, SMP_ERR_SYSTEM, "%s: out of memory", field);
    }
    memcpy(st->offsets, offsets, sizeof(int32_t) * (size_t)count * ndims);
    if (weights)
        memcpy(st->weights, weights, sizeof(double) * (size_t)count);
    st->ndims = ndims;
    st->count = count;
    return SMP_OK;
}

void smp_stencil_free(smp_stencil *st)
{
    free(st->offsets);
    free(st->weights);
    st->offsets = NULL;
    st->weights = NULL;
    st->count = 0;
}

bool smp_stencil_weighted(const smp_stencil *st)
{
    if (!st->weights)
        return false;
    for (int k = 0; k < st->count; k++)
        if (st->weights[k] != 1.0)
            return true;
    return false;
}

/* Appends +-a along dimension dim. */
static int add_axis_pair(int32_t *offs, int k, int ndims, int dim, int a)
{
    memset(offs + (size_t)k * ndims, 0, sizeof(int32_t) * ndims);
    offs[(size_t)k * ndims + dim] = a;
    memset(offs + (size_t)(k + 1) * ndims, 0, sizeof(int32_t) * ndims);
    offs[(size_t)(k + 1) * ndims + dim] = -a;
    return k + 2;
}

/* The most offsets a family yields: diagonal's 2^d corners in SMP_MAX_DIMS. */
#define FAMILY_MAX_OFFSETS (1 << SMP_MAX_DIMS)

/* diagonal (thesis 000, section 1.2.4): every vector of {-1, +1}^ndims. */
static int add_corners(int32_t *offs, int ndims)
{
    int n = 1 << ndims;
    for (int m = 0; m < n; m++)
        for (int i = 0; i < ndims; i++)
            offs[(size_t)m * ndims + i] = (m >> i) & 1 ? 1 : -1;
    return n;
}

/* crank-nicolson (thesis 000, section 1.2.4): the component offsets, +-1
 * along every dimension but the last, and each of them again with +1 in the
 * last dimension. */
static int add_crank_nicolson(int32_t *offs, int ndims)
{
    int k = 0;
    for (int i = 0; i < ndims - 1; i++)
        k = add_axis_pair(offs, k, ndims, i, 1);
    memcpy(offs + (size_t)k * ndims, offs, sizeof(int32_t) * (size_t)k * ndims);
    for (int j = k; j < 2 * k; j++)
        offs[(size_t)j * ndims + ndims - 1] = 1;
    return 2 * k;
}

/* Fills offs with the offsets of family; -1 when the name is unknown. */
static int family_offsets(int32_t *offs, const char *family, int ndims)
{
    int k = 0;
    bool first = !strcmp(family, "hops"), last = !strcmp(family, "hops-last");
    if (!strcmp(family, "nearest") || first || last) {
        /* nearest: +-1 along every dimension; hops adds +-2, +-3 along the
         * first dimension, hops-last along the last one */
        for (int i = 0; i < ndims; i++)
            k = add_axis_pair(offs, k, ndims, i, 1);
        for (int a = 2; (first || last) && a <= 3; a++)
            k = add_axis_pair(offs, k, ndims, first ? 0 : ndims - 1, a);
    } else if (!strcmp(family, "component")) {
        /* +-1 along every dimension but the last */
        for (int i = 0; i < ndims - 1; i++)
            k = add_axis_pair(offs, k, ndims, i, 1);
    } else if (!strcmp(family, "diagonal")) {
        k = add_corners(offs, ndims);
    } else if (!strcmp(family, "crank-nicolson")) {
        k = add_crank_nicolson(offs, ndims);
    } else {
        return -1;
    }
    return k;
}

smp_status smp_stencil_family(smp_stencil *st, const char *family, int ndims,
                              smp_error *err)
{
    if (ndims < 1 || ndims > SMP_MAX_DIMS)
        return smp_error_set(err, SMP_ERR_INPUT,
                             "stencil '%s': needs grid.ndims between 1 and %d", family, SMP_MAX_DIMS);
    int32_t offs[FAMILY_MAX_OFFSETS * SMP_MAX_DIMS];
    int k = family_offsets(offs, family, ndims);
    if (k < 0)
        return smp_error_set(err, SMP_ERR_INPUT, "stencil: unknown family '%s'", family);
    /* component and crank-nicolson leave the last dimension out or use it
     * one way only; diagonal in 1-D would be nearest under another name */
    if (ndims < 2 && strcmp(family, "nearest") && strncmp(family, "hops", 4))
        return smp_error_set(err, SMP_ERR_INPUT,
                             "stencil '%s': needs at least 2 dimensions", family);
    smp_status s = smp_stencil_init(st, ndims, k, offs, NULL, "stencil", err);
    if (s == SMP_OK)
        snprintf(st->name, sizeof(st->name), "%s", family);
    return s;
}
