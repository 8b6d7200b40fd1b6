/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The switches of topology/tree, from either parser: leaf switches hold
 * nodes, the others list child switches (a hostlist of switch names).
 * Slurm (switch_record.c) accepts a switch listed under several parents:
 * it keeps the last as its parent and counts every path for distances.
 * Groups of nodes must nest, so parents that share a child are merged
 * into one group (named after the first in the file), as far up as it
 * takes.  Parents that list exactly the same children (equal spines) are
 * equivalent and merge silently; others are merged with one warning line
 * (t->notes), and strict mode refuses them with t->strict_msg.  Each
 * switch keeps its count of parents as uplinks. */
#define _GNU_SOURCE /* qsort_r */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lines.h"

static int cmp_i32(const void *a, const void *b)
{
    int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;
    return (x > y) - (x < y);
}

/* children of each switch, sorted (for the equal-spines check) */
struct kids {
    int32_t *v;
    int n;
};

static smp_status resolve_children(smt_topology *t, const struct smt_switch_rec *r,
                                   struct kids *k, smp_error *err)
{
    const char *self = t->u[r->unit].name;
    char **names = NULL;
    int count = 0;
    smp_error herr;
    if (smp_hostlist_expand(r->switches, &names, &count, &herr))
        return smp_error_set(err, SMP_ERR_INPUT, "%s:%d: switch '%s': %s %s", t->source,
                             r->line, self, t->yaml ? "children:" : "Switches:",
                             strncmp(herr.msg, "--nodes: ", 9) ? herr.msg : herr.msg + 9);
    smp_status s = SMP_OK;
    k->v = malloc(sizeof(int32_t) * (size_t)(count ? count : 1));
    if (!k->v)
        s = smp_error_set(err, SMP_ERR_SYSTEM, "%s: out of memory", t->source);
    if (!s && count == 0)
        s = smp_error_set(err, SMP_ERR_INPUT, "%s:%d: switch '%s': %s names no switch",
                          t->source, r->line, self, smt_children_field(t));
    for (int i = 0; i < count && !s; i++) {
        int32_t c = smt_find_unit(t, names[i]);
        if (c < 0)
            s = smp_error_set(err, SMP_ERR_INPUT,
                              "%s:%d: switch '%s': %s names unknown switch '%.80s'",
                              t->source, r->line, self, smt_children_field(t), names[i]);
        else if (c == r->unit)
            s = smp_error_set(err, SMP_ERR_INPUT,
                              "%s:%d: a loop in %s: switch '%s' lists itself", t->source,
                              r->line, smt_children_field(t), self);
        else
            k->v[k->n++] = c;
    }
    for (int i = 0; i < count; i++)
        free(names[i]);
    free(names);
    if (!s) {
        if (k->n > 1)
            qsort(k->v, (size_t)k->n, sizeof(int32_t), cmp_i32);
        int m = 0; /* a child named twice is one child */
        for (int i = 0; i < k->n; i++)
            if (m == 0 || k->v[m - 1] != k->v[i])
                k->v[m++] = k->v[i];
        k->n = m;
    }
    return s;
}

static int32_t uf_find(int32_t *uf, int32_t x)
{
    while (uf[x] != x)
        x = uf[x] = uf[uf[x]];
    return x;
}

/* Whether two parents list the same children (kids are sorted). */
static bool same_kids(const struct kids *a, const struct kids *b)
{
    return a->n == b->n && !memcmp(a->v, b->v, sizeof(int32_t) * (size_t)a->n);
}

/* What the merging works on: the records' children, the union-find of
 * units, each merged child's first parent, and the first merge of parents
 * that list different children (child, first parent, second parent). */
struct merging {
    smt_topology *t;
    const struct smt_switch_rec *recs;
    int n;
    const struct kids *kids;
    int32_t *rec_of, *uf, *first;
    int32_t ex[3];
};

/* Merges the parent sets f and p, met through record i's child c. */
static void merge_parents(struct merging *m, int32_t f, int32_t p, int i, int32_t c)
{
    smt_topology *t = m->t;
    if (m->ex[0] < 0 && !same_kids(&m->kids[m->rec_of[f]], &m->kids[i])) {
        m->ex[0] = c;
        m->ex[1] = f;
        m->ex[2] = p;
        snprintf(t->strict_msg, sizeof(t->strict_msg),
                 "%s:%d: switch '%s' is under both '%s' and '%s', which list different "
                 "switches: the groups would not nest", t->source, m->recs[i].line,
                 t->u[c].name, t->u[f].name, t->u[p].name);
    }
    m->uf[f > p ? f : p] = f > p ? p : f; /* the first in the file names the group */
}

/* One pass over every (parent, child) link: a merged child's first parent
 * is kept in first[], a second one is merged with it.  Whether anything
 * was merged. */
static bool merge_pass(struct merging *m)
{
    bool changed = false;
    for (int u = 0; u < m->t->n; u++)
        m->first[u] = -1;
    for (int i = 0; i < m->n; i++) {
        for (int j = 0; j < m->kids[i].n; j++) {
            int32_t c = uf_find(m->uf, m->kids[i].v[j]), p = uf_find(m->uf, m->recs[i].unit);
            if (c == p)
                continue;
            int32_t f = m->first[c] < 0 ? -1 : uf_find(m->uf, m->first[c]);
            if (f < 0 || f == p) {
                m->first[c] = p;
                continue;
            }
            merge_parents(m, f, p, i, m->kids[i].v[j]);
            m->first[uf_find(m->uf, c)] = uf_find(m->uf, p);
            changed = true;
        }
    }
    return changed;
}

static int cmp_by_set(const void *a, const void *b, void *ctx)
{
    int32_t *uf = ctx, x = *(const int32_t *)a, y = *(const int32_t *)b;
    int32_t rx = uf_find(uf, x), ry = uf_find(uf, y);
    if (rx != ry)
        return rx < ry ? -1 : 1;
    return (x > y) - (x < y);
}

/* The merged sets whose members list different children, as "'a'+'b'"
 * into buf (up to its size); in O(n log n) for n units. */
static void merged_sets(const struct merging *m, char *buf, size_t len)
{
    const smt_topology *t = m->t;
    bool *differ = calloc((size_t)t->n, sizeof(bool));
    int32_t *idx = malloc(sizeof(int32_t) * (size_t)t->n), k = 0;
    buf[0] = '\0';
    for (int32_t u = 0; differ && idx && u < t->n; u++) {
        int32_t r = uf_find(m->uf, u);
        if (r != u && !same_kids(&m->kids[m->rec_of[u]], &m->kids[m->rec_of[r]]))
            differ[r] = true;
    }
    for (int32_t u = 0; differ && idx && u < t->n; u++)
        if (differ[uf_find(m->uf, u)])
            idx[k++] = u;
    if (k > 1)
        qsort_r(idx, (size_t)k, sizeof(int32_t), cmp_by_set, m->uf);
    size_t w = 0;
    for (int32_t i = 0; i < k && w + 1 < len; i++) {
        bool first = uf_find(m->uf, idx[i]) == idx[i];
        w += (size_t)snprintf(buf + w, len - w, "%s'%s'", first ? (w ? ", " : "") : "+",
                              t->u[idx[i]].name);
    }
    free(differ);
    free(idx);
}

/* Each unit's parent after merging, its uplinks, and the warning line. */
static void set_parents(struct merging *m)
{
    smt_topology *t = m->t;
    for (int i = 0; i < m->n; i++)
        for (int j = 0; j < m->kids[i].n; j++)
            t->u[m->kids[i].v[j]].uplinks++;
    for (int32_t u = 0; u < t->n; u++) {
        int32_t r = uf_find(m->uf, u);
        t->u[u].parent = m->first[r] < 0 ? -1 : uf_find(m->uf, m->first[r]);
    }
    if (m->ex[0] < 0)
        return;
    char sets[400];
    merged_sets(m, sets, sizeof(sets));
    smt_note(&t->notes,
             "topology %s: switch '%s' is under both '%s' and '%s', which list different "
             "switches (Slurm accepts it): merged %s, each set one group named after its "
             "first switch, so that the levels nest", t->source, t->u[m->ex[0]].name,
             t->u[m->ex[1]].name, t->u[m->ex[2]].name, sets);
}

/* Links children to parents, merging parents that share a child. */
static smp_status link_parents(smt_topology *t, const struct smt_switch_rec *recs, int n,
                               const struct kids *kids, int32_t *rec_of, smp_error *err)
{
    struct merging m = {.t = t, .recs = recs, .n = n, .kids = kids, .rec_of = rec_of,
                        .ex = {-1, -1, -1}};
    m.uf = malloc(sizeof(int32_t) * (size_t)(t->n ? t->n : 1));
    m.first = malloc(sizeof(int32_t) * (size_t)(t->n ? t->n : 1));
    smp_status s = SMP_OK;
    if (!m.uf || !m.first)
        s = smp_error_set(err, SMP_ERR_SYSTEM, "%s: out of memory", t->source);
    for (int32_t u = 0; !s && u < t->n; u++)
        m.uf[u] = u;
    while (!s && merge_pass(&m))
        ;
    if (!s)
        set_parents(&m);
    free(m.uf);
    free(m.first);
    return s;
}

smp_status smt_tree_build(smt_topology *t, struct smt_switch_rec *recs, int n, smp_error *err)
{
    smp_status s = smt_index_units(t, err);
    struct kids *kids = calloc((size_t)(n ? n : 1), sizeof(*kids));
    int32_t *rec_of = malloc(sizeof(int32_t) * (size_t)(t->n ? t->n : 1));
    if (!s && (!kids || !rec_of))
        s = smp_error_set(err, SMP_ERR_SYSTEM, "%s: out of memory", t->source);
    for (int32_t u = 0; !s && u < t->n; u++)
        rec_of[u] = -1;
    for (int i = 0; i < n && !s; i++) {
        struct smt_switch_rec *r = &recs[i];
        if (r->nodes) {
            char what[256];
            snprintf(what, sizeof(what), "%s:%d: switch '%s': %s", t->source, r->line,
                     t->u[r->unit].name, t->yaml ? "nodes" : "Nodes");
            s = smt_add_members(t, r->unit, r->nodes, what, err);
        } else if (r->switches) {
            rec_of[r->unit] = i;
            s = resolve_children(t, r, &kids[i], err);
        }
    }
    if (!s)
        s = link_parents(t, recs, n, kids, rec_of, err);
    for (int i = 0; kids && i < n; i++)
        free(kids[i].v);
    free(kids);
    free(rec_of);
    if (!s)
        s = smt_finish(t, err);
    return s;
}
