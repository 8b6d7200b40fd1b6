/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* What the reorder library's interposed calls read from the environment
 * (reorder_env.c).  Not installed; nothing here is exported. */
#ifndef STENCILMAP_REORDER_ENV_H
#define STENCILMAP_REORDER_ENV_H

/* STENCIL_MAP_REORDER=0: every call goes to MPI as given */
int sm_reorder_off(void);
/* STENCIL_MAP_VERBOSE set and not 0 */
int sm_reorder_verbose(void);
/* the plugin placed this grid: STENCIL_MAP_DIMS lists the same sides */
int sm_placed_by_plugin(int ndims, const int dims[]);

#endif
