/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Slurm's node-list syntax ("n[01-04,07],gpu[1-2]") and its cpus-per-node
 * syntax ("48(x3),32"), expanded to one entry per node. */
#include <ctype.h>
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "stencilmap/placement.h"

struct names {
    char **v;
    int n, cap;
};

static smp_status names_push(struct names *nm, const char *s, size_t len, smp_error *err)
{
    if (nm->n >= SMP_MAX_NODES)
        return smp_error_set(err, SMP_ERR_INPUT, "--nodes: more than %d nodes", SMP_MAX_NODES);
    if (nm->n == nm->cap) {
        int cap = nm->cap ? nm->cap * 2 : 16;
        char **v = realloc(nm->v, sizeof(char *) * (size_t)cap);
        if (!v)
            return smp_error_set(err, SMP_ERR_SYSTEM, "--nodes: out of memory");
        nm->v = v;
        nm->cap = cap;
    }
    if (!(nm->v[nm->n] = strndup(s, len)))
        return smp_error_set(err, SMP_ERR_SYSTEM, "--nodes: out of memory");
    nm->n++;
    return SMP_OK;
}

/* Expands one host expression (no top-level commas) that may hold several
 * bracket groups; prefix is what has been expanded so far. */
static smp_status expand(struct names *nm, const char *prefix, const char *expr, const char *end,
                         smp_error *err)
{
    const char *lb = memchr(expr, '[', (size_t)(end - expr));
    char buf[512];
    if (!lb) {
        int n = snprintf(buf, sizeof(buf), "%s%.*s", prefix, (int)(end - expr), expr);
        if (n >= (int)sizeof(buf) || n == 0)
            return smp_error_set(err, SMP_ERR_INPUT, "--nodes: bad host name");
        return names_push(nm, buf, (size_t)n, err);
    }
    const char *rb = memchr(lb, ']', (size_t)(end - lb));
    if (!rb)
        return smp_error_set(err, SMP_ERR_INPUT, "--nodes: '[' without ']'");
    if (rb == lb + 1)
        return smp_error_set(err, SMP_ERR_INPUT, "--nodes: empty brackets in '%.*s'",
                             (int)(end - expr), expr);
    /* each comma-separated range inside the brackets */
    for (const char *r = lb + 1; r < rb;) {
        const char *comma = memchr(r, ',', (size_t)(rb - r));
        const char *rend = comma ? comma : rb;
        const char *dash = memchr(r, '-', (size_t)(rend - r));
        const char *hi_s = dash ? dash + 1 : r;
        size_t width = (size_t)((dash ? dash : rend) - r);
        char *e1, *e2;
        errno = 0;
        long lo = strtol(r, &e1, 10), hi = strtol(hi_s, &e2, 10);
        if (errno || e1 != (dash ? dash : rend) || e2 != rend || !isdigit((unsigned char)*r) ||
            !isdigit((unsigned char)*hi_s) || hi < lo || hi - lo >= SMP_MAX_NODES)
            return smp_error_set(err, SMP_ERR_INPUT, "--nodes: bad range '%.*s'",
                                 (int)(rend - r), r);
        for (long v = lo; v <= hi; v++) {
            int n = snprintf(buf, sizeof(buf), "%s%.*s%0*ld", prefix, (int)(lb - expr), expr,
                             (int)width, v);
            if (n >= (int)sizeof(buf))
                return smp_error_set(err, SMP_ERR_INPUT, "--nodes: host name too long");
            smp_status s = expand(nm, buf, rb + 1, end, err);
            if (s)
                return s;
        }
        if (comma && comma + 1 == rb)
            return smp_error_set(err, SMP_ERR_INPUT, "--nodes: empty range in '%.*s'",
                                 (int)(end - expr), expr);
        r = comma ? comma + 1 : rb;
    }
    return SMP_OK;
}

/* Node names as Slurm and hostfiles can carry them: a hostfile line is one
 * name, so whitespace, '#' (a comment there) or control bytes would make
 * the hostfile say something other than the plan. */
static bool name_char(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
           c == '-' || c == '_' || c == '.';
}

smp_status smp_hostlist_expand(const char *hostlist, char ***names, int *count, smp_error *err)
{
    struct names nm = {0};
    smp_status s = SMP_OK;
    if (!hostlist || !*hostlist)
        s = smp_error_set(err, SMP_ERR_INPUT, "--nodes: empty node list");
    for (const char *c = hostlist; !s && *c; c++)
        if (!name_char(*c) && *c != ',' && *c != '[' && *c != ']')
            s = smp_error_set(err, SMP_ERR_INPUT,
                              "--nodes: character 0x%02x at offset %d is not allowed in a node "
                              "list (letters, digits, '-', '_', '.', ',', '[', ']')",
                              (unsigned)(unsigned char)*c, (int)(c - hostlist));
    /* split on commas outside brackets */
    for (const char *p = hostlist; !s && p && *p;) {
        const char *q = p;
        int depth = 0;
        while (*q && (depth || *q != ',')) {
            depth += (*q == '[') - (*q == ']');
            if (depth < 0 || depth > 1)
                break;
            q++;
        }
        if (depth != 0)
            s = smp_error_set(err, SMP_ERR_INPUT, "--nodes: unbalanced brackets in '%.100s'", hostlist);
        else if (q == p)
            s = smp_error_set(err, SMP_ERR_INPUT, "--nodes: empty entry in '%.100s'", hostlist);
        else
            s = expand(&nm, "", p, q, err);
        if (!s && *q == ',' && q[1] == '\0')
            s = smp_error_set(err, SMP_ERR_INPUT, "--nodes: trailing comma in '%.100s'", hostlist);
        p = *q ? q + 1 : q;
    }
    if (s) {
        for (int i = 0; i < nm.n; i++)
            free(nm.v[i]);
        free(nm.v);
        return s;
    }
    *names = nm.v;
    *count = nm.n;
    return SMP_OK;
}

smp_status smp_counts_parse(const char *spec, const char *field, int32_t *slots, int count,
                            smp_error *err)
{
    int filled = 0;
    const char *p = spec;
    while (*p) {
        char *e;
        errno = 0;
        long v = strtol(p, &e, 10);
        long rep = 1;
        if (e == p || errno || v < 1 || v > INT32_MAX)
            return smp_error_set(err, SMP_ERR_INPUT, "%s: '%.100s': counts must be positive integers", field, spec);
        if (*e == '(') {
            if (e[1] != 'x')
                return smp_error_set(err, SMP_ERR_INPUT, "%s: '%.100s': expected N(xM)", field, spec);
            char *e2;
            rep = strtol(e + 2, &e2, 10);
            if (e2 == e + 2 || *e2 != ')' || rep < 1 || rep > SMP_MAX_NODES)
                return smp_error_set(err, SMP_ERR_INPUT, "%s: '%.100s': bad repeat count", field, spec);
            e = e2 + 1;
        }
        if (*e && (*e != ',' || e[1] == '\0'))
            return smp_error_set(err, SMP_ERR_INPUT, "%s: '%.100s': unexpected '%c'", field, spec, *e);
        for (long k = 0; k < rep; k++) {
            if (filled >= count)
                return smp_error_set(err, SMP_ERR_INPUT, "%s: '%.100s' lists more nodes than the %d given",
                                     field, spec, count);
            slots[filled++] = (int32_t)v;
        }
        p = *e ? e + 1 : e;
    }
    if (filled == 1)
        for (int i = 1; i < count; i++)
            slots[i] = slots[0];
    else if (filled != count)
        return smp_error_set(err, SMP_ERR_INPUT, "%s: '%.100s' lists %d nodes but --nodes has %d", field,
                             spec, filled, count);
    return SMP_OK;
}

static int cmp_name(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* A node named twice would get two shares of ranks while Slurm runs one
 * set of tasks there: refused, naming the node. */
static smp_status check_unique(char **names, int count, smp_error *err)
{
    if (count < 2)
        return SMP_OK;
    char **sorted = malloc(sizeof(char *) * (size_t)count);
    if (!sorted)
        return smp_error_set(err, SMP_ERR_SYSTEM, "--nodes: out of memory");
    memcpy(sorted, names, sizeof(char *) * (size_t)count);
    qsort(sorted, (size_t)count, sizeof(char *), cmp_name);
    smp_status s = SMP_OK;
    for (int i = 1; i < count && !s; i++)
        if (!strcmp(sorted[i - 1], sorted[i]))
            s = smp_error_set(err, SMP_ERR_INPUT, "--nodes: node '%.200s' is named twice",
                              sorted[i]);
    free(sorted);
    return s;
}

smp_status smp_nodes_parse(smp_nodes *nodes, const char *hostlist, const char *slots,
                           smp_error *err)
{
    memset(nodes, 0, sizeof(*nodes));
    smp_status s = smp_hostlist_expand(hostlist, &nodes->names, &nodes->count, err);
    if (s)
        return s;
    if ((s = check_unique(nodes->names, nodes->count, err)))
        ;
    else if (!slots || !*slots)
        s = smp_error_set(err, SMP_ERR_INPUT, "--slots: missing");
    else if (!(nodes->slots = malloc(sizeof(int32_t) * (size_t)nodes->count)))
        s = smp_error_set(err, SMP_ERR_SYSTEM, "--slots: out of memory");
    else
        s = smp_counts_parse(slots, "--slots", nodes->slots, nodes->count, err);
    if (s) {
        smp_nodes_free(nodes);
        return s;
    }
    for (int i = 0; i < nodes->count; i++)
        nodes->total_slots += nodes->slots[i];
    return SMP_OK;
}

void smp_nodes_free(smp_nodes *nodes)
{
    for (int i = 0; i < nodes->count; i++)
        free(nodes->names[i]);
    free(nodes->names);
    free(nodes->slots);
    memset(nodes, 0, sizeof(*nodes));
}
