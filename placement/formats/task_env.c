/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The STENCIL_MAP_* variables of a placed step's ranks (task_env.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "formats/stencil_env.h"
#include "formats/task_env.h"

static int add(smp_task_env *env, const char *name, char *value)
{
    if (!value)
        return -1;
    env->var[env->count].name = name;
    env->var[env->count].value = value;
    env->count++;
    return 0;
}

static char *list_text(const int64_t *v, int n)
{
    char buf[SMP_ENV_LIST_LEN];
    smp_env_format_list(buf, sizeof(buf), v, n);
    return strdup(buf);
}

static char *int_text(int64_t v)
{
    char buf[32];
    snprintf(buf, sizeof(buf), "%lld", (long long)v);
    return strdup(buf);
}

/* "1,0.5,2": the weights as the in-job library parses them, exactly */
static char *weights_text(const smp_stencil *st)
{
    size_t cap = (size_t)st->count * 32 + 16, off = 0;
    char *buf = malloc(cap);
    if (!buf)
        return NULL;
    buf[0] = '\0';
    for (int k = 0; k < st->count; k++)
        off += (size_t)snprintf(buf + off, cap - off, "%s%.17g", k ? "," : "", st->weights[k]);
    return buf;
}

smp_status smp_task_env_build(smp_task_env *env, const smp_grid *g, const smp_stencil *st,
                              smp_algorithm alg, const smp_score *planned, const smp_score *blocked,
                              smp_error *err)
{
    memset(env, 0, sizeof(*env));
    int64_t per[SMP_MAX_DIMS];
    for (int i = 0; i < g->ndims; i++)
        per[i] = g->periods[i] ? 1 : 0;
    int rc = add(env, SMP_ENV_DIMS, list_text(g->dims, g->ndims));
    rc |= add(env, SMP_ENV_PERIODS, list_text(per, g->ndims));
    /* how the ranks number the grid: the remote side's coordinates and the
     * in-job library's neighbours follow it */
    rc |= add(env, SMP_ENV_ORDER, strdup(smp_order_name(g->order)));
    rc |= add(env, SMP_ENV_STENCIL, smp_env_format_stencil(st->offsets, st->count, st->ndims));
    if (smp_stencil_weighted(st))
        rc |= add(env, SMP_ENV_WEIGHTS, weights_text(st));
    rc |= add(env, SMP_ENV_ALGORITHM, strdup(smp_algorithm_name(alg)));
    rc |= add(env, SMP_ENV_JSUM, int_text(planned->j_sum));
    rc |= add(env, SMP_ENV_JMAX, int_text(planned->j_max));
    rc |= add(env, SMP_ENV_BLOCKED_JSUM, int_text(blocked->j_sum));
    rc |= add(env, SMP_ENV_BLOCKED_JMAX, int_text(blocked->j_max));
    if (rc) {
        smp_task_env_free(env);
        return smp_error_set(err, SMP_ERR_SYSTEM, "task environment: out of memory");
    }
    return SMP_OK;
}

smp_status smp_task_env_add_levels(smp_task_env *env, char *const *names, int nnodes,
                                   const smp_levels *lv, const smp_score *level, bool *too_long,
                                   smp_error *err)
{
    if (too_long)
        *too_long = false;
    if (!lv || lv->nlevels < 1)
        return SMP_OK;
    int long_text = 0;
    char *nodes = smp_env_format_level_nodes(names, nnodes, &long_text);
    char *groups = nodes ? smp_env_format_levels(lv->group_of_node, lv->nlevels, nnodes, &long_text)
                         : NULL;
    if (!nodes || !groups) {
        free(nodes);
        free(groups);
        if (long_text) {
            if (too_long)
                *too_long = true;
            return SMP_OK;
        }
        smp_task_env_free(env);
        return smp_error_set(err, SMP_ERR_SYSTEM, "task environment: out of memory");
    }
    int64_t js[SMP_MAX_LEVELS], jm[SMP_MAX_LEVELS];
    for (int l = 0; l < lv->nlevels; l++) {
        js[l] = level[l].j_sum;
        jm[l] = level[l].j_max;
    }
    int rc = add(env, SMP_ENV_LEVEL_NODES, nodes);
    rc |= add(env, SMP_ENV_LEVELS, groups);
    rc |= add(env, SMP_ENV_LEVEL_JSUM, list_text(js, lv->nlevels));
    rc |= add(env, SMP_ENV_LEVEL_JMAX, list_text(jm, lv->nlevels));
    if (rc) {
        smp_task_env_free(env);
        return smp_error_set(err, SMP_ERR_SYSTEM, "task environment: out of memory");
    }
    return SMP_OK;
}

void smp_task_env_free(smp_task_env *env)
{
    for (int i = 0; i < env->count; i++)
        free(env->var[i].value);
    memset(env, 0, sizeof(*env));
}
