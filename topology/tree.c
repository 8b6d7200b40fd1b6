/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The switches of topology/tree, from either parser: leaf switches hold
 * nodes, the others list child switches (a hostlist of switch names).
 * Each child gets the switch that lists it as its parent.  Sites with
 * several spines sometimes list the same leaves under each; such parents
 * are equivalent for grouping nodes, so a second parent is accepted when
 * it lists exactly the same children, and refused otherwise (the groups
 * would not nest). */
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

smp_status smt_tree_build(smt_topology *t, struct smt_switch_rec *recs, int n, smp_error *err)
{
    smp_status s = smt_index_units(t, err);
    struct kids *kids = calloc((size_t)(n ? n : 1), sizeof(*kids));
    int32_t *rec_of = malloc(sizeof(int32_t) * (size_t)(t->n ? t->n : 1));
    if (!s && (!kids || !rec_of))
        s = smp_error_set(err, SMP_ERR_SYSTEM, "%s: out of memory", t->source);
    for (int i = 0; i < n && !s; i++) {
        struct smt_switch_rec *r = &recs[i];
        rec_of[r->unit] = i;
        if (r->nodes) {
            char what[256];
            snprintf(what, sizeof(what), "%s:%d: switch '%s': %s", t->source, r->line,
                     t->u[r->unit].name, t->yaml ? "nodes" : "Nodes");
            s = smt_add_members(t, r->unit, r->nodes, what, err);
        } else if (r->switches) {
            s = resolve_children(t, r, &kids[i], err);
        }
    }
    for (int i = 0; i < n && !s; i++) {
        const struct kids *k = &kids[i];
        for (int j = 0; j < k->n && !s; j++) {
            struct smt_unit *c = &t->u[k->v[j]];
            if (c->parent < 0) {
                c->parent = recs[i].unit;
                continue;
            }
            const struct kids *o = &kids[rec_of[c->parent]];
            if (o->n != k->n || memcmp(o->v, k->v, sizeof(int32_t) * (size_t)k->n))
                s = smp_error_set(err, SMP_ERR_INPUT,
                                  "%s:%d: switch '%s' is under both '%s' and '%s', which list "
                                  "different switches: the groups would not nest",
                                  t->source, recs[i].line, c->name, t->u[c->parent].name,
                                  t->u[recs[i].unit].name);
        }
    }
    for (int i = 0; kids && i < n; i++)
        free(kids[i].v);
    free(kids);
    free(rec_of);
    if (!s)
        s = smt_finish(t, err);
    return s;
}
