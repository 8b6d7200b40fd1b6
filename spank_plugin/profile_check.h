/* SPDX-License-Identifier: GPL-2.0-or-later */
/* srun side: with STENCIL_MAP_CHECK_PROFILE=DIR in srun's environment,
 * the spec just planned is compared with the application's profile in DIR
 * (written by libstencilmap-profile.so, see --stencil-map=profile:DIR) and
 * every mismatch printed as a warning: a wrong dimension order, other
 * periods, weights off from the measured bytes per message, a stencil that
 * covers too little of the bytes.  The step launches as asked either way:
 * the user may know better, or the profile may be of another run. */
#ifndef SM_PROFILE_CHECK_H
#define SM_PROFILE_CHECK_H

#include <stencilmap/placement.h>

#define SM_CHECK_PROFILE_ENV "STENCIL_MAP_CHECK_PROFILE"

/* Only ever in the user's srun process: it reads the user's files. */
void sm_profile_check(const smp_spec *spec);

#endif
