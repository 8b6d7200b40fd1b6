/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* From a topology to the levels of one step's nodes (smp_levels): each
 * node's leaf switch or base block, then its ancestors one step up at a
 * time.  Only the step's nodes count; levels that do not split them, or
 * split them as the level below does, are dropped, so a step inside one
 * leaf switch gets no levels at all and plans as without a topology. */
#define _GNU_SOURCE /* qsort_r */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "topology_internal.h"

#define SMT_MAX_DEPTH 64 /* ancestors followed; Slurm stops trees at 20 */

/* Where the step's nodes sit: base[v] the first leaf unit of node v (-1
 * when none), key[v] its level-0 group key: the leaf unit, n_units + a
 * set number for a node under several leaves (rails, or several blocks),
 * n_units + n + v for a node in none (a group of its own). */
struct seats {
    const smt_topology *t;
    const smp_nodes *nodes;
    int32_t *base, *key;
    int64_t *at, *cnt; /* each node's range of t->m */
    int nrails, nmissing, found, minrails, maxrails;
    int first_rails, first_missing; /* the first such node, -1 */
    char **setname; /* by set number: the leaves joined by '+' */
    int nsets;
};

static const char *leaf_word(const smt_topology *t)
{
    return t->kind == SMT_BLOCK ? "block" : "switch";
}

/* Sorts nodes by their set of leaves (t->m's units for the node, sorted). */
static int cmp_sets(const void *a, const void *b, void *ctx)
{
    const struct seats *st = ctx;
    int x = *(const int *)a, y = *(const int *)b;
    if (st->cnt[x] != st->cnt[y])
        return st->cnt[x] < st->cnt[y] ? -1 : 1;
    for (int64_t i = 0; i < st->cnt[x]; i++) {
        int32_t ux = st->t->m[st->at[x] + i].unit, uy = st->t->m[st->at[y] + i].unit;
        if (ux != uy)
            return ux < uy ? -1 : 1;
    }
    return 0;
}

/* The name of a set of leaves: "l1+l2+..." */
static char *set_name(const struct seats *st, int v)
{
    size_t len = 1;
    for (int64_t i = 0; i < st->cnt[v]; i++)
        len += strlen(st->t->u[st->t->m[st->at[v] + i].unit].name) + 1;
    char *name = malloc(len);
    if (!name)
        return NULL;
    name[0] = '\0';
    for (int64_t i = 0; i < st->cnt[v]; i++) {
        if (i)
            strcat(name, "+");
        strcat(name, st->t->u[st->t->m[st->at[v] + i].unit].name);
    }
    return name;
}

/* Numbers the distinct sets of leaves of the rails nodes. */
static smp_status number_sets(struct seats *st, smp_error *err)
{
    int *order = malloc(sizeof(int) * (size_t)(st->nrails ? st->nrails : 1)), k = 0;
    st->setname = calloc((size_t)(st->nrails ? st->nrails : 1), sizeof(char *));
    if (!order || !st->setname) {
        free(order);
        return smp_error_set(err, SMP_ERR_SYSTEM, "topology: out of memory");
    }
    for (int v = 0; v < st->nodes->count; v++)
        if (st->cnt[v] > 1)
            order[k++] = v;
    qsort_r(order, (size_t)k, sizeof(int), cmp_sets, st);
    smp_status s = SMP_OK;
    for (int i = 0; i < k && !s; i++) {
        if (i == 0 || cmp_sets(&order[i - 1], &order[i], st)) {
            if (!(st->setname[st->nsets++] = set_name(st, order[i])))
                s = smp_error_set(err, SMP_ERR_SYSTEM, "topology: out of memory");
        }
        st->key[order[i]] = st->t->n + st->nsets - 1;
    }
    free(order);
    return s;
}

/* Each step node's leaves; distinct units only (a node listed twice under
 * one leaf is there once). */
static void seat_node(struct seats *st, int v)
{
    const smt_topology *t = st->t;
    int64_t cnt, at = smt_members_of(t, st->nodes->names[v], &cnt), k = 0;
    for (int64_t i = at; i < at + cnt; i++) /* members are sorted by unit: drop repeats */
        if (i == at || t->m[i].unit != t->m[i - 1].unit)
            k++;
    st->at[v] = at;
    st->cnt[v] = k > 1 ? cnt : k; /* a node listed twice under one leaf is there once */
    st->base[v] = cnt ? t->m[at].unit : -1;
    st->key[v] = cnt ? t->m[at].unit : t->n + st->nodes->count + v;
    if (cnt)
        st->found++;
    if (st->cnt[v] > 1 && st->nrails++ == 0)
        st->first_rails = v;
    if (k > st->maxrails)
        st->maxrails = (int)k;
    if (k > 1 && (st->minrails == 0 || k < st->minrails))
        st->minrails = (int)k;
    if (!cnt && st->nmissing++ == 0)
        st->first_missing = v;
}
/* The step nodes in no leaf, "n5, n9 are" (cut short with ", ..."). */
static void missing_names(const struct seats *st, char *buf, size_t len)
{
    size_t k = 0;
    buf[0] = '\0';
    for (int v = 0; v < st->nodes->count && k + 40 < len; v++)
        if (st->key[v] >= st->t->n + st->nodes->count)
            k += (size_t)snprintf(buf + k, len - k, "%s%s", k ? ", " : "", st->nodes->names[v]);
    if (k + 40 >= len)
        snprintf(buf + k, len - k, ", ...");
    k = strlen(buf);
    snprintf(buf + k, len - k, " %s", st->nmissing > 1 ? "are" : "is");
}

/* Seats every step node; with strict, today's refusals of a node under
 * two leaves or in none.  The warnings go to *notes.  An error when the
 * topology names none of the step's nodes. */
static smp_status find_seats(struct seats *st, bool strict, char **notes, smp_error *err)
{
    const smt_topology *t = st->t;
    const smp_nodes *nodes = st->nodes;
    int n = nodes->count;
    st->first_rails = st->first_missing = -1;
    for (int v = 0; v < n; v++)
        seat_node(st, v);
    if (st->found == 0)
        return smp_error_set(err, SMP_ERR_INPUT,
                             "topology %s names none of the step's nodes (%s%s): is it this "
                             "cluster's?", t->source, nodes->names[0], n > 1 ? ", ..." : "");
    int r = st->first_rails, m = st->first_missing;
    if (strict && r >= 0)
        return smp_error_set(err, SMP_ERR_INPUT, "topology %s: node %s is in both %s '%s' and '%s'",
                             t->source, nodes->names[r],
                             t->kind == SMT_BLOCK ? "blocks" : "leaf switches",
                             t->u[t->m[st->at[r]].unit].name, t->u[t->m[st->at[r] + 1].unit].name);
    if (strict && m >= 0)
        return smp_error_set(err, SMP_ERR_INPUT, "topology %s: node %s is in no %s", t->source,
                             nodes->names[m], leaf_word(t));
    char more[32] = "", count[32];
    if (st->nrails > 1)
        snprintf(more, sizeof(more), " (and %d more)", st->nrails - 1);
    if (st->minrails < st->maxrails)
        snprintf(count, sizeof(count), "%d to %d", st->minrails, st->maxrails);
    else
        snprintf(count, sizeof(count), "%d", st->maxrails);
    if (r >= 0)
        smt_note(notes, "topology %s: node %s%s is under %s %s: grouped with the nodes under "
                 "the same set", t->source, nodes->names[r], more, count,
                 t->kind == SMT_BLOCK ? "blocks" : "leaf switches (rails)");
    if (m >= 0) {
        char names[256];
        missing_names(st, names, sizeof(names));
        smt_note(notes, "topology %s: node%s %s in no %s: %sa group of its own at every level",
                 t->source, st->nmissing > 1 ? "s" : "", names, leaf_word(t),
                 st->nmissing > 1 ? "each " : "");
    }
    return r >= 0 ? number_sets(st, err) : SMP_OK;
}

/* The longest chain above the step's leaves (deeper ones are cut). */
static int chain_depth(const smt_topology *t, const int32_t *base, int n)
{
    int depth = 1;
    for (int v = 0; v < n; v++) {
        int d = 1;
        for (int32_t u = base[v] >= 0 ? t->u[base[v]].parent : -1; u >= 0 && d < SMT_MAX_DEPTH;
             u = t->u[u].parent)
            d++;
        if (d > depth)
            depth = d;
    }
    return depth;
}

/* anc[d * n + v]: node v's group key d steps above its leaf: level 0 its
 * key, then the ancestors of its first leaf (the top one when the chain
 * is shorter; a node in no leaf keeps its own key). */
static void fill_ancestors(const smt_topology *t, const struct seats *st, int n, int depth,
                           int32_t *anc)
{
    memcpy(anc, st->key, sizeof(int32_t) * (size_t)n);
    for (int d = 1; d < depth; d++) {
        for (int v = 0; v < n; v++) {
            int32_t below = anc[(size_t)(d - 1) * n + v];
            int32_t from = d == 1 ? st->base[v] : below;
            int32_t up = from >= 0 && from < t->n ? t->u[from].parent : -1;
            anc[(size_t)d * n + v] = up >= 0 ? up : below;
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

/* The name of group key k: a unit's, a set of leaves', or a node's. */
static const char *key_name(const struct seats *st, int32_t k)
{
    const smt_topology *t = st->t;
    if (k < t->n)
        return t->u[k].name;
    if (k < t->n + st->nodes->count)
        return st->setname[k - t->n];
    return st->nodes->names[k - t->n - st->nodes->count];
}

/* The kept levels into out, their groups taken from groups[] and named
 * after the units. */
static smp_status take_levels(const struct seats *st, const int32_t *anc, const int *keep,
                              int nkeep, int32_t **groups, const int *ngroups, smp_levels *out,
                              smp_error *err)
{
    int n = st->nodes->count;
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
                !(out->group_names[l][g] = strdup(key_name(st, anc[(size_t)d * n + v]))))
                return smp_error_set(err, SMP_ERR_SYSTEM, "topology: out of memory");
        }
    }
    return SMP_OK;
}

/* The levels from the seated nodes. */
static smp_status levels_of_seats(const struct seats *st, smp_levels *out, smp_error *err)
{
    int n = st->nodes->count, depth = chain_depth(st->t, st->base, n);
    int32_t *anc = malloc(sizeof(int32_t) * (size_t)n * (size_t)depth);
    int32_t *dense = malloc(sizeof(int32_t) * ((size_t)st->t->n + 2 * (size_t)n));
    int32_t *groups[SMT_MAX_DEPTH] = {0};
    int ngroups[SMT_MAX_DEPTH] = {0}, keep[SMT_MAX_DEPTH];
    smp_status s = SMP_OK;
    if (!anc || !dense)
        s = smp_error_set(err, SMP_ERR_SYSTEM, "topology: out of memory");
    if (!s) {
        fill_ancestors(st->t, st, n, depth, anc);
        s = dense_groups(anc, n, depth, dense, groups, ngroups, err);
    }
    if (!s)
        s = take_levels(st, anc, keep, levels_kept(ngroups, depth, keep), groups, ngroups, out,
                        err);
    for (int d = 0; d < SMT_MAX_DEPTH; d++)
        free(groups[d]);
    free(anc);
    free(dense);
    return s;
}

static smp_status hand_notes(char *notes, char **warnings)
{
    if (warnings)
        *warnings = notes;
    else
        free(notes);
    return SMP_OK;
}

smp_status smt_levels_with(const smt_topology *t, const smp_nodes *nodes, bool strict,
                           smp_levels *out, char **warnings, smp_error *err)
{
    memset(out, 0, sizeof(*out));
    char *notes = NULL;
    snprintf(out->source, sizeof(out->source), "%s", t->source);
    out->nnodes = nodes->count;
    if (strict && t->strict_msg[0])
        return smp_error_set(err, SMP_ERR_INPUT, "%s", t->strict_msg);
    if (t->notes)
        smt_note(&notes, "%.*s", (int)strlen(t->notes) - 1, t->notes);
    if (t->n == 0 || nodes->count == 0)
        return hand_notes(notes, warnings);
    int n = nodes->count;
    struct seats st = {.t = t, .nodes = nodes};
    st.base = malloc(sizeof(int32_t) * (size_t)n);
    st.key = malloc(sizeof(int32_t) * (size_t)n);
    st.at = malloc(sizeof(int64_t) * (size_t)n);
    st.cnt = malloc(sizeof(int64_t) * (size_t)n);
    smp_status s = SMP_OK;
    if (!st.base || !st.key || !st.at || !st.cnt)
        s = smp_error_set(err, SMP_ERR_SYSTEM, "topology: out of memory");
    if (!s)
        s = find_seats(&st, strict, &notes, err);
    if (!s)
        s = levels_of_seats(&st, out, err);
    for (int i = 0; i < st.nsets; i++)
        free(st.setname[i]);
    free(st.setname);
    free(st.base);
    free(st.key);
    free(st.at);
    free(st.cnt);
    if (s) {
        smp_levels_free(out);
        free(notes);
        return s;
    }
    return hand_notes(notes, warnings);
}

smp_status smt_levels_for(const smt_topology *t, const smp_nodes *nodes, smp_levels *out,
                          smp_error *err)
{
    return smt_levels_with(t, nodes, false, out, NULL, err);
}

int smt_nodes_named(const smt_topology *t, const smp_nodes *nodes)
{
    if (t->n == 0)
        return -1;
    int found = 0;
    for (int v = 0; v < nodes->count; v++) {
        int64_t cnt;
        smt_members_of(t, nodes->names[v], &cnt);
        found += cnt > 0;
    }
    return found;
}
