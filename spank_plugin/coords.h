/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Remote side (slurmstepd, root): a task's grid coordinates from
 * STENCIL_MAP_DIMS and its global task id.  The value comes from the user's
 * environment: smp_env_parse_dims (stencil_env.h) reads it strictly. */
#ifndef SM_COORDS_H
#define SM_COORDS_H

#include <stddef.h>
#include <stdint.h>

/* The longest STENCIL_MAP_DIMS the remote side reads: SMP_MAX_DIMS sides
 * of 10 digits and their commas need 87 bytes. */
#define SM_DIMS_MAX_LEN 200

/* Coordinates of rank as "1,2", in the grid's own axis order: row-major
 * (last dimension fastest) or, with column_major, the first dimension
 * fastest.  Returns 0, or -1 when rank is outside the grid or out is too
 * small. */
int sm_coords_format(const int64_t *dims, int ndims, int64_t rank, int column_major, char *out,
                     size_t outlen);

#endif
