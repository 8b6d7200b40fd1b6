/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The construction table: every algorithm's name, its function, whether
 * and up to what size auto tries it (the reference orders cyclic and
 * random: never), and the order auto and compare go through them.  The
 * planner, auto, the spec parser, the CLI's usage texts and compare, and
 * the plugin's site policy all read it from here, so a new construction is
 * one row. */
#include <stdio.h>
#include <string.h>

#include "construct/construct.h"

/* bisect's search is the dearest construction (about 1.5 us per rank in
 * 3-D, where it tries six axis pairs per cut) and it pays off mostly on
 * small grids with awkward node sizes; on large grids strips and
 * hyperplane, refined, come within a few percent of it.  auto runs in
 * srun's critical path, where a 10,000-rank step must be planned in well
 * under 50 ms, so auto leaves bisect out above this many ranks. */
#define AUTO_BISECT_MAX_RANKS 8192

typedef struct {
    const char *name;
    smp_construct_fn fn;     /* NULL: auto, which runs the others */
    int64_t auto_max_ranks;  /* auto tries it on grids up to this size; 0: any;
                              * AUTO_NEVER: a reference row, never tried */
} construction;

/* The reference orders (Slurm's -m cyclic, a random placement) are rows
 * of compare for the reader to see what the layouts a plan is not would
 * give; they are never better than a construction, so auto leaves them out. */
#define AUTO_NEVER (-1)

/* Each name spelled once, here: the table and the listing below use it. */
#define N_AUTO "auto"
#define N_HYPERPLANE "hyperplane"
#define N_STRIPS "strips"
#define N_KDTREE "kdtree"
#define N_NODECART "nodecart"
#define N_BLOCKED "blocked"
#define N_BISECT "bisect"
#define N_CYCLIC "cyclic"
#define N_RANDOM "random"

static const construction table[SMP_ALG_COUNT] = {
    [SMP_ALG_AUTO] = {N_AUTO, NULL, 0},
    [SMP_ALG_HYPERPLANE] = {N_HYPERPLANE, smp_place_hyperplane, 0},
    [SMP_ALG_STRIPS] = {N_STRIPS, smp_place_strips, 0},
    [SMP_ALG_KDTREE] = {N_KDTREE, smp_place_kdtree, 0},
    [SMP_ALG_NODECART] = {N_NODECART, smp_place_nodecart, 0},
    [SMP_ALG_BLOCKED] = {N_BLOCKED, smp_place_blocked, 0},
    [SMP_ALG_BISECT] = {N_BISECT, smp_place_bisect, AUTO_BISECT_MAX_RANKS},
    [SMP_ALG_CYCLIC] = {N_CYCLIC, smp_place_cyclic, AUTO_NEVER},
    [SMP_ALG_RANDOM] = {N_RANDOM, smp_place_random, AUTO_NEVER},
};

/* The order auto goes through the constructions, which is also compare's
 * row order: blocked first, since ties keep the earlier one and a tie
 * should keep the launch Slurm would have made anyway; the reference
 * orders next to it, where a reader compares layouts (auto skips them). */
static const smp_algorithm auto_order[] = {SMP_ALG_BLOCKED,    SMP_ALG_CYCLIC, SMP_ALG_RANDOM,
                                           SMP_ALG_HYPERPLANE, SMP_ALG_STRIPS, SMP_ALG_KDTREE,
                                           SMP_ALG_NODECART,   SMP_ALG_BISECT};

/* How help texts and error messages list them. */
static const char listed[] = N_AUTO ", " N_HYPERPLANE ", " N_STRIPS ", " N_KDTREE ", " N_NODECART
                             ", " N_BISECT ", " N_BLOCKED ", " N_CYCLIC ", " N_RANDOM;

const char *smp_algorithm_name(smp_algorithm alg)
{
    return (alg >= 0 && alg < SMP_ALG_COUNT) ? table[alg].name : "unknown";
}

const char *smp_placement_label(const smp_placement *pl, char *buf, size_t n)
{
    snprintf(buf, n, "%s%s", smp_algorithm_name(pl->algorithm),
             pl->groups_first ? " (groups first)" : "");
    return buf;
}

bool smp_algorithm_from_name(const char *name, smp_algorithm *alg)
{
    for (int a = 0; a < SMP_ALG_COUNT; a++)
        if (name && strcmp(name, table[a].name) == 0) {
            *alg = (smp_algorithm)a;
            return true;
        }
    return false;
}

const char *smp_algorithm_names(void)
{
    return listed;
}

int smp_auto_constructions(const smp_algorithm **algs)
{
    *algs = auto_order;
    return (int)(sizeof(auto_order) / sizeof(auto_order[0]));
}

bool smp_auto_tries(smp_algorithm alg, int64_t ranks)
{
    if (alg <= SMP_ALG_AUTO || alg >= SMP_ALG_COUNT || table[alg].auto_max_ranks == AUTO_NEVER)
        return false;
    return table[alg].auto_max_ranks == 0 || ranks <= table[alg].auto_max_ranks;
}

smp_status smp_run_construction(smp_algorithm alg, int fold, const smp_grid *grid,
                                const smp_stencil *st, const int32_t *cap,
                                const int32_t *dense_to_node, int ndense, int32_t *out,
                                smp_error *err)
{
    if (alg <= SMP_ALG_AUTO || alg >= SMP_ALG_COUNT)
        return smp_error_set(err, SMP_ERR_INPUT, "algorithm: not a construction");
    smp_construct_fn fn = table[alg].fn;
    smp_status s = fold < 0 ? fn(grid, st, cap, ndense, out, err)
                            : smp_place_folded(fn, grid, st, cap, ndense, fold, out, err);
    if (s)
        return s;
    for (int64_t r = 0; r < grid->size; r++)
        out[r] = dense_to_node[out[r]];
    return SMP_OK;
}
