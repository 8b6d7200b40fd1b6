/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* What every rank of a placed step is told: the STENCIL_MAP_* variables
 * and their values, as name/value pairs.  The plugin puts them into srun's
 * environment for the tasks of a step it placed; `stencil-map plan --env`
 * prints them for a launcher that starts the ranks itself (mpirun -x,
 * mpiexec -genv).  One owner, so that the two cannot drift apart, and the
 * in-job library reads them back (stencil_env.h).
 *
 * Not in the list: STENCIL_MAP_COORDS, which differs per rank (the
 * plugin's remote side sets it, else the library derives it from the
 * rank), and the plugin's own STENCIL_MAP_SOCKET_MAP/_RECORD/_SPEC. */
#ifndef SMP_TASK_ENV_H
#define SMP_TASK_ENV_H

#include <stencilmap/placement.h>

/* dims, periods, order, stencil, weights, algorithm, the four figures, and
 * with network levels their nodes, groups and planned figures */
#define SMP_TASK_ENV_MAX 14

typedef struct {
    const char *name; /* an SMP_ENV_* name */
    char *value;      /* malloc'd */
} smp_task_var;

typedef struct {
    int count;
    smp_task_var var[SMP_TASK_ENV_MAX];
} smp_task_env;

/* The variables of a step on grid g with stencil st, planned by alg with
 * the figures planned, beside blocked's: STENCIL_MAP_WEIGHTS only for a
 * weighted stencil.  On failure (out of memory) nothing is left to free. */
smp_status smp_task_env_build(smp_task_env *env, const smp_grid *g, const smp_stencil *st,
                              smp_algorithm alg, const smp_score *planned, const smp_score *blocked,
                              smp_error *err);
/* Appends the network levels the ranks check themselves against
 * (STENCIL_MAP_LEVEL_NODES, _LEVELS, _LEVEL_JSUM, _LEVEL_JMAX: the
 * step's node names in plan order, each level's group of each node, and
 * the planned inter-group figures level[l]) when lv has levels; nothing
 * when it has none.  A step with too many nodes for the environment
 * (SMP_ENV_LEVELS_MAX_LEN) gets nothing either and *too_long set (may be
 * NULL): its ranks then check the nodes only.  On failure (out of memory)
 * env is freed. */
smp_status smp_task_env_add_levels(smp_task_env *env, char *const *names, int nnodes,
                                   const smp_levels *lv, const smp_score *level, bool *too_long,
                                   smp_error *err);
void smp_task_env_free(smp_task_env *env);

#endif
