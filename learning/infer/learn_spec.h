/* SPDX-License-Identifier: GPL-2.0-or-later */
/* A learned result as a spec file, and where its grid came from: written
 * the same way by `stencil-map learn` and by the plugin's store of learned
 * specs, so that both place a step alike. */
#ifndef STENCILMAP_LEARN_SPEC_H
#define STENCILMAP_LEARN_SPEC_H

#include <stdio.h>

#include "learn.h"

/* The spec of r, one offset a line so that it reads like a hand-written
 * one; its description says "learned by WHO: <share> of bytes by ...".
 * 0, or -1 on a write error or out of memory. */
int learn_spec_write(FILE *out, const learn_result *r, const char *who, double share);

/* Where the application got the grid r found: "MPI_Dims_create" when it
 * is the grid of its MPI_Cart_create (ranks not reordered) and rank 0's
 * last MPI_Dims_create of the rank count gave those very dims, which are
 * also what MPI_Dims_create gives with no dimension fixed (so the same
 * call for another rank count can be repeated); else "MPI_Cart_create"
 * or "inferred". */
const char *learn_grid_source(const learn_profile *p, const learn_result *r);

#endif
