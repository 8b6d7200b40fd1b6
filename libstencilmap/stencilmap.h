/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * libstencilmap: the in-job side of stencilmap.
 *
 * A task of a step launched with `srun --mpi=pmix --stencil-map=SPEC` finds
 * its place in the Cartesian process grid in its environment (set by the
 * stencil_map SPANK plugin, see stencil_map(8)):
 *
 *   STENCIL_MAP_DIMS=4,3          grid dims (required)
 *   STENCIL_MAP_PERIODS=0,1       0/1 per dimension (required)
 *   STENCIL_MAP_ORDER=row-major   or column-major (optional, default row-major)
 *   STENCIL_MAP_STENCIL=1,0;-1,0  offsets, ';' between vectors (required)
 *   STENCIL_MAP_COORDS=1,2        this task's coordinates (optional: when
 *                                 absent they are derived from the rank)
 *   STENCIL_MAP_WEIGHTS=1,2       one positive weight per offset (optional)
 *   STENCIL_MAP_ALGORITHM=NAME    construction used (optional)
 *   STENCIL_MAP_JSUM, _JMAX       planned figures (optional, both or none)
 *   STENCIL_MAP_BLOCKED_JSUM, _BLOCKED_JMAX   figures of the block layout
 *   STENCIL_MAP_LEVEL_NODES=node1,node2,...   the step's nodes, and per
 *   STENCIL_MAP_LEVELS=0,0,1,1;...            network level above them
 *   STENCIL_MAP_LEVEL_JSUM, _LEVEL_JMAX       (switches, blocks; finest
 *                                             first) each node's group and
 *                                             the planned edges between
 *                                             groups (optional, all or none)
 *
 * Rank r has the row-major coordinates of r (last dimension fastest), as
 * MPI_Cart_create numbers ranks without reordering; with
 * STENCIL_MAP_ORDER=column-major the column-major ones (first dimension
 * fastest, as PETSc's DMDA: r = i + m*j).  Coordinates, dims and offsets
 * are always in the grid's own axis order.
 *
 * The library needs PMIx (or PMI-1, below), no MPI.  stencilmap_init() publishes, for
 * every rank, under the PMIx keys below (all PMIX_STRING, PMIX_GLOBAL scope,
 * committed and exchanged by a PMIx_Fence with PMIX_COLLECT_DATA):
 *
 *   "stencilmap.coords"   this rank's coordinates, decimal, ',' separated ("1,2")
 *   "stencilmap.node"     the node it runs on: $SLURMD_NODENAME, else the
 *                         PMIx hostname (PMIX_HOSTNAME), else gethostname()
 *   "stencilmap.status"   PMIX_INT: 0 when this rank's environment was valid,
 *                         else its stencilmap_status
 *
 * and rank 0 alone (read them with PMIx_Get from rank 0 of the namespace):
 *
 *   "stencilmap.dims"     "4,3"          as STENCIL_MAP_DIMS
 *   "stencilmap.periods"  "0,1"          as STENCIL_MAP_PERIODS
 *   "stencilmap.stencil"  "1,0;-1,0"     as STENCIL_MAP_STENCIL
 *
 * stencilmap_verify() adds "stencilmap.edges" (PMIX_UINT64: the rank's
 * outgoing inter-node stencil edges, seen through the PMIx data).
 *
 * Ranks that MPICH's Hydra (mpiexec) started have no PMIx server but PMI-1
 * (PMI_FD, PMI_RANK, PMI_SIZE): there the same keys, prefixed with the
 * rank ("r3.stencilmap.node"), travel as text in Hydra's key-value space,
 * and a rank's node is gethostname(), since Hydra hands its ranks
 * mpiexec's environment.  PMI-1 is taken when PMI_FD is set and
 * PMIX_NAMESPACE is not.
 *
 * Every function returns a stencilmap_status; on failure a message naming
 * the variable, key or rank is available from stencilmap_errmsg().  Nothing
 * in the library aborts or exits the process.
 */
#ifndef STENCILMAP_H
#define STENCILMAP_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The placement core's limits (SMP_MAX_* in <stencilmap/placement.h>, their
 * owner).  Spelled again here because this header is installed without the
 * placement core; place.c asserts at build time that the two agree. */
#define STENCILMAP_MAX_DIMS 8
#define STENCILMAP_MAX_OFFSETS 4096
#define STENCILMAP_MAX_OFFSET_ABS 1000000
#define STENCILMAP_MAX_RANKS ((int64_t)INT32_MAX)
#define STENCILMAP_MAX_LEVELS 4
#define STENCILMAP_MSG_LEN 512

typedef enum {
    STENCILMAP_OK = 0,
    STENCILMAP_ERR_MISMATCH = 1, /* verify: observed figures differ from the plan */
    STENCILMAP_ERR_ENV = 2,      /* a STENCIL_MAP_* variable is malformed or inconsistent */
    STENCILMAP_ERR_NOENV = 3,    /* the step was not placed (no STENCIL_MAP_DIMS) */
    STENCILMAP_ERR_PMIX = 4,     /* a PMIx (or PMI-1) call failed */
    STENCILMAP_ERR_ARG = 5,      /* bad argument (NULL pointer, rank out of range) */
    STENCILMAP_ERR_NOMEM = 6,    /* out of memory */
    STENCILMAP_ERR_PEER = 7,     /* another rank reported an error (verify) */
    STENCILMAP_ERR_IO = 8        /* a file could not be written (verify record) */
} stencilmap_status;

/* A task's place, as read from the environment. */
typedef struct {
    int ndims;
    int64_t dims[STENCILMAP_MAX_DIMS];
    int periods[STENCILMAP_MAX_DIMS]; /* 0 or 1 */
    int64_t size;                     /* product of dims */
    int has_coords;                   /* STENCIL_MAP_COORDS was set */
    int64_t coords[STENCILMAP_MAX_DIMS];
    int noffsets;
    int32_t *offsets; /* noffsets * ndims */
    double *weights;  /* noffsets entries, NULL when STENCIL_MAP_WEIGHTS is unset */
    char algorithm[32]; /* "" when unset */
    int has_planned;    /* STENCIL_MAP_JSUM and STENCIL_MAP_JMAX were set */
    int64_t planned_jsum, planned_jmax;
    int has_blocked;
    int64_t blocked_jsum, blocked_jmax;
    int column_major;   /* STENCIL_MAP_ORDER=column-major: first dimension fastest */
    /* network levels above the nodes (STENCIL_MAP_LEVELS): 0 when the step
     * was planned without; their planned J figures per level */
    int nlevels;
    int has_level_planned;
    int64_t level_planned_jsum[STENCILMAP_MAX_LEVELS], level_planned_jmax[STENCILMAP_MAX_LEVELS];
    void *levels;       /* each node's groups, for stencilmap_node_group() */
} stencilmap_place;

/* ---- environment (no PMIx) --------------------------------------------- */
typedef const char *(*stencilmap_getenv_fn)(const char *name, void *arg);

/* Parses the STENCIL_MAP_* variables through get(name, arg).  Returns
 * STENCILMAP_ERR_NOENV when STENCIL_MAP_DIMS is unset, STENCILMAP_ERR_ENV
 * with a message naming the variable when anything is malformed.  msg may be
 * NULL.  On success free the place with stencilmap_place_free(). */
stencilmap_status stencilmap_place_parse(stencilmap_place *pl, stencilmap_getenv_fn get,
                                         void *arg, char *msg, size_t msglen);
/* The same, from the process environment (getenv). */
stencilmap_status stencilmap_place_from_env(stencilmap_place *pl, char *msg, size_t msglen);
void stencilmap_place_free(stencilmap_place *pl);

/* The group of the node called node at network level (0 the finest), or
 * -1 when the place has no such level or node is not one of the step's. */
int32_t stencilmap_node_group(const stencilmap_place *pl, int level, const char *node);

/* Coordinates of rank / rank of coordinates, row-major or column-major as
 * the place says (no bounds check on coords beyond 0 <= c < dims). */
void stencilmap_rank_coords(const stencilmap_place *pl, int64_t rank, int64_t *coords);
int64_t stencilmap_coords_rank(const stencilmap_place *pl, const int64_t *coords);
/* The rank that offset k of the stencil reaches from rank (wrapping on
 * periodic dimensions), or -1 when it leaves a non-periodic grid. */
int64_t stencilmap_neighbor(const stencilmap_place *pl, int64_t rank, int k);
/* The rank from which offset k reaches rank, or -1 (the source of the
 * incoming edge k; what MPI_Dist_graph_create_adjacent calls a source). */
int64_t stencilmap_neighbor_from(const stencilmap_place *pl, int64_t rank, int k);

/* ---- edge counting (no PMIx; used by stencilmap_verify) ------------------ */
/* same(arg, a, b) returns non-zero when ranks a and b run on the same node. */
typedef int (*stencilmap_same_node_fn)(void *arg, int64_t a, int64_t b);
/* Outgoing inter-node edges of one rank: one per offset whose target is in
 * the grid and on another node; *weight sums their weights (1 each without
 * weights).  Returns STENCILMAP_ERR_ARG on a bad rank, or the first
 * non-zero value (negated) of same() that is < 0 as STENCILMAP_ERR_PMIX. */
stencilmap_status stencilmap_rank_out_edges(const stencilmap_place *pl, int64_t rank,
                                            stencilmap_same_node_fn same, void *arg,
                                            int64_t *edges, double *weight);

/* J figures of a whole placement. */
typedef struct {
    int64_t jsum, jmax; /* directed inter-node edges; the most leaving one node */
    double wsum, wmax;  /* the same, weighted */
    int jmax_node;      /* first node attaining jmax */
    int nnodes;
    int64_t *node_edges;  /* nnodes entries: edges leaving node n */
    double *node_weight;  /* nnodes entries */
    int64_t *node_ranks;  /* nnodes entries: ranks on node n */
} stencilmap_edges;

/* Aggregates per-rank counts (nranks entries each; weight may be NULL) of
 * ranks on nodes node_of_rank[r] in [0, nnodes). */
stencilmap_status stencilmap_edges_aggregate(stencilmap_edges *out, int64_t nranks,
                                             const int32_t *node_of_rank, int nnodes,
                                             const int64_t *rank_edges, const double *rank_weight);
/* J figures of a placement node_of_rank[size] computed on pl's grid and
 * stencil (what the placement core's smp_score_compute computes). */
stencilmap_status stencilmap_edges_count(stencilmap_edges *out, const stencilmap_place *pl,
                                         const int32_t *node_of_rank, int nnodes);
void stencilmap_edges_free(stencilmap_edges *e);

/* ---- in-job context (PMIx, or PMI-1 under Hydra) ------------------------ */
typedef struct stencilmap_ctx stencilmap_ctx;

/* Reads the environment, PMIx_Init, puts the keys above, PMIx_Commit and a
 * collecting PMIx_Fence over the whole namespace (under PMI-1: init, puts
 * and a barrier).  Collective: every rank of
 * the step must call it.  *ctx is set even on failure (except out of memory,
 * when it is NULL) so that stencilmap_errmsg() can say why; release it with
 * stencilmap_finalize().  When the environment is invalid or missing the
 * rank still takes part in the fence (so other ranks do not hang) and the
 * status is returned; stencilmap_verify() may still be called (it reports
 * the error on every rank). */
stencilmap_status stencilmap_init(stencilmap_ctx **ctx);
/* PMIx_Finalize (or PMI-1's finalize) when init got that far, and frees ctx. */
stencilmap_status stencilmap_finalize(stencilmap_ctx *ctx);
/* The last error message ("" when none); never NULL, ctx may be NULL. */
const char *stencilmap_errmsg(const stencilmap_ctx *ctx);
const char *stencilmap_strerror(stencilmap_status status);

/* Rank and job size (the step's task count) from PMIx or PMI-1; -1 when
 * neither is up. */
int64_t stencilmap_rank(const stencilmap_ctx *ctx);
int64_t stencilmap_size(const stencilmap_ctx *ctx);
/* This task's place (NULL when its environment was invalid or missing). */
const stencilmap_place *stencilmap_get_place(const stencilmap_ctx *ctx);
/* This rank's node name. */
const char *stencilmap_node(const stencilmap_ctx *ctx);

/* PMIx_Get of another rank's "stencilmap.coords", parsed into coords
 * (STENCILMAP_MAX_DIMS entries room); *ndims may be NULL. */
stencilmap_status stencilmap_get_coords(stencilmap_ctx *ctx, int64_t rank, int64_t *coords,
                                        int *ndims);
/* PMIx_Get of another rank's "stencilmap.node" into buf. */
stencilmap_status stencilmap_get_node(stencilmap_ctx *ctx, int64_t rank, char *buf, size_t len);

typedef struct {
    int has_planned;
    int64_t planned_jsum, planned_jmax;
    int64_t observed_jsum, observed_jmax;
    double observed_wsum, observed_wmax;
    int64_t rank_edges;      /* this rank's outgoing inter-node edges */
    int64_t coords_checked;  /* neighbour coordinates read back through PMIx */
    int64_t coords_wrong;    /* ... that were not the ones of the rank (row- or column-major) */
    int agree;               /* observed == planned (both figures) */
    int nnodes;
    char **node_names;       /* nnodes, in order of first appearance by rank */
    int64_t *node_edges;     /* edges leaving each node */
    int64_t *node_ranks;     /* ranks on each node */
    int jmax_node;
    char diff[STENCILMAP_MSG_LEN]; /* what differs, "" when agree */
    /* per network level (the place's nlevels; 0 without levels): edges
     * between groups of nodes, planned and observed (J_max: the most
     * leaving one group), compared like the node figures */
    int nlevels;
    int has_level_planned;
    int64_t level_planned_jsum[STENCILMAP_MAX_LEVELS], level_planned_jmax[STENCILMAP_MAX_LEVELS];
    int64_t level_observed_jsum[STENCILMAP_MAX_LEVELS], level_observed_jmax[STENCILMAP_MAX_LEVELS];
    double level_observed_wsum[STENCILMAP_MAX_LEVELS], level_observed_wmax[STENCILMAP_MAX_LEVELS];
} stencilmap_verify_result;

/* Collective.  Every rank learns from PMIx where its stencil neighbours run
 * (their "stencilmap.node"), counts its outgoing inter-node edges, puts the
 * count, fences, and gathers the counts of all ranks; every rank gets the
 * same result.  Also checks that every rank's environment was valid
 * (STENCILMAP_ERR_PEER otherwise, naming the first bad rank), that rank 0's
 * dims/periods/stencil equal this rank's, and reads each neighbour's
 * "stencilmap.coords" back.  Returns STENCILMAP_OK when the observed J_sum
 * and J_max equal the planned ones and every coordinate was right,
 * STENCILMAP_ERR_MISMATCH (res->diff names the difference) when not; without
 * planned figures (no STENCIL_MAP_JSUM) it returns STENCILMAP_OK with
 * res->has_planned = 0 when the coordinates were right.  On a step planned
 * on network levels the edges between groups are counted per level the
 * same way and must equal STENCIL_MAP_LEVEL_JSUM/_JMAX too.  Free with
 * stencilmap_verify_result_free(). */
stencilmap_status stencilmap_verify(stencilmap_ctx *ctx, stencilmap_verify_result *res);
void stencilmap_verify_result_free(stencilmap_verify_result *res);

/* Not collective; call it on one rank (stencil-map-verify uses rank 0)
 * after stencilmap_verify(), passing what that returned.  Writes the result
 * next to the step's audit record $STENCIL_MAP_RECORD, "<job>.<step>.json"
 * -> "<job>.<step>.verify.json", for `stencil-map audit`: status (OK,
 * MISMATCH, ERROR), message, planned and observed J figures, per-node counts
 * and every rank's node as PMIx reports it ("rank_nodes").  The file is
 * created under a temporary name with O_EXCL|O_NOFOLLOW and linked to its
 * final name: never partial, never through a symlink, never replacing an
 * existing result.  On success path (may be NULL) receives the file's name.
 * Returns STENCILMAP_ERR_NOENV when STENCIL_MAP_RECORD is unset,
 * STENCILMAP_ERR_ENV when it names no record, STENCILMAP_ERR_IO when the
 * file cannot be written; msg says why. */
stencilmap_status stencilmap_verify_record(stencilmap_ctx *ctx, stencilmap_status status,
                                           const stencilmap_verify_result *res, char *path,
                                           size_t pathlen, char *msg, size_t msglen);

#ifdef __cplusplus
}
#endif
#endif
