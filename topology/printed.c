/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* What `scontrol show topology` prints (slurm_print_topo_info_msg), read
 * back.  Checked in Slurm's sources: 22.05 prints the tree in
 * src/api/topo_info.c, 23.11 on in the plugins' _print_topo_record.
 *
 * Tree (every release): "SwitchName=%s Level=%u LinkSpeed=%u[ Nodes=%s][
 * Switches=%s]".  Level 0 switches are leaves and their Nodes= place the
 * nodes; an upper switch lists all its descendant nodes and its child
 * switches, and only the latter are used.
 *
 * Block 23.11-24.05: "BlockName=%s BlockIndex=%u[ Nodes=%s]", base blocks
 * only.  24.11 on: "BlockName=%s|AggregatedBlock=%s BlockIndex=%u[
 * Nodes=%s] BlockSize=%u": aggregated blocks of one BlockSize form one
 * level (the sizes ascending); each block's parent is the block of the
 * next larger size that holds its first node.
 *
 * "No topology information available" is logged on stderr by Slurm, but
 * is passed over here too, as is empty text: no units, no levels.
 * SLURM_TOPO_LEN cuts lines: the caller unsets it. */
#define _GNU_SOURCE /* memmem */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "lines.h"

#define SOURCE "scontrol show topology" /* the source of what Slurm prints unsaved */
#define NO_TOPOLOGY "No topology information available"

struct block_rec {
    int32_t unit;
    bool aggregated;
    uint32_t size;
    char *nodes;
    int line;
};

struct printed_state {
    smt_topology *t;
    struct smt_switch_rec *sw;
    struct block_rec *bl;
    int n, cap;
};

static smp_status grow(struct printed_state *p, smp_error *err)
{
    if (p->n < p->cap)
        return SMP_OK;
    int cap = p->cap ? 2 * p->cap : 64;
    struct smt_switch_rec *sw = realloc(p->sw, sizeof(*sw) * (size_t)cap);
    if (sw)
        p->sw = sw;
    struct block_rec *bl = realloc(p->bl, sizeof(*bl) * (size_t)cap);
    if (bl)
        p->bl = bl;
    if (!sw || !bl)
        return smp_error_set(err, SMP_ERR_SYSTEM, "%s: out of memory", p->t->source);
    p->cap = cap;
    return SMP_OK;
}

static smp_status switch_line(struct printed_state *p, const struct smt_line *l, smp_error *err)
{
    static const char *const keys[] = {"Level", "LinkSpeed", "Nodes", "Switches", NULL};
    smt_topology *t = p->t;
    const char *name = l->p[0].value, *lvl = smt_value(l, 1, "Level");
    uint32_t level;
    smp_status s = smt_keys_check(l, 1, keys, t->source, err);
    if (s)
        return s;
    if (!smt_name_ok(name, strlen(name), false))
        return smp_error_set(err, SMP_ERR_INPUT, "%s:%d: switch name '%.80s'", t->source, l->number,
                             name);
    if (!lvl || !smt_parse_u32(lvl, &level))
        return smp_error_set(err, SMP_ERR_INPUT, "%s:%d: switch '%s': no Level=N", t->source, l->number,
                             name);
    const char *nodes = smt_value(l, 1, "Nodes"), *switches = smt_value(l, 1, "Switches"),
               *speed = smt_value(l, 1, "LinkSpeed");
    uint32_t link_speed = 0;
    if (speed && !smt_parse_u32(speed, &link_speed))
        return smp_error_set(err, SMP_ERR_INPUT, "%s:%d: switch '%s': LinkSpeed '%.40s' is not "
                             "an unsigned 32-bit number", t->source, l->number, name, speed);
    if (level == 0 && !nodes)
        return smp_error_set(err, SMP_ERR_INPUT, "%s:%d: leaf switch '%s' without Nodes=", t->source,
                             l->number, name);
    if (level > 0 && !switches)
        return smp_error_set(err, SMP_ERR_INPUT, "%s:%d: switch '%s' of level %u without "
                             "Switches=", t->source, l->number, name, level);
    if ((s = grow(p, err)))
        return s;
    int32_t u = smt_add_unit(t, name, strlen(name), level == 0, l->number, err);
    if (u < 0)
        return err->status;
    t->u[u].link_speed = link_speed;
    /* an upper switch's Nodes= repeat its descendants': not used */
    struct smt_switch_rec *r = &p->sw[p->n++];
    *r = (struct smt_switch_rec){.unit = u, .line = l->number};
    r->nodes = level == 0 ? strdup(nodes) : NULL;
    r->switches = level > 0 ? strdup(switches) : NULL;
    if (!r->nodes && !r->switches)
        return smp_error_set(err, SMP_ERR_SYSTEM, "%s: out of memory", t->source);
    return SMP_OK;
}

static smp_status block_line(struct printed_state *p, const struct smt_line *l, bool aggregated,
                             smp_error *err)
{
    static const char *const keys[] = {"BlockIndex", "Nodes", "BlockSize", NULL};
    smt_topology *t = p->t;
    const char *name = l->p[0].value, *idx = smt_value(l, 1, "BlockIndex"),
               *size = smt_value(l, 1, "BlockSize");
    uint32_t v, bsize = 0;
    smp_status s = smt_keys_check(l, 1, keys, t->source, err);
    if (s)
        return s;
    if (!smt_name_ok(name, strlen(name), aggregated))
        return smp_error_set(err, SMP_ERR_INPUT, "%s:%d: block name '%.80s'", t->source, l->number, name);
    if (!idx || !smt_parse_u32(idx, &v))
        return smp_error_set(err, SMP_ERR_INPUT, "%s:%d: block '%s': no BlockIndex=N", t->source,
                             l->number, name);
    if (size && (!smt_parse_u32(size, &bsize) || bsize == 0))
        return smp_error_set(err, SMP_ERR_INPUT, "%s:%d: block '%s': BlockSize '%.20s'", t->source,
                             l->number, name, size);
    if (aggregated && !size)
        return smp_error_set(err, SMP_ERR_INPUT, "%s:%d: aggregated block '%s' without "
                             "BlockSize=", t->source, l->number, name);
    const char *nodes = smt_value(l, 1, "Nodes");
    if (!aggregated && !nodes)
        return smp_error_set(err, SMP_ERR_INPUT, "%s:%d: block '%s' without Nodes=", t->source,
                             l->number, name);
    if (aggregated && !nodes)
        return SMP_OK; /* holds no node: nothing to group */
    if ((s = grow(p, err)))
        return s;
    int32_t u = smt_add_unit(t, name, strlen(name), !aggregated, l->number, err);
    if (u < 0)
        return err->status;
    struct block_rec *b = &p->bl[p->n++];
    *b = (struct block_rec){.unit = u, .aggregated = aggregated, .size = bsize,
                            .nodes = strdup(nodes), .line = l->number};
    if (!b->nodes)
        return smp_error_set(err, SMP_ERR_SYSTEM, "%s: out of memory", t->source);
    return SMP_OK;
}

static int cmp_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return (x > y) - (x < y);
}

/* Base blocks are members; each block's parent is the block of the next
 * larger aggregated size that holds its first node. */
static smp_status build_blocks(struct printed_state *p, smp_error *err)
{
    smt_topology *t = p->t;
    int n = p->n, nsizes = 0;
    smp_status s = SMP_OK;
    uint32_t *sizes = malloc(sizeof(uint32_t) * (size_t)(n ? n : 1));
    int *rank = malloc(sizeof(int) * (size_t)(n ? n : 1));
    const char **first = malloc(sizeof(char *) * (size_t)(n ? n : 1)); /* each block's first node */
    smt_topology **per = NULL; /* per rank: a scratch model of its blocks' nodes */
    if (!sizes || !rank || !first) {
        s = smp_error_set(err, SMP_ERR_SYSTEM, "%s: out of memory", t->source);
        goto done;
    }
    for (int i = 0; i < n; i++)
        if (p->bl[i].aggregated)
            sizes[nsizes++] = p->bl[i].size;
    if (nsizes > 1)
        qsort(sizes, (size_t)nsizes, sizeof(uint32_t), cmp_u32);
    int m = 0;
    for (int i = 0; i < nsizes; i++)
        if (m == 0 || sizes[m - 1] != sizes[i])
            sizes[m++] = sizes[i];
    nsizes = m;
    for (int i = 0; i < n; i++) {
        rank[i] = 0;
        if (p->bl[i].aggregated)
            for (int k = 0; k < nsizes; k++)
                if (sizes[k] == p->bl[i].size)
                    rank[i] = k + 1;
    }
    /* the models of rank 0 (t itself: base blocks) and of each size */
    per = calloc((size_t)nsizes + 1, sizeof(*per));
    if (!per) {
        s = smp_error_set(err, SMP_ERR_SYSTEM, "%s: out of memory", t->source);
        goto done;
    }
    per[0] = t;
    for (int k = 1; k <= nsizes && !s; k++)
        if (!(per[k] = smt_new(SMT_BLOCK, t->source)))
            s = smp_error_set(err, SMP_ERR_SYSTEM, "%s: out of memory", t->source);
    for (int i = 0; i < n && !s; i++) {
        char what[256];
        snprintf(what, sizeof(what), "%s:%d: block '%s': Nodes", t->source, p->bl[i].line,
                 t->u[p->bl[i].unit].name);
        /* in the scratch models, a block's "unit" is its unit in t */
        int64_t at = per[rank[i]]->nnames;
        s = smt_add_members(per[rank[i]], p->bl[i].unit, p->bl[i].nodes, what, err);
        if (!s)
            first[i] = per[rank[i]]->names[at]; /* names keep their order */
    }
    for (int k = 1; k <= nsizes && !s; k++)
        s = smt_finish(per[k], err);
    for (int i = 0; i < n && !s; i++) {
        const struct block_rec *b = &p->bl[i];
        for (int k = rank[i] + 1; k <= nsizes; k++) {
            int64_t cnt, at = smt_members_of(per[k], first[i], &cnt);
            if (cnt > 0) {
                t->u[b->unit].parent = per[k]->m[at].unit;
                break;
            }
        }
    }
    if (!s)
        s = smt_finish(t, err);
done:
    for (int k = 1; per && k <= nsizes; k++)
        smt_free(per[k]);
    free(per);
    free(sizes);
    free(rank);
    free(first);
    return s;
}

smp_status smt_parse_printed(const char *text, size_t len, smt_topology **out, smp_error *err)
{
    return smt_parse_printed_from(text, len, NULL, out, err);
}

smp_status smt_parse_printed_from(const char *text, size_t len, const char *saved,
                                  smt_topology **out, smp_error *err)
{
    const char *source = saved ? saved : SOURCE;
    *out = NULL;
    if (len > SMT_MAX_BYTES)
        return smp_error_set(err, SMP_ERR_INPUT, "%s: %zu bytes, larger than the limit of %d", source,
                             len, SMT_MAX_BYTES);
    struct printed_state p = {.t = smt_new(SMT_NONE, source)};
    if (!p.t)
        return smp_error_set(err, SMP_ERR_SYSTEM, "%s: out of memory", source);
    struct smt_reader r = {.text = text, .end = text + len, .conf = false, .source = source};
    struct smt_line l;
    int got;
    smp_status s = SMP_OK;
    while (!s && (got = smt_next_line(&r, &l, NO_TOPOLOGY, err)) > 0) {
        const char *k = l.p[0].key;
        enum smt_kind_e kind = !strcasecmp(k, "SwitchName") ? SMT_TREE
                               : !strcasecmp(k, "BlockName") || !strcasecmp(k, "AggregatedBlock")
                                   ? SMT_BLOCK
                                   : SMT_NONE;
        if (kind == SMT_NONE)
            s = smp_error_set(err, SMP_ERR_INPUT,
                              "%s:%d: not a line of topology/tree or topology/block: "
                              "'%.60s=...'", source, l.number, k);
        else if (p.t->kind != SMT_NONE && p.t->kind != kind)
            s = smp_error_set(err, SMP_ERR_INPUT, "%s:%d: switches and blocks mixed", source,
                              l.number);
        else {
            p.t->kind = kind;
            s = kind == SMT_TREE ? switch_line(&p, &l, err)
                                 : block_line(&p, &l, !strcasecmp(k, "AggregatedBlock"), err);
        }
        smt_line_free(&l);
    }
    if (!s && got < 0)
        s = err->status;
    if (!s && p.t->kind == SMT_TREE)
        s = smt_tree_build(p.t, p.sw, p.n, err);
    if (!s && p.t->kind == SMT_BLOCK)
        s = build_blocks(&p, err);
    for (int i = 0; i < p.n; i++) {
        if (p.t->kind == SMT_TREE) {
            free(p.sw[i].nodes);
            free(p.sw[i].switches);
        } else {
            free(p.bl[i].nodes);
        }
    }
    free(p.sw);
    free(p.bl);
    if (s) {
        smt_free(p.t);
        return s;
    }
    if (p.t->kind != SMT_NONE && !saved)
        snprintf(p.t->source, sizeof(p.t->source), "slurm (%s)", smt_kind(p.t));
    *out = p.t;
    return SMP_OK;
}

/* The first line that is not blank, as [*b, *e). */
static void first_line(const char *text, size_t len, const char **b, const char **e)
{
    const char *p = text, *end = text + len;
    while (p < end && (*p == ' ' || *p == '\t' || *p == '\r' || *p == '\n'))
        p++;
    const char *nl = memchr(p, '\n', (size_t)(end - p));
    *b = p;
    *e = nl ? nl : end;
}

static bool starts_key(const char *b, const char *e, const char *key)
{
    size_t n = strlen(key);
    return (size_t)(e - b) > n && !strncasecmp(b, key, n) && b[n] == '=';
}

/* Whether key= appears as a word of [b, e) (after a blank). */
static bool has_key(const char *b, const char *e, const char *key)
{
    size_t n = strlen(key);
    for (const char *p = b; p + n < e; p++)
        if ((p[0] == ' ' || p[0] == '\t') && !strncasecmp(p + 1, key, n) && p[1 + n] == '=')
            return true;
    return false;
}

enum smt_printed smt_printed_form(const char *text, size_t len)
{
    const char *b, *e;
    first_line(text, len, &b, &e);
    const char *hash = memchr(b, '#', (size_t)(e - b));
    if (hash) /* topology.conf's comment: scontrol prints none */
        e = hash;
    if (e - b >= (ptrdiff_t)strlen(NO_TOPOLOGY) && memmem(b, (size_t)(e - b), NO_TOPOLOGY,
                                                          strlen(NO_TOPOLOGY)))
        return SMT_PRINTED_NOTHING;
    if (starts_key(b, e, "SwitchName") && has_key(b, e, "Level"))
        return SMT_PRINTED_LINES;
    if ((starts_key(b, e, "BlockName") || starts_key(b, e, "AggregatedBlock")) &&
        has_key(b, e, "BlockIndex"))
        return SMT_PRINTED_LINES;
    /* 26.05's ring and torus3d: the parser names them as not read */
    if (starts_key(b, e, "RingName") || starts_key(b, e, "TorusName"))
        return SMT_PRINTED_LINES;
    return SMT_PRINTED_NOT;
}
