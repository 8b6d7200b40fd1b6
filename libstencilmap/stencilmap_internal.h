/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Internal helpers of libstencilmap (not installed). */
#ifndef STENCILMAP_INTERNAL_H
#define STENCILMAP_INTERNAL_H
#include <stddef.h>
#include "stencilmap.h"

/* msg.c */
stencilmap_status sm_msg(char *msg, size_t len, stencilmap_status st, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* ---- network levels (job_levels.c) ---- */
/* STENCIL_MAP_LEVEL_NODES, _LEVELS, _LEVEL_JSUM, _LEVEL_JMAX into pl (all
 * or none; none leaves nlevels 0). */
stencilmap_status sm_levels_parse(stencilmap_place *pl, stencilmap_getenv_fn get, void *arg,
                                  char *msg, size_t len);
void sm_levels_free(stencilmap_place *pl);
/* The node rank r runs on (NULL: unknown; a negative status in *st). */
typedef const char *(*sm_node_name_fn)(void *arg, int64_t rank, stencilmap_status *st);
/* Rank's outgoing stencil edges to ranks on nodes of another group, per
 * level (pl->nlevels entries each; weights as stencilmap_rank_out_edges). */
stencilmap_status sm_levels_rank_out(const stencilmap_place *pl, int64_t rank,
                                     sm_node_name_fn name_of, void *arg, int64_t *edges,
                                     double *weight);
/* The per-level figures of res from every rank's counts: level-major
 * arrays edges[l * P + r] and weight[l * P + r], rank r on node node[r]
 * of res->node_names.  A rank on a node the levels do not name counts as a
 * group of its own. */
stencilmap_status sm_levels_aggregate(const stencilmap_place *pl, int64_t P, const int32_t *node,
                                      stencilmap_verify_result *res, const int64_t *edges,
                                      const double *weight);
#endif
