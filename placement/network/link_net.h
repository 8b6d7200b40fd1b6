/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Private header of the network room: the link loads of static (d-mod-k)
 * routing kept incrementally, for the block swaps (block_swaps.c).
 * link_load.c walks every stencil edge to score one placement; a local
 * search that tries thousands of swaps at 16k ranks cannot afford that
 * walk per trial.  Here the placement is held as node blocks (block x: the
 * ranks node x held at the start) with the traffic between blocks, so
 * exchanging the blocks of two nodes re-routes only the two blocks'
 * messages, in time proportional to their neighbour blocks. */
#ifndef STENCILMAP_LINK_NET_H
#define STENCILMAP_LINK_NET_H

#include "model/model.h"

/* The links above the nodes as flat slots (a group's k uplinks at a
 * level), their loads already divided by the group's speed; the block
 * graph in CSR form, out (x -> y) and in (y -> x); a journal of the slots
 * the last swap touched, with their loads before it, for the undo. */
typedef struct {
    int nl, nnodes;
    const int32_t *grp[SMP_MAX_LEVELS];
    int32_t *k[SMP_MAX_LEVELS];     /* uplinks per group */
    int64_t *base[SMP_MAX_LEVELS];  /* first slot of each group, all levels flat */
    int64_t *stride[SMP_MAX_LEVELS]; /* d-mod-k stride per node */
    double *inv_sp[SMP_MAX_LEVELS]; /* 1 / speed per group */
    int32_t *pos;                   /* position of each node (smp_node_positions) */
    int64_t nslots;                 /* up slots [0, nslots), down [nslots, 2 nslots) */
    double *load;
    int32_t *slot_level, *slot_group; /* per up slot */
    int64_t *out_first, *in_first;  /* nnodes + 1 each */
    int32_t *out_to, *in_from;
    double *out_w, *in_w;
    int32_t *block_of_node, *node_of_block;
    int64_t ntouched;
    int64_t *touched;
    double *old;
    uint32_t *stamp; /* per slot: the trial that journaled it */
    uint32_t trial;
} smp_link_net;

/* The loads of node_of_rank under static routing on lv and lk (both
 * given, lk->routing static); SMP_ERR_SYSTEM when out of memory.  Free
 * with smp_link_net_free whatever the status. */
smp_status smp_link_net_init(smp_link_net *n, const smp_grid *grid, const smp_stencil *st,
                             const int32_t *node_of_rank, int nnodes, const smp_levels *lv,
                             const smp_links *lk, smp_error *err);
void smp_link_net_free(smp_link_net *n);
/* Nodes a and b exchange their blocks; the touched slots journaled. */
void smp_link_net_swap(smp_link_net *n, int32_t a, int32_t b);
/* The last swap of a and b taken back exactly (the journal restored). */
void smp_link_net_undo(smp_link_net *n, int32_t a, int32_t b);
/* The busiest slot's load and how many slots carry it (to rounding:
 * within 1e-9 of it relative); *at one of them, the first; 0 loads when
 * there are no slots. */
double smp_link_net_max(const smp_link_net *n, int64_t *count, int64_t *at);

#endif
