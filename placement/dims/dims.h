/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Internal interface of the dims room (placement/dims/): choosing the
 * process grid's dims for the application and the hardware, as seed 003
 * (HLRS, MPI Forum issue 120) defines it.  The public calls
 * (smp_dims_weights, smp_dims_weighted, smp_dims_ml) are in the public
 * header; this header shares the one check both searches make.  The room
 * stands on model/ only. */
#ifndef STENCILMAP_DIMS_H
#define STENCILMAP_DIMS_H

#include "model/model.h"

/* Most steps the exhaustive search over factorizations may take before it
 * refuses (weighted.c): about 2.5 s of one core.  What the bound leaves
 * of the counts below 2^31 with the most divisors (735134400: 1344) into
 * 8 dims: 0.15 s with equal weights, at most 1.4 s with weights up to 16
 * orders of magnitude apart; farther apart, costs tie in floating point
 * and the search refuses. */
#define SMP_DIMS_MAX_STEPS ((int64_t)50000000)
/* Most levels smp_dims_ml() takes: nodes, sockets, cores and a network
 * level or two above. */
#define SMP_DIMS_MAX_LEVELS 8

/* w[0..ndims-1] finite and >= 0 (w NULL passes); field names the array in
 * messages ("w", "grid.halo", ...). */
smp_status smp_dims_check_weights(int ndims, const double *w, const char *field,
                                  smp_error *err);

#endif
