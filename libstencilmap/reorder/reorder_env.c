/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The environment the reorder library obeys, shared by its
 * MPI_Cart_create and its graph calls so that they agree on when to stay
 * out of the way. */
#include <stdlib.h>
#include <string.h>

#include "reorder_env.h"

int sm_reorder_off(void)
{
    const char *v = getenv("STENCIL_MAP_REORDER");
    return v && !strcmp(v, "0");
}

int sm_reorder_verbose(void)
{
    const char *v = getenv("STENCIL_MAP_VERBOSE");
    return v && *v && strcmp(v, "0");
}

int sm_placed_by_plugin(int ndims, const int dims[])
{
    const char *s = getenv("STENCIL_MAP_DIMS");
    if (!s)
        return 0;
    for (int i = 0; i < ndims; i++) {
        char *end;
        long v = strtol(s, &end, 10);
        if (end == s || v != dims[i] || (*end != (i + 1 < ndims ? ',' : '\0')))
            return 0;
        s = end + (i + 1 < ndims);
    }
    return 1;
}
