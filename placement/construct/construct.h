/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Internal interface of the construct room (placement/construct/): the
 * constructions that place ranks on nodes from nothing (one alg_<name>.c
 * each, listed in the table of constructions.c), the folding of slices
 * that the stencil never crosses (fold.c) and bisection inside parts.
 * Each construction fills node_of_rank[grid->size] so that node i
 * receives exactly cap[i] ranks; the caller guarantees every cap[i] > 0
 * and their sum equals grid->size.  The room stands on model/ only. */
#ifndef STENCILMAP_CONSTRUCT_H
#define STENCILMAP_CONSTRUCT_H

#include "model/model.h"

typedef smp_status (*smp_construct_fn)(const smp_grid *grid, const smp_stencil *st,
                                       const int32_t *cap, int nnodes,
                                       int32_t *node_of_rank, smp_error *err);

smp_status smp_place_blocked(const smp_grid *, const smp_stencil *, const int32_t *, int,
                             int32_t *, smp_error *);
smp_status smp_place_hyperplane(const smp_grid *, const smp_stencil *, const int32_t *, int,
                                int32_t *, smp_error *);
smp_status smp_place_strips(const smp_grid *, const smp_stencil *, const int32_t *, int,
                            int32_t *, smp_error *);
smp_status smp_place_kdtree(const smp_grid *, const smp_stencil *, const int32_t *, int,
                            int32_t *, smp_error *);
smp_status smp_place_nodecart(const smp_grid *, const smp_stencil *, const int32_t *, int,
                              int32_t *, smp_error *);
smp_status smp_place_bisect(const smp_grid *, const smp_stencil *, const int32_t *, int,
                            int32_t *, smp_error *);
/* The reference orders, never tried by auto: Slurm's -m cyclic dealt on
 * the shares (alg_cyclic.c) and a shuffle from a fixed seed (alg_random.c). */
smp_status smp_place_cyclic(const smp_grid *, const smp_stencil *, const int32_t *, int,
                            int32_t *, smp_error *);
smp_status smp_place_random(const smp_grid *, const smp_stencil *, const int32_t *, int,
                            int32_t *, smp_error *);
/* Bisection inside parts (levels/sockets.c, levels/split_groups.c): part
 * q's ranks (part_of_rank[r] == q) are split over groups [first[q],
 * first[q + 1]) with exact sizes cap[g] > 0; the caps of a part's groups
 * add up to its rank count. */
smp_status smp_bisect_within(const smp_grid *grid, const smp_stencil *st, const int32_t *cap,
                             int ngroups, const int32_t *part_of_rank, const int32_t *first,
                             int nparts, int32_t *group_of_rank, smp_error *err);
/* The same without the search (recursive coordinate bisection): each
 * region cut across its widest axis (each part's first cut across
 * first_axis, if >= 0 and the part spans it), ordered along the next
 * widest, at the node split nearest half.  A second way to split a group into nodes
 * (levels/plan_levels.c): where a group's region has a thin tail, the search's
 * cheapest first cut can leave the tail to one node, while cuts across
 * the widest axis share it out. */
smp_status smp_rcb_within(const smp_grid *grid, const smp_stencil *st, const int32_t *cap,
                          int ngroups, const int32_t *part_of_rank, const int32_t *first,
                          int nparts, int first_axis, int32_t *group_of_rank, smp_error *err);

/* auto tries alg on a grid of this many ranks (constructions.c); never
 * the reference orders (cyclic, random) */
bool smp_auto_tries(smp_algorithm alg, int64_t ranks);
/* Runs one construction on the nodes that receive ranks (dense indices
 * with shares cap[ndense]), on the grid as it is (fold < 0) or with its
 * slices stacked along axis fold, then maps back to indices into the
 * caller's node list through dense_to_node. */
smp_status smp_run_construction(smp_algorithm alg, int fold, const smp_grid *grid,
                                const smp_stencil *st, const int32_t *cap,
                                const int32_t *dense_to_node, int ndense, int32_t *out,
                                smp_error *err);

/* Axes no stencil offset moves along (dims > 1): zero[i]; returns how many,
 * or 0 when that would be every axis. */
int smp_fold_zero_axes(const smp_grid *grid, const smp_stencil *st, bool *zero);
/* Runs fn on the grid with the slices across the zero axes stacked along
 * axis `into` (not a zero axis), and maps the result back. */
smp_status smp_place_folded(smp_construct_fn fn, const smp_grid *grid, const smp_stencil *st,
                            const int32_t *cap, int nnodes, int into, int32_t *node_of_rank,
                            smp_error *err);

#endif
