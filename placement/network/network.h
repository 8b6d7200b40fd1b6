/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Internal interface of the network room (placement/network/): the links
 * above the nodes and the load a placement puts on the busiest of them
 * (L_max, link_load.c), with the routing's names and the nodes' positions
 * that static routing reads (routing.c), and the pair loads direct routing
 * keeps (pair_load.c), and the block swaps that spread static routing's
 * busiest links (block_swaps.c).  It stands on model/ alone; plan.c
 * scores and chooses by it. */
#ifndef STENCILMAP_NETWORK_H
#define STENCILMAP_NETWORK_H

#include "model/model.h"
#include "model/quotient.h"

/* Each node's position for static routing: the step's nodes listed leaf
 * by leaf (level 0's groups in the order of their first node, nodes in
 * step order inside), pos[n] in [0, nnodes); the identity without levels.
 * Returns SMP_ERR_SYSTEM when out of memory (routing.c). */
smp_status smp_node_positions(const smp_levels *lv, int nnodes, int32_t *pos, smp_error *err);

/* lk checked against lv: uplinks >= 1 and speeds positive and finite where
 * given; messages name links.uplinks[l][g] or links.speed[l][g]
 * (routing.c). */
smp_status smp_links_check(const smp_links *lk, const smp_levels *lv, smp_error *err);

/* The load of every ordered pair (a, b) of groups that carries traffic,
 * a and b group numbers of one level (pair_load.c).  Slots [0, cap):
 * read each with smp_pair_loads_at. */
typedef struct {
    int64_t cap, count;
    int64_t *key;
    double *load;
} smp_pair_loads;

/* An empty table; false when out of memory. */
bool smp_pair_loads_init(smp_pair_loads *t);
void smp_pair_loads_free(smp_pair_loads *t);
/* w added to the pair (a, b); false when out of memory. */
bool smp_pair_loads_add(smp_pair_loads *t, int32_t a, int32_t b, double w);
/* Slot i's pair and load; false when the slot is empty. */
bool smp_pair_loads_at(const smp_pair_loads *t, int64_t i, int32_t *a, int32_t *b, double *w);

/* smp_link_score_compute's figures from the node graph q of a placement,
 * node u's ranks moved to node phys[u] (phys NULL: where they are), for a
 * stencil without weights under static or adaptive routing only: every
 * load is then a count, the same in any order, and the figures are read
 * off the loads in link order (link_load.c).  Direct routing's pair table
 * keeps its pairs in the order they come, so it takes the walk. */
smp_status smp_link_score_quotient(const smp_quotient *q, const int32_t *phys,
                                   const smp_levels *lv, const smp_links *lk,
                                   smp_link_score *out, smp_error *err);

/* What smp_swap_blocks did: trials and swaps kept, L_max before and after
 * by the incremental model (link_net.c), and the bound before them
 * (swaps across groups move it); swaps_dropped: swaps found but all taken
 * back because they ended in the node links' band (block_swaps.c). */
typedef struct {
    int64_t trials, swaps, swaps_dropped;
    double l_max_before, l_max_after, bound;
} smp_swap_stats;

/* Under static routing with levels, exchanges the whole rank blocks of
 * nodes of equal rank counts in node_of_rank to lower its L_max toward the
 * bound: never raises L_max, keeps J_sum and J_max exactly, deterministic;
 * up to min(64 x nnodes, 65,536) x effort trials.  Does nothing under
 * adaptive or direct routing or without levels or links (block_swaps.c).
 * score (or NULL): node_of_rank's score, made that of the swapped
 * placement (exactly as smp_score_compute gives it: only j_max_node
 * moves; with weights it is scored afresh).  Inputs as
 * smp_link_score_compute checks them; SMP_ERR_SYSTEM when out of memory,
 * node_of_rank then unchanged unless the weighted score ran out. */
smp_status smp_swap_blocks(const smp_grid *grid, const smp_stencil *st, int32_t *node_of_rank,
                           int nnodes, const smp_levels *lv, const smp_links *lk, int effort,
                           smp_score *score, smp_swap_stats *stats, smp_error *err);

#endif
