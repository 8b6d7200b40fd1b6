/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * stencilmap placement core: map the ranks of a Cartesian process grid that
 * talks through a fixed stencil onto compute nodes with given slot counts,
 * so that few stencil edges cross nodes.
 *
 * This library has no Slurm or MPI dependency.  Ranks are numbered row-major
 * over the grid (the last dimension varies fastest), as MPI_Cart_create
 * numbers them without reordering, or column-major (the first dimension
 * fastest, as Fortran codes and PETSc's DMDA do: rank = i + m*j) when the
 * grid says so.  A placement is an array node_of_rank[p].
 *
 * Every function that can fail takes an smp_error*, fills it with a message
 * naming the offending field or argument, and returns its status.
 */
#ifndef STENCILMAP_PLACEMENT_H
#define STENCILMAP_PLACEMENT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Limits that keep every size computation far from overflow. */
#define SMP_MAX_DIMS 8
#define SMP_MAX_OFFSETS 4096
#define SMP_MAX_OFFSET_ABS 1000000
#define SMP_MAX_RANKS ((int64_t)INT32_MAX)
#define SMP_MAX_NODES 1000000
#define SMP_MAX_SPEC_BYTES (1 << 20)
#define SMP_MAX_LEVELS 4 /* network levels above nodes that are planned */

/* Status codes double as the command's exit codes. */
typedef enum {
    SMP_OK = 0,
    SMP_ERR_INPUT = 2,      /* malformed or inconsistent input */
    SMP_ERR_INFEASIBLE = 3, /* well-formed, but cannot be placed */
    SMP_ERR_SYSTEM = 4      /* out of memory, I/O failure */
} smp_status;

typedef struct {
    smp_status status;
    char msg[512];
} smp_error;

typedef enum {
    SMP_ALG_AUTO = 0,
    SMP_ALG_HYPERPLANE,
    SMP_ALG_STRIPS,
    SMP_ALG_KDTREE,
    SMP_ALG_NODECART,
    SMP_ALG_BLOCKED,
    SMP_ALG_BISECT,
    SMP_ALG_CYCLIC, /* reference orders, never tried by auto: Slurm's -m cyclic */
    SMP_ALG_RANDOM, /* and a random placement from a fixed seed */
    SMP_ALG_COUNT
} smp_algorithm;

/* How ranks number the cells of a grid. */
typedef enum {
    SMP_ORDER_ROW_MAJOR = 0, /* last dimension fastest (MPI_Cart_create) */
    SMP_ORDER_COLUMN_MAJOR   /* first dimension fastest (Fortran, PETSc DMDA) */
} smp_order;

typedef struct {
    int ndims;
    int64_t dims[SMP_MAX_DIMS];
    bool periods[SMP_MAX_DIMS];
    int64_t size;    /* product of dims, <= SMP_MAX_RANKS */
    smp_order order; /* smp_grid_init: row-major; set it afterwards */
} smp_grid;

typedef struct {
    int ndims;
    int count;          /* number of offsets (directed neighbours) */
    int32_t *offsets;   /* count * ndims, offset k is offsets[k*ndims ...] */
    double *weights;    /* count entries, or NULL for unit weights */
    char name[64];      /* name it was loaded by, "" for inline offsets */
} smp_stencil;

/* What auto and the refinement minimise first.  SMP_OBJ_SUM: J_sum, then
 * J_max; SMP_OBJ_MAX: J_max (the busiest node's inter-node edges, which
 * the halo exchange's time follows), then J_sum.  Weighted when the
 * stencil has weights. */
typedef enum {
    SMP_OBJ_SUM = 0,
    SMP_OBJ_MAX
} smp_objective;
/* The objective of a spec that names none, and of the plugin unless the
 * site's objective= says otherwise: chosen by what runs faster (make
 * bench-objective: where the two place apart, the halo took a median
 * 0.93x the time with max). */
#define SMP_OBJ_DEFAULT SMP_OBJ_MAX

/* How long auto may search on small grids (it anneals grids of up to 4096
 * ranks after refining): rounds of its default work, each from the last
 * one's result and about 80 ms of one core for 1,000 to 4,096 ranks (the
 * machine of doc/benchmarks.md).  Long jobs can afford more: effort 16
 * brings auto level with or below the best of four general graph
 * partitioners on all but 4 of those 432 instances (doc/benchmarks.md,
 * "Against general mappers"). */
#define SMP_EFFORT_DEFAULT 1
#define SMP_MAX_EFFORT 64

/* Binding inside the node that a spec asks of the plugin. */
typedef enum {
    SMP_BIND_NONE = 0,
    SMP_BIND_SOCKET
} smp_bind;

/* A parsed spec.  When dims_auto is set, grid.dims are filled in by
 * smp_spec_resolve() from the step's task count. */
typedef struct {
    smp_grid grid;
    bool dims_auto;
    smp_stencil stencil;
    smp_algorithm algorithm;
    char name[64]; /* named spec it was loaded from, "" for a path or text */
    smp_bind bind; /* "bind": "none" (default) or "socket" */
    int sockets;   /* "sockets": per node when not known otherwise, 0 = not given */
    bool have_objective;     /* "objective" was given */
    smp_objective objective; /* "objective": "sum" or "max"; SMP_OBJ_DEFAULT if not given */
    int effort;              /* "effort": 1 to SMP_MAX_EFFORT; 0 if not given */
    /* grid.dims "weighted" (dims_auto is set too): the dims minimise
     * sum(dims[i] * dims_w[i]), level by level when the nodes are known;
     * dims_w from grid.domain, grid.halo and grid.cost (seed 003), all 1
     * when none is given. */
    bool dims_weighted;
    double dims_w[SMP_MAX_DIMS];
} smp_spec;

/* The allocation: node names with their slot counts, in Slurm's order. */
typedef struct {
    int count;
    char **names;
    int32_t *slots;
    int64_t total_slots;
} smp_nodes;

typedef struct {
    int64_t j_sum;      /* directed inter-node stencil edges */
    int64_t j_max;      /* most such edges leaving one node */
    int32_t j_max_node; /* a node that attains j_max */
    double w_sum;       /* the same, weighted by stencil weights */
    double w_max;
} smp_score;

/* The load of the busiest directed link of one exchange, in (weighted)
 * stencil messages per node-link capacity: L_max.  Node links count: a
 * node's link up carries its inter-node edges out, its link down those
 * in. */
typedef struct {
    double l_max;  /* the busiest link's load */
    double bound;  /* a lower bound of the busiest link's load (link_load.c) */
    int level;     /* where l_max is: -1 a node's link, else a group's uplinks of that level */
    int32_t where; /* the node or the group */
    bool down;     /* the link into it (else out of it) */
    double node_max; /* the busiest node link's load */
    double up_max;   /* the busiest link above the nodes (0 without levels) */
    int32_t to;      /* direct routing: the group the busiest link leads to from
                      * `where` (same level); -1 for any other link */
} smp_link_score;

typedef struct {
    smp_algorithm algorithm; /* the construction that produced it */
    int64_t ranks;
    int nnodes;
    int32_t *node_of_rank; /* ranks entries, values in [0, nnodes) */
    smp_score score;
    int fold_axis;         /* auto: the construction ran with the slices the
                            * stencil never links stacked along this axis
                            * (fold), or -1 */
    bool refined;          /* auto: refinement improved the construction */
    smp_score constructed; /* auto: the construction's score before refinement */
    /* With levels (smp_plan_opts.levels): the score between the groups of
     * each level, as smp_levels_score_compute() gives it; nlevels == 0
     * without levels. */
    int nlevels;
    smp_score level[SMP_MAX_LEVELS];
    bool groups_first;     /* with levels: algorithm laid out the coarsest
                            * groups, which were then split into nodes
                            * (false: algorithm placed the nodes, which
                            * were then relabelled onto the groups) */
    smp_link_score link;   /* smp_plan_with: L_max on the levels and links
                            * it was given (node links alone without) */
    bool by_links;         /* auto chose among its candidates by L_max */
} smp_placement;

typedef struct {
    int passes;         /* passes over the node pairs */
    int64_t moves;      /* rank moves kept */
    int64_t work;       /* neighbour-list evaluations spent */
    double gain;        /* drop in weighted J_sum the passes found */
    smp_score before, after;
} smp_refine_stats;

/* ---- errors and names --------------------------------------------- */
smp_status smp_error_set(smp_error *err, smp_status status, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
void smp_error_clear(smp_error *err);
const char *smp_algorithm_name(smp_algorithm alg);
/* The construction as summary lines name a placement: "blocked (groups
 * first)" when it laid out the network's groups, which were then split
 * over their nodes (not Slurm's blocked layout); into buf, returned. */
const char *smp_placement_label(const smp_placement *pl, char *buf, size_t n);
/* Returns false when name is not an algorithm. */
bool smp_algorithm_from_name(const char *name, smp_algorithm *alg);
/* Every algorithm's name, comma-separated, as help texts and error
 * messages list them: "auto, hyperplane, ...". */
const char *smp_algorithm_names(void);
/* Every construction in the order auto goes through them (which
 * compare's rows follow too); auto skips the reference orders cyclic and
 * random, and bisect on large grids: *algs points to n of them; returns n. */
int smp_auto_constructions(const smp_algorithm **algs);
const char *smp_objective_name(smp_objective obj); /* "sum", "max" */
/* Returns false when name is neither "sum" nor "max". */
bool smp_objective_from_name(const char *name, smp_objective *obj);
/* a better than b under obj: SMP_OBJ_SUM compares J_sum then J_max,
 * SMP_OBJ_MAX J_max then J_sum (the weighted figures if weighted). */
bool smp_score_better_for(const smp_score *a, const smp_score *b, bool weighted,
                          smp_objective obj);

/* ---- grid ------------------------------------------------------------ */
/* Checks dims, computes size with overflow checks; field names "grid.dims". */
smp_status smp_grid_init(smp_grid *grid, int ndims, const int64_t *dims,
                         const bool *periods, smp_error *err);
/* MPI_Dims_create's balanced factorisation of p into ndims factors,
 * non-increasing; the most balanced one (smallest max/min) is chosen. */
smp_status smp_dims_create(int64_t p, int ndims, int64_t *dims, smp_error *err);
/* Rank <-> coordinates in the grid's own axis order, by grid->order. */
void smp_grid_coords(const smp_grid *grid, int64_t rank, int64_t *coords);
int64_t smp_grid_rank(const smp_grid *grid, const int64_t *coords);
/* "row-major" / "column-major", and back (false when name is neither). */
const char *smp_order_name(smp_order order);
bool smp_order_from_name(const char *name, smp_order *order);

/* ---- weighted dims (seed 003, placement/dims/) ----------------------- */
/* Seed 003's weights: w[i] = 2 * G / domain[i] * halo[i] * cost[i], G the
 * product of domain[]; halo/cost NULL = 1 each.  Fields named in messages:
 * grid.domain, grid.halo, grid.cost. */
smp_status smp_dims_weights(int ndims, const double *domain, const double *halo,
                            const double *cost, double *w, smp_error *err);
/* The factorization of nprocs into ndims factors minimising
 * sum(dims[i] * w[i]) (w NULL = equal weights); dims[i] > 0 on input are
 * kept, 0 are free (as MPI_Dims_create).  *cost (may be NULL) gets the sum.
 * Ties: the lower real cut with periods (NULL = every axis open), i.e.
 * the heaviest periodic axes left whole (1), then the order
 * MPI_Dims_create would give (free entries non-increasing, the most
 * balanced first). */
smp_status smp_dims_weighted(int64_t nprocs, int ndims, const double *w, const bool *periods,
                             int64_t *dims, double *cost, smp_error *err);
/* Multi-level: sizes[0..nlevels-1] the processes per unit of each level,
 * coarsest first (e.g. nodes, then cores per node: {8, 24}); dims_ml[i *
 * nlevels + l] the factor of dim i at level l (inout, 0 = free); the grid's
 * dims are the per-dim products.  Each level chosen in turn, coarsest first,
 * so the coarse level's cut is smallest (seed 003's rule).  *cost (may be
 * NULL) gets the coarsest level's sum(dims_ml[i][0] * w[i]).  periods
 * (NULL = open) break the coarsest level's ties as in smp_dims_weighted
 * (the real cut between nodes); finer levels keep the seed's rule. */
smp_status smp_dims_ml(int ndims, const double *w, const bool *periods, int nlevels,
                       const int64_t *sizes, int64_t *dims_ml, double *cost, smp_error *err);

/* ---- stencils --------------------------------------------------------- */
/* Takes a copy of offsets/weights; validates no zero vector, no duplicates,
 * positive finite weights.  field is the prefix used in messages. */
smp_status smp_stencil_init(smp_stencil *st, int ndims, int count,
                            const int32_t *offsets, const double *weights,
                            const char *field, smp_error *err);
/* The named families for any ndims: paper 001's "nearest", "component",
 * "hops" (+-2, +-3 also along the first dimension), and thesis 000's
 * "hops-last", "diagonal", "crank-nicolson" (see doc/specs.md). */
smp_status smp_stencil_family(smp_stencil *st, const char *family, int ndims,
                              smp_error *err);
/* A stencil by name: a family, or a file NAME.json in specs_dir. */
smp_status smp_stencil_named(smp_stencil *st, const char *name, int ndims,
                             const char *specs_dir, smp_error *err);
void smp_stencil_free(smp_stencil *st);
bool smp_stencil_weighted(const smp_stencil *st);

/* ---- specs ------------------------------------------------------------ */
/* The directory that holds named specs and stencils: $STENCILMAP_SPECS_DIR
 * when set, else the compiled-in installation directory. */
const char *smp_specs_dir(void);
/* Parses a JSON spec text; messages name the field (grid.dims[2]: ...). */
smp_status smp_spec_parse(smp_spec *spec, const char *text, size_t len,
                          const char *specs_dir, smp_error *err);
/* SPEC as a user writes it: a path to a JSON file, a name of a spec in
 * specs_dir, or the compact form ALGORITHM:<d>d:STENCIL (e.g. auto:2d:5pt). */
smp_status smp_spec_load(smp_spec *spec, const char *arg,
                         const char *specs_dir, smp_error *err);
/* Fills automatic dims from the task count, or checks that the grid size
 * equals ntasks when ntasks > 0. */
smp_status smp_spec_resolve(smp_spec *spec, int64_t ntasks, smp_error *err);
/* As smp_spec_resolve, knowing the nodes: with grid.dims "weighted" and
 * nnodes nodes of equal slot counts P that hold ntasks exactly, the dims
 * are chosen level by level (smp_dims_ml): nodes, then sockets (sockets,
 * else the spec's "sockets", when it divides P; 0 = not known), then the
 * cores of one; otherwise (or with nnodes 0) over ntasks in one level.
 * levels_out (may be NULL) gets the sizes used and their count. */
smp_status smp_spec_resolve_on(smp_spec *spec, int64_t ntasks, int nnodes, const int32_t *slots,
                               int sockets, int64_t *levels_out, int *nlevels_out,
                               smp_error *err);
void smp_spec_free(smp_spec *spec);

/* ---- nodes ------------------------------------------------------------ */
/* Expands a Slurm hostlist ("n[01-04],gpu7") and a SLURM_JOB_CPUS_PER_NODE
 * style list ("48(x3),32"); a single count applies to every node. */
smp_status smp_nodes_parse(smp_nodes *nodes, const char *hostlist,
                           const char *slots, smp_error *err);
/* A per-node count list as --slots takes it ("48(x3),32", a lone "8" for
 * every node) into counts[0..count); field names it in messages. */
smp_status smp_counts_parse(const char *text, const char *field, int32_t *counts, int count,
                            smp_error *err);
/* Just the hostlist expansion; *names is a malloc'd array of strings. */
smp_status smp_hostlist_expand(const char *hostlist, char ***names, int *count,
                               smp_error *err);
void smp_nodes_free(smp_nodes *nodes);

/* ---- planning and scoring ----------------------------------------------- */
/* Places grid->size ranks onto nnodes nodes with the given slot counts.
 * Capacities are exact: node i gets at most slots[i] ranks.  With
 * SMP_ALG_AUTO every construction is tried, the best by J_sum (weighted
 * when the stencil has weights), then J_max, is kept and then refined
 * (smp_refine with the default budget) and, on grids of up to 4096 ranks,
 * annealed (SMP_EFFORT_DEFAULT). */
smp_status smp_plan(const smp_grid *grid, const smp_stencil *st,
                    const int32_t *slots, int nnodes, smp_algorithm alg,
                    smp_placement *out, smp_error *err);
/* smp_plan with the objective auto selects and refines for (smp_plan is
 * SMP_OBJ_SUM); the single constructions do not depend on it. */
smp_status smp_plan_for(const smp_grid *grid, const smp_stencil *st, const int32_t *slots,
                        int nnodes, smp_algorithm alg, smp_objective obj, smp_placement *out,
                        smp_error *err);
/* ---- the network above the nodes: switches, blocks -------------------- */

/* The network above the step's nodes as groups of node indices (indices into
 * the step's node list).  Level 0 is the finest (leaf switches, blocks); each
 * group of level l lies inside one group of level l + 1.  nlevels == 0:
 * nothing above nodes.  The placement core never reads a topology itself:
 * topology/ (smt_levels_for) or the caller builds this. */
typedef struct {
    int nlevels;
    int nnodes;
    int ngroups[SMP_MAX_LEVELS];
    int32_t *group_of_node[SMP_MAX_LEVELS]; /* nnodes entries each, in [0, ngroups[l]) */
    char **group_names[SMP_MAX_LEVELS];     /* ngroups[l] names each (for reports), may be NULL */
    char source[128]; /* where the levels came from: "slurm (topology/tree)", "file /etc/x.conf" */
} smp_levels;
/* Frees the arrays and names (malloc'd) and zeroes *lv; NULL is fine. */
void smp_levels_free(smp_levels *lv);
/* Checks lv against a step of nnodes nodes: 0 <= nlevels <= SMP_MAX_LEVELS,
 * lv->nnodes == nnodes, every group index in range, every group of level l
 * inside one group of level l + 1; messages name the level and node. */
smp_status smp_levels_check(const smp_levels *lv, int nnodes, smp_error *err);
/* J_sum/J_max between the groups of each level: a group's outgoing directed
 * stencil edges (to ranks on nodes of another group), weighted too, in
 * per_level[l] for l < lv->nlevels (j_max_node: a group that attains
 * j_max).  Edges inside a group, between its nodes, do not count. */
smp_status smp_levels_score_compute(const smp_grid *grid, const smp_stencil *st,
                                    const int32_t *node_of_rank, int nnodes,
                                    const smp_levels *lv, smp_score *per_level, smp_error *err);
/* a better than b under the levelled objective: the levels from the
 * coarsest (nlevels - 1) to the finest, each by obj (smp_score_better_for),
 * then the nodes' scores by obj. */
bool smp_levels_better(const smp_score *a_levels, const smp_score *a_nodes,
                       const smp_score *b_levels, const smp_score *b_nodes, int nlevels,
                       bool weighted, smp_objective obj);

/* ---- the links of the network: the busiest one ------------------------ */

/* How a switch picks the uplink a message leaves its group by.
 * SMP_ROUTING_STATIC: by the destination node's position (d-mod-k: at
 * level l the uplink (position / stride) mod uplinks, stride the product
 * of the uplink counts below), as InfiniBand's ftree/updn routing and
 * SimGrid's fat-tree do; a node's position is its place in the step's
 * nodes listed leaf by leaf (leaves in the order of their first node).
 * SMP_ROUTING_ADAPTIVE: a group's outgoing traffic spread evenly over its
 * uplinks (InfiniBand adaptive routing, Slingshot, ECMP with many flows).
 * SMP_ROUTING_DIRECT: the groups under one parent joined pairwise, each
 * ordered pair by `uplinks` links (the count is links per pair), and a
 * message between two groups takes that pair's links alone (minimal
 * routing on a dragonfly: its routers inside a group, its groups). */
typedef enum {
    SMP_ROUTING_STATIC = 0,
    SMP_ROUTING_ADAPTIVE,
    SMP_ROUTING_DIRECT,
    SMP_ROUTING_COUNT
} smp_routing;
/* The routing of a site that states none: static, the routing InfiniBand
 * subnet managers set up unless adaptive routing is switched on, and the
 * one whose estimate is never below the adaptive one (doc/network-levels.md,
 * "Links and routing"). */
#define SMP_ROUTING_DEFAULT SMP_ROUTING_STATIC
const char *smp_routing_name(smp_routing r); /* "static", "adaptive", "direct" */
bool smp_routing_from_name(const char *name, smp_routing *r);

/* The links above the groups of an smp_levels: per group of level l its
 * uplink count (>= 1; a group with k parent switches has k uplinks, and
 * as many downlinks; under direct routing the links from it to each
 * sibling group) and an uplink's speed relative to a node's link
 * (> 0).  NULL arrays: 1 uplink of speed 1 for every group. */
typedef struct {
    smp_routing routing;
    int32_t *uplinks[SMP_MAX_LEVELS];
    double *speed[SMP_MAX_LEVELS];
} smp_links;
/* Frees the arrays and zeroes *lk (routing becomes static); NULL is fine. */
void smp_links_free(smp_links *lk);

/* The fastest uplink a site may state, in node links: a spine link 1000
 * times a node's is no fabric's, and a typo (10000 for 1.0000) is caught. */
#define SMP_MAX_LINK_SPEED 1000.0
/* A list of uplink speeds, one per level from level 0 ("0.5,0.25"): 1 to
 * SMP_MAX_LEVELS plain decimals (digits and at most one point: no sign,
 * exponent, "inf" or "nan") above 0 and at most SMP_MAX_LINK_SPEED,
 * comma-separated, each an uplink's speed relative to a node's link.
 * Returns how many were read, or 0 when text is malformed; then *bad (if
 * not NULL) is the 1-based position of the first bad value. */
int smp_link_speeds_parse(const char *text, double speeds[SMP_MAX_LEVELS], int *bad);
/* Every group of level l < n (and < lv's levels) gets uplink speed
 * speeds[l] in lk (replacing what it had).  SMP_ERR_SYSTEM when memory
 * runs out. */
smp_status smp_links_set_speeds(smp_links *lk, const smp_levels *lv, const double *speeds, int n,
                                smp_error *err);

/* smp_link_score (L_max, the busiest link's load) is declared with
 * smp_placement above. */
/* Scores a placement on the links: lv and lk describe the network above
 * the nodes (lv NULL or nlevels 0: node links only; lk NULL: static
 * routing, one uplink of speed 1 per group).  Messages name the field. */
smp_status smp_link_score_compute(const smp_grid *grid, const smp_stencil *st,
                                  const int32_t *node_of_rank, int nnodes, const smp_levels *lv,
                                  const smp_links *lk, smp_link_score *out, smp_error *err);

/* How auto plans on levels (smp_plan_opts.levels_mode).
 * SMP_LEVELS_BEST: both ways below, the better by the levelled objective
 * (smp_levels_better: the groups' figures first).
 * SMP_LEVELS_GROUPS_FIRST: the grid is planned onto the coarsest groups as
 * super-nodes (auto), split down the levels by bisection and refinement
 * inside each group, down to the nodes.
 * SMP_LEVELS_NODES_FIRST: today's node plan, then its nodes' rank sets are
 * handed to physical nodes (only among nodes of equal share) so that few
 * edges cross groups: every node-level figure stays exactly today's. */
typedef enum {
    SMP_LEVELS_BEST = 0,
    SMP_LEVELS_GROUPS_FIRST,
    SMP_LEVELS_NODES_FIRST,
    SMP_LEVELS_MODE_COUNT
} smp_levels_mode;
const char *smp_levels_mode_name(smp_levels_mode mode); /* "best", "groups-first", "nodes-first" */
bool smp_levels_mode_from_name(const char *name, smp_levels_mode *mode);

/* What smp_plan_with plans: the algorithm, the objective auto minimises
 * first, auto's effort (1 to SMP_MAX_EFFORT; 0 means the default) and the
 * network above the nodes.  levels NULL or with nlevels == 0: the plan is
 * exactly the one without levels.  With levels, auto plans on them by
 * levels_mode; a single construction is placed as without levels (blocked
 * stays what Slurm would launch); both get out->level[] scored.  links
 * (the uplinks and routing above the levels' groups, or NULL) scores
 * out->link; with levels, links and levels_mode SMP_LEVELS_BEST, auto
 * chooses among all its candidates -- the node-only plan, each levels
 * mode, every construction it tries -- the one of least L_max, then of
 * least load on the links above the nodes (up_max: where the node links
 * bind, a lighter uplink still runs faster, make bench-scale), then
 * J_max, then J_sum (out->by_links). */
typedef struct {
    smp_algorithm algorithm;
    smp_objective objective;
    int effort;
    const smp_levels *levels;
    smp_levels_mode levels_mode;
    const smp_links *links;
} smp_plan_opts;
smp_status smp_plan_with(const smp_grid *grid, const smp_stencil *st, const int32_t *slots,
                         int nnodes, const smp_plan_opts *opts, smp_placement *out,
                         smp_error *err);
/* Improves a placement in place by moving ranks between nodes that share
 * cut edges (boundary Fiduccia-Mattheyses between node pairs, weighted by
 * the stencil's weights).  Every node keeps exactly the number of ranks it
 * had, J_sum (weighted J_sum when the stencil has weights) never rises,
 * and the result depends only on the input.  budget caps the work in
 * neighbour-list evaluations; <= 0 means smp_refine_default_budget(). */
smp_status smp_refine(const smp_grid *grid, const smp_stencil *st, int32_t *node_of_rank,
                      int nnodes, int64_t budget, smp_refine_stats *stats, smp_error *err);
/* The budget auto uses: proportional to the ranks, a floor for small grids. */
int64_t smp_refine_default_budget(int64_t ranks);
/* smp_refine for an objective.  SMP_OBJ_MAX keeps a run's moves only when
 * they lower (J_max, the number of nodes at J_max, J_sum) in that order:
 * first the busiest node's cut comes down without J_max rising anywhere
 * else, then J_sum moves that keep J_max.  The result is never worse than
 * the input under the objective (smp_score_better_for). */
smp_status smp_refine_for(const smp_grid *grid, const smp_stencil *st, int32_t *node_of_rank,
                          int nnodes, int64_t budget, smp_objective obj,
                          smp_refine_stats *stats, smp_error *err);
/* J_sum/J_max of any placement. */
smp_status smp_score_compute(const smp_grid *grid, const smp_stencil *st,
                             const int32_t *node_of_rank, int nnodes,
                             smp_score *score, smp_error *err);
void smp_placement_free(smp_placement *pl);

/* ---- two levels: sockets inside the nodes --------------------------------- */
#define SMP_MAX_SOCKETS 4096 /* sockets (or NUMA domains) per node */

typedef struct {
    int64_t j_sum;  /* directed stencil edges between two sockets of one node */
    int64_t j_max;  /* most such edges leaving one socket */
    double w_sum;   /* the same, weighted by stencil weights */
    double w_max;
} smp_socket_score;

/* How many of a node's `ranks` go to socket k of `sockets`: the ranks
 * shared as evenly as possible, the first ranks % sockets sockets one more. */
int64_t smp_socket_share(int64_t ranks, int sockets, int k);
/* The naive split: each node's ranks in row-major order, the first share
 * to socket 0, the next to socket 1, and so on. */
smp_status smp_sockets_naive(const smp_grid *grid, const int32_t *node_of_rank, int nnodes,
                             const int32_t *sockets, int32_t *socket_of_rank, smp_error *err);
/* Splits each node's ranks (node_of_rank is a finished placement and does
 * not change) into sockets[n] groups of exactly smp_socket_share() ranks,
 * fewest inter-socket stencil edges (weighted when the stencil has
 * weights): bisection inside each node, then refinement between the
 * sockets of one node; never worse than the naive split.  Fills
 * socket_of_rank[r] in [0, sockets[node_of_rank[r]]) and, if score is not
 * NULL, its inter-socket score.  sockets[n] in [1, SMP_MAX_SOCKETS]. */
smp_status smp_plan_sockets(const smp_grid *grid, const smp_stencil *st,
                            const int32_t *node_of_rank, int nnodes, const int32_t *sockets,
                            int32_t *socket_of_rank, smp_socket_score *score, smp_error *err);
/* Inter-socket J_sum/J_max of any split; edges between nodes do not count. */
smp_status smp_socket_score_compute(const smp_grid *grid, const smp_stencil *st,
                                    const int32_t *node_of_rank, int nnodes,
                                    const int32_t *sockets, const int32_t *socket_of_rank,
                                    smp_socket_score *score, smp_error *err);

/* ---- hostfiles -------------------------------------------------------- */
/* Line r holds the name of rank r's node, as Slurm's arbitrary
 * distribution reads SLURM_HOSTFILE. */
smp_status smp_hostfile_write(FILE *out, const smp_nodes *nodes,
                              const smp_placement *pl, smp_error *err);
/* Reads a hostfile back into node indices; node names not yet in *nodes are
 * appended (with slots counted).  Returns the number of ranks in *ranks. */
smp_status smp_hostfile_read(FILE *in, smp_nodes *nodes, int32_t **node_of_rank,
                             int64_t *ranks, smp_error *err);

#ifdef __cplusplus
}
#endif
#endif
