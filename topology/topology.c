/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The topology model shared by both parsers: units (switches or blocks),
 * their parents, and which nodes sit under which leaf unit.  Names are
 * checked and counted against the limits here, once for both parsers. */
#define _GNU_SOURCE /* qsort_r */
#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "topology_internal.h"

smt_topology *smt_new(enum smt_kind_e kind, const char *source)
{
    smt_topology *t = calloc(1, sizeof(*t));
    if (t) {
        t->kind = kind;
        snprintf(t->source, sizeof(t->source), "%s", source ? source : "topology");
    }
    return t;
}

void smt_free(smt_topology *t)
{
    if (!t)
        return;
    for (int i = 0; i < t->n; i++)
        free(t->u[i].name);
    free(t->u);
    for (int64_t i = 0; i < t->nnames; i++)
        free(t->names[i]);
    free(t->names);
    free(t->m);
    free(t->byname);
    free(t->notes);
    free(t);
}

const char *smt_kind(const smt_topology *t)
{
    return t->n == 0 ? "none" : t->kind == SMT_BLOCK ? "topology/block" : "topology/tree";
}

const char *smt_source(const smt_topology *t)
{
    return t->source;
}

bool smt_name_ok(const char *s, size_t len, bool hostlist_chars)
{
    if (len < 1 || len > (hostlist_chars ? SMT_MAX_AGGREGATED_NAME : SMT_MAX_NAME))
        return false;
    for (size_t i = 0; i < len; i++) {
        unsigned char c = (unsigned char)s[i];
        if (isalnum(c) || c == '-' || c == '_' || c == '.')
            continue;
        if (hostlist_chars && (c == '[' || c == ']' || c == ','))
            continue;
        return false;
    }
    return true;
}

int32_t smt_add_unit(smt_topology *t, const char *name, size_t len, bool leaf, int line,
                     smp_error *err)
{
    if (t->n >= SMT_MAX_UNITS) {
        smp_error_set(err, SMP_ERR_INPUT, "%s:%d: more than %d switches or blocks", t->source,
                      line, SMT_MAX_UNITS);
        return -1;
    }
    if (t->n == t->cap) {
        int cap = t->cap ? 2 * t->cap : 64;
        struct smt_unit *u = realloc(t->u, sizeof(*u) * (size_t)cap);
        if (!u) {
            smp_error_set(err, SMP_ERR_SYSTEM, "%s: out of memory", t->source);
            return -1;
        }
        t->u = u;
        t->cap = cap;
    }
    char *copy = strndup(name, len);
    if (!copy) {
        smp_error_set(err, SMP_ERR_SYSTEM, "%s: out of memory", t->source);
        return -1;
    }
    t->u[t->n] = (struct smt_unit){.name = copy, .parent = -1, .leaf = leaf, .line = line};
    return t->n++;
}

/* ---- finding units by name: indices sorted by name ------------------ */
static int cmp_unit_name(const void *a, const void *b, void *ctx)
{
    const smt_topology *t = ctx;
    int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;
    int c = strcmp(t->u[x].name, t->u[y].name);
    return c ? c : (x > y) - (x < y);
}

smp_status smt_index_units(smt_topology *t, smp_error *err)
{
    free(t->byname);
    t->byname = malloc(sizeof(int32_t) * (size_t)(t->n ? t->n : 1));
    if (!t->byname)
        return smp_error_set(err, SMP_ERR_SYSTEM, "%s: out of memory", t->source);
    for (int32_t i = 0; i < t->n; i++)
        t->byname[i] = i;
    if (t->n > 1)
        qsort_r(t->byname, (size_t)t->n, sizeof(int32_t), cmp_unit_name, t);
    for (int i = 1; i < t->n; i++) {
        const struct smt_unit *a = &t->u[t->byname[i - 1]], *b = &t->u[t->byname[i]];
        if (!strcmp(a->name, b->name))
            return smp_error_set(err, SMP_ERR_INPUT, "%s:%d: %s '%s' is already defined on line %d",
                                 t->source, b->line, t->kind == SMT_BLOCK ? "block" : "switch",
                                 b->name, a->line);
    }
    return SMP_OK;
}

int32_t smt_find_unit(const smt_topology *t, const char *name)
{
    int lo = 0, hi = t->byname ? t->n : 0;
    while (lo < hi) {
        int mid = (lo + hi) / 2;
        int c = strcmp(t->u[t->byname[mid]].name, name);
        if (c == 0)
            return t->byname[mid];
        if (c < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return -1;
}

smp_status smt_add_members(smt_topology *t, int32_t u, const char *hostlist, const char *what,
                           smp_error *err)
{
    char **names = NULL;
    int count = 0;
    smp_error herr;
    if (smp_hostlist_expand(hostlist, &names, &count, &herr)) {
        const char *m = herr.msg; /* the expander speaks of the command's option */
        if (!strncmp(m, "--nodes: ", 9))
            m += 9;
        return smp_error_set(err, SMP_ERR_INPUT, "%s: %s", what, m);
    }
    smp_status s = SMP_OK;
    if (count == 0)
        s = smp_error_set(err, SMP_ERR_INPUT, "%s: no nodes", what);
    for (int i = 0; i < count && !s; i++)
        if (!smt_name_ok(names[i], strlen(names[i]), false))
            s = smp_error_set(err, SMP_ERR_INPUT,
                              "%s: node name '%.80s' (letters, digits, '-', '_', '.'; at most %d)",
                              what, names[i], SMT_MAX_NAME);
    if (!s && t->nm + count > SMT_MAX_MEMBERS)
        s = smp_error_set(err, SMP_ERR_INPUT, "%s: more than %d node entries in all", what,
                          SMT_MAX_MEMBERS);
    while (!s && t->nm + count > t->mcap) {
        int64_t cap = t->mcap ? 2 * t->mcap : 1024;
        struct smt_member *m = realloc(t->m, sizeof(*m) * (size_t)cap);
        char **nm = realloc(t->names, sizeof(char *) * (size_t)cap);
        if (m)
            t->m = m;
        if (nm)
            t->names = nm;
        if (!m || !nm)
            s = smp_error_set(err, SMP_ERR_SYSTEM, "%s: out of memory", t->source);
        else
            t->mcap = t->ncap = cap;
    }
    for (int i = 0; i < count; i++) {
        if (s) {
            free(names[i]);
            continue;
        }
        t->names[t->nnames++] = names[i];
        t->m[t->nm++] = (struct smt_member){.node = names[i], .unit = u};
    }
    free(names);
    return s;
}

static int cmp_member(const void *a, const void *b)
{
    const struct smt_member *x = a, *y = b;
    int c = strcmp(x->node, y->node);
    return c ? c : (x->unit > y->unit) - (x->unit < y->unit);
}

smp_status smt_finish(smt_topology *t, smp_error *err)
{
    if (t->nm > 1) /* with no member t->m may be NULL, which qsort must not get */
        qsort(t->m, (size_t)t->nm, sizeof(*t->m), cmp_member);
    /* a loop: a walk up from any unit longer than the number of units */
    for (int32_t i = 0; i < t->n; i++) {
        int32_t v = i;
        for (int steps = 0; v >= 0; steps++) {
            if (steps > t->n) /* v is on the loop by now */
                return smp_error_set(err, SMP_ERR_INPUT,
                                     "%s:%d: a loop in %s through switch '%s'", t->source,
                                     t->u[v].line, smt_children_field(t), t->u[v].name);
            v = t->u[v].parent;
        }
    }
    return SMP_OK;
}

int smt_uplinks(const smt_topology *t, const char *name)
{
    int32_t u = smt_find_unit(t, name);
    return u < 0 ? -1 : t->u[u].uplinks;
}

int64_t smt_link_speed(const smt_topology *t, const char *name)
{
    int32_t u = smt_find_unit(t, name);
    return u < 0 ? -1 : (int64_t)t->u[u].link_speed;
}

int64_t smt_members_of(const smt_topology *t, const char *node, int64_t *count)
{
    int64_t lo = 0, hi = t->nm;
    while (lo < hi) {
        int64_t mid = (lo + hi) / 2;
        if (strcmp(t->m[mid].node, node) < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    int64_t end = lo;
    while (end < t->nm && !strcmp(t->m[end].node, node))
        end++;
    *count = end - lo;
    return lo;
}

void smt_note(char **notes, const char *fmt, ...)
{
    char line[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof(line), fmt, ap);
    va_end(ap);
    size_t old = *notes ? strlen(*notes) : 0, add = strlen(line);
    char *grown = realloc(*notes, old + add + 2);
    if (!grown)
        return;
    memcpy(grown + old, line, add);
    memcpy(grown + old + add, "\n", 2);
    *notes = grown;
}
