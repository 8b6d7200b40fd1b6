/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The network levels of a placed step, in the job: which group (leaf
 * switch, block) each node belongs to per level, read from the tasks'
 * environment (the text is stencil_env_levels.c's, shared with the
 * plugin), and the edges between groups counted from where the ranks
 * really run, as the plan counted them (smp_levels_score_compute: a
 * group's outgoing directed stencil edges to ranks of another group). */
#include <stdlib.h>
#include <string.h>

#include "formats/stencil_env.h"
#include "stencilmap.h"
#include "stencilmap_internal.h"

_Static_assert(STENCILMAP_MAX_LEVELS == SMP_ENV_MAX_LEVELS, "limits: levels in the environment");

void sm_levels_free(stencilmap_place *pl)
{
    if (pl->levels) {
        smp_env_levels_free(pl->levels);
        free(pl->levels);
    }
    pl->levels = NULL;
    pl->nlevels = 0;
    pl->has_level_planned = 0;
}

/* STENCIL_MAP_LEVEL_JSUM or _JMAX: one count per level */
static stencilmap_status parse_counts(const stencilmap_place *pl, const char *name, const char *s,
                                      int64_t *out, char *msg, size_t len)
{
    int n;
    if (smp_env_parse_list(name, s, STENCILMAP_MAX_LEVELS, 0, INT64_MAX, out, &n, msg, len))
        return STENCILMAP_ERR_ENV;
    if (n != pl->nlevels)
        return sm_msg(msg, len, STENCILMAP_ERR_ENV, "%s=%.60s has %d entries, %s has %d levels",
                      name, s, n, SMP_ENV_LEVELS, pl->nlevels);
    return STENCILMAP_OK;
}

stencilmap_status sm_levels_parse(stencilmap_place *pl, stencilmap_getenv_fn get, void *arg,
                                  char *msg, size_t len)
{
    const char *nodes = get(SMP_ENV_LEVEL_NODES, arg), *levels = get(SMP_ENV_LEVELS, arg);
    const char *js = get(SMP_ENV_LEVEL_JSUM, arg), *jm = get(SMP_ENV_LEVEL_JMAX, arg);
    if (!nodes && !levels && !js && !jm)
        return STENCILMAP_OK;
    if (!nodes || !levels || !js || !jm)
        return sm_msg(msg, len, STENCILMAP_ERR_ENV, "%s is set but %s is not",
                      nodes ? SMP_ENV_LEVEL_NODES : levels ? SMP_ENV_LEVELS
                                                  : js     ? SMP_ENV_LEVEL_JSUM
                                                           : SMP_ENV_LEVEL_JMAX,
                      !nodes ? SMP_ENV_LEVEL_NODES : !levels ? SMP_ENV_LEVELS
                                                   : !js     ? SMP_ENV_LEVEL_JSUM
                                                             : SMP_ENV_LEVEL_JMAX);
    smp_env_levels *lv = calloc(1, sizeof(*lv));
    if (!lv)
        return sm_msg(msg, len, STENCILMAP_ERR_NOMEM, "out of memory");
    pl->levels = lv;
    if (smp_env_parse_levels(nodes, levels, lv, msg, len))
        return STENCILMAP_ERR_ENV;
    pl->nlevels = lv->nlevels;
    stencilmap_status st;
    if ((st = parse_counts(pl, SMP_ENV_LEVEL_JSUM, js, pl->level_planned_jsum, msg, len)) ||
        (st = parse_counts(pl, SMP_ENV_LEVEL_JMAX, jm, pl->level_planned_jmax, msg, len)))
        return st;
    for (int l = 0; l < pl->nlevels; l++)
        if (pl->level_planned_jmax[l] > pl->level_planned_jsum[l])
            return sm_msg(msg, len, STENCILMAP_ERR_ENV, "%s=%.60s: level %d's J_max is larger "
                          "than its J_sum in %s=%.60s", SMP_ENV_LEVEL_JMAX, jm, l,
                          SMP_ENV_LEVEL_JSUM, js);
    pl->has_level_planned = 1;
    return STENCILMAP_OK;
}

int32_t stencilmap_node_group(const stencilmap_place *pl, int level, const char *node)
{
    if (!pl || !pl->levels || !node)
        return -1;
    return smp_env_levels_group(pl->levels, level, node);
}

/* Ranks a and b on the same group of one level (two nodes the levels do
 * not name are apart, unless they are one node). */
struct same_group {
    const stencilmap_place *pl;
    int level;
    sm_node_name_fn name_of;
    void *arg;
};

static int same_group(void *p, int64_t a, int64_t b)
{
    const struct same_group *sg = p;
    stencilmap_status st = STENCILMAP_OK;
    const char *na = sg->name_of(sg->arg, a, &st);
    const char *nb = na ? sg->name_of(sg->arg, b, &st) : NULL;
    if (!na || !nb)
        return st ? -(int)st : -(int)STENCILMAP_ERR_PMIX;
    int32_t ga = stencilmap_node_group(sg->pl, sg->level, na);
    int32_t gb = stencilmap_node_group(sg->pl, sg->level, nb);
    if (ga < 0 || gb < 0)
        return strcmp(na, nb) == 0;
    return ga == gb;
}

stencilmap_status sm_levels_rank_out(const stencilmap_place *pl, int64_t rank,
                                     sm_node_name_fn name_of, void *arg, int64_t *edges,
                                     double *weight)
{
    for (int l = 0; l < pl->nlevels; l++) {
        struct same_group sg = {pl, l, name_of, arg};
        stencilmap_status st =
            stencilmap_rank_out_edges(pl, rank, same_group, &sg, &edges[l], &weight[l]);
        if (st)
            return st;
    }
    return STENCILMAP_OK;
}

stencilmap_status sm_levels_aggregate(const stencilmap_place *pl, int64_t P, const int32_t *node,
                                      stencilmap_verify_result *res, const int64_t *edges,
                                      const double *weight)
{
    res->nlevels = pl->nlevels;
    res->has_level_planned = pl->has_level_planned;
    if (!pl->nlevels)
        return STENCILMAP_OK;
    const smp_env_levels *lv = pl->levels;
    /* groups 0..nnodes-1 of the levels, then one per node they do not name */
    int ngroups = lv->nnodes + res->nnodes;
    int32_t *group_of = malloc(sizeof(int32_t) * (size_t)(res->nnodes > 0 ? res->nnodes : 1));
    int64_t *out = malloc(sizeof(int64_t) * (size_t)ngroups);
    double *wout = malloc(sizeof(double) * (size_t)ngroups);
    if (!group_of || !out || !wout) {
        free(group_of);
        free(out);
        free(wout);
        return STENCILMAP_ERR_NOMEM;
    }
    for (int l = 0; l < pl->nlevels; l++) {
        for (int i = 0; i < res->nnodes; i++) {
            int32_t g = smp_env_levels_group(lv, l, res->node_names[i]);
            group_of[i] = g >= 0 ? g : lv->nnodes + i;
        }
        memset(out, 0, sizeof(int64_t) * (size_t)ngroups);
        memset(wout, 0, sizeof(double) * (size_t)ngroups);
        for (int64_t r = 0; r < P; r++) {
            out[group_of[node[r]]] += edges[(size_t)l * (size_t)P + (size_t)r];
            wout[group_of[node[r]]] += weight[(size_t)l * (size_t)P + (size_t)r];
        }
        int64_t js = 0, jm = 0;
        double ws = 0, wm = 0;
        for (int g = 0; g < ngroups; g++) {
            js += out[g];
            ws += wout[g];
            if (out[g] > jm)
                jm = out[g];
            if (wout[g] > wm)
                wm = wout[g];
        }
        res->level_planned_jsum[l] = pl->level_planned_jsum[l];
        res->level_planned_jmax[l] = pl->level_planned_jmax[l];
        res->level_observed_jsum[l] = js;
        res->level_observed_jmax[l] = jm;
        res->level_observed_wsum[l] = ws;
        res->level_observed_wmax[l] = wm;
    }
    free(group_of);
    free(out);
    free(wout);
    return STENCILMAP_OK;
}
