/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Paper 001's instance set and the helpers both benches share
 * (bench_paper.c, bench_levels.c): the instances, their grids and
 * stencils, the median, dying on an error. */
#ifndef STENCILMAP_BENCH_PAPER_SET_H
#define STENCILMAP_BENCH_PAPER_SET_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <stencilmap/placement.h>

static inline int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static inline double median(const double *v, int n)
{
    double *c = malloc(sizeof(double) * (size_t)n);
    if (!c)
        exit(1);
    memcpy(c, v, sizeof(double) * (size_t)n);
    qsort(c, (size_t)n, sizeof(double), cmp_double);
    double m = n % 2 ? c[n / 2] : (c[n / 2 - 1] + c[n / 2]) / 2;
    free(c);
    return m;
}

static inline void die(const smp_error *err)
{
    fprintf(stderr, "bench: %s\n", err->msg);
    exit(1);
}

#define MAX_INST 200

/* Paper 001's instance set: N nodes of n ranks, d dimensions. */
struct instance {
    int N, n, d;
};

static inline int paper_instances(struct instance *out)
{
    int k = 0;
    for (int N = 10; N <= 31; N += 3)
        for (int n = 10; n <= 32; n = (n == 31 ? 32 : n + 3)) {
            for (int d = 2; d <= 3; d++)
                out[k++] = (struct instance){N, n, d};
            if (n == 32)
                break;
        }
    return k;
}

/* The instance's grid (balanced dims, as MPI_Dims_create) and the family's
 * stencil for its dimension. */
static inline void instance_setup(const struct instance *in, const char *family, int64_t *dims,
                                  smp_grid *grid, smp_stencil *st)
{
    smp_error err;
    if (smp_dims_create((int64_t)in->N * in->n, in->d, dims, &err) ||
        smp_grid_init(grid, in->d, dims, NULL, &err) || smp_stencil_family(st, family, in->d, &err))
        die(&err);
}

#endif
