/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The Scotch comparator: the stencil graph mapped by libscotch
 * onto a complete graph whose vertices weigh each node's share, with exact
 * balance requested.  Not part of the installed library: only the CLI's
 * compare and the bench link it, and only when libscotch-dev was found at
 * configure time (HAVE_SCOTCH). */
#ifndef STENCILMAP_SCOTCH_MAP_H
#define STENCILMAP_SCOTCH_MAP_H

#include "stencilmap/placement.h"

typedef struct {
    bool exact;          /* every node got exactly its share */
    int32_t overfull;    /* nodes given more ranks than their share */
    int64_t max_excess;  /* the most ranks one node got beyond its share */
    int32_t over_slots;  /* nodes given more ranks than their slots */
    int32_t empty;       /* nodes with a share that got no rank */
} smp_scotch_info;

/* Scotch's library version, e.g. "7.0.3". */
const char *smp_scotch_version(void);

/* Maps grid->size ranks onto the nodes as `plan` shares them (nodes filled
 * in order up to their slots).  Edge weights are the stencil's (scaled to
 * integers when weighted), summed over both directions, so Scotch's cut
 * cost is J_sum.  node_of_rank[grid->size] receives indices into slots[];
 * Scotch's answer is kept as it is, and info says whether it respects the
 * shares.  Deterministic: Scotch's generator is reset on every call. */
smp_status smp_scotch_map(const smp_grid *grid, const smp_stencil *st, const int32_t *slots,
                          int nnodes, int32_t *node_of_rank, smp_scotch_info *info,
                          smp_error *err);

/* The same graph mapped onto Scotch's tree-leaf target for the network
 * levels: the leaves are the ranks' slots, [groups of level 0, nodes per
 * group, slots per node] from the top (levels of one entry left out),
 * link costs cost[0] between groups, cost[1] between nodes of a group,
 * cost[2] inside a node (KaHIP's 100:10:1).  Groups of unequal size and
 * nodes of unequal share are a sub-architecture (SCOTCH_archSub) of the
 * full tree holding only the slots that exist.  Each leaf weighs one
 * rank; the answer is checked against the shares as above. */
smp_status smp_scotch_map_levels(const smp_grid *grid, const smp_stencil *st, const int32_t *slots,
                                 int nnodes, const smp_levels *lv, const int *cost,
                                 int32_t *node_of_rank, smp_scotch_info *info, smp_error *err);

#endif
