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
/* STENCIL_MAP_ORDER: "row-major" -> 0, "column-major" -> 1, else -1 with
 * a message in msg. */
int sm_order_parse(const char *s, char *msg, size_t n);
/* Coordinates of rank as "1,2", in the grid's own axis order: row-major
 * (last dimension fastest) or, with column_major, the first dimension
 * fastest.  Returns 0, or -1 when rank is outside the grid or out is too
 * small. */
int sm_coords_format(const int64_t *dims, int ndims, int64_t rank, int column_major, char *out,
                     size_t outlen);

#endif
