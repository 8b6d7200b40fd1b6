/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The network above the nodes for a plan made inside the job: the
 * STENCIL_MAP_LEVEL_NODES / STENCIL_MAP_LEVELS the plugin exports when it
 * planned on switches or blocks (their text is stencil_env_levels.c's),
 * matched to the nodes found here by name.  A node those variables do not
 * name leaves the plan without levels rather than guessing its switch. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "formats/stencil_env.h"
#include "mpix_internal.h"

/* group numbers of the environment renumbered densely over our nodes */
static int dense_groups(const smp_env_levels *env, int l, const smx_nodes *nodes, int32_t *out)
{
    int32_t *map = malloc(sizeof(int32_t) * (size_t)env->nnodes);
    if (!map)
        return -1;
    for (int i = 0; i < env->nnodes; i++)
        map[i] = -1;
    int ngroups = 0;
    for (int n = 0; n < nodes->nnodes; n++) {
        int32_t g = smp_env_levels_group(env, l, nodes->names[n]);
        if (g < 0 || g >= env->nnodes) {
            free(map);
            return -1;
        }
        if (map[g] < 0)
            map[g] = ngroups++;
        out[n] = map[g];
    }
    free(map);
    return ngroups;
}

void smx_levels_from_env(const smx_nodes *nodes, smp_levels *lv)
{
    memset(lv, 0, sizeof(*lv));
    const char *names = getenv(SMP_ENV_LEVEL_NODES), *levels = getenv(SMP_ENV_LEVELS);
    if (!names || !levels)
        return;
    smp_env_levels env;
    memset(&env, 0, sizeof(env));
    char msg[256];
    if (smp_env_parse_levels(names, levels, &env, msg, sizeof(msg)) || env.nlevels > SMP_MAX_LEVELS) {
        smp_env_levels_free(&env);
        return;
    }
    lv->nnodes = nodes->nnodes;
    for (int l = 0; l < env.nlevels; l++) {
        lv->group_of_node[l] = malloc(sizeof(int32_t) * (size_t)nodes->nnodes);
        lv->nlevels = l + 1;
        if (!lv->group_of_node[l] ||
            (lv->ngroups[l] = dense_groups(&env, l, nodes, lv->group_of_node[l])) < 0) {
            smp_levels_free(lv);
            smp_env_levels_free(&env);
            return;
        }
    }
    smp_env_levels_free(&env);
    snprintf(lv->source, sizeof(lv->source), "%s", SMP_ENV_LEVELS);
    smp_error err;
    if (smp_levels_check(lv, nodes->nnodes, &err) != SMP_OK)
        smp_levels_free(lv);
}
