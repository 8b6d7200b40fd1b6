/* SPDX-License-Identifier: GPL-2.0-or-later */
/* stencil-map learn: the spec an application's measured traffic implies.
 *
 * A profile is what libstencilmap-profile.so wrote at MPI_Finalize: one file
 * DIR/rank.<r> per rank of MPI_COMM_WORLD with the messages and bytes it
 * sent to each other rank, and the MPI_Cart_create / MPI_Dims_create calls
 * it made.  The learner finds the grid (dims, row-major rank order, periods)
 * under which that traffic is most translation-invariant, and the offsets
 * and per-offset weights of the stencil, and says how much of the traffic
 * the result explains. */
#ifndef STENCILMAP_LEARN_H
#define STENCILMAP_LEARN_H

#include <stencilmap/placement.h>

typedef struct {
    int32_t src, dst;
    int64_t msgs, bytes;
} learn_edge;

typedef struct {
    int64_t ranks;
    learn_edge *edges; /* src != dst, bytes or msgs > 0 */
    size_t nedges;
    double total_bytes;   /* over edges */
    int64_t self_bytes;   /* sent to oneself, not part of any stencil */
    int64_t unresolved;   /* sends the library could not attribute */
    int64_t partial;      /* ranks whose file was written before MPI_Finalize */
    int64_t partial_exit; /* of which at an exit (the others at a signal) */
    /* an MPI_Cart_create over all ranks, the same on every rank */
    bool have_cart;
    bool cart_reordered; /* some rank's Cartesian rank is not its world rank */
    int cart_ndims;
    int64_t cart_dims[SMP_MAX_DIMS];
    bool cart_periods[SMP_MAX_DIMS];
    bool cart_reorder;
    /* rank 0's last MPI_Dims_create of the rank count */
    int dc_ndims;
    int64_t dc_dims[SMP_MAX_DIMS];
} learn_profile;

/* Reads DIR/rank.0 .. rank.<P-1>; names the missing or malformed file. */
smp_status learn_profile_read(const char *dir, learn_profile *p, smp_error *err);
void learn_profile_free(learn_profile *p);

/* One offset of a grid's view of the traffic. */
typedef struct {
    int32_t off[SMP_MAX_DIMS];
    int64_t edges;     /* observed (rank, rank+offset) pairs */
    int64_t positions; /* ranks where rank+offset lies in the grid */
    double bytes;
    double typical; /* the median bytes per observed edge */
    bool included; /* part of the stencil */
} learn_offset;

typedef struct {
    smp_grid grid;
    learn_offset *offsets; /* every offset seen; the stencil's first */
    int noffsets, nincluded;
    double explained; /* bytes on included offsets */
    double error;     /* L1 distance between traffic and the model, bytes */
    const char *source; /* "MPI_Cart_create" or "inferred" */
    int64_t candidates; /* grids compared */
} learn_result;

/* Learns the grid and stencil; max_dims bounds inferred grids (1..8). */
smp_status learn_infer(const learn_profile *p, int max_dims, learn_result *out, smp_error *err);
/* The view of the traffic on one given grid: every offset, the stencil
 * chosen (an offset is in it when modelling it lowers the error). */
smp_status learn_evaluate(const learn_profile *p, const smp_grid *grid, learn_result *out,
                          smp_error *err);
void learn_result_free(learn_result *r);
/* The included offsets' weights: median bytes per edge, the smallest scaled to 1,
 * four significant digits; all 1 when they differ by under 1 %. */
void learn_weights(const learn_result *r, double *weights);

#endif
