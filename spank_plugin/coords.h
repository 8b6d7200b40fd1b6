/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Remote side (slurmstepd, root): a task's grid coordinates from
 * STENCIL_MAP_DIMS and its global task id.  Strict, bounded parsing: the
 * value comes from the user's environment. */
#ifndef SM_COORDS_H
#define SM_COORDS_H

#include <stddef.h>
#include <stdint.h>

#define SM_DIMS_MAX_LEN 200

/* Parses "4,3" into dims (at most 8 positive integers, product within
 * SMP_MAX_RANKS).  Returns 0, or -1 with a message in msg. */
int sm_dims_parse(const char *s, int64_t *dims, int *ndims, int64_t *size, char *msg, size_t n);
/* Row-major coordinates of rank (last dimension fastest) as "1,2".
 * Returns 0, or -1 when rank is outside the grid or out is too small. */
int sm_coords_format(const int64_t *dims, int ndims, int64_t rank, char *out, size_t outlen);

#endif
