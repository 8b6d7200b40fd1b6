/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Internal interface of the placement constructions.  Each one fills
 * node_of_rank[grid->size] so that node i receives exactly cap[i] ranks;
 * the caller guarantees every cap[i] > 0 and their sum equals grid->size. */
#ifndef STENCILMAP_ALGORITHMS_H
#define STENCILMAP_ALGORITHMS_H

#include "stencilmap/placement.h"

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
/* Bisection inside parts (sockets.c): part q's ranks (part_of_rank[r] ==
 * q) are split over groups [first[q], first[q + 1]) with exact sizes
 * cap[g] > 0; the caps of a part's groups add up to its rank count. */
smp_status smp_bisect_within(const smp_grid *grid, const smp_stencil *st, const int32_t *cap,
                             int ngroups, const int32_t *part_of_rank, const int32_t *first,
                             int nparts, int32_t *group_of_rank, smp_error *err);
/* The same without the search (recursive coordinate bisection): each
 * region cut across its widest axis (each part's first cut across
 * first_axis, if >= 0 and the part spans it), ordered along the next
 * widest, at the node split nearest half.  A second way to split a group into nodes
 * (plan_levels.c): where a group's region has a thin tail, the search's
 * cheapest first cut can leave the tail to one node, while cuts across
 * the widest axis share it out. */
smp_status smp_rcb_within(const smp_grid *grid, const smp_stencil *st, const int32_t *cap,
                          int ngroups, const int32_t *part_of_rank, const int32_t *first,
                          int nparts, int first_axis, int32_t *group_of_rank, smp_error *err);
/* Refinement that only moves ranks between labels with the same parent:
 * parent[label] (e.g. the node of a socket group), so the parents' rank
 * sets never change. */
smp_status smp_refine_within(const smp_grid *grid, const smp_stencil *st, int32_t *label,
                             int nlabels, const int32_t *parent, int64_t budget,
                             smp_refine_stats *stats, smp_error *err);

/* smp_refine_for on a row-major grid whose placement's score the caller
 * computed (known, by smp_score_compute), so it is not computed again. */
smp_status smp_refine_known(const smp_grid *grid, const smp_stencil *st, int32_t *node_of_rank,
                            int nnodes, int64_t budget, smp_objective obj, const smp_score *known,
                            smp_refine_stats *stats, smp_error *err);

/* Annealing (anneal.c): a randomised search that auto runs after
 * refinement on small grids, for (weighted) J_sum; under SMP_OBJ_MAX no
 * node's outgoing cut may pass the input's J_max.  Keeps every node's
 * share, never returns a placement worse by the objective than its input,
 * and depends only on its input and the round, which seeds its random
 * numbers.  Budget in work units (<= 0: smp_anneal_default_budget). */
#define SMP_ANNEAL_MAX_RANKS 4096
#define SMP_ANNEAL_MAX_ENTRIES ((int64_t)1 << 20) /* stored neighbour entries */
#define SMP_ANNEAL_WORK_PER_RANK 10000
#define SMP_ANNEAL_WORK_MAX 6000000
typedef struct {
    int64_t work;
    smp_score before, after;
} smp_anneal_stats;
bool smp_anneal_applies(const smp_grid *grid, const smp_stencil *st);
int64_t smp_anneal_default_budget(int64_t ranks);
smp_status smp_anneal(const smp_grid *grid, const smp_stencil *st, int32_t *node_of_rank,
                      int nnodes, int64_t budget, smp_objective obj, uint32_t round,
                      smp_anneal_stats *stats, smp_error *err);

/* a better than b: lower J_sum (weighted if weights are given), then J_max
 * (objective.c) */
bool smp_score_better(const smp_score *a, const smp_score *b, bool weighted);
/* auto tries alg on a grid of this many ranks (constructions.c) */
bool smp_auto_tries(smp_algorithm alg, int64_t ranks);
/* Runs one construction on the nodes that receive ranks (dense indices
 * with shares cap[ndense]), on the grid as it is (fold < 0) or with its
 * slices stacked along axis fold, then maps back to indices into the
 * caller's node list through dense_to_node. */
smp_status smp_run_construction(smp_algorithm alg, int fold, const smp_grid *grid,
                                const smp_stencil *st, const int32_t *cap,
                                const int32_t *dense_to_node, int ndense, int32_t *out,
                                smp_error *err);
/* auto (plan_auto.c): fills out->node_of_rank (allocated by the caller),
 * score, algorithm, fold_axis, constructed and refined; anneals with
 * effort times the default budget. */
smp_status smp_plan_auto(const smp_grid *grid, const smp_stencil *st, const int32_t *cap,
                         const int32_t *dense_to_node, int ndense, int nnodes,
                         smp_objective obj, int effort, smp_placement *out, smp_error *err);

/* Axes no stencil offset moves along (dims > 1): zero[i]; returns how many,
 * or 0 when that would be every axis. */
int smp_fold_zero_axes(const smp_grid *grid, const smp_stencil *st, bool *zero);
/* Runs fn on the grid with the slices across the zero axes stacked along
 * axis `into` (not a zero axis), and maps the result back. */
smp_status smp_place_folded(smp_construct_fn fn, const smp_grid *grid, const smp_stencil *st,
                            const int32_t *cap, int nnodes, int into, int32_t *node_of_rank,
                            smp_error *err);

/* An axis-aligned sub-box of the grid. */
typedef struct {
    int64_t lo[SMP_MAX_DIMS];
    int64_t len[SMP_MAX_DIMS];
} smp_box;

/* Hands out grid cells to nodes in the order they are fed: the first cap[0]
 * cells to node 0, the next cap[1] to node 1, and so on. */
typedef struct {
    const int32_t *cap;
    int32_t *node_of_rank;
    int node;
    int32_t used;
} smp_chunker;

static inline void smp_chunker_put(smp_chunker *ch, int64_t cell)
{
    ch->node_of_rank[cell] = ch->node;
    if (++ch->used == ch->cap[ch->node]) {
        ch->node++;
        ch->used = 0;
    }
}

/* A column-major grid as the row-major grid of its axes reversed, with the
 * stencil's components reversed (st may be NULL); same ranks, same
 * node_of_rank.  Free with smp_canon_free() whatever the status. */
typedef struct {
    smp_grid grid;
    smp_stencil st;
} smp_canon;
smp_status smp_canon_make(smp_canon *c, const smp_grid *grid, const smp_stencil *st, smp_error *err);
void smp_canon_free(smp_canon *c);

/* Row-major strides of the grid. */
void smp_strides(const smp_grid *grid, int64_t *stride);
/* Feeds the cells of box to ch in boustrophedon order: order[0] is the
 * outermost dimension, every inner dimension reverses direction when the
 * one outside it steps, so consecutive cells are always grid neighbours.
 * dir0 gives the starting direction (+1/-1) of each dimension. */
void smp_snake_box(const smp_grid *grid, const smp_box *box, const int *order,
                   const int *dir0, smp_chunker *ch);
/* Per-dimension sum over offsets of weight * cos^2(offset, axis): small
 * means cutting across that axis severs few edges (paper 001, eq. 2). */
void smp_axis_parallelism(const smp_stencil *st, double *par);
/* Per-dimension traffic across a unit cut: sum of weight * |offset_i|. */
void smp_axis_traffic(const smp_stencil *st, double *traffic);

#endif
