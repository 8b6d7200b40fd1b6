/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* From a topology to the levels of one step's nodes (smp_levels): each
 * node's leaf switch or base block, then its ancestors one step up at a
 * time.  Only the step's nodes count; levels that do not split them, or
 * split them as the level below does, are dropped, so a step inside one
 * leaf switch gets no levels at all and plans as without a topology. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "topology_internal.h"

#define SMT_MAX_DEPTH 64 /* ancestors followed; Slurm stops trees at 20 */

static smp_status leaf_of(const smt_topology *t, const char *node, int32_t *leaf, smp_error *err)
{
    int64_t cnt, at = smt_members_of(t, node, &cnt);
    *leaf = -1;
    for (int64_t i = at; i < at + cnt; i++) {
        int32_t u = t->m[i].unit;
        if (*leaf >= 0 && *leaf != u)
            return smp_error_set(err, SMP_ERR_INPUT,
                                 "topology %s: node %s is in both %s '%s' and '%s'", t->source,
                                 node, t->kind == SMT_BLOCK ? "blocks" : "leaf switches",
                                 t->u[*leaf].name, t->u[u].name);
        *leaf = u;
    }
    return SMP_OK;
}

/* Each step node's leaf into leaf[]; an error when a node is in two, when
 * none is in the topology, or when one is missing. */
static smp_status find_leaves(const smt_topology *t, const smp_nodes *nodes, int32_t *leaf,
                              smp_error *err)
{
    int n = nodes->count, found = 0, missing = -1;
    smp_status s = SMP_OK;
    for (int v = 0; v < n && !s; v++) {
        s = leaf_of(t, nodes->names[v], &leaf[v], err);
        if (leaf[v] >= 0)
            found++;
        else if (missing < 0)
            missing = v;
    }
    if (!s && found == 0)
        s = smp_error_set(err, SMP_ERR_INPUT,
                          "topology %s names none of the step's nodes (%s%s): is it this "
                          "cluster's?", t->source, nodes->names[0], n > 1 ? ", ..." : "");
    else if (!s && missing >= 0)
        s = smp_error_set(err, SMP_ERR_INPUT, "topology %s: node %s is in no %s", t->source,
                          nodes->names[missing], t->kind == SMT_BLOCK ? "block" : "switch");
    return s;
}

/* The longest chain above the step's leaves (deeper ones are cut). */
static int chain_depth(const smt_topology *t, const int32_t *leaf, int n)
{
    int depth = 1;
    for (int v = 0; v < n; v++) {
        int d = 1;
        for (int32_t u = t->u[leaf[v]].parent; u >= 0 && d < SMT_MAX_DEPTH; u = t->u[u].parent)
            d++;
        if (d > depth)
            depth = d;
    }
    return depth;
}

/* anc[d * n + v]: node v's ancestor d steps above its leaf (the top one
 * when the chain is shorter). */
static void fill_ancestors(const smt_topology *t, const int32_t *leaf, int n, int depth,
                           int32_t *anc)
{
    memcpy(anc, leaf, sizeof(int32_t) * (size_t)n);
    for (int d = 1; d < depth; d++) {
        for (int v = 0; v < n; v++) {
            int32_t up = t->u[anc[(size_t)(d - 1) * n + v]].parent;
            anc[(size_t)d * n + v] = up >= 0 ? up : anc[(size_t)(d - 1) * n + v];
        }
    }
}

/* Each candidate level as dense group numbers, in order of first use:
 * groups[d][v], ngroups[d]; dense: scratch, one entry per unit. */
static smp_status dense_groups(const int32_t *anc, int n, int depth, int32_t *dense,
                               int32_t **groups, int *ngroups, smp_error *err)
{
    for (int d = 0; d < depth; d++) {
        if (!(groups[d] = malloc(sizeof(int32_t) * (size_t)n)))
            return smp_error_set(err, SMP_ERR_SYSTEM, "topology: out of memory");
        for (int v = 0; v < n; v++)
            dense[anc[(size_t)d * n + v]] = -1;
        for (int v = 0; v < n; v++) {
            int32_t u = anc[(size_t)d * n + v];
            if (dense[u] < 0)
                dense[u] = ngroups[d]++;
            groups[d][v] = dense[u];
        }
    }
    return SMP_OK;
}

/* The candidate levels kept, into keep[]: those that split the step's
 * nodes, and split them more coarsely than the level below (nested: equal
 * counts, equal groups); past SMP_MAX_LEVELS the finest ones and the
 * coarsest.  Their count. */
static int levels_kept(const int *ngroups, int depth, int *keep)
{
    int nkeep = 0;
    for (int d = 0; d < depth; d++)
        if (ngroups[d] > 1 && (d == 0 || ngroups[d] != ngroups[d - 1]))
            keep[nkeep++] = d;
    if (nkeep > SMP_MAX_LEVELS) {
        keep[SMP_MAX_LEVELS - 1] = keep[nkeep - 1];
        nkeep = SMP_MAX_LEVELS;
    }
    return nkeep;
}

/* The kept levels into out, their groups taken from groups[] and named
 * after the units. */
static smp_status take_levels(const smt_topology *t, const int32_t *anc, int n, const int *keep,
                              int nkeep, int32_t **groups, const int *ngroups, smp_levels *out,
                              smp_error *err)
{
    for (int l = 0; l < nkeep; l++) {
        int d = keep[l];
        out->ngroups[l] = ngroups[d];
        out->group_of_node[l] = groups[d];
        groups[d] = NULL;
        out->nlevels = l + 1;
        if (!(out->group_names[l] = calloc((size_t)ngroups[d], sizeof(char *))))
            return smp_error_set(err, SMP_ERR_SYSTEM, "topology: out of memory");
        for (int v = 0; v < n; v++) {
            int32_t g = out->group_of_node[l][v];
            if (!out->group_names[l][g] &&
                !(out->group_names[l][g] = strdup(t->u[anc[(size_t)d * n + v]].name)))
                return smp_error_set(err, SMP_ERR_SYSTEM, "topology: out of memory");
        }
    }
    return SMP_OK;
}

smp_status smt_levels_for(const smt_topology *t, const smp_nodes *nodes, smp_levels *out,
                          smp_error *err)
{
    memset(out, 0, sizeof(*out));
    snprintf(out->source, sizeof(out->source), "%s", t->source);
    out->nnodes = nodes->count;
    if (t->n == 0 || nodes->count == 0)
        return SMP_OK;
    int n = nodes->count;
    int32_t *leaf = malloc(sizeof(int32_t) * (size_t)n), *anc = NULL;
    int32_t *dense = malloc(sizeof(int32_t) * (size_t)t->n);
    int32_t *groups[SMT_MAX_DEPTH] = {0};
    int ngroups[SMT_MAX_DEPTH] = {0};
    smp_status s = SMP_OK;
    if (!leaf || !dense) {
        s = smp_error_set(err, SMP_ERR_SYSTEM, "topology: out of memory");
        goto done;
    }
    if ((s = find_leaves(t, nodes, leaf, err)))
        goto done;
    int depth = chain_depth(t, leaf, n);
    if (!(anc = malloc(sizeof(int32_t) * (size_t)n * (size_t)depth))) {
        s = smp_error_set(err, SMP_ERR_SYSTEM, "topology: out of memory");
        goto done;
    }
    fill_ancestors(t, leaf, n, depth, anc);
    if ((s = dense_groups(anc, n, depth, dense, groups, ngroups, err)))
        goto done;
    int keep[SMT_MAX_DEPTH];
    int nkeep = levels_kept(ngroups, depth, keep);
    s = take_levels(t, anc, n, keep, nkeep, groups, ngroups, out, err);
done:
    for (int d = 0; d < SMT_MAX_DEPTH; d++)
        free(groups[d]);
    free(anc);
    free(leaf);
    free(dense);
    if (s)
        smp_levels_free(out);
    return s;
}
