/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The network levels above the nodes as plain data: checking them, scoring
 * a placement between the groups of each level, and the levelled order of
 * two placements.  The planner on levels is plan_levels.c; reading a
 * topology is topology/'s job, not the core's. */
#include <stdlib.h>
#include <string.h>

#include "model/model.h"
#include "model/edges.h"
#include "model/quotient.h"

void smp_levels_free(smp_levels *lv)
{
    if (!lv)
        return;
    for (int l = 0; l < SMP_MAX_LEVELS; l++) {
        free(lv->group_of_node[l]);
        if (lv->group_names[l])
            for (int g = 0; g < lv->ngroups[l]; g++)
                free(lv->group_names[l][g]);
        free(lv->group_names[l]);
    }
    memset(lv, 0, sizeof(*lv));
}

smp_status smp_levels_check(const smp_levels *lv, int nnodes, smp_error *err)
{
    if (lv->nlevels < 0 || lv->nlevels > SMP_MAX_LEVELS)
        return smp_error_set(err, SMP_ERR_INPUT, "levels: %d given, at most %d", lv->nlevels,
                             SMP_MAX_LEVELS);
    if (lv->nlevels == 0)
        return SMP_OK;
    if (lv->nnodes != nnodes)
        return smp_error_set(err, SMP_ERR_INPUT, "levels: made for %d nodes, the step has %d",
                             lv->nnodes, nnodes);
    for (int l = 0; l < lv->nlevels; l++) {
        if (lv->ngroups[l] < 1 || lv->ngroups[l] > nnodes)
            return smp_error_set(err, SMP_ERR_INPUT, "levels[%d]: %d groups for %d nodes", l,
                                 lv->ngroups[l], nnodes);
        if (!lv->group_of_node[l])
            return smp_error_set(err, SMP_ERR_INPUT, "levels[%d]: no groups given", l);
        for (int n = 0; n < nnodes; n++)
            if (lv->group_of_node[l][n] < 0 || lv->group_of_node[l][n] >= lv->ngroups[l])
                return smp_error_set(err, SMP_ERR_INPUT, "levels[%d]: node %d in group %d of %d",
                                     l, n, (int)lv->group_of_node[l][n], lv->ngroups[l]);
    }
    /* nesting: the parent of each group of level l, the first node's */
    for (int l = 0; l + 1 < lv->nlevels; l++) {
        int32_t *parent = malloc(sizeof(int32_t) * (size_t)lv->ngroups[l]);
        if (!parent)
            return smp_error_set(err, SMP_ERR_SYSTEM, "levels: out of memory");
        for (int g = 0; g < lv->ngroups[l]; g++)
            parent[g] = -1;
        smp_status s = SMP_OK;
        for (int n = 0; n < nnodes && !s; n++) {
            int32_t g = lv->group_of_node[l][n], up = lv->group_of_node[l + 1][n];
            if (parent[g] < 0)
                parent[g] = up;
            else if (parent[g] != up)
                s = smp_error_set(err, SMP_ERR_INPUT,
                                  "levels[%d]: group %d lies in groups %d and %d of level %d "
                                  "(node %d)",
                                  l, (int)g, (int)parent[g], (int)up, l + 1, n);
        }
        free(parent);
        if (s)
            return s;
    }
    return SMP_OK;
}

/* Rank r's cut edges (r at coordinates c) counted against the groups
 * they leave, in entry order; inner: every entry lands at r + delta. */
static inline void rank_levels(const smp_edge_walk *w, const smp_stencil *st,
                               const int32_t *node_of_rank, const smp_levels *lv, int64_t r,
                               const int64_t *c, bool inner, int64_t **cnt, double **wt)
{
    int32_t me = node_of_rank[r];
    for (int o = 0; o < w->count; o++) {
        int64_t t = inner ? r + w->delta[o] : smp_edge_target(w, c, r, o);
        if (t < 0 || node_of_rank[t] == me)
            continue;
        int32_t other = node_of_rank[t];
        double wo = st->weights ? st->weights[o] : 1.0;
        /* a pair of nodes in one group of level l is in one group of
         * every level above */
        for (int l = 0; l < lv->nlevels; l++) {
            int32_t g = lv->group_of_node[l][me];
            if (g == lv->group_of_node[l][other])
                break;
            cnt[l][g]++;
            wt[l][g] += wo;
        }
    }
}

/* Every edge in rank, then entry, order (the weights' floating sums keep
 * it), a row of the fastest dimension at a time: its interior ranks are
 * known by one test per row. */
static void levels_walk(const smp_edge_walk *w, const smp_stencil *st,
                        const int32_t *node_of_rank, const smp_levels *lv, int64_t **cnt,
                        double **wt)
{
    smp_edge_rows it;
    for (smp_edge_rows_first(w, &it); it.r < w->grid->size; smp_edge_rows_next(w, &it))
        for (it.c[it.f] = 0; it.c[it.f] < it.len; it.c[it.f]++)
            rank_levels(w, st, node_of_rank, lv, it.r + it.c[it.f], it.c, smp_edge_rows_inner(&it),
                        cnt, wt);
}

/* The figures of each level from the groups' counts and weights. */
static void levels_result(const smp_levels *lv, int64_t *const *cnt, double *const *wt,
                          smp_score *per_level)
{
    for (int l = 0; l < lv->nlevels; l++) {
        smp_score *sc = &per_level[l];
        for (int g = 0; g < lv->ngroups[l]; g++) {
            sc->j_sum += cnt[l][g];
            sc->w_sum += wt[l][g];
            if (cnt[l][g] > sc->j_max) {
                sc->j_max = cnt[l][g];
                sc->j_max_node = g;
            }
            if (wt[l][g] > sc->w_max)
                sc->w_max = wt[l][g];
        }
    }
}

/* Zeroed counts and weights per group of every level; false when out of
 * memory (levels_free frees what was got). */
static bool levels_alloc(const smp_levels *lv, int64_t **cnt, double **wt)
{
    bool ok = true;
    for (int l = 0; l < lv->nlevels && ok; l++)
        ok = (cnt[l] = calloc((size_t)lv->ngroups[l], sizeof(int64_t))) &&
             (wt[l] = calloc((size_t)lv->ngroups[l], sizeof(double)));
    return ok;
}

static void levels_free(int64_t **cnt, double **wt)
{
    for (int l = 0; l < SMP_MAX_LEVELS; l++) {
        free(cnt[l]);
        free(wt[l]);
    }
}

smp_status smp_levels_score_quotient(const smp_quotient *q, const int32_t *phys,
                                     const smp_levels *lv, smp_score *per_level, smp_error *err)
{
    memset(per_level, 0, sizeof(smp_score) * (size_t)lv->nlevels);
    int64_t *cnt[SMP_MAX_LEVELS] = {0};
    double *wt[SMP_MAX_LEVELS] = {0};
    if (!levels_alloc(lv, cnt, wt)) {
        levels_free(cnt, wt);
        return smp_error_set(err, SMP_ERR_SYSTEM, "levels: out of memory");
    }
    for (int u = 0; u < q->n; u++) {
        int32_t me = phys ? phys[u] : u;
        for (int64_t i = q->start[u]; i < q->start[u + 1]; i++) {
            int32_t other = phys ? phys[q->nb[i]] : q->nb[i];
            int64_t c = (int64_t)q->wout[i]; /* a count: no weights */
            for (int l = 0; l < lv->nlevels && c > 0; l++) {
                int32_t g = lv->group_of_node[l][me];
                if (g == lv->group_of_node[l][other])
                    break;
                cnt[l][g] += c;
                wt[l][g] += (double)c;
            }
        }
    }
    levels_result(lv, cnt, wt, per_level);
    levels_free(cnt, wt);
    return SMP_OK;
}

smp_status smp_levels_score_compute(const smp_grid *grid, const smp_stencil *st,
                                    const int32_t *node_of_rank, int nnodes, const smp_levels *lv,
                                    smp_score *per_level, smp_error *err)
{
    smp_status s = smp_levels_check(lv, nnodes, err);
    if (s)
        return s;
    int nl = lv->nlevels;
    memset(per_level, 0, sizeof(smp_score) * (size_t)nl);
    if (nl == 0)
        return SMP_OK;
    for (int64_t r = 0; r < grid->size; r++)
        if (node_of_rank[r] < 0 || node_of_rank[r] >= nnodes)
            return smp_error_set(err, SMP_ERR_INPUT, "placement: rank %lld is on node %d of %d",
                                 (long long)r, node_of_rank[r], nnodes);
    if (st->ndims != grid->ndims)
        return smp_error_set(err, SMP_ERR_INPUT, "stencil: has %d dimensions but the grid has %d",
                             st->ndims, grid->ndims);
    int64_t *cnt[SMP_MAX_LEVELS] = {0};
    double *wt[SMP_MAX_LEVELS] = {0};
    if (!levels_alloc(lv, cnt, wt))
        s = smp_error_set(err, SMP_ERR_SYSTEM, "levels: out of memory");
    smp_edge_walk w;
    smp_status ws = smp_edge_walk_init(&w, grid, st, false, err);
    if (!s)
        s = ws;
    if (!s) {
        levels_walk(&w, st, node_of_rank, lv, cnt, wt);
        levels_result(lv, cnt, wt, per_level);
    }
    smp_edge_walk_free(&w);
    levels_free(cnt, wt);
    return s;
}

bool smp_levels_better(const smp_score *a_levels, const smp_score *a_nodes,
                       const smp_score *b_levels, const smp_score *b_nodes, int nlevels,
                       bool weighted, smp_objective obj)
{
    for (int l = nlevels - 1; l >= 0; l--) {
        if (smp_score_better_for(&a_levels[l], &b_levels[l], weighted, obj))
            return true;
        if (smp_score_better_for(&b_levels[l], &a_levels[l], weighted, obj))
            return false;
    }
    return smp_score_better_for(a_nodes, b_nodes, weighted, obj);
}

static const char *const mode_names[SMP_LEVELS_MODE_COUNT] = {"best", "groups-first",
                                                              "nodes-first"};

const char *smp_levels_mode_name(smp_levels_mode mode)
{
    return mode >= 0 && mode < SMP_LEVELS_MODE_COUNT ? mode_names[mode] : "unknown";
}

bool smp_levels_mode_from_name(const char *name, smp_levels_mode *mode)
{
    for (int m = 0; name && m < SMP_LEVELS_MODE_COUNT; m++)
        if (!strcmp(name, mode_names[m])) {
            *mode = (smp_levels_mode)m;
            return true;
        }
    return false;
}
