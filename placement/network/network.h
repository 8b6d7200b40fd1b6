/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Internal interface of the network room (placement/network/): the links
 * above the nodes and the load a placement puts on the busiest of them
 * (L_max, link_load.c), with the routing's names and the nodes' positions
 * that static routing reads (routing.c), and the pair loads direct routing
 * keeps (pair_load.c).  It stands on model/ alone; plan.c
 * scores and chooses by it. */
#ifndef STENCILMAP_NETWORK_H
#define STENCILMAP_NETWORK_H

#include "model/model.h"

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

#endif
