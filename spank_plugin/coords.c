/* SPDX-License-Identifier: GPL-2.0-or-later */
/* STENCIL_MAP_DIMS -> STENCIL_MAP_COORDS, without trusting the input. */
#include <stdio.h>
#include <string.h>

#include <stencilmap/placement.h>

#include "coords.h"

int sm_dims_parse(const char *s, int64_t *dims, int *ndims, int64_t *size, char *msg, size_t n)
{
    size_t len = strnlen(s, SM_DIMS_MAX_LEN + 1);
    if (len == 0 || len > SM_DIMS_MAX_LEN) {
        snprintf(msg, n, "STENCIL_MAP_DIMS: %s", len ? "too long" : "empty");
        return -1;
    }
    int nd = 0;
    int64_t prod = 1;
    const char *p = s;
    for (;;) {
        if (nd == SMP_MAX_DIMS) {
            snprintf(msg, n, "STENCIL_MAP_DIMS: more than %d dimensions", SMP_MAX_DIMS);
            return -1;
        }
        int64_t v = 0;
        int digits = 0;
        while (*p >= '0' && *p <= '9') {
            v = v * 10 + (*p - '0');
            if (v > SMP_MAX_RANKS) {
                snprintf(msg, n, "STENCIL_MAP_DIMS: dimension %d is too large", nd);
                return -1;
            }
            digits++;
            p++;
        }
        if (!digits || v < 1) {
            snprintf(msg, n, "STENCIL_MAP_DIMS: dimension %d is not a positive integer", nd);
            return -1;
        }
        if (prod > SMP_MAX_RANKS / v) {
            snprintf(msg, n, "STENCIL_MAP_DIMS: grid larger than %lld ranks",
                     (long long)SMP_MAX_RANKS);
            return -1;
        }
        prod *= v;
        dims[nd++] = v;
        if (*p == '\0')
            break;
        if (*p != ',') {
            snprintf(msg, n, "STENCIL_MAP_DIMS: unexpected character at offset %d",
                     (int)(p - s));
            return -1;
        }
        p++;
    }
    *ndims = nd;
    *size = prod;
    return 0;
}

int sm_order_parse(const char *s, char *msg, size_t n)
{
    if (!strcmp(s, "row-major"))
        return 0;
    if (!strcmp(s, "column-major"))
        return 1;
    snprintf(msg, n, "STENCIL_MAP_ORDER: must be row-major or column-major, not '%.40s'", s);
    return -1;
}

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
