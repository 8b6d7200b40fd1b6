/* SPDX-License-Identifier: GPL-2.0-or-later */
/* A task's STENCIL_MAP_COORDS from the grid (stencil_env.c parses the input). */
#include <stdio.h>
#include <string.h>

#include <stencilmap/placement.h>

#include "coords.h"

int sm_coords_format(const int64_t *dims, int ndims, int64_t rank, int column_major, char *out,
                     size_t outlen)
{
    int64_t size = 1;
    for (int i = 0; i < ndims; i++)
        size *= dims[i];
    if (rank < 0 || rank >= size)
        return -1;
    int64_t c[SMP_MAX_DIMS];
    for (int k = 0; k < ndims; k++) {
        int i = column_major ? k : ndims - 1 - k; /* the fastest axis first */
        c[i] = rank % dims[i];
        rank /= dims[i];
    }
    size_t off = 0;
    for (int i = 0; i < ndims; i++) {
        int w = snprintf(out + off, outlen - off, "%s%lld", i ? "," : "", (long long)c[i]);
        if (w < 0 || (size_t)w >= outlen - off)
            return -1;
        off += (size_t)w;
    }
    return 0;
}
